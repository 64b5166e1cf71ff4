/* test_copy.c — fm_copy and fm_move (src/util/copy.h) move exactly the
 * bytes memcpy and memmove would, on both sides of the aliasing window
 * they route around: every size around the thresholds (the window test's
 * 2048, the backward loop's 64-byte lines, its 1 MiB hand-back to memcpy,
 * the copy in blocks from 512 KiB to 2 MiB), every source offset in a
 * line, destinations 0 to 64 bytes past the source modulo 4 KiB and a few
 * elsewhere, with guard bytes on both ends of the destination; fm_move also
 * on overlapping buffers; fm_copy_short at every size to 40 bytes (its two
 * overlapping moves from 4 to 16, fm_copy around them) and every offset in
 * a line on both sides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/copy.h"

#define GUARD 64

static unsigned char pattern(size_t i) { return (unsigned char)(i * 131u + (i >> 8) * 7u + 1u); }

/* Copy n bytes from src_off into a destination (dst - src) = delta mod 4 KiB
 * past it, and check the bytes and the guards. */
static void check_copy(unsigned char *src_area, unsigned char *dst_area, size_t n, size_t src_off,
                       size_t delta)
{
    unsigned char *src = src_area + src_off;
    /* dst_area is page aligned; put dst at src's page offset plus delta */
    size_t dst_off = GUARD + ((((uintptr_t)src & 4095) + delta - GUARD) & 4095);
    unsigned char *dst = dst_area + dst_off;
    assert_int_equal(((uintptr_t)dst - (uintptr_t)src) & 4095, delta & 4095);
    memset(dst - GUARD, 0xA5, n + 2 * GUARD);
    assert_ptr_equal(fm_copy(dst, src, n), dst);
    for (size_t i = 0; i < GUARD; i++) {
        assert_int_equal(dst[-1 - (ptrdiff_t)i], 0xA5);
        assert_int_equal(dst[n + i], 0xA5);
    }
    if (memcmp(dst, src, n) != 0) {
        size_t i = 0;
        while (dst[i] == src[i])
            i++;
        fail_msg("n %zu src_off %zu delta %zu: byte %zu is %u, want %u", n, src_off, delta, i,
                 dst[i], src[i]);
    }
}

static void test_copy_window(void **state)
{
    (void)state;
    const size_t most = FM_COPY_BLOCKS_UPTO + 4096;
    unsigned char *src_area, *dst_area;
    assert_int_equal(posix_memalign((void **)&src_area, 4096, most + 8192), 0);
    assert_int_equal(posix_memalign((void **)&dst_area, 4096, most + 16384), 0);
    for (size_t i = 0; i < most + 8192; i++)
        src_area[i] = pattern(i);
    const size_t sizes[] = {0, 1, 63, 64, 65, 2047, 2048, 2049, 2111, 2112, 2113, 4095, 4096,
                            4097, 8191, 65536 + 17, FM_COPY_BLOCKS_ABOVE,
                            FM_COPY_BLOCKS_ABOVE + 1, 3 * FM_COPY_BLOCK + 5, (1u << 20) - 1,
                            1u << 20, (1u << 20) + 3, FM_COPY_BLOCKS_UPTO,
                            FM_COPY_BLOCKS_UPTO + 1};
    const size_t deltas[] = {0, 1, 8, 15, 16, 17, 30, 31, 32, 33, 48, 63, 64, 2048, 4080, 4095};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const int big = sizes[s] > 70000; /* fewer offsets for the slow sizes */
        for (size_t off = 0; off < 64; off += big ? 21 : 1)
            for (size_t d = 0; d < sizeof deltas / sizeof *deltas; d++)
                check_copy(src_area, dst_area, sizes[s], 4096 + off, deltas[d]);
    }
    free(src_area);
    free(dst_area);
}

/* fm_move on overlapping buffers, both directions, sizes on both sides of
 * the window test and of the copy in blocks, and on disjoint ones (where
 * it is fm_copy). */
static void test_move(void **state)
{
    (void)state;
    enum { AREA = 3 * 8192 };
    unsigned char *buf = malloc(AREA), *want = malloc(AREA);
    assert_non_null(buf);
    assert_non_null(want);
    const size_t sizes[] = {1, 100, 2048, 3000, 8192};
    const long shifts[] = {-4096, -100, -16, -1, 1, 16, 100, 4096, 8192 + 16};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t k = 0; k < sizeof shifts / sizeof *shifts; k++) {
            for (size_t i = 0; i < AREA; i++)
                buf[i] = want[i] = pattern(i);
            size_t from = 8192 - 4096 + 16;
            size_t to = (size_t)((long)from + shifts[k]);
            memmove(want + to, want + from, sizes[s]);
            assert_ptr_equal(fm_move(buf + to, buf + from, sizes[s]), buf + to);
            assert_memory_equal(buf, want, AREA);
        }
    free(buf);
    free(want);
    /* past FM_COPY_BLOCKS_ABOVE: overlapping by less than a block, and not */
    const size_t n = FM_COPY_BLOCKS_ABOVE + FM_COPY_BLOCK / 2 + 3, area = 3 * n;
    buf = malloc(area);
    want = malloc(area);
    assert_non_null(buf);
    assert_non_null(want);
    const size_t tos[] = {n - 4096 - 16, n - 1, n + 1, n + FM_COPY_BLOCK / 2, 2 * n, 0};
    for (size_t k = 0; k < sizeof tos / sizeof *tos; k++) {
        for (size_t i = 0; i < area; i++)
            buf[i] = want[i] = pattern(i);
        memmove(want + tos[k], want + n, n);
        assert_ptr_equal(fm_move(buf + tos[k], buf + n, n), buf + tos[k]);
        assert_memory_equal(buf, want, area);
    }
    free(buf);
    free(want);
}

static void test_copy_short(void **state)
{
    (void)state;
    unsigned char src[128], dst[128 + 2 * GUARD];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = pattern(i);
    for (size_t n = 0; n <= 40; n++)
        for (size_t so = 0; so < 64; so++)
            for (size_t d_o = 0; d_o < 64; d_o += 3) {
                unsigned char *d = dst + GUARD + d_o;
                memset(dst, 0xA5, sizeof dst);
                assert_ptr_equal(fm_copy_short(d, src + so, n), d);
                assert_memory_equal(d, src + so, n);
                for (size_t i = 0; i < GUARD; i++) {
                    assert_int_equal(d[-1 - (ptrdiff_t)i], 0xA5);
                    assert_int_equal(d[n + i], 0xA5);
                }
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_window),
        cmocka_unit_test(test_move),
        cmocka_unit_test(test_copy_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
