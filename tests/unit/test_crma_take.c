/* test_crma_take.c — the one-sided collectives' ring allocation
 * (fm_crma_take, src/coll/rma/cache.c) against a byte map: for every call,
 * the region it gets lies inside its area and holds what it asked for,
 * and the call it must wait for (r.after: a member's area is free once
 * its `done` reaches it) is at least the newest earlier call that used any
 * of those bytes.  Sequences: the one coll_rma failed on (a 32772-byte
 * bcast, then two 65532-byte ones, in a 128 KiB area: the second wrote over
 * the first's last 512 bytes while it could still be read), then random
 * sizes in areas of one page to 64 pages, with both areas of a cache in use
 * at once (calls over half the data area go to the large one). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coll/rma/cache.h"

#define GRAIN 256 /* regions start and end on multiples of this */

typedef struct model {
    size_t off, len;   /* the area in the segment */
    uint64_t *last;    /* per GRAIN bytes of it: the last call that took them */
} model;

static void model_init(model *m, size_t off, size_t len)
{
    m->off = off;
    m->len = len;
    m->last = len ? calloc(len / GRAIN, sizeof *m->last) : NULL;
    assert_true(!len || m->last != NULL);
}

static fm_crma *new_cache(size_t small, size_t large)
{
    fm_crma *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->ring[0].off = 4096;
    c->ring[0].len = small;
    c->ring[1].off = 4096 + small;
    c->ring[1].len = large;
    return c;
}

/* One call: check its region against the model, then record it. */
static void take_and_check(fm_crma *c, model m[2], uint64_t seq, size_t need)
{
    fm_crma_region r = fm_crma_take(c, seq, need, 0);
    model *a = NULL;
    for (int i = 0; i < 2; i++)
        if (m[i].len && r.off >= m[i].off && r.off < m[i].off + m[i].len)
            a = &m[i];
    assert_non_null(a);
    assert_true(r.len >= need);
    assert_true(r.off + r.len <= a->off + a->len);
    assert_int_equal((r.off - a->off) % GRAIN, 0);
    uint64_t newest = 0;
    for (size_t b = (r.off - a->off) / GRAIN; b < (r.off - a->off + r.len) / GRAIN; b++) {
        if (a->last[b] > newest)
            newest = a->last[b];
        a->last[b] = seq;
    }
    if (r.after < newest)
        fail_msg("call %llu (need %zu, [%zu, %zu)) waits for call %llu, but call %llu used "
                 "those bytes",
                 (unsigned long long)seq, need, r.off, r.off + r.len,
                 (unsigned long long)r.after, (unsigned long long)newest);
}

static void test_coll_rma_sequence(void **state)
{
    (void)state;
    fm_crma *c = new_cache(131072, 0);
    model m[2];
    model_init(&m[0], c->ring[0].off, 131072);
    model_init(&m[1], 0, 0);
    uint64_t seq = 0;
    /* Fill up to where the bcast started in the failing run (33024 bytes
     * into the area), then the three calls. */
    take_and_check(c, m, ++seq, 33024);
    take_and_check(c, m, ++seq, 32772);
    take_and_check(c, m, ++seq, 65532);
    take_and_check(c, m, ++seq, 65532);
    free(m[0].last);
    free(c);
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Sizes that stress the edges: whole areas, halves, quarters, a grain on
 * either side of them, and anything in between. */
static size_t pick_need(size_t most)
{
    size_t edges[] = {most, most / 2, most / 4, most / 3, GRAIN};
    uint64_t x = next_rand();
    size_t n;
    if (x % 3 == 0) {
        n = edges[(x >> 8) % 5];
        n += (size_t)((x >> 16) % 3) * GRAIN;
        n -= n >= 2 * GRAIN ? GRAIN : 0;
    } else {
        n = 1 + (size_t)((x >> 8) % most);
    }
    return n > most ? most : n;
}

static void run_random(size_t small, size_t large, int calls)
{
    fm_crma *c = new_cache(small, large);
    model m[2];
    model_init(&m[0], c->ring[0].off, small);
    model_init(&m[1], c->ring[1].off, large);
    size_t most = large > small ? large : small;
    for (int i = 1; i <= calls; i++)
        take_and_check(c, m, (uint64_t)i, pick_need(most));
    free(m[0].last);
    free(m[1].last);
    free(c);
}

static void test_random_small_areas(void **state)
{
    (void)state;
    run_random(4096, 0, 200000);
    run_random(8192, 0, 200000);
    run_random(131072, 0, 200000);
}

static void test_random_two_areas(void **state)
{
    (void)state;
    run_random(131072, 1048576, 200000);
    run_random(32768, 65536, 200000);
    run_random(0, 65536, 100000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coll_rma_sequence),
        cmocka_unit_test(test_random_small_areas),
        cmocka_unit_test(test_random_two_areas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
