// libgit2 and libcrypto bound on first use (late-binding.c); nothing to call: linking this target is what binds them.
