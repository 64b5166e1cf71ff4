/* test_group.c — the group operations of src/mpi/group.c, without MPI_Init:
 * order rules of the set operations, ranges with negative strides, error
 * statuses for bad, out-of-range and duplicate ranks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/comm.h"
#include "util/status.h"

/* A group of the given world ranks. */
static struct fm_group *mk(int n, const int *w)
{
    struct fm_group *g = fm_group_new(n, w);
    assert_non_null(g);
    return g;
}

static void expect_world(const struct fm_group *g, int n, const int *w)
{
    assert_int_equal(g->size, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(g->world[i], w[i]);
}

static int setup(void **state)
{
    (void)state;
    fm_group_set_self(3);
    return 0;
}

static void test_new_and_rank(void **state)
{
    (void)state;
    struct fm_group *g = mk(4, (int[]){7, 3, 5, 1});
    assert_int_equal(g->rank, 1); /* world rank 3 sits at index 1 */
    assert_int_equal(fm_group_rank_of(g, 5), 2);
    assert_int_equal(fm_group_rank_of(g, 9), MPI_UNDEFINED);
    struct fm_group *h = mk(2, (int[]){0, 1});
    assert_int_equal(h->rank, MPI_UNDEFINED);
    assert_ptr_equal(fm_group_new(0, NULL), &fab_group_empty);
    assert_true(fm_group_valid(g));
    assert_false(fm_group_valid(NULL));
    fm_group_release(g);
    fm_group_release(h);
    fm_group_release(&fab_group_empty); /* predefined: ignored */
    assert_true(fm_group_valid(&fab_group_empty));
}

static void test_incl_excl(void **state)
{
    (void)state;
    char why[FM_WHY_LEN];
    struct fm_group *g = mk(5, (int[]){10, 11, 12, 13, 14}), *r = NULL;
    assert_int_equal(fm_group_incl(g, 3, (int[]){4, 0, 2}, &r, why), FM_OK);
    expect_world(r, 3, (int[]){14, 10, 12});
    fm_group_release(r);
    assert_int_equal(fm_group_excl(g, 2, (int[]){3, 0}, &r, why), FM_OK);
    expect_world(r, 3, (int[]){11, 12, 14});
    fm_group_release(r);
    assert_int_equal(fm_group_incl(g, 0, NULL, &r, why), FM_OK);
    assert_ptr_equal(r, &fab_group_empty);
    assert_int_equal(fm_group_excl(g, 5, (int[]){0, 1, 2, 3, 4}, &r, why), FM_OK);
    assert_ptr_equal(r, &fab_group_empty);

    r = NULL;
    assert_int_equal(fm_group_incl(g, 2, (int[]){1, 5}, &r, why), FM_ERR_RANK);
    assert_non_null(strstr(why, "ranks[1]=5"));
    assert_int_equal(fm_group_incl(g, 2, (int[]){1, -1}, &r, why), FM_ERR_RANK);
    assert_int_equal(fm_group_incl(g, 2, (int[]){2, 2}, &r, why), FM_ERR_RANK);
    assert_non_null(strstr(why, "twice"));
    assert_int_equal(fm_group_excl(g, 2, (int[]){2, 2}, &r, why), FM_ERR_RANK);
    assert_int_equal(fm_group_incl(g, -1, NULL, &r, why), FM_ERR_ARG);
    assert_int_equal(fm_group_incl(g, 6, (int[]){0, 1, 2, 3, 4, 0}, &r, why), FM_ERR_ARG);
    assert_null(r); /* outputs untouched on error */
    fm_group_release(g);
}

static void test_ranges(void **state)
{
    (void)state;
    char why[FM_WHY_LEN];
    int w[10];
    for (int i = 0; i < 10; i++)
        w[i] = 100 + i;
    struct fm_group *g = mk(10, w), *r = NULL;

    int r1[][3] = {{0, 9, 3}, {8, 2, -4}};
    assert_int_equal(fm_group_range(g, 2, r1, 0, &r, why), FM_OK);
    expect_world(r, 6, (int[]){100, 103, 106, 109, 108, 104});
    fm_group_release(r);
    assert_int_equal(fm_group_range(g, 2, r1, 1, &r, why), FM_OK);
    expect_world(r, 4, (int[]){101, 102, 105, 107});
    fm_group_release(r);

    /* last need not be named itself: 0,4,8 of a 10-group with last 9 */
    int r2[][3] = {{0, 9, 4}};
    assert_int_equal(fm_group_range(g, 1, r2, 0, &r, why), FM_OK);
    expect_world(r, 3, (int[]){100, 104, 108});
    fm_group_release(r);

    /* first > last with a positive stride names nothing */
    int r3[][3] = {{5, 2, 1}};
    assert_int_equal(fm_group_range(g, 1, r3, 0, &r, why), FM_OK);
    assert_ptr_equal(r, &fab_group_empty);
    assert_int_equal(fm_group_range(g, 1, r3, 1, &r, why), FM_OK);
    expect_world(r, 10, w);
    fm_group_release(r);

    /* single rank, negative stride down to 0 */
    int r4[][3] = {{9, 0, -9}, {4, 4, 1}};
    assert_int_equal(fm_group_range(g, 2, r4, 0, &r, why), FM_OK);
    expect_world(r, 3, (int[]){109, 100, 104});
    fm_group_release(r);

    r = NULL;
    int bad0[][3] = {{0, 5, 0}};
    assert_int_equal(fm_group_range(g, 1, bad0, 0, &r, why), FM_ERR_ARG);
    assert_non_null(strstr(why, "stride"));
    int bad1[][3] = {{0, 10, 1}};
    assert_int_equal(fm_group_range(g, 1, bad1, 0, &r, why), FM_ERR_RANK);
    int bad2[][3] = {{-1, 3, 1}};
    assert_int_equal(fm_group_range(g, 1, bad2, 1, &r, why), FM_ERR_RANK);
    int dup[][3] = {{0, 4, 2}, {4, 6, 1}};
    assert_int_equal(fm_group_range(g, 2, dup, 0, &r, why), FM_ERR_RANK);
    assert_non_null(strstr(why, "rank 4"));
    assert_int_equal(fm_group_range(g, -1, NULL, 0, &r, why), FM_ERR_ARG);
    assert_null(r);
    fm_group_release(g);
}

static void test_set_ops(void **state)
{
    (void)state;
    struct fm_group *a = mk(4, (int[]){5, 1, 7, 3}), *b = mk(4, (int[]){2, 7, 9, 5}), *r;
    assert_int_equal(fm_group_union(a, b, &r), FM_OK);
    expect_world(r, 6, (int[]){5, 1, 7, 3, 2, 9});
    assert_int_equal(r->rank, 3);
    fm_group_release(r);
    assert_int_equal(fm_group_intersection(a, b, &r), FM_OK);
    expect_world(r, 2, (int[]){5, 7});
    assert_int_equal(r->rank, MPI_UNDEFINED);
    fm_group_release(r);
    assert_int_equal(fm_group_difference(a, b, &r), FM_OK);
    expect_world(r, 2, (int[]){1, 3});
    fm_group_release(r);
    assert_int_equal(fm_group_difference(a, a, &r), FM_OK);
    assert_ptr_equal(r, &fab_group_empty);
    assert_int_equal(fm_group_union(&fab_group_empty, b, &r), FM_OK);
    expect_world(r, 4, (int[]){2, 7, 9, 5});
    fm_group_release(r);
    assert_int_equal(fm_group_intersection(a, &fab_group_empty, &r), FM_OK);
    assert_ptr_equal(r, &fab_group_empty);
    fm_group_release(a);
    fm_group_release(b);
}

static void test_compare_translate(void **state)
{
    (void)state;
    char why[FM_WHY_LEN];
    struct fm_group *a = mk(3, (int[]){4, 0, 2}), *b = mk(3, (int[]){4, 0, 2}),
                    *c = mk(3, (int[]){0, 2, 4}), *d = mk(3, (int[]){0, 2, 5}),
                    *e = mk(2, (int[]){0, 2});
    assert_int_equal(fm_group_compare(a, a), MPI_IDENT);
    assert_int_equal(fm_group_compare(a, b), MPI_IDENT);
    assert_int_equal(fm_group_compare(a, c), MPI_SIMILAR);
    assert_int_equal(fm_group_compare(a, d), MPI_UNEQUAL);
    assert_int_equal(fm_group_compare(a, e), MPI_UNEQUAL);
    assert_int_equal(fm_group_compare(&fab_group_empty, &fab_group_empty), MPI_IDENT);

    int out[4];
    assert_int_equal(fm_group_translate(a, 4, (int[]){0, 1, MPI_PROC_NULL, 2}, d, out, why),
                     FM_OK);
    assert_int_equal(out[0], MPI_UNDEFINED); /* world 4 not in d */
    assert_int_equal(out[1], 0);
    assert_int_equal(out[2], MPI_PROC_NULL);
    assert_int_equal(out[3], 1);
    assert_int_equal(fm_group_translate(a, 1, (int[]){3}, d, out, why), FM_ERR_RANK);
    assert_non_null(strstr(why, "ranks1[0]=3"));
    assert_int_equal(fm_group_translate(a, 1, (int[]){0}, &fab_group_empty, out, why), FM_OK);
    assert_int_equal(out[0], MPI_UNDEFINED);
    assert_int_equal(fm_group_translate(a, -2, NULL, d, out, why), FM_ERR_ARG);
    fm_group_release(a);
    fm_group_release(b);
    fm_group_release(c);
    fm_group_release(d);
    fm_group_release(e);
}

static void test_refcount(void **state)
{
    (void)state;
    struct fm_group *g = mk(2, (int[]){3, 4});
    fm_group_retain(g);
    fm_group_release(g);
    assert_true(fm_group_valid(g)); /* one reference left */
    fm_group_release(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_and_rank),
        cmocka_unit_test(test_incl_excl),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_set_ops),
        cmocka_unit_test(test_compare_translate),
        cmocka_unit_test(test_refcount),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
