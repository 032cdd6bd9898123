// The zlib functions Tresor calls, one LATE(name) each, bound on the first call of any of them (late-binding.c).
// A function missing here fails the link with "undefined reference to <name>": add it, in name order.
LATE(crc32)
LATE(crc32_z)
LATE(deflate)
LATE(deflateBound)
LATE(deflateEnd)
LATE(deflateInit2_)
LATE(inflate)
LATE(inflateEnd)
LATE(inflateInit2_)
