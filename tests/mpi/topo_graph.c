/* topo_graph: MPI_Graph_create over the whole job, over all ranks but the
 * last (which gets MPI_COMM_NULL) and over none; Graphdims_get, Graph_get,
 * Graph_neighbors_count and Graph_neighbors against the exact graph given
 * (neighbours in the order given, with a self loop and a repeated edge),
 * Graph_map, Topo_test, Comm_dup keeping the graph, traffic on the new
 * communicator, and the error classes under MPI_ERRORS_RETURN.
 *
 * The standard names no error class for most topology errors: fabmpi's
 * classes are checked exactly, another MPI's only for being an error
 * (TOPO_ERR).  Checks Open MPI 4.1 fails are marked. */
#include "testutil.h"

static int rank, size;

#define MAXE 256

/* The test graph on n nodes: node i links to i+1 and i-1 (mod n); node 0
 * also to itself and a second time to node 1 % n, and node n-1 to node 0
 * once more, so lists are neither sorted nor free of repeats. */
static int make_graph(int n, int *index, int *edges)
{
    int e = 0;
    for (int i = 0; i < n; i++) {
        edges[e++] = (i + 1) % n;
        edges[e++] = (i - 1 + n) % n;
        if (i == 0) {
            edges[e++] = 0;
            edges[e++] = 1 % n;
        }
        if (i == n - 1 && n > 1)
            edges[e++] = 0;
        index[i] = e;
    }
    return e;
}

static void check_graph(MPI_Comm g, int n)
{
    int index[64], edges[MAXE];
    int ne = make_graph(n, index, edges);
    int st, nn = -1, nedges = -1, cr, cs;
    CHECK_MPI(MPI_Topo_test(g, &st));
    CHECK_EQ(st, MPI_GRAPH);
    CHECK_MPI(MPI_Comm_size(g, &cs));
    CHECK_MPI(MPI_Comm_rank(g, &cr));
    CHECK_EQ(cs, n);
    CHECK_EQ(cr, rank); /* reorder = 0: rank kept */
    CHECK_MPI(MPI_Graphdims_get(g, &nn, &nedges));
    CHECK_EQ(nn, n);
    CHECK_EQ(nedges, ne);
    int gi[64], ge[MAXE];
    CHECK_MPI(MPI_Graph_get(g, n, ne, gi, ge));
    for (int i = 0; i < n; i++)
        CHECKF(gi[i] == index[i], "index[%d]=%d, expected %d", i, gi[i], index[i]);
    for (int j = 0; j < ne; j++)
        CHECKF(ge[j] == edges[j], "edges[%d]=%d, expected %d", j, ge[j], edges[j]);
    for (int node = 0; node < n; node++) {
        int first = node ? index[node - 1] : 0, cnt = -1, nb[8];
        CHECK_MPI(MPI_Graph_neighbors_count(g, node, &cnt));
        CHECK_EQ(cnt, index[node] - first);
        CHECK_MPI(MPI_Graph_neighbors(g, node, 8, nb));
        for (int k = 0; k < cnt; k++)
            CHECKF(nb[k] == edges[first + k], "node %d neighbour %d: %d, expected %d", node, k,
                   nb[k], edges[first + k]);
    }
    /* Traffic: send to the first neighbour (i+1), receive from the second (i-1). */
    int nb[8], got = -1;
    CHECK_MPI(MPI_Graph_neighbors(g, cr, 8, nb));
    CHECK_MPI(MPI_Sendrecv(&cr, 1, MPI_INT, nb[0], 5, &got, 1, MPI_INT, nb[1], 5, g,
                           MPI_STATUS_IGNORE));
    CHECK_EQ(got, nb[1]);
    int sum = -1;
    CHECK_MPI(MPI_Allreduce(&cr, &sum, 1, MPI_INT, MPI_SUM, g));
    CHECK_EQ(sum, n * (n - 1) / 2);
}

/* A graph on n of the job's ranks; ranks n.. get MPI_COMM_NULL. */
static void graph_on(int n)
{
    int index[64], edges[MAXE];
    make_graph(n, index, edges);
    MPI_Comm g = MPI_COMM_NULL;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g));
    int mapped = -5;
    CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &mapped));
    if (rank >= n) {
        CHECKF(g == MPI_COMM_NULL, "rank %d beyond a %d-node graph got a communicator", rank, n);
#ifndef OPEN_MPI /* Open MPI 4.1 answers the old rank; MPI-4.0 8.5.7 says MPI_UNDEFINED */
        CHECK_EQ(mapped, MPI_UNDEFINED);
#endif
        return;
    }
    CHECK(g != MPI_COMM_NULL);
    CHECK_EQ(mapped, rank);
    check_graph(g, n);
    /* The duplicate has the same graph; the original is freed first. */
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(g, &d));
    CHECK_MPI(MPI_Comm_free(&g));
    check_graph(d, n);
    /* A shorter caller array gets the first entries (not an error). */
    int gi[2] = {-1, -1}, ge[2] = {-1, -1}, nb[2] = {-1, -1};
    CHECK_MPI(MPI_Graph_get(d, 1, 1, gi, ge));
    CHECK(gi[0] == index[0] && gi[1] == -1 && ge[0] == edges[0] && ge[1] == -1);
    CHECK_MPI(MPI_Graph_neighbors(d, 0, 1, nb));
    CHECK(nb[0] == edges[0] && nb[1] == -1);
    /* A split of it has no topology. */
    MPI_Comm s;
    int st;
    CHECK_MPI(MPI_Comm_split(d, 0, 0, &s));
    CHECK_MPI(MPI_Topo_test(s, &st));
    CHECK_EQ(st, MPI_UNDEFINED);
    CHECK_MPI(MPI_Comm_free(&s));
    CHECK_MPI(MPI_Comm_free(&d));
}

static void errors(void)
{
    int index[64], edges[MAXE], r, nn, ne;
    make_graph(size, index, edges);
    MPI_Comm g, cart;
    /* Creation: every process makes the same bad call. */
    TOPO_ERR(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &g), MPI_ERR_ARG);
    TOPO_ERR(MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &g), MPI_ERR_ARG);
    TOPO_ERR(MPI_Graph_create(MPI_COMM_NULL, size, index, edges, 0, &g), MPI_ERR_COMM);
#ifndef OPEN_MPI /* Open MPI 4.1 accepts a decreasing index and edges naming nodes the
                  * graph does not have */
    int bad_index[2] = {2, 1}, two_edges[2] = {1, 0};
    if (size >= 2)
        TOPO_ERR(MPI_Graph_create(MPI_COMM_WORLD, 2, bad_index, two_edges, 0, &g), MPI_ERR_ARG);
    int one_index[1] = {1}, far[1] = {1};
    TOPO_ERR(MPI_Graph_create(MPI_COMM_WORLD, 1, one_index, far, 0, &g), MPI_ERR_ARG);
    TOPO_ERR(MPI_Graph_map(MPI_COMM_WORLD, size + 1, index, edges, &r), MPI_ERR_ARG);
#endif

    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
    /* MPI_ERRORS_RETURN is inherited from MPI_COMM_WORLD. */
    TOPO_ERR(MPI_Graph_neighbors_count(g, -1, &r), MPI_ERR_RANK);
#ifndef OPEN_MPI /* Open MPI 4.1 answers for a node past the last */
    TOPO_ERR(MPI_Graph_neighbors_count(g, size, &r), MPI_ERR_RANK);
    TOPO_ERR(MPI_Graph_neighbors(g, size, 4, edges), MPI_ERR_RANK);
#endif
    TOPO_ERR(MPI_Graph_neighbors(g, -1, 4, edges), MPI_ERR_RANK);
    /* Wrong kind of topology. */
    int c[2], i0, o0, w0;
    TOPO_ERR(MPI_Cart_coords(g, 0, 2, c), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Cartdim_get(g, &r), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Dist_graph_neighbors_count(g, &i0, &o0, &w0), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Graphdims_get(MPI_COMM_WORLD, &nn, &ne), MPI_ERR_TOPOLOGY);
    int dims[1] = {size}, periods[1] = {0};
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    TOPO_ERR(MPI_Graph_get(cart, size, MAXE, index, edges), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Graph_neighbors_count(cart, 0, &r), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Graphdims_get(cart, &nn, &ne), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Graph_neighbors_count(MPI_COMM_NULL, 0, &r), MPI_ERR_COMM);
    CHECK_MPI(MPI_Comm_free(&cart));
    CHECK_MPI(MPI_Comm_free(&g));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECKF(size <= 64, "at most 64 ranks (size %d)", size);

    graph_on(size);
    if (size > 1)
        graph_on(size - 1);

    /* No nodes: every process gets MPI_COMM_NULL. */
    MPI_Comm g = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &g));
    CHECK(g == MPI_COMM_NULL);

    errors();

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("topo_graph: ok (%d ranks)\n", size);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
