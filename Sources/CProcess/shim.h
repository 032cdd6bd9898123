// C entry point for process settings Swift cannot reach: prctl is variadic.
#ifndef TRESOR_CPROCESS_SHIM_H
#define TRESOR_CPROCESS_SHIM_H
#include <sys/resource.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/// No core file, and no ptrace or /proc memory access by other processes of the user: 0 on success.
static inline int tresor_disable_core_dumps(void) {
    struct rlimit none = { 0, 0 };
    int a = setrlimit(RLIMIT_CORE, &none);
#ifdef __linux__
    int b = prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#else
    int b = 0; /* elsewhere the core limit is what there is; the platform guards process memory itself */
#endif
    return a == 0 && b == 0 ? 0 : -1;
}

/// Whether the process may dump core (1) or not (0).
static inline int tresor_is_dumpable(void) {
#ifdef __linux__
    return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
#else
    struct rlimit now;
    return getrlimit(RLIMIT_CORE, &now) == 0 && now.rlim_cur == 0 ? 0 : 1;
#endif
}
#endif
