/* copy.c — the backward copy fm_copy takes when the destination sits just
 * past the source modulo 4 KiB, and its copy in blocks (why: copy.h). */
#include "util/copy.h"

/* From 1 MiB (the L2 size here) glibc leaves `rep movsb` for loops that do
 * not mind the distance: 28-33 ns per KiB there, against 42 backwards. */
#define FM_COPY_ALIAS_MAX ((size_t)1 << 20)

typedef struct { unsigned char b[64]; } fm_copy_line;

void *fm_copy_aliased(void *restrict dst, const void *restrict src, size_t n)
{
    if (n >= FM_COPY_ALIAS_MAX)
        return memcpy(dst, src, n);
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t at = n & ~(size_t)63;
    memcpy(d + at, s + at, n - at); /* the tail first: all stores go downwards */
    while (at) {
        at -= 64;
        fm_copy_line line;
        memcpy(&line, s + at, sizeof line);
        memcpy(d + at, &line, sizeof line);
    }
    return dst;
}

void *fm_copy_blocks(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    for (size_t at = 0; at < n; at += FM_COPY_BLOCK)
        memcpy(d + at, s + at, n - at < FM_COPY_BLOCK ? n - at : FM_COPY_BLOCK);
    return dst;
}
