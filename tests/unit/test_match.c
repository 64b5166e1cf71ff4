/* test_match.c — the tag-matching engine (src/match): MPI matching rules,
 * large queues, a randomized comparison against a naive model, and a check
 * that the cost of a match does not grow with the number of other sources. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <mpi.h>

#include "match/match.h"

#define ANY_SRC MPI_ANY_SOURCE
#define ANY_TAG MPI_ANY_TAG

static fm_match_entry *ent(fm_match_entry *e, int src, int tag)
{
    memset(e, 0, sizeof *e);
    e->src = src;
    e->tag = tag;
    return e;
}

static int setup(void **state)
{
    *state = fm_match_queue_create();
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    fm_match_queue_destroy(*state);
    return 0;
}

static void test_specific(void **state)
{
    fm_match_queue *q = *state;
    fm_match_entry r, m, r2, m2;

    /* expected: receive first */
    assert_null(fm_match_post(q, ent(&r, 1, 5)));
    assert_int_equal(r.queued, 1);
    assert_int_equal(fm_match_posted_count(q), 1);
    assert_null(fm_match_arrive(q, ent(&m, 2, 5)));   /* other source */
    assert_null(fm_match_arrive(q, ent(&m2, 1, 6)));  /* other tag */
    assert_int_equal(fm_match_unexpected_count(q), 2);
    assert_ptr_equal(fm_match_arrive(q, ent(&m, 1, 5)), &r);
    assert_int_equal(r.queued, 0);
    assert_int_equal(m.queued, 0);
    assert_int_equal(fm_match_posted_count(q), 0);

    /* unexpected: message first */
    assert_ptr_equal(fm_match_post(q, ent(&r2, 1, 6)), &m2);
    assert_int_equal(m2.queued, 0);
    assert_int_equal(r2.queued, 0);
    assert_int_equal(fm_match_unexpected_count(q), 1);
    assert_int_equal(fm_match_posted_count(q), 0);
}

static void test_wildcards(void **state)
{
    fm_match_queue *q = *state;
    fm_match_entry r[4], m[4];

    assert_null(fm_match_post(q, ent(&r[0], ANY_SRC, 7)));
    assert_null(fm_match_arrive(q, ent(&m[0], 3, 8)));          /* tag differs */
    assert_ptr_equal(fm_match_arrive(q, ent(&m[1], 3, 7)), &r[0]);

    assert_null(fm_match_post(q, ent(&r[1], 2, ANY_TAG)));
    assert_null(fm_match_arrive(q, ent(&m[2], 4, 99)));         /* source differs */
    assert_ptr_equal(fm_match_arrive(q, ent(&m[3], 2, 99)), &r[1]);

    /* fully wild receive takes the earliest arrival: m[0] (3,8) */
    assert_ptr_equal(fm_match_post(q, ent(&r[2], ANY_SRC, ANY_TAG)), &m[0]);
    assert_ptr_equal(fm_match_post(q, ent(&r[3], ANY_SRC, 99)), &m[2]);
    assert_int_equal(fm_match_unexpected_count(q), 0);
    assert_int_equal(fm_match_posted_count(q), 0);
}

static void test_earliest_posted(void **state)
{
    fm_match_queue *q = *state;
    fm_match_entry a, b, m;

    /* ANY_SOURCE posted before the specific one wins */
    assert_null(fm_match_post(q, ent(&a, ANY_SRC, 5)));
    assert_null(fm_match_post(q, ent(&b, 3, 5)));
    assert_ptr_equal(fm_match_arrive(q, ent(&m, 3, 5)), &a);
    assert_ptr_equal(fm_match_arrive(q, ent(&m, 3, 5)), &b);

    /* specific posted before the ANY_SOURCE one wins */
    assert_null(fm_match_post(q, ent(&b, 3, 5)));
    assert_null(fm_match_post(q, ent(&a, ANY_SRC, 5)));
    assert_ptr_equal(fm_match_arrive(q, ent(&m, 3, 5)), &b);
    assert_ptr_equal(fm_match_arrive(q, ent(&m, 3, 5)), &a);

    /* ANY_TAG in a bin keeps its place against specific tags */
    assert_null(fm_match_post(q, ent(&a, 3, 9)));
    assert_null(fm_match_post(q, ent(&b, 3, ANY_TAG)));
    assert_ptr_equal(fm_match_arrive(q, ent(&m, 3, 4)), &b);
    assert_ptr_equal(fm_match_arrive(q, ent(&m, 3, 9)), &a);
    assert_null(fm_match_post(q, ent(&b, 3, ANY_TAG)));
    assert_null(fm_match_post(q, ent(&a, 3, 9)));
    assert_ptr_equal(fm_match_arrive(q, ent(&m, 3, 9)), &b);
    assert_ptr_equal(fm_match_arrive(q, ent(&m, 3, 9)), &a);
    assert_int_equal(fm_match_posted_count(q), 0);
}

static void test_source_order(void **state)
{
    fm_match_queue *q = *state;
    fm_match_entry m[6], r;

    assert_null(fm_match_arrive(q, ent(&m[0], 2, 5)));
    assert_null(fm_match_arrive(q, ent(&m[1], 2, 5)));
    assert_null(fm_match_arrive(q, ent(&m[2], 2, 5)));
    assert_ptr_equal(fm_match_post(q, ent(&r, 2, 5)), &m[0]);
    assert_ptr_equal(fm_match_post(q, ent(&r, ANY_SRC, 5)), &m[1]);
    assert_ptr_equal(fm_match_post(q, ent(&r, 2, ANY_TAG)), &m[2]);

    /* ANY_SOURCE follows arrival order across sources */
    assert_null(fm_match_arrive(q, ent(&m[3], 4, 1)));
    assert_null(fm_match_arrive(q, ent(&m[4], 2, 1)));
    assert_null(fm_match_arrive(q, ent(&m[5], 4, 1)));
    assert_ptr_equal(fm_match_post(q, ent(&r, ANY_SRC, 1)), &m[3]);
    assert_ptr_equal(fm_match_post(q, ent(&r, ANY_SRC, 1)), &m[4]);
    assert_ptr_equal(fm_match_post(q, ent(&r, ANY_SRC, ANY_TAG)), &m[5]);
    assert_int_equal(fm_match_unexpected_count(q), 0);
}

static void test_later_tag_first(void **state)
{
    fm_match_queue *q = *state;
    fm_match_entry m[2], r;

    assert_null(fm_match_arrive(q, ent(&m[0], 1, 10)));
    assert_null(fm_match_arrive(q, ent(&m[1], 1, 20)));
    assert_ptr_equal(fm_match_post(q, ent(&r, 1, 20)), &m[1]);
    assert_int_equal(m[0].queued, 1);
    assert_ptr_equal(fm_match_post(q, ent(&r, 1, ANY_TAG)), &m[0]);
}

static void test_peek_remove(void **state)
{
    fm_match_queue *q = *state;
    fm_match_entry m[3], r;

    assert_null(fm_match_peek(q, ANY_SRC, ANY_TAG));
    assert_null(fm_match_arrive(q, ent(&m[0], 1, 5)));
    assert_null(fm_match_arrive(q, ent(&m[1], 2, 5)));
    assert_null(fm_match_arrive(q, ent(&m[2], 1, 6)));

    assert_ptr_equal(fm_match_peek(q, ANY_SRC, 5), &m[0]);
    assert_ptr_equal(fm_match_peek(q, ANY_SRC, 5), &m[0]);
    assert_int_equal(m[0].queued, 1);
    assert_int_equal(fm_match_unexpected_count(q), 3);
    assert_ptr_equal(fm_match_peek(q, 2, ANY_TAG), &m[1]);
    assert_ptr_equal(fm_match_peek(q, 1, 6), &m[2]);
    assert_ptr_equal(fm_match_peek(q, ANY_SRC, 6), &m[2]);
    assert_null(fm_match_peek(q, 3, 5));
    assert_null(fm_match_peek(q, 2, 6));
    assert_null(fm_match_peek(q, 100000, ANY_TAG)); /* no bin: no growth, no crash */

    /* Mprobe-style: peek then remove; the rest still match in order */
    fm_match_entry *p = fm_match_peek(q, 1, ANY_TAG);
    assert_ptr_equal(p, &m[0]);
    fm_match_remove_unexpected(q, p);
    assert_int_equal(m[0].queued, 0);
    assert_int_equal(fm_match_unexpected_count(q), 2);
    assert_ptr_equal(fm_match_peek(q, ANY_SRC, ANY_TAG), &m[1]);
    assert_ptr_equal(fm_match_post(q, ent(&r, 1, ANY_TAG)), &m[2]);
    fm_match_remove_unexpected(q, fm_match_peek(q, ANY_SRC, ANY_TAG));
    assert_int_equal(fm_match_unexpected_count(q), 0);
    assert_null(fm_match_peek(q, ANY_SRC, ANY_TAG));
}

static void test_cancel(void **state)
{
    fm_match_queue *q = *state;
    fm_match_entry r, w, m, m2;

    assert_null(fm_match_post(q, ent(&r, 1, 5)));
    assert_null(fm_match_post(q, ent(&w, ANY_SRC, 5)));
    assert_int_equal(fm_match_posted_count(q), 2);
    assert_int_equal(fm_match_cancel(q, &r), 1);
    assert_int_equal(r.queued, 0);
    assert_int_equal(fm_match_cancel(q, &r), 0);
    assert_int_equal(fm_match_posted_count(q), 1);
    assert_int_equal(fm_match_cancel(q, &w), 1);
    assert_int_equal(fm_match_posted_count(q), 0);
    /* neither matches any more */
    assert_null(fm_match_arrive(q, ent(&m, 1, 5)));
    assert_int_equal(fm_match_unexpected_count(q), 1);

    /* a receive matched at post time cannot be cancelled */
    assert_ptr_equal(fm_match_post(q, ent(&r, 1, 5)), &m);
    assert_int_equal(fm_match_cancel(q, &r), 0);
    /* nor one matched by an arrival */
    assert_null(fm_match_post(q, ent(&r, 1, 5)));
    assert_ptr_equal(fm_match_arrive(q, ent(&m2, 1, 5)), &r);
    assert_int_equal(fm_match_cancel(q, &r), 0);
    assert_int_equal(fm_match_posted_count(q), 0);
    assert_int_equal(fm_match_unexpected_count(q), 0);
}

static void test_counts(void **state)
{
    fm_match_queue *q = *state;
    fm_match_entry r[3], m[3];

    assert_int_equal(fm_match_posted_count(q), 0);
    assert_int_equal(fm_match_unexpected_count(q), 0);
    assert_false(fm_match_any_unexpected(q));
    assert_null(fm_match_post(q, ent(&r[0], 0, 1)));
    assert_null(fm_match_post(q, ent(&r[1], ANY_SRC, 2)));
    assert_null(fm_match_post(q, ent(&r[2], 7, ANY_TAG)));
    assert_false(fm_match_any_unexpected(q)); /* posted ones are not */
    assert_null(fm_match_arrive(q, ent(&m[0], 5, 5)));
    assert_true(fm_match_any_unexpected(q));
    assert_null(fm_match_arrive(q, ent(&m[1], 6, 6)));
    assert_int_equal(fm_match_posted_count(q), 3);
    assert_int_equal(fm_match_unexpected_count(q), 2);
    assert_ptr_equal(fm_match_arrive(q, ent(&m[2], 9, 2)), &r[1]);
    assert_int_equal(fm_match_posted_count(q), 2);
    assert_int_equal(fm_match_unexpected_count(q), 2);
    assert_int_equal(fm_match_cancel(q, &r[0]), 1);
    assert_int_equal(fm_match_cancel(q, &r[2]), 1);
    fm_match_remove_unexpected(q, &m[0]);
    assert_true(fm_match_any_unexpected(q));
    fm_match_remove_unexpected(q, &m[1]);
    assert_false(fm_match_any_unexpected(q));
    assert_int_equal(fm_match_posted_count(q), 0);
    assert_int_equal(fm_match_unexpected_count(q), 0);
}

/* Sources past the bin cap take the overflow path and still match by the
 * rules, including the earliest-posted rule against ANY_SOURCE. */
static void test_huge_source(void **state)
{
    fm_match_queue *q = *state;
    const int big = INT32_MAX, big2 = INT32_MAX - 1;
    fm_match_entry r[4], m[4];

    assert_null(fm_match_post(q, ent(&r[0], big, 1)));
    assert_null(fm_match_post(q, ent(&r[1], ANY_SRC, 1)));
    assert_null(fm_match_post(q, ent(&r[2], big, 1)));
    assert_ptr_equal(fm_match_arrive(q, ent(&m[0], big, 1)), &r[0]);
    assert_ptr_equal(fm_match_arrive(q, ent(&m[0], big, 1)), &r[1]);
    assert_int_equal(fm_match_cancel(q, &r[2]), 1);
    assert_int_equal(fm_match_posted_count(q), 0);

    assert_null(fm_match_arrive(q, ent(&m[0], big, 3)));
    assert_null(fm_match_arrive(q, ent(&m[1], 4, 3)));
    assert_null(fm_match_arrive(q, ent(&m[2], big2, 3)));
    assert_null(fm_match_arrive(q, ent(&m[3], big, 3)));
    assert_ptr_equal(fm_match_peek(q, big2, ANY_TAG), &m[2]);
    assert_ptr_equal(fm_match_post(q, ent(&r[0], big, 3)), &m[0]);
    assert_ptr_equal(fm_match_post(q, ent(&r[0], 4, 3)), &m[1]);
    assert_ptr_equal(fm_match_post(q, ent(&r[0], ANY_SRC, 3)), &m[2]);
    fm_match_remove_unexpected(q, &m[3]);
    assert_int_equal(fm_match_unexpected_count(q), 0);
}

/* ---- large queues ---- */

#define BIG 100000

static void test_large_distinct_sources(void **state)
{
    fm_match_queue *q = *state;
    fm_match_entry *r = calloc(BIG, sizeof *r), *m = calloc(BIG, sizeof *m);
    assert_non_null(r);
    assert_non_null(m);

    for (int i = 0; i < BIG; i++)
        assert_null(fm_match_post(q, ent(&r[i], i, i % 7)));
    assert_int_equal(fm_match_posted_count(q), BIG);
    for (int i = BIG - 1; i >= 0; i--)
        assert_ptr_equal(fm_match_arrive(q, ent(&m[i], i, i % 7)), &r[i]);
    assert_int_equal(fm_match_posted_count(q), 0);

    /* unexpected from distinct sources: specific posts in reverse, then
     * ANY_SOURCE posts in arrival order */
    for (int i = 0; i < BIG; i++)
        assert_null(fm_match_arrive(q, ent(&m[i], i, 3)));
    assert_int_equal(fm_match_unexpected_count(q), BIG);
    for (int i = BIG - 1; i >= BIG / 2; i--)
        assert_ptr_equal(fm_match_post(q, ent(&r[i], i, ANY_TAG)), &m[i]);
    for (int i = 0; i < BIG / 2; i++)
        assert_ptr_equal(fm_match_post(q, ent(&r[i], ANY_SRC, 3)), &m[i]);
    assert_int_equal(fm_match_unexpected_count(q), 0);
    free(r);
    free(m);
}

static void test_large_one_source(void **state)
{
    fm_match_queue *q = *state;
    fm_match_entry *r = calloc(BIG, sizeof *r), *m = calloc(BIG, sizeof *m);
    assert_non_null(r);
    assert_non_null(m);

    for (int i = 0; i < BIG; i++)
        assert_null(fm_match_post(q, ent(&r[i], 9, i % 2 ? ANY_TAG : i)));
    for (int i = 0; i < BIG; i++)
        assert_ptr_equal(fm_match_arrive(q, ent(&m[i], 9, i)), &r[i]);
    assert_int_equal(fm_match_posted_count(q), 0);

    for (int i = 0; i < BIG; i++)
        assert_null(fm_match_arrive(q, ent(&m[i], 9, i)));
    for (int i = 0; i < BIG; i++)
        assert_ptr_equal(fm_match_post(q, ent(&r[i], i % 2 ? ANY_SRC : 9,
                                              i % 3 ? ANY_TAG : i)), &m[i]);
    assert_int_equal(fm_match_unexpected_count(q), 0);

    /* all queued, then all removed by cancel / remove_unexpected */
    /* (a wildcard receive costs a scan of the unexpected messages, so keep
     * those few, or this test goes quadratic) */
    for (int i = 0; i < BIG; i++)
        assert_null(fm_match_arrive(q, ent(&m[i], 10, 2)));
    for (int i = 0; i < BIG; i++)
        assert_null(fm_match_post(q, ent(&r[i], i % 10000 ? 9 : ANY_SRC, 1)));
    for (int i = 0; i < BIG; i++) {
        assert_int_equal(fm_match_cancel(q, &r[i]), 1);
        fm_match_remove_unexpected(q, &m[i]);
    }
    assert_int_equal(fm_match_posted_count(q), 0);
    assert_int_equal(fm_match_unexpected_count(q), 0);
    free(r);
    free(m);
}

/* ---- randomized comparison against a naive model ----
 * The model keeps one post-ordered array of receives and one arrival-ordered
 * array of messages and takes the first match: MPI's rule, stated plainly. */

#define POOL 600

struct model {
    fm_match_entry *posted[POOL], *unexp[POOL];
    int np, nu;
};

static int model_match(const fm_match_entry *r, const fm_match_entry *m)
{
    return (r->src == ANY_SRC || r->src == m->src) && (r->tag == ANY_TAG || r->tag == m->tag);
}

static fm_match_entry *model_take(fm_match_entry **v, int *n, int i)
{
    fm_match_entry *e = v[i];
    memmove(&v[i], &v[i + 1], (size_t)(*n - i - 1) * sizeof *v);
    (*n)--;
    return e;
}

static int model_find(fm_match_entry **v, int n, fm_match_entry *e)
{
    for (int i = 0; i < n; i++)
        if (v[i] == e)
            return i;
    return -1;
}

static unsigned rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(*s >> 33);
}

static int rnd_src(uint64_t *s)
{
    unsigned k = rnd(s) % 100;
    if (k < 3)
        return INT32_MAX - (int)(rnd(s) % 2); /* overflow path */
    if (k < 8)
        return 1000 + (int)(rnd(s) % 3000);   /* bin growth */
    return (int)(rnd(s) % 6);
}

static void test_random_vs_model(void **state)
{
    fm_match_queue *q = *state;
    static fm_match_entry recvs[POOL], msgs[POOL];
    static struct model md;
    uint64_t seed = 12345;

    memset(&md, 0, sizeof md);
    for (int step = 0; step < 200000; step++) {
        unsigned op = rnd(&seed) % 10;
        if (op < 4) { /* post */
            fm_match_entry *r = &recvs[rnd(&seed) % POOL];
            if (r->queued)
                continue;
            int src = rnd(&seed) % 4 == 0 ? ANY_SRC : rnd_src(&seed);
            int tag = rnd(&seed) % 4 == 0 ? ANY_TAG : (int)(rnd(&seed) % 3);
            ent(r, src, tag);
            fm_match_entry *want = NULL;
            for (int i = 0; i < md.nu; i++)
                if (model_match(r, md.unexp[i])) {
                    want = model_take(md.unexp, &md.nu, i);
                    break;
                }
            if (!want)
                md.posted[md.np++] = r;
            assert_ptr_equal(fm_match_post(q, r), want);
        } else if (op < 8) { /* arrive */
            fm_match_entry *m = &msgs[rnd(&seed) % POOL];
            if (m->queued)
                continue;
            ent(m, rnd_src(&seed), (int)(rnd(&seed) % 3));
            fm_match_entry *want = NULL;
            for (int i = 0; i < md.np; i++)
                if (model_match(md.posted[i], m)) {
                    want = model_take(md.posted, &md.np, i);
                    break;
                }
            if (!want)
                md.unexp[md.nu++] = m;
            assert_ptr_equal(fm_match_arrive(q, m), want);
        } else if (op < 9) { /* cancel */
            fm_match_entry *r = &recvs[rnd(&seed) % POOL];
            int i = model_find(md.posted, md.np, r);
            if (i >= 0)
                model_take(md.posted, &md.np, i);
            assert_int_equal(fm_match_cancel(q, r), i >= 0);
        } else { /* probe, sometimes Mprobe */
            int src = rnd(&seed) % 3 == 0 ? ANY_SRC : rnd_src(&seed);
            int tag = rnd(&seed) % 3 == 0 ? ANY_TAG : (int)(rnd(&seed) % 3);
            fm_match_entry pat = {.src = src, .tag = tag};
            int i;
            for (i = 0; i < md.nu && !model_match(&pat, md.unexp[i]); i++)
                ;
            fm_match_entry *got = fm_match_peek(q, src, tag);
            assert_ptr_equal(got, i < md.nu ? md.unexp[i] : NULL);
            if (got && rnd(&seed) % 2) {
                model_take(md.unexp, &md.nu, i);
                fm_match_remove_unexpected(q, got);
            }
        }
        assert_int_equal(fm_match_posted_count(q), md.np);
        assert_int_equal(fm_match_unexpected_count(q), md.nu);
    }
    /* drain */
    while (md.np)
        assert_int_equal(fm_match_cancel(q, model_take(md.posted, &md.np, 0)), 1);
    while (md.nu)
        fm_match_remove_unexpected(q, model_take(md.unexp, &md.nu, 0));
    assert_int_equal(fm_match_posted_count(q), 0);
    assert_int_equal(fm_match_unexpected_count(q), 0);
}

/* ---- flat cost ----
 * One iteration: a message arrives and matches the receive posted for its
 * source, and the receive is reposted (expected path); or a receive matches
 * the queued message of its source and the message re-arrives (unexpected
 * path).  `depth` sources each keep one entry queued (on the expected path
 * every source also has an unexpected message of another tag waiting, and on
 * the unexpected path a posted receive of another tag, so both queues are
 * deep).  Patterns:
 *   HOT        every iteration uses source 0: what the engine costs when
 *              10^4 other sources are queued (no extra cache misses)
 *   ROUND      sources in turn, like an all-to-all
 *   SCATTERED  sources at random: adds cache misses on bins and entries
 * Best of several runs, to shrug off a noisy machine. */

enum pattern { HOT, ROUND, SCATTERED };

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double ns_per_match(int depth, int expected_path, enum pattern pat)
{
    enum { ITERS = 400000, RUNS = 5 };
    fm_match_queue *q = fm_match_queue_create();
    fm_match_entry *r = calloc((size_t)depth, sizeof *r), *m = calloc((size_t)depth, sizeof *m);
    fm_match_entry *other = calloc((size_t)depth, sizeof *other);
    int *order = malloc(ITERS * sizeof *order);
    uint64_t seed = 99;
    assert_non_null(q);
    assert_non_null(r);
    assert_non_null(m);
    assert_non_null(other);
    assert_non_null(order);

    for (int i = 0; i < ITERS; i++)
        order[i] = pat == HOT ? 0 : pat == ROUND ? i % depth : (int)(rnd(&seed) % (unsigned)depth);
    for (int s = 0; s < depth; s++) {
        if (expected_path) {
            assert_null(fm_match_arrive(q, ent(&other[s], s, 1)));
            assert_null(fm_match_post(q, ent(&r[s], s, 0)));
        } else {
            assert_null(fm_match_post(q, ent(&other[s], s, 1)));
            assert_null(fm_match_arrive(q, ent(&m[s], s, 0)));
        }
    }
    double best = 1e30;
    for (int run = 0; run < RUNS; run++) {
        double t0 = now_ns();
        for (int i = 0; i < ITERS; i++) {
            int s = order[i];
            if (expected_path) {
                fm_match_entry *got = fm_match_arrive(q, ent(&m[s], s, 0));
                if (got != &r[s] || fm_match_post(q, &r[s]))
                    fail();
            } else {
                fm_match_entry *got = fm_match_post(q, ent(&r[s], s, 0));
                if (got != &m[s] || fm_match_arrive(q, &m[s]))
                    fail();
            }
        }
        double t = (now_ns() - t0) / ITERS;
        if (t < best)
            best = t;
    }
    assert_int_equal(fm_match_posted_count(q) + fm_match_unexpected_count(q), 2 * (size_t)depth);
    fm_match_queue_destroy(q);
    free(r);
    free(m);
    free(other);
    free(order);
    return best;
}

static void test_flat_cost(void **state)
{
    static const char *const names[] = {"hot source", "round-robin", "scattered"};
    int timing = getenv("FM_TEST_NO_TIMING") == NULL; /* set under valgrind/sanitizers */
    (void)state;
    for (int path = 1; path >= 0; path--) {
        for (int pat = HOT; pat <= SCATTERED; pat++) {
            /* A busy machine can stall any one measurement: keep the best
             * ratio of a few paired ones. */
            double d1 = 0, d4 = 0;
            for (int attempt = 0; attempt < 5; attempt++) {
                double a = ns_per_match(1, path, HOT);
                double b = ns_per_match(10000, path, (enum pattern)pat);
                if (attempt == 0 || b / a < d4 / d1) {
                    d1 = a;
                    d4 = b;
                }
                if (d4 < 1.5 * d1)
                    break;
            }
            printf("# %s match, %-11s: depth 1 %5.1f ns, depth 10^4 %5.1f ns, ratio %.2f\n",
                   path ? "expected  " : "unexpected", names[pat], d1, d4, d4 / d1);
            /* Target ~1.5x; 3x leaves room for a noisy machine.  Scattered
             * access measures the cache more than the engine: report only. */
            if (timing && pat != SCATTERED)
                assert_true(d4 < 3.0 * d1);
        }
    }
}

/* An optional argument selects tests by name pattern, e.g. test_match '*cost*'. */
int main(int argc, char **argv)
{
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_specific, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wildcards, setup, teardown),
        cmocka_unit_test_setup_teardown(test_earliest_posted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_source_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_later_tag_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_peek_remove, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_source, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_distinct_sources, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_one_source, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_vs_model, setup, teardown),
        cmocka_unit_test(test_flat_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
