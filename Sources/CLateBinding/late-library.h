// One library's stubs, their pointers, the table the loader fills and its resolver and loader, from its list of
// functions. late-binding.c includes this once per library, with TRESOR_LATE_LIBRARY (the library's short name),
// TRESOR_LATE_FUNCTIONS (its list, a header of LATE(name) lines) and TRESOR_LATE_FILE (its file name) defined.
#define LATE(name) TRESOR_EXPANDED(TRESOR_STUB, TRESOR_LATE_LIBRARY, name)
#include TRESOR_LATE_FUNCTIONS
#undef LATE
#define LATE(name) extern void *tresor_late_pointer_##name __attribute__((visibility("hidden")));
#include TRESOR_LATE_FUNCTIONS
#undef LATE
static const struct tresor_late_function TRESOR_PASTE(tresor_late_functions_, TRESOR_LATE_LIBRARY)[] = {
#define LATE(name) { #name, &tresor_late_pointer_##name },
#include TRESOR_LATE_FUNCTIONS
#undef LATE
};
TRESOR_EXPANDED(TRESOR_LIBRARY, TRESOR_LATE_LIBRARY, TRESOR_LATE_FILE)
#undef TRESOR_LATE_LIBRARY
#undef TRESOR_LATE_FUNCTIONS
#undef TRESOR_LATE_FILE
