// C entry point for process settings Swift cannot reach: prctl is variadic.
#ifndef TRESOR_CPROCESS_SHIM_H
#define TRESOR_CPROCESS_SHIM_H
#include <sys/resource.h>
#include <sys/socket.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>
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

/// The user id of the process at the other end of a connected Unix socket: 0 on success. Linux's
/// `struct ucred` needs _GNU_SOURCE, which a module header cannot set for the system headers, so its layout
/// (pid, uid, gid: three 32-bit fields) is spelled out here.
static inline int tresor_peer_uid(int fd, unsigned int *uid) {
#ifdef SO_PEERCRED
    struct { int pid; unsigned int uid; unsigned int gid; } cred;
    socklen_t length = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0 || length != sizeof cred) return -1;
    *uid = cred.uid;
    return 0;
#else
    uid_t u; gid_t g;
    if (getpeereid(fd, &u, &g) != 0) return -1;
    *uid = u;
    return 0;
#endif
}
#ifdef __linux__
/// A pipe whose two ends are close-on-exec from the start (`pipe2`, which needs _GNU_SOURCE, which a module header
/// cannot set for the system headers): 0 on success, else -1 with errno.
static inline int tresor_pipe_cloexec(int fds[2]) {
    return (int)syscall(SYS_pipe2, fds, O_CLOEXEC);
}
#endif

#endif
