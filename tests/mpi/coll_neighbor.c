/* coll_neighbor.c — neighborhood collectives, blocking, nonblocking and
 * persistent, with exact values:
 *   - Cartesian grids, periodic and not, including periodic dimensions of
 *     size 1 (this process is both neighbours) and 2 (one process is
 *     both): the block sent in slot s lands in slot s ^ 1 (MPI-4.0
 *     errata, MPI-4.1 8.6), a MPI_PROC_NULL slot is left untouched;
 *   - a ring multigraph, every edge twice (blocks matched in list order);
 *   - a distributed graph with the v and w forms;
 *   - errors: no topology, MPI_IN_PLACE. */
#include "testutil.h"

static int rank, size;

#define SENTINEL (-7)

/* A Cartesian grid of ndims dims: allgather and alltoall against
 * MPI_Cart_shift. */
static void cart_case(int ndims, const int *dims, const int *periods, int mode)
{
    MPI_Comm cart;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart));
    if (cart == MPI_COMM_NULL)
        return;
    int me, n = 2 * ndims;
    CHECK_MPI(MPI_Comm_rank(cart, &me));
    int src[2 * 3], dst[2 * 3];
    for (int d = 0; d < ndims; d++)
        CHECK_MPI(MPI_Cart_shift(cart, d, 1, &src[2 * d], &dst[2 * d + 1]));
    for (int d = 0; d < ndims; d++) {
        src[2 * d + 1] = dst[2 * d + 1];
        dst[2 * d] = src[2 * d];
    }
    /* allgather: slot i holds neighbour i's rank */
    int got[6], blocks[6], mine = 1000 + me;
    for (int i = 0; i < n; i++)
        got[i] = SENTINEL;
    RUN_FORMS(mode, MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, cart),
        MPI_Ineighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, cart, &rq_),
        MPI_Neighbor_allgather_init(&mine, 1, MPI_INT, got, 1, MPI_INT, cart, MPI_INFO_NULL,
                                    &rq_));
    for (int i = 0; i < n; i++)
        CHECK_EQ(got[i], src[i] == MPI_PROC_NULL ? SENTINEL : 1000 + src[i]);
    /* alltoall: block s sent to neighbour s lands in its slot s ^ 1 */
    for (int s = 0; s < n; s++) {
        blocks[s] = me * 100 + s;
        got[s] = SENTINEL;
    }
    RUN_FORMS(mode, MPI_Neighbor_alltoall(blocks, 1, MPI_INT, got, 1, MPI_INT, cart),
        MPI_Ineighbor_alltoall(blocks, 1, MPI_INT, got, 1, MPI_INT, cart, &rq_),
        MPI_Neighbor_alltoall_init(blocks, 1, MPI_INT, got, 1, MPI_INT, cart, MPI_INFO_NULL,
                                   &rq_));
    for (int i = 0; i < n; i++)
        CHECKF(got[i] == (src[i] == MPI_PROC_NULL ? SENTINEL : src[i] * 100 + (i ^ 1)),
               "cart %dD dims[0]=%d slot %d: got %d", ndims, dims[0], i, got[i]);
    CHECK_MPI(MPI_Comm_free(&cart));
}

static void test_cart(int mode)
{
    int dims2[2] = {0, 0}, per[3] = {1, 1, 1}, nonper[3] = {0, 0, 0};
    CHECK_MPI(MPI_Dims_create(size, 2, dims2));
    cart_case(2, dims2, per, mode);
    cart_case(2, dims2, nonper, mode);
    int d1[2] = {size, 1};
    cart_case(2, d1, per, mode); /* a periodic dimension of size 1 */
    if (size % 2 == 0) {
        int d2[3] = {2, size / 2, 1};
        cart_case(3, d2, per, mode); /* size 2 (and 1) */
    }
    int one[1] = {size};
    cart_case(1, one, per, mode);
    cart_case(1, one, nonper, mode);
}

/* A ring multigraph: each node lists right, left, right, left (every
 * edge twice, both ways).  Blocks to one neighbour are matched in list
 * order: my slots 0 and 2 (to the right) land in the right neighbour's
 * slots 1 and 3 (its left); with one peer (size 1 or 2) slot i lands in
 * slot i. */
static void test_graph(int mode)
{
    int *index = tu_malloc(sizeof(int) * size), *edges = tu_malloc(sizeof(int) * 4 * size);
    for (int v = 0; v < size; v++) {
        index[v] = 4 * (v + 1);
        for (int k = 0; k < 4; k++)
            edges[4 * v + k] = k % 2 ? (v - 1 + size) % size : (v + 1) % size;
    }
    MPI_Comm g;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
    int blocks[4], got[4];
    for (int s = 0; s < 4; s++) {
        blocks[s] = rank * 10 + s;
        got[s] = SENTINEL;
    }
    RUN_FORMS(mode, MPI_Neighbor_alltoall(blocks, 1, MPI_INT, got, 1, MPI_INT, g),
        MPI_Ineighbor_alltoall(blocks, 1, MPI_INT, got, 1, MPI_INT, g, &rq_),
        MPI_Neighbor_alltoall_init(blocks, 1, MPI_INT, got, 1, MPI_INT, g, MPI_INFO_NULL, &rq_));
    int r = (rank + 1) % size, l = (rank - 1 + size) % size;
    for (int i = 0; i < 4; i++) {
        int expect = r == l ? r * 10 + i : i % 2 ? l * 10 + (i - 1) : r * 10 + (i + 1);
        CHECKF(got[i] == expect, "graph slot %d: got %d, want %d", i, got[i], expect);
    }
    int mine = 500 + rank, all[4];
    for (int i = 0; i < 4; i++)
        all[i] = SENTINEL;
    RUN_FORMS(mode, MPI_Neighbor_allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, g),
        MPI_Ineighbor_allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, g, &rq_),
        MPI_Neighbor_allgather_init(&mine, 1, MPI_INT, all, 1, MPI_INT, g, MPI_INFO_NULL, &rq_));
    for (int i = 0; i < 4; i++)
        CHECK_EQ(all[i], 500 + (i % 2 ? l : r));
    CHECK_MPI(MPI_Comm_free(&g));
    free(index);
    free(edges);
}

/* Distributed graph: sources {r-1, r-2}, destinations {r+1, r+2} (mod
 * size): my block j goes to dests[j] and lands in its slot j. */
static void test_dist(int mode)
{
    int src[2] = {(rank - 1 + size) % size, (rank - 2 + 2 * size) % size};
    int dst[2] = {(rank + 1) % size, (rank + 2) % size};
    MPI_Comm dg;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                             MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
    int blocks[8], got[8];
    for (int j = 0; j < 8; j++) {
        blocks[j] = rank * 100 + j;
        got[j] = SENTINEL;
    }
    /* alltoallv: j + 1 ints to dests[j], from displacement 3j */
    int sc[2] = {1, 2}, sd[2] = {0, 3}, rc[2] = {1, 2}, rd[2] = {4, 0};
    RUN_FORMS(mode, MPI_Neighbor_alltoallv(blocks, sc, sd, MPI_INT, got, rc, rd, MPI_INT, dg),
        MPI_Ineighbor_alltoallv(blocks, sc, sd, MPI_INT, got, rc, rd, MPI_INT, dg, &rq_),
        MPI_Neighbor_alltoallv_init(blocks, sc, sd, MPI_INT, got, rc, rd, MPI_INT, dg,
                                    MPI_INFO_NULL, &rq_));
    CHECK_EQ(got[4], src[0] * 100 + 0);
    CHECK_EQ(got[0], src[1] * 100 + 3);
    CHECK_EQ(got[1], src[1] * 100 + 4);
    /* alltoallw: byte displacements, a type per neighbour */
    MPI_Aint wsd[2] = {0, 2 * sizeof(int)}, wrd[2] = {6 * sizeof(int), 2 * sizeof(int)};
    MPI_Datatype ts[2] = {MPI_INT, MPI_INT};
    int wc[2] = {2, 1};
    for (int j = 0; j < 8; j++)
        got[j] = SENTINEL;
    RUN_FORMS(mode, MPI_Neighbor_alltoallw(blocks, wc, wsd, ts, got, wc, wrd, ts, dg),
        MPI_Ineighbor_alltoallw(blocks, wc, wsd, ts, got, wc, wrd, ts, dg, &rq_),
        MPI_Neighbor_alltoallw_init(blocks, wc, wsd, ts, got, wc, wrd, ts, dg, MPI_INFO_NULL,
                                    &rq_));
    CHECK_EQ(got[6], src[0] * 100 + 0);
    CHECK_EQ(got[7], src[0] * 100 + 1);
    CHECK_EQ(got[2], src[1] * 100 + 2);
    /* allgatherv: one int from each source, at displacements 5 and 1 */
    int mine = 9000 + rank, one[2] = {1, 1}, ad[2] = {5, 1};
    for (int j = 0; j < 8; j++)
        got[j] = SENTINEL;
    RUN_FORMS(mode, MPI_Neighbor_allgatherv(&mine, 1, MPI_INT, got, one, ad, MPI_INT, dg),
        MPI_Ineighbor_allgatherv(&mine, 1, MPI_INT, got, one, ad, MPI_INT, dg, &rq_),
        MPI_Neighbor_allgatherv_init(&mine, 1, MPI_INT, got, one, ad, MPI_INT, dg, MPI_INFO_NULL,
                                     &rq_));
    CHECK_EQ(got[5], 9000 + src[0]);
    CHECK_EQ(got[1], 9000 + src[1]);
    CHECK_EQ(got[0], SENTINEL);
    CHECK_MPI(MPI_Comm_free(&dg));
}

static void test_errors(void)
{
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int x = 0, y[8];
    CHECK_ERR(MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD),
              MPI_ERR_TOPOLOGY);
    int one[1] = {size};
    int per[1] = {1};
    MPI_Comm cart;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, one, per, 0, &cart));
    CHECK_MPI(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
    CHECK_ERR(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, cart),
              MPI_ERR_BUFFER);
    CHECK_MPI(MPI_Comm_free(&cart));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    for (int mode = 0; mode < 3; mode++) {
        test_cart(mode);
        test_graph(mode);
        test_dist(mode);
    }
    test_errors();
    CHECK_MPI(MPI_Finalize());
    return 0;
}
