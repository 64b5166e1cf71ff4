/* test_topo.c — process topologies below the MPI layer (src/core/topo.c):
 * the neighbour lists neighborhood collectives will walk, in the order
 * MPI-4.0 8.6 fixes (Cartesian: each dimension's -1 then +1 neighbour,
 * MPI_PROC_NULL in its slot, periodic sizes 1 and 2 repeating a rank;
 * graph: the edges as given; distributed graph: sources and destinations
 * as given), Cartesian rank arithmetic, sharing by reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>

#include "core/comm.h"
#include "core/topo.h"
#include "util/status.h"

#define N MPI_PROC_NULL

/* comm's neighbour lists must be exactly in[0..nin) and out[0..nout). */
static void expect_neighbors(struct fm_topo *t, int nin, const int *in, int nout,
                             const int *out)
{
    struct fm_comm c = {0};
    c.topo = t;
    int gi = -1, go = -1;
    const int *li = NULL, *lo = NULL;
    assert_int_equal(fm_topo_neighbors(&c, &gi, &li, &go, &lo), FM_OK);
    assert_int_equal(gi, nin);
    assert_int_equal(go, nout);
    for (int i = 0; i < nin; i++)
        assert_int_equal(li[i], in[i]);
    for (int i = 0; i < nout; i++)
        assert_int_equal(lo[i], out[i]);
}

static void test_cart_neighbors(void **state)
{
    (void)state;
    /* 2 x 3, dimension 0 periodic of size 2 (both neighbours are the same
     * rank), dimension 1 open.  Rank 4 is (1, 1); rank 3 is (1, 0). */
    struct fm_topo *t = fm_topo_cart_new(2, (int[]){2, 3}, (int[]){1, 0}, 4);
    assert_non_null(t);
    assert_int_equal(t->kind, MPI_CART);
    assert_int_equal(t->coords[0], 1);
    assert_int_equal(t->coords[1], 1);
    int l4[] = {1, 1, 3, 5};
    expect_neighbors(t, 4, l4, 4, l4);
    fm_topo_release(t);
    t = fm_topo_cart_new(2, (int[]){2, 3}, (int[]){1, 0}, 3);
    int l3[] = {0, 0, N, 4};
    expect_neighbors(t, 4, l3, 4, l3);
    fm_topo_release(t);
    /* Periodic of size 1: oneself twice; open of size 1: nobody. */
    t = fm_topo_cart_new(2, (int[]){1, 1}, (int[]){1, 0}, 0);
    int l0[] = {0, 0, N, N};
    expect_neighbors(t, 4, l0, 4, l0);
    fm_topo_release(t);
    /* Zero dimensions: no neighbours. */
    t = fm_topo_cart_new(0, NULL, NULL, 0);
    assert_non_null(t);
    expect_neighbors(t, 0, NULL, 0, NULL);
    fm_topo_release(t);
}

static void test_cart_arithmetic(void **state)
{
    (void)state;
    struct fm_topo *t = fm_topo_cart_new(3, (int[]){2, 3, 4}, (int[]){0, 1, 0}, 23);
    int c[3] = {-1, -1, -1}, bad = -1;
    fm_topo_cart_coords(t, 17, 3, c); /* 17 = 1*12 + 1*4 + 1 */
    assert_int_equal(c[0], 1);
    assert_int_equal(c[1], 1);
    assert_int_equal(c[2], 1);
    c[0] = c[1] = c[2] = -1;
    fm_topo_cart_coords(t, 17, 1, c); /* only the first fits */
    assert_int_equal(c[0], 1);
    assert_int_equal(c[1], -1);
    assert_int_equal(fm_topo_cart_rank(t, (int[]){1, -2, 1}, &bad), 17); /* -2 wraps to 1 */
    assert_int_equal(fm_topo_cart_rank(t, (int[]){1, 1, 4}, &bad), -1);
    assert_int_equal(bad, 2);
    int src, dst;
    fm_topo_cart_shift(t, 1, INT_MIN, &src, &dst); /* 23 is (1, 2, 3); 2^31 = 2 mod 3 */
    assert_int_equal(src, 1 * 12 + 1 * 4 + 3);
    assert_int_equal(dst, 1 * 12 + 0 * 4 + 3);
    fm_topo_cart_shift(t, 0, -1, &src, &dst);
    assert_int_equal(src, N);
    assert_int_equal(dst, 11);
    assert_int_equal(fm_topo_grid_size(3, (int[]){2, 3, 4}), 24);
    assert_int_equal(fm_topo_grid_size(2, (int[]){65536, 65536}), -1);
    fm_topo_release(t);
}

static void test_graph_neighbors(void **state)
{
    (void)state;
    /* Node 0: 1, 2; node 1: 0; node 2: 0, 0, 2 (repeat and self loop). */
    int index[] = {2, 3, 6}, edges[] = {1, 2, 0, 0, 0, 2};
    struct fm_topo *t = fm_topo_graph_new(3, index, edges, 2);
    assert_non_null(t);
    assert_int_equal(t->kind, MPI_GRAPH);
    assert_int_equal(t->nedges, 6);
    int l2[] = {0, 0, 2};
    expect_neighbors(t, 3, l2, 3, l2);
    fm_topo_release(t);
    t = fm_topo_graph_new(3, index, edges, 0);
    expect_neighbors(t, 2, edges, 2, edges);
    fm_topo_release(t);
}

static void test_dist_graph(void **state)
{
    (void)state;
    int in[] = {3, 1, 3}, inw[] = {7, 8, 9}, out[] = {2}, outw[] = {5};
    struct fm_topo *t = fm_topo_dist_graph_new(3, in, inw, 1, out, outw, 1);
    assert_non_null(t);
    assert_int_equal(t->kind, MPI_DIST_GRAPH);
    expect_neighbors(t, 3, in, 1, out);
    assert_int_equal(t->weighted, 1);
    assert_int_equal(t->inw[2], 9);
    assert_int_equal(t->outw[0], 5);
    fm_topo_release(t);
    /* Unweighted: weight arrays are not read, none kept. */
    t = fm_topo_dist_graph_new(0, NULL, NULL, 1, out, NULL, 0);
    expect_neighbors(t, 0, NULL, 1, out);
    assert_null(t->inw);
    assert_null(t->outw);
    fm_topo_release(t);
}

/* Duplicates share one topology; no topology is FM_ERR_TOPOLOGY. */
static void test_sharing(void **state)
{
    (void)state;
    struct fm_topo *t = fm_topo_cart_new(1, (int[]){4}, (int[]){1}, 0);
    assert_ptr_equal(fm_topo_retain(t), t);
    assert_int_equal(t->refcount, 2);
    fm_topo_release(t);
    assert_int_equal(t->refcount, 1);
    fm_topo_release(t);
    assert_null(fm_topo_retain(NULL));
    fm_topo_release(NULL);
    struct fm_comm c = {0};
    int n;
    const int *l;
    assert_int_equal(fm_topo_neighbors(&c, &n, &l, &n, &l), FM_ERR_TOPOLOGY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cart_neighbors),  cmocka_unit_test(test_cart_arithmetic),
        cmocka_unit_test(test_graph_neighbors), cmocka_unit_test(test_dist_graph),
        cmocka_unit_test(test_sharing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
