// C entry point for process settings Swift cannot reach: prctl is variadic.
#ifndef TRESOR_CPROCESS_SHIM_H
#define TRESOR_CPROCESS_SHIM_H
#include <sys/resource.h>
#include <sys/socket.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>
#endif

/// syncfs(2): what was written to the file system holding `fd` is on its disk (glibc declares it only under
/// _GNU_SOURCE, which Swift's import of the C library does not define). 0 on success; elsewhere, sync(2).
static inline int tresor_syncfs(int fd) {
#ifdef __linux__
    return (int)syscall(SYS_syncfs, fd);
#else
    (void)fd;
    sync();
    return 0;
#endif
}

/// getdents64(2): a directory's records into `buffer` (glibc declares its wrapper only under _GNU_SOURCE). The number of
/// bytes written, 0 at the end, -1 with errno on failure; elsewhere, -1 with ENOSYS.
static inline long tresor_getdents64(int fd, void *buffer, unsigned long length) {
#ifdef __linux__
    return syscall(SYS_getdents64, fd, buffer, length);
#else
    (void)fd; (void)buffer; (void)length;
    errno = ENOSYS;
    return -1;
#endif
}

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

/// `posix_spawn` of `path` with Foundation's `Process` settings: a process group of its own, every signal at its
/// default action and none blocked, `in`, `out` and `err` as its standard input, output and error (`err` < 0:
/// /dev/null), and no other descriptor this process holds or inherited (each listed in /proc/self/fd is closed in
/// the child). Returns `posix_spawn`'s result (0 or an errno value); the child's id in `*pid`.
static inline int tresor_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], int in, int out, int err) {
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_t actions;
    int rc = posix_spawnattr_init(&attributes);
    if (rc != 0) return rc;
    rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) { posix_spawnattr_destroy(&attributes); return rc; }
    sigset_t all, none;
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
    posix_spawn_file_actions_adddup2(&actions, in, 0);
    posix_spawn_file_actions_adddup2(&actions, out, 1);
    if (err >= 0) posix_spawn_file_actions_adddup2(&actions, err, 2);
    else posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    DIR *fds = opendir("/proc/self/fd");
    if (fds != NULL) {
        int own = dirfd(fds);
        struct dirent *e;
        while ((e = readdir(fds)) != NULL) {
            char *end;
            long fd = strtol(e->d_name, &end, 10);
            if (end == e->d_name || *end != 0 || fd <= 2 || fd == own || fcntl((int)fd, F_GETFD) == -1) continue;
            posix_spawn_file_actions_addclose(&actions, (int)fd);
        }
        closedir(fds);
    }
    rc = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return rc;
}

#endif
