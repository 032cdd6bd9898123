// The libargon2 functions Tresor calls, one LATE(name) each, bound on the first call of any of them (late-binding.c).
// A function missing here fails the link with "undefined reference to <name>": add it, in name order.
LATE(argon2_ctx)
