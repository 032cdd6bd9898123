// C entry point for zlib: gzip streams (KeePass databases) and the zlib streams of git pack files; named CGzip because ZIPFoundation already has a module CZlib.
#ifndef TRESOR_CGZIP_SHIM_H
#define TRESOR_CGZIP_SHIM_H
#include <zlib.h>

// inflateInit2 is a macro; this makes it callable from Swift. windowBits 16+15: gzip only.
static inline int tresor_inflate_init_gzip(z_stream *s) { return inflateInit2(s, 16 + MAX_WBITS); }
// windowBits -15: a raw deflate stream (a zip archive's entries).
static inline int tresor_inflate_init_raw(z_stream *s) { return inflateInit2(s, -MAX_WBITS); }
// deflateInit2 for gzip output (level 6).
static inline int tresor_deflate_init_gzip(z_stream *s) {
    return deflateInit2(s, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}
// deflateInit2 for a git object of `size` bytes (a zlib stream, as git reads them): the window and the hash table
// no larger than the object needs, so that a small object does not pay for clearing zlib's default 64 KiB table;
// `strategy` Z_HUFFMAN_ONLY codes bytes without looking for repeated strings.
static inline int tresor_deflate_init_object(z_stream *s, int level, unsigned long size, int strategy) {
    int bits = 9;
    while (bits < MAX_WBITS && (1UL << bits) <= size) bits++;
    // memLevel sets both the hash table (2^(mem+7) slots, cleared for each object) and how many symbols a block
    // holds (2^(mem+6) - 1): one block for the whole object, as zlib's default would make it, each block costing a
    // Huffman tree.
    int mem = bits - 6 > 8 ? 8 : bits - 6;
    return deflateInit2(s, level, Z_DEFLATED, bits, mem, strategy);
}
#endif
