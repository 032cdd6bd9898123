// libgit2, libcrypto, ncurses, libsodium, libargon2 and zlib bound on the first call of one of their functions, not
// when the program starts.
//
// The dynamic loader spent about two thirds of a `tresor show` binding libgit2, the sixteen libraries it needs
// (mbedTLS, libssh2, Kerberos, pcre2, http_parser, …), libcrypto and ncurses, which `show`, `ls`, `find` and most
// reading commands never call (Benchmarks/README.md, start-up); libsodium, libargon2 and zlib cost `--version` and
// `ls` a tenth of their time. Here every function Tresor calls of them (the *-functions.h lists) is a stub of one
// instruction that jumps through a pointer. The pointer first leads to its library's resolver, which saves the
// registers that carry arguments, opens the library with dlopen (once, under pthread_once), points every pointer of
// the library at its real function, restores the registers and jumps to the function called, as if it had been called
// directly. A library that cannot be opened, or lacks a function, ends the program as the dynamic loader would have at
// start-up (exit 127, its message on stderr).
//
// Built where the stubs are written, Linux on x86-64 (the condition `lateBinding` of Package.swift and the one in
// CNcurses/shim.h); elsewhere the libraries are linked as usual and this file is empty.
#if defined(__linux__) && defined(__x86_64__)

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <git2/version.h>
#include <openssl/opensslv.h>
#include <sodium/version.h>
#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>

#define TRESOR_STRING(x) #x
#define TRESOR_EXPAND_STRING(x) TRESOR_STRING(x)

// A stub (global, so it is the symbol the callers link against, and hidden, so that the libraries' own calls to their
// functions still bind to themselves), its pointer (first: the thunk) and its thunk (which hands the resolver the
// pointer's address in r11, a register no call passes arguments in).
#define TRESOR_STUB(library, name)                                                                              \
    __asm__(".pushsection .text\n"                                                                              \
            ".globl " #name "\n"                                                                                \
            ".hidden " #name "\n"                                                                               \
            ".type " #name ", @function\n"                                                                      \
            ".balign 16\n" #name ":\n"                                                                          \
            "  jmp *tresor_late_pointer_" #name "(%rip)\n"                                                      \
            ".size " #name ", . - " #name "\n"                                                                  \
            "tresor_late_thunk_" #name ":\n"                                                                    \
            "  leaq tresor_late_pointer_" #name "(%rip), %r11\n"                                                \
            "  jmp tresor_late_resolve_" #library "\n"                                                          \
            ".popsection\n"                                                                                     \
            ".pushsection .data\n"                                                                              \
            ".balign 8\n"                                                                                       \
            ".globl tresor_late_pointer_" #name "\n"                                                            \
            ".hidden tresor_late_pointer_" #name "\n"                                                           \
            "tresor_late_pointer_" #name ":\n"                                                                  \
            "  .quad tresor_late_thunk_" #name "\n"                                                             \
            ".popsection\n");

// The resolver of one library: the argument registers (rdi, rsi, rdx, rcx, r8, r9; rax, which a variadic call
// sets to the number of vector registers used; xmm0-7) are saved around the C function that loads the library,
// then the call goes on to the function whose pointer r11 holds. The stack stays 16-byte aligned at the call.
#define TRESOR_RESOLVER(library)                                                                                \
    __asm__(".pushsection .text\n"                                                                              \
            ".balign 16\n"                                                                                      \
            "tresor_late_resolve_" #library ":\n"                                                               \
            "  pushq %rbp\n  movq %rsp, %rbp\n"                                                                 \
            "  pushq %rdi\n  pushq %rsi\n  pushq %rdx\n  pushq %rcx\n"                                          \
            "  pushq %r8\n  pushq %r9\n  pushq %rax\n  pushq %r11\n"                                            \
            "  subq $128, %rsp\n"                                                                               \
            "  movdqu %xmm0, 0(%rsp)\n  movdqu %xmm1, 16(%rsp)\n  movdqu %xmm2, 32(%rsp)\n"                     \
            "  movdqu %xmm3, 48(%rsp)\n  movdqu %xmm4, 64(%rsp)\n  movdqu %xmm5, 80(%rsp)\n"                    \
            "  movdqu %xmm6, 96(%rsp)\n  movdqu %xmm7, 112(%rsp)\n"                                             \
            "  call tresor_late_load_" #library "\n"                                                            \
            "  movdqu 0(%rsp), %xmm0\n  movdqu 16(%rsp), %xmm1\n  movdqu 32(%rsp), %xmm2\n"                     \
            "  movdqu 48(%rsp), %xmm3\n  movdqu 64(%rsp), %xmm4\n  movdqu 80(%rsp), %xmm5\n"                    \
            "  movdqu 96(%rsp), %xmm6\n  movdqu 112(%rsp), %xmm7\n"                                             \
            "  addq $128, %rsp\n"                                                                               \
            "  popq %r11\n  popq %rax\n  popq %r9\n  popq %r8\n"                                                \
            "  popq %rcx\n  popq %rdx\n  popq %rsi\n  popq %rdi\n"                                              \
            "  popq %rbp\n"                                                                                     \
            "  jmp *(%r11)\n"                                                                                   \
            ".popsection\n");

struct tresor_late_function {
    const char *name;
    void **pointer;
};

// Ends the program as the dynamic loader does when a library is missing at start-up.
__attribute__((noreturn)) static void tresor_late_fail(const char *what) {
    static const char prefix[] = ": error while loading shared libraries: ";
    const char *program = program_invocation_short_name;
    (void)!write(STDERR_FILENO, program, strlen(program));
    (void)!write(STDERR_FILENO, prefix, sizeof prefix - 1);
    (void)!write(STDERR_FILENO, what, strlen(what));
    (void)!write(STDERR_FILENO, "\n", 1);
    _exit(127);
}

static void *tresor_late_bind(const char *file, const struct tresor_late_function *functions, size_t count) {
    // RTLD_GLOBAL, as the loader would have made it at start-up: what the library opens later (GSSAPI mechanisms,
    // OpenSSL providers) may rely on its symbols.
    void *library = dlopen(file, RTLD_NOW | RTLD_GLOBAL);
    if (library == NULL) tresor_late_fail(dlerror());
    for (size_t i = 0; i < count; i++) {
        void *function = dlsym(library, functions[i].name);
        if (function == NULL) tresor_late_fail(dlerror());
        __atomic_store_n(functions[i].pointer, function, __ATOMIC_RELEASE);
    }
    return library;
}

#define TRESOR_LIBRARY(library, file)                                                                           \
    TRESOR_RESOLVER(library)                                                                                    \
    static pthread_once_t tresor_late_once_##library = PTHREAD_ONCE_INIT;                                       \
    static void *tresor_late_handle_##library;                                                                  \
    static void tresor_late_bind_##library(void) {                                                              \
        size_t count = sizeof tresor_late_functions_##library / sizeof tresor_late_functions_##library[0];      \
        tresor_late_handle_##library = tresor_late_bind(file, tresor_late_functions_##library, count);          \
    }                                                                                                           \
    __attribute__((visibility("hidden"), used)) void tresor_late_load_##library(void) {                         \
        int saved = errno;                                                                                      \
        pthread_once(&tresor_late_once_##library, tresor_late_bind_##library);                                  \
        errno = saved;                                                                                          \
    }

// The macros take the library's name expanded (it comes from TRESOR_LATE_LIBRARY in late-library.h).
#define TRESOR_EXPANDED(macro, ...) macro(__VA_ARGS__)
#define TRESOR_PASTE_EXPANDED(a, b) a##b
#define TRESOR_PASTE(a, b) TRESOR_PASTE_EXPANDED(a, b)

#define TRESOR_LATE_LIBRARY git2
#define TRESOR_LATE_FUNCTIONS "git2-functions.h"
#define TRESOR_LATE_FILE "libgit2.so." LIBGIT2_SOVERSION
#include "late-library.h"

#define TRESOR_LATE_LIBRARY crypto
#define TRESOR_LATE_FUNCTIONS "crypto-functions.h"
#define TRESOR_LATE_FILE "libcrypto.so." TRESOR_EXPAND_STRING(OPENSSL_SHLIB_VERSION)
#include "late-library.h"

#define TRESOR_LATE_LIBRARY ncurses
#define TRESOR_LATE_FUNCTIONS "ncurses-functions.h"
#define TRESOR_LATE_FILE "libncursesw.so." TRESOR_EXPAND_STRING(NCURSES_VERSION_MAJOR)
#include "late-library.h"

#define TRESOR_LATE_LIBRARY sodium
#define TRESOR_LATE_FUNCTIONS "sodium-functions.h"
// From 1.0.19 on, the library's major version is its file's number (26); before, the file was libsodium.so.23 from
// 1.0.13 (2017) to 1.0.18, whose major version was 10.
#if SODIUM_LIBRARY_VERSION_MAJOR >= 26
#define TRESOR_LATE_FILE "libsodium.so." TRESOR_EXPAND_STRING(SODIUM_LIBRARY_VERSION_MAJOR)
#else
#define TRESOR_LATE_FILE "libsodium.so.23"
#endif
#include "late-library.h"

#define TRESOR_LATE_LIBRARY argon2
#define TRESOR_LATE_FUNCTIONS "argon2-functions.h"
// The reference implementation's ABI version, 1 in every release.
#define TRESOR_LATE_FILE "libargon2.so.1"
#include "late-library.h"

#define TRESOR_LATE_LIBRARY zlib
#define TRESOR_LATE_FUNCTIONS "zlib-functions.h"
#define TRESOR_LATE_FILE "libz.so.1"
#include "late-library.h"

// ncurses's variable `stdscr`: the screen's window once newterm and set_term have made it.
__attribute__((visibility("hidden"))) WINDOW *tresor_late_ncurses_stdscr(void) {
    tresor_late_load_ncurses();
    WINDOW **variable = dlsym(tresor_late_handle_ncurses, "stdscr");
    if (variable == NULL) tresor_late_fail(dlerror());
    return *variable;
}

void tresor_late_open_git2(void) { tresor_late_load_git2(); }

#else

void tresor_late_open_git2(void) {}

#endif
