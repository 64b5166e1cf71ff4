/* test_ofi_tag.c — the OFI tag encoder of the provider-matching engine:
 * field widths and limits of every mode, mem_tag_format reduction, the
 * `auto` choice, round trips, and the ignore mask of every wildcard
 * combination (checked as libfabric matches: (send ^ recv) & ~ignore == 0). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "net/ofi/tag.h"

static int matches(uint64_t sent, uint64_t posted, uint64_t ignore)
{
    return ((sent ^ posted) & ~ignore) == 0;
}

static fm_ofi_tag_layout layout(int mode, uint64_t fmt)
{
    fm_ofi_tag_layout l;
    assert_int_equal(fm_ofi_tag_layout_init(&l, mode, fmt), 0);
    return l;
}

static void test_limits(void **state)
{
    (void)state;
    fm_ofi_tag_layout l = layout(FM_OFI_TAG_1, 0);
    assert_int_equal(l.ctx_bits, 12);
    assert_int_equal(l.src_bits, 18);
    assert_int_equal(l.tag_bits, 32);
    assert_int_equal(fm_ofi_tag_ub(&l), INT32_MAX);
    assert_int_equal(fm_ofi_tag_contexts(&l), 4096);
    assert_int_equal(fm_ofi_tag_max_rank(&l), 262143);

    l = layout(FM_OFI_TAG_2, 0);
    assert_int_equal(l.ctx_bits, 24);
    assert_int_equal(fm_ofi_tag_ub(&l), (1 << 20) - 1);
    assert_int_equal(fm_ofi_tag_contexts(&l), 1 << 24);
    assert_int_equal(fm_ofi_tag_max_rank(&l), 262143);

    l = layout(FM_OFI_TAG_FULL, 0);
    assert_int_equal(l.ctx_bits, 28);
    assert_int_equal(l.src_bits, 0);
    assert_int_equal(fm_ofi_tag_ub(&l), INT32_MAX);
    assert_int_equal(fm_ofi_tag_contexts(&l), 1 << 28);
    assert_int_equal(fm_ofi_tag_max_rank(&l), INT32_MAX);

    /* No field overlaps another, and the two protocol bits are disjoint
     * from everything else in every mode. */
    for (int m = FM_OFI_TAG_1; m <= FM_OFI_TAG_FULL; m++) {
        l = layout(m, 0);
        assert_int_equal(l.ctx_mask & l.proto_mask, 0);
        assert_int_equal(l.ctx_mask & l.src_mask, 0);
        assert_int_equal(l.ctx_mask & l.tag_mask, 0);
        assert_int_equal(l.src_mask & l.tag_mask, 0);
        assert_int_equal((l.src_mask | l.tag_mask) & l.proto_mask, 0);
        assert_int_equal(__builtin_popcountll(l.proto_mask), 2);
        assert_true(l.ctx_mask >> 63); /* context at the top */
    }
    fm_ofi_tag_layout bad;
    assert_int_not_equal(fm_ofi_tag_layout_init(&bad, FM_OFI_TAG_AUTO, 0), 0);
}

static void test_mem_tag_format(void **state)
{
    (void)state;
    /* What libfabric 1.17's providers report here. */
    assert_int_equal(fm_ofi_tag_reserved_bits(0), 0);
    assert_int_equal(fm_ofi_tag_reserved_bits(0xaaaaaaaaaaaaaaaaULL), 0); /* shm */
    assert_int_equal(fm_ofi_tag_reserved_bits(0x5555555555555555ULL), 1); /* net */
    assert_int_equal(fm_ofi_tag_reserved_bits(0x0000ffffffffffffULL), 16);

    fm_ofi_tag_layout l = layout(FM_OFI_TAG_1, 0x5555555555555555ULL);
    assert_int_equal(l.ctx_bits, 11);
    assert_int_equal(fm_ofi_tag_contexts(&l), 2048);
    assert_int_equal(l.ctx_mask >> 63, 0); /* the reserved bit stays clear */
    assert_int_equal(l.tag_bits, 32);      /* only the context shrinks */
    assert_int_equal(l.src_bits, 18);

    l = layout(FM_OFI_TAG_2, 0x0000ffffffffffffULL);
    assert_int_equal(l.ctx_bits, 8);
    l = layout(FM_OFI_TAG_FULL, 0x00ffffffffffffffULL);
    assert_int_equal(l.ctx_bits, 20);
    /* A make never touches reserved bits, whatever the context. */
    uint64_t t = fm_ofi_tag_make(&l, 0xffffffffu, 0, INT32_MAX, FM_OFI_PROTO_ACK);
    assert_int_equal(t >> 56, 0);

    /* Too many reserved bits: mode 1 cannot hold even two contexts. */
    fm_ofi_tag_layout bad;
    assert_int_not_equal(fm_ofi_tag_layout_init(&bad, FM_OFI_TAG_1, 0x0007ffffffffffffULL), 0);
    assert_int_equal(fm_ofi_tag_layout_init(&bad, FM_OFI_TAG_2, 0x0007ffffffffffffULL), 0);
    assert_int_equal(bad.ctx_bits, 11);
}

static void test_resolve(void **state)
{
    (void)state;
    assert_int_equal(fm_ofi_tag_resolve(FM_OFI_TAG_AUTO, 8, 1), FM_OFI_TAG_FULL);
    assert_int_equal(fm_ofi_tag_resolve(FM_OFI_TAG_AUTO, 4, 1), FM_OFI_TAG_FULL);
    assert_int_equal(fm_ofi_tag_resolve(FM_OFI_TAG_AUTO, 2, 1), FM_OFI_TAG_1);
    assert_int_equal(fm_ofi_tag_resolve(FM_OFI_TAG_AUTO, 8, 0), FM_OFI_TAG_1);
    assert_int_equal(fm_ofi_tag_resolve(FM_OFI_TAG_AUTO, 0, 0), FM_OFI_TAG_1);
    assert_int_equal(fm_ofi_tag_resolve(FM_OFI_TAG_2, 8, 1), FM_OFI_TAG_2);
    assert_int_equal(fm_ofi_tag_resolve(FM_OFI_TAG_FULL, 0, 0), FM_OFI_TAG_FULL);
    assert_string_equal(fm_ofi_tag_mode_name(FM_OFI_TAG_FULL), "full");
    assert_string_equal(fm_ofi_tag_mode_name(FM_OFI_TAG_AUTO), "auto");
}

static void test_round_trip(void **state)
{
    (void)state;
    for (int m = FM_OFI_TAG_1; m <= FM_OFI_TAG_FULL; m++) {
        fm_ofi_tag_layout l = layout(m, 0);
        uint32_t cmax = (uint32_t)fm_ofi_tag_contexts(&l) - 1;
        int smax = l.src_bits ? (int)fm_ofi_tag_max_rank(&l) : 0;
        int tmax = fm_ofi_tag_ub(&l);
        uint32_t ctxs[] = {0, 1, 2, 3, cmax - 1, cmax};
        int srcs[] = {0, 1, smax};
        int tags[] = {0, 1, 77, tmax};
        for (size_t a = 0; a < 6; a++)
            for (size_t b = 0; b < 3; b++)
                for (size_t c = 0; c < 4; c++)
                    for (int p = 0; p < 3; p++) {
                        uint64_t t = fm_ofi_tag_make(&l, ctxs[a], srcs[b], tags[c], p);
                        assert_int_equal(fm_ofi_tag_ctx(&l, t), ctxs[a]);
                        if (l.src_bits)
                            assert_int_equal(fm_ofi_tag_src(&l, t), srcs[b]);
                        assert_int_equal(fm_ofi_tag_tag(&l, t), tags[c]);
                        assert_int_equal(fm_ofi_tag_proto(&l, t), p);
                    }
    }
    /* Mode 2 folds tags wider than 20 bits the same way on both sides. */
    fm_ofi_tag_layout l = layout(FM_OFI_TAG_2, 0);
    uint64_t a = fm_ofi_tag_make(&l, 5, 1, 0x7f000003, 0);
    assert_true(a == fm_ofi_tag_make(&l, 5, 1, 0x7f000003, 0));
    assert_int_equal(fm_ofi_tag_ctx(&l, a), 5);
    assert_int_equal(fm_ofi_tag_src(&l, a), 1);
    assert_true(a != fm_ofi_tag_make(&l, 5, 1, 3, 0));
}

/* Every combination of (source, tag) wildcards against messages that
 * differ in one field at a time. */
static void test_ignore_masks(void **state)
{
    (void)state;
    for (int m = FM_OFI_TAG_1; m <= FM_OFI_TAG_FULL; m++) {
        fm_ofi_tag_layout l = layout(m, m == FM_OFI_TAG_1 ? 0x5555555555555555ULL : 0);
        for (int any_src = 0; any_src < 2; any_src++)
            for (int any_tag = 0; any_tag < 2; any_tag++) {
                uint64_t ig = fm_ofi_tag_ignore(&l, any_src, any_tag);
                uint64_t posted = fm_ofi_tag_make(&l, 6, any_src ? 0 : 3, any_tag ? 0 : 42, 0);
                /* exact message, plain and synchronous */
                assert_true(matches(fm_ofi_tag_make(&l, 6, 3, 42, 0), posted, ig));
                assert_true(matches(fm_ofi_tag_make(&l, 6, 3, 42, FM_OFI_PROTO_SYNC), posted, ig));
                /* an ack never lands in a receive */
                assert_false(matches(fm_ofi_tag_make(&l, 6, 3, 42, FM_OFI_PROTO_ACK), posted, ig));
                /* another communicator never matches (the collective context too) */
                assert_false(matches(fm_ofi_tag_make(&l, 7, 3, 42, 0), posted, ig));
                assert_false(matches(fm_ofi_tag_make(&l, 4, 3, 42, 0), posted, ig));
                /* another source: only with ANY_SOURCE (full mode: by address) */
                if (l.src_bits)
                    assert_int_equal(matches(fm_ofi_tag_make(&l, 6, 5, 42, 0), posted, ig),
                                     any_src);
                /* another tag: only with ANY_TAG */
                assert_int_equal(matches(fm_ofi_tag_make(&l, 6, 3, 43, 0), posted, ig), any_tag);
                assert_int_equal(matches(fm_ofi_tag_make(&l, 6, 3, fm_ofi_tag_ub(&l), 0), posted,
                                         ig), any_tag);
                /* both differ: only with both wildcards */
                if (l.src_bits)
                    assert_int_equal(matches(fm_ofi_tag_make(&l, 6, 9, 7, 0), posted, ig),
                                     any_src && any_tag);
                /* the mask covers exactly the wildcard fields and the SYNC bit */
                uint64_t want = ((uint64_t)FM_OFI_PROTO_SYNC << l.proto_shift) |
                                (any_src ? l.src_mask : 0) | (any_tag ? l.tag_mask : 0);
                assert_true(ig == want);
            }
    }
}

static void test_print(void **state)
{
    (void)state;
    char buf[2048] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    fm_ofi_tag_print_limits(f, 0x5555555555555555ULL, 8, 1, 65536);
    fclose(f);
    assert_non_null(strstr(buf, "tag mode 1    MPI_TAG_UB 2147483647, communicators 1024"));
    assert_non_null(strstr(buf, "tag mode 2    MPI_TAG_UB 1048575, communicators 65536"));
    assert_non_null(strstr(buf, "<- auto"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits),     cmocka_unit_test(test_mem_tag_format),
        cmocka_unit_test(test_resolve),    cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_ignore_masks), cmocka_unit_test(test_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
