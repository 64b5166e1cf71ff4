/* copy.h — fm_copy: memcpy for payloads (messages, collective and
 * one-sided data), minus one cliff of the C library's.
 *
 * glibc 2.36 (Debian 12) copies 2113 bytes up to the L2 size with
 * `rep movsb` on CPUs with fast short rep-mov (FSRM).  On this machine
 * (AMD EPYC, Zen 3) that copy runs 20-40x slower when the destination lies
 * 1 to 31 bytes past the source modulo 4 KiB (glibc bug 30994; the
 * kernel's own copies, CMA included, show it too, about 4x): 4 KiB takes
 * 1.4-2.2 us instead of 55-80 ns.  A program's buffers land there by
 * chance (malloc returns addresses 16 bytes into a line), and then every
 * call pays: an MPI_Allreduce of 4 KiB into a buffer at page + 16 took
 * 2.9-3.9 us against 0.7-1.5 us aligned (bench/buffer_offsets.c, numbers in
 * bench/RESULTS.md, "Buffers at a page offset").  Copied backwards, a line
 * at a time, the same bytes take about 40 ns per KiB whatever the
 * distance: the loads then never follow stores to addresses with the same
 * low 12 bits.
 *
 * Large copies go in blocks.  glibc leaves `rep movsb` at its
 * rep_movsb_stop_threshold (the L2 size: 1 MiB here, 512 KiB on Zen 3)
 * for a vector loop, which here runs 10-15% slower: one process copying
 * 1 MiB between its buffers, 5 runs, medians of 50 x 100 copies, 20.9-26.0
 * us in one memcpy, 17.8-21.2 in one `rep movsb`, 17.7-18.2 in 256 KiB
 * memcpys; 2 MiB 43.3-47.7, 37.5-39.9, 39.6-40.8; 4 MiB 82-84, 78-99,
 * 81-82.  Open MPI copies contiguous data in 128 KiB blocks
 * (opal_datatype_memcpy_block_size), and so kept ahead of us in
 * osu_get_latency at 1-2 MiB (18.5 against 21.4 us at 1 MiB).
 * FM_COPY_BLOCK stays under any CPU's threshold.  Between two processes,
 * 2 ranks bound, 5 alternated rounds, medians, one memcpy -> blocks:
 * osu_get_bw 1 MiB 19.3 -> 23.6 GB/s, 2 MiB 18.9 -> 22.3, 3 MiB 18.6 ->
 * 17.8, 4 MiB 18.5 -> 18.0; osu_put_bw 18.6 -> 21.3, 18.4 -> 20.0, 17.5 ->
 * 17.3, 17.9 -> 17.5.  So from 3 MiB glibc's loop keeps the copy.
 *
 * The test costs one compare for copies the compiler sees are small, and
 * a subtraction and two compares more for the others. */
#ifndef FM_UTIL_COPY_H
#define FM_UTIL_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Copies up to this many bytes never take `rep movsb` (glibc's threshold
 * with FSRM is 2112). */
#define FM_COPY_SAFE_BYTES 2048
/* Destination this many bytes or fewer past the source, modulo 4 KiB. */
#define FM_COPY_ALIAS_WINDOW 31

/* Copies of more than two blocks, up to 2 MiB, go a block at a time. */
#define FM_COPY_BLOCK ((size_t)256 << 10)
#define FM_COPY_BLOCKS_ABOVE (2 * FM_COPY_BLOCK)
#define FM_COPY_BLOCKS_UPTO ((size_t)2 << 20)

/* The copy in the window, and the copy in blocks (copy.c). */
void *fm_copy_aliased(void *restrict dst, const void *restrict src, size_t n);
void *fm_copy_blocks(void *restrict dst, const void *restrict src, size_t n);

/* 1 when copying n bytes from src to dst lands in the window.  Addresses
 * may be another process's: only their offsets within a page count. */
static inline int fm_copy_in_window(uintptr_t dst, uintptr_t src, size_t n)
{
    return __builtin_expect(n > FM_COPY_SAFE_BYTES, 0) &&
           ((dst - src - 1) & 4095) < FM_COPY_ALIAS_WINDOW;
}

/* memcpy(dst, src, n), for buffers that do not overlap. */
static inline void *fm_copy(void *restrict dst, const void *restrict src, size_t n)
{
    if (fm_copy_in_window((uintptr_t)dst, (uintptr_t)src, n))
        return fm_copy_aliased(dst, src, n);
    if (__builtin_expect(n > FM_COPY_BLOCKS_ABOVE, 0) && n <= FM_COPY_BLOCKS_UPTO)
        return fm_copy_blocks(dst, src, n);
    return memcpy(dst, src, n);
}

/* n bytes, w <= n <= 2w, as the first and the last w of them (which may
 * overlap): both loads before both stores.  w is a constant where inlined. */
static inline __attribute__((always_inline)) void fm_copy_ends(unsigned char *d,
                                                               const unsigned char *s, size_t n,
                                                               size_t w)
{
    uint64_t a, b;
    memcpy(&a, s, w);
    memcpy(&b, s + n - w, w);
    memcpy(d, &a, w);
    memcpy(d + n - w, &b, w);
}

/* fm_copy for a size that is usually a few bytes (a reduction's operand,
 * copied on every call of a small collective): 4 to 16 bytes as two
 * overlapping moves, without a call into the C library (a persistent 8 B
 * allreduce makes two: 430 -> 413 instructions a call). */
static inline void *fm_copy_short(void *restrict dst, const void *restrict src, size_t n)
{
    if (n - 8 <= 8) /* 8..16 (n < 8 wraps around) */
        fm_copy_ends(dst, src, n, 8);
    else if (n - 4 <= 3) /* 4..7 */
        fm_copy_ends(dst, src, n, 4);
    else
        fm_copy(dst, src, n);
    return dst;
}

/* memmove(dst, src, n): fm_copy's way unless the buffers overlap. */
static inline void *fm_move(void *dst, const void *src, size_t n)
{
    if (n > FM_COPY_SAFE_BYTES && (uintptr_t)dst - (uintptr_t)src >= n &&
        (uintptr_t)src - (uintptr_t)dst >= n)
        return fm_copy(dst, src, n);
    return memmove(dst, src, n);
}

#endif
