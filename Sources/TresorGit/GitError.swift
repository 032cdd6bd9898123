// The libgit2 layer: repositories, commits, history and sync, with no knowledge of the vault format.

