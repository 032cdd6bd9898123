// C entry point for libgit2; included by the CGit2 module map.
#ifndef TRESOR_CGIT2_SHIM_H
#define TRESOR_CGIT2_SHIM_H
#include <git2.h>
#include <git2/sys/merge.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>

/// git_libgit2_opts is variadic, which Swift cannot call: one wrapper per option used.
static inline int tresor_git_set_search_path(int level, const char *path) {
    return git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, path);
}
static inline int tresor_git_set_owner_validation(int enabled) {
    return git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, enabled);
}
/// Objects, refs and the index are flushed to disk before they are renamed into place.
static inline int tresor_git_enable_fsync(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, enabled);
}
/// Whether every object read is hashed again and compared with its name.
static inline int tresor_git_enable_strict_hash_verification(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, enabled);
}
/// CA certificates for https (GIT_SSL_CAINFO / GIT_SSL_CAPATH); either may be NULL.
static inline int tresor_git_set_ssl_cert_locations(const char *file, const char *path) {
    return git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, file, path);
}
/// The writepack's methods are function pointers in a struct: called here rather than through Swift.
static inline int tresor_git_writepack_append(git_odb_writepack *w, const void *data, size_t size, git_indexer_progress *stats) {
    return w->append(w, data, size, stats);
}
static inline int tresor_git_writepack_commit(git_odb_writepack *w, git_indexer_progress *stats) {
    return w->commit(w, stats);
}
static inline void tresor_git_writepack_free(git_odb_writepack *w) {
    w->free(w);
}
#endif
