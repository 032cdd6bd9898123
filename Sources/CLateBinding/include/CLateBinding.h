// libgit2, libcrypto and ncurses bound on first use (late-binding.c): linking this target is what binds them.
#ifndef TRESOR_CLATEBINDING_H
#define TRESOR_CLATEBINDING_H

/// Opens libgit2 now, on this thread, if it is not open yet (a missing one ends the program here, with the dynamic
/// loader's message and exit 127); where it is linked as usual, nothing.
void tresor_late_open_git2(void);

#endif
