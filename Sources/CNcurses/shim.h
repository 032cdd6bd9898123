// C entry point for wide-character ncurses (ncursesw), with inline shims for its macros and globals.
#ifndef TRESOR_CNCURSES_SHIM_H
#define TRESOR_CNCURSES_SHIM_H
// The target names no pkg-config file: ncursesw.pc adds -D_XOPEN_SOURCE, a flag SwiftPM refuses for
// system libraries. Its only use is to declare the wide-character functions, which this does instead.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <locale.h>
#include <wchar.h>
#include <string.h>
#include <langinfo.h>
#include <ncursesw/curses.h>

// The one variable of ncurses tresor reads (Swift cannot read it safely as a mutable global; sizes come from
// getmaxy/getmaxx, not LINES and COLS, which would need the same care).
#if defined(__linux__) && defined(__x86_64__)
// ncurses is bound on its first use there (Sources/CLateBinding), which reads this variable for the program.
WINDOW *tresor_late_ncurses_stdscr(void);
static inline WINDOW *tresor_stdscr(void) { return tresor_late_ncurses_stdscr(); }
#else
static inline WINDOW *tresor_stdscr(void) { return stdscr; }
#endif

// Attribute and colour macros (bit expressions Swift does not import).
static inline attr_t tresor_a_normal(void) { return A_NORMAL; }
static inline attr_t tresor_a_bold(void) { return A_BOLD; }
static inline attr_t tresor_a_dim(void) { return A_DIM; }
static inline attr_t tresor_a_reverse(void) { return A_REVERSE; }
static inline attr_t tresor_a_underline(void) { return A_UNDERLINE; }
static inline attr_t tresor_a_standout(void) { return A_STANDOUT; }
static inline attr_t tresor_color_pair(int n) { return COLOR_PAIR(n); }

// Window geometry (macros in ncurses).
static inline int tresor_getmaxy(WINDOW *w) { return getmaxy(w); }
static inline int tresor_getmaxx(WINDOW *w) { return getmaxx(w); }

// Input: one wide character or a key code. Returns OK (a character), KEY_CODE_YES (a key code) or ERR.
static inline int tresor_get_wch(WINDOW *w, unsigned int *out) {
    wint_t c = 0;
    int rc = wget_wch(w, &c);
    *out = (unsigned int)c;
    return rc;
}

// Mouse: the wheel is buttons 4 and 5.
static inline mmask_t tresor_mouse_mask_wanted(void) {
    return BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED;
}
static inline int tresor_mouse_is_wheel_up(mmask_t m) { return (m & BUTTON4_PRESSED) != 0; }
static inline int tresor_mouse_is_wheel_down(mmask_t m) { return (m & BUTTON5_PRESSED) != 0; }
static inline int tresor_mouse_is_click(mmask_t m) { return (m & (BUTTON1_PRESSED | BUTTON1_CLICKED)) != 0; }

// Text as Unicode scalars (wchar_t is 32 bits on Linux) and the width of one character.
static inline int tresor_mvwaddnwstr(WINDOW *w, int y, int x, const unsigned int *s, int n) {
    return mvwaddnwstr(w, y, x, (const wchar_t *)s, n);
}
// glibc declares wcwidth only under _XOPEN_SOURCE, which the Glibc module is not built with.
extern int wcwidth(wchar_t c);
static inline int tresor_wcwidth(unsigned int c) { return wcwidth((wchar_t)c); }

// Whether the C library's character type is UTF-8 after setlocale.
static inline int tresor_locale_is_utf8(void) { return strcmp(nl_langinfo(CODESET), "UTF-8") == 0; }
#endif
