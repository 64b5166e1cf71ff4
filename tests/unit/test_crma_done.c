/* test_crma_done.c — the one-sided collectives' `done` word as a watermark
 * (fm_crma_finish, src/coll/rma/cache.h): calls numbered 1, 2, 3, ...
 * finish in any order (a nonblocking one may end after blocking ones
 * started later), and after every finish the word must hold the largest n
 * such that every call up to n has finished — never more (a peer would
 * then overwrite a region still being read), never less once they all
 * have (a peer would wait forever).  Orders: in order; each call swapped
 * with a random later one within a window of 40 (what a few outstanding
 * nonblocking calls give); one call left unfinished while 1000 later ones
 * finish, which grows the window of finished calls past its first size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "coll/rma/cache.h"

typedef struct run {
    fm_crma *c;
    unsigned char *seg;
    unsigned char *finished; /* [1 + n]: 1 once call i has finished */
    uint64_t n;
} run;

static void run_init(run *r, uint64_t n)
{
    r->c = calloc(1, sizeof *r->c);
    r->seg = aligned_alloc(64, sizeof(fm_crma_reserved));
    r->finished = calloc(n + 1, 1);
    assert_true(r->c && r->seg && r->finished);
    for (size_t i = 0; i < sizeof(fm_crma_reserved); i++)
        r->seg[i] = 0;
    r->c->self = r->seg;
    r->n = n;
}

static void run_free(run *r)
{
    free(r->c->ahead);
    free(r->c);
    free(r->seg);
    free(r->finished);
}

static uint64_t done_word(const run *r)
{
    const fm_crma_word *w = (const fm_crma_word *)(const void *)(r->seg + FM_CRMA_OFF_DONE);
    return atomic_load_explicit(&w->v, memory_order_acquire);
}

/* Finish call s and check the word against the model. */
static void finish_and_check(run *r, uint64_t s)
{
    assert_false(r->finished[s]);
    r->finished[s] = 1;
    fm_crma_finish(r->c, s);
    uint64_t want = 0;
    while (want < r->n && r->finished[want + 1])
        want++;
    if (done_word(r) != want)
        fail_msg("after finishing call %llu: done = %llu, want %llu", (unsigned long long)s,
                 (unsigned long long)done_word(r), (unsigned long long)want);
}

static void finish_in(uint64_t n, const uint64_t *order)
{
    run r;
    run_init(&r, n);
    for (uint64_t i = 0; i < n; i++)
        finish_and_check(&r, order[i]);
    assert_int_equal(done_word(&r), n);
    assert_int_equal(r.c->nahead, 0);
    run_free(&r);
}

static void test_in_order(void **state)
{
    (void)state;
    enum { N = 500 };
    uint64_t order[N];
    for (int i = 0; i < N; i++)
        order[i] = (uint64_t)i + 1;
    finish_in(N, order);
}

static void test_shuffled_window(void **state)
{
    (void)state;
    enum { N = 5000, WINDOW = 40 };
    uint64_t *order = malloc(N * sizeof *order);
    assert_non_null(order);
    srand(7);
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < N; i++)
            order[i] = (uint64_t)i + 1;
        for (int i = 0; i < N; i++) {
            int j = i + rand() % WINDOW;
            if (j >= N)
                j = N - 1;
            uint64_t t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        finish_in(N, order);
    }
    free(order);
}

static void test_one_left_behind(void **state)
{
    (void)state;
    enum { N = 1200, LATE = 5 };
    uint64_t order[N];
    int k = 0;
    for (int s = 1; s <= N; s++)
        if (s != LATE)
            order[k++] = (uint64_t)s;
    order[k] = LATE;
    finish_in(N, order);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_order),
        cmocka_unit_test(test_shuffled_window),
        cmocka_unit_test(test_one_left_behind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
