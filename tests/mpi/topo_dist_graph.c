/* topo_dist_graph: MPI_Dist_graph_create_adjacent (weighted, with a self
 * loop and repeated edges; unweighted; MPI_WEIGHTS_EMPTY where a process
 * has no in-edges) and MPI_Dist_graph_create (edges given by processes
 * that own neither end, the whole graph given by one process, weighted and
 * unweighted), checked through Dist_graph_neighbors_count (degrees and
 * the weighted flag) and Dist_graph_neighbors (exact lists and weights),
 * Topo_test, Comm_dup, traffic along the edges, and the error classes
 * under MPI_ERRORS_RETURN.
 *
 * MPI_Dist_graph_create leaves the order of neighbours to the
 * implementation: fabmpi's (edges in order of the rank that gave them,
 * then of their position there) is checked exactly, another MPI's as a
 * multiset.  The standard names no error class for most topology errors:
 * fabmpi's are checked exactly, another MPI's only for being an error
 * (TOPO_ERR).  Checks Open MPI 4.1 fails are marked. */
#include "testutil.h"

static int rank, size;

#define MAXN 512 /* neighbours of one process, edges given by one process */

/* The weight of the k-th edge from s to d: distinct, non-negative. */
static int weight(int s, int d, int k) { return 10000 * s + 100 * d + k; }

struct side {
    int n;
    int peer[MAXN], w[MAXN];
};

/* Compare what the library returned with what was expected: in order, or
 * (exact = 0) as multisets of (peer, weight) pairs. */
static int by_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

static void check_side(const char *what, const struct side *exp, const int *peer, const int *w,
                       int exact)
{
    int a[2 * MAXN], b[2 * MAXN];
    for (int i = 0; i < exp->n; i++) {
        a[2 * i] = exp->peer[i];
        a[2 * i + 1] = w ? exp->w[i] : 0;
        b[2 * i] = peer[i];
        b[2 * i + 1] = w ? w[i] : 0;
    }
    if (!exact) {
        qsort(a, (size_t)exp->n, 2 * sizeof(int), by_pair);
        qsort(b, (size_t)exp->n, 2 * sizeof(int), by_pair);
    }
    for (int i = 0; i < exp->n; i++)
        CHECKF(a[2 * i] == b[2 * i] && a[2 * i + 1] == b[2 * i + 1],
               "%s %d: (%d, w %d), expected (%d, w %d)", what, i, b[2 * i], b[2 * i + 1],
               a[2 * i], a[2 * i + 1]);
}

/* Everything one process can ask of a distributed graph communicator, and
 * one message along every edge. */
static void check_dist(MPI_Comm c, const struct side *in, const struct side *out, int weighted,
                       int exact)
{
    int st, nin = -1, nout = -1, wf = -1, cs, cr;
    CHECK_MPI(MPI_Topo_test(c, &st));
    CHECK_EQ(st, MPI_DIST_GRAPH);
    CHECK_MPI(MPI_Comm_size(c, &cs));
    CHECK_MPI(MPI_Comm_rank(c, &cr));
    CHECK_EQ(cs, size);
    CHECK_EQ(cr, rank); /* reorder = 0: rank kept */
    CHECK_MPI(MPI_Dist_graph_neighbors_count(c, &nin, &nout, &wf));
    CHECK_EQ(nin, in->n);
    CHECK_EQ(nout, out->n);
    CHECK_EQ(wf != 0, weighted);
    int src[MAXN], sw[MAXN], dst[MAXN], dw[MAXN];
    CHECK_MPI(MPI_Dist_graph_neighbors(c, MAXN, src, weighted ? sw : MPI_UNWEIGHTED, MAXN, dst,
                                       weighted ? dw : MPI_UNWEIGHTED));
    check_side("source", in, src, weighted ? sw : NULL, exact);
    check_side("destination", out, dst, weighted ? dw : NULL, exact);

    /* One message per edge: each sender's rank, so repeated edges between
     * a pair carry the same value and may match in any order. */
    MPI_Request req[2 * MAXN];
    int got[MAXN];
    for (int i = 0; i < nin; i++)
        CHECK_MPI(MPI_Irecv(&got[i], 1, MPI_INT, src[i], 9, c, &req[i]));
    for (int i = 0; i < nout; i++)
        CHECK_MPI(MPI_Isend(&cr, 1, MPI_INT, dst[i], 9, c, &req[nin + i]));
    CHECK_MPI(MPI_Waitall(nin + nout, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < nin; i++)
        CHECK_EQ(got[i], src[i]);
}

/* ---- MPI_Dist_graph_create_adjacent ---------------------------------------- */

static void adjacent(void)
{
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    /* Out: right, left, self.  In: left, right, self (each process's out
     * edges are its neighbours' in edges, so traffic matches). */
    struct side out = {3, {right, left, rank}, {0}}, in = {3, {left, right, rank}, {0}};
    for (int i = 0; i < 3; i++) {
        out.w[i] = weight(rank, out.peer[i], i);
        in.w[i] = weight(in.peer[i], rank, 7 + i);
    }
    for (int weighted = 1; weighted >= 0; weighted--) {
        MPI_Comm c;
        CHECK_MPI(MPI_Dist_graph_create_adjacent(
            MPI_COMM_WORLD, 3, in.peer, weighted ? in.w : MPI_UNWEIGHTED, 3, out.peer,
            weighted ? out.w : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
        check_dist(c, &in, &out, weighted, 1);
        /* The duplicate keeps the graph. */
        MPI_Comm d;
        CHECK_MPI(MPI_Comm_dup(c, &d));
        CHECK_MPI(MPI_Comm_free(&c));
        check_dist(d, &in, &out, weighted, 1);
        /* A shorter caller array gets the first entries (not an error). */
        int s1[2] = {-1, -1}, w1[2] = {-1, -1}, d1[1], dw1[1];
        CHECK_MPI(MPI_Dist_graph_neighbors(d, 1, s1, weighted ? w1 : MPI_UNWEIGHTED, 0, d1,
                                           weighted ? dw1 : MPI_UNWEIGHTED));
        CHECK(s1[0] == left && s1[1] == -1);
        if (weighted)
            CHECK(w1[0] == in.w[0] && w1[1] == -1);
        CHECK_MPI(MPI_Comm_free(&d));
    }

    /* A star into rank 0: the others have no in-edges and pass
     * MPI_WEIGHTS_EMPTY for them; the graph is still weighted. */
    struct side sin = {0, {0}, {0}}, sout = {1, {0}, {weight(rank, 0, 0)}};
    if (rank == 0) {
        sin.n = size;
        for (int i = 0; i < size; i++) {
            sin.peer[i] = i;
            sin.w[i] = weight(i, 0, 0);
        }
    }
    MPI_Comm c;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, sin.n, sin.peer,
                                             rank == 0 ? sin.w : MPI_WEIGHTS_EMPTY, 1,
                                             sout.peer, sout.w, MPI_INFO_NULL, 1, &c));
    check_dist(c, &sin, &sout, 1, 1);
    CHECK_MPI(MPI_Comm_free(&c));
}

/* ---- MPI_Dist_graph_create --------------------------------------------------- */

/* What process r gives (n sources with their degrees, then the
 * destinations and weights of their edges in order).  In `spread`, r gives
 * the edges leaving node r+1 (to r+2, r and itself), and rank 0 one more
 * source, node size-1, with an edge to 0: so most edges come from a process
 * that owns neither end.  In `ring`, rank 0 gives the whole ring. */
struct given {
    int n, nedges;
    int src[MAXN], deg[MAXN], dst[MAXN], w[MAXN];
};

static void given_by(int r, int ring, struct given *g)
{
    g->n = g->nedges = 0;
    if (ring) {
        if (r != 0)
            return;
        for (int s = 0; s < size; s++) {
            g->src[g->n] = s;
            g->deg[g->n++] = 1;
            g->dst[g->nedges] = (s + 1) % size;
            g->w[g->nedges] = weight(s, (s + 1) % size, g->nedges);
            g->nedges++;
        }
        return;
    }
    int s = (r + 1) % size, d[3] = {(r + 2) % size, r, s};
    g->src[g->n] = s;
    g->deg[g->n++] = 3;
    for (int k = 0; k < 3; k++, g->nedges++) {
        g->dst[g->nedges] = d[k];
        g->w[g->nedges] = weight(s, d[k], r);
    }
    if (r == 0) {
        g->src[g->n] = size - 1;
        g->deg[g->n++] = 1;
        g->dst[g->nedges] = 0;
        g->w[g->nedges] = weight(size - 1, 0, 99);
        g->nedges++;
    }
}

/* This process's expected lists: every process's edges in order of the
 * giving rank, then of position. */
static void expected(int ring, struct side *in, struct side *out)
{
    in->n = out->n = 0;
    struct given g;
    for (int r = 0; r < size; r++) {
        given_by(r, ring, &g);
        for (int i = 0, e = 0; i < g.n; i++)
            for (int k = 0; k < g.deg[i]; k++, e++) {
                if (g.src[i] == rank) {
                    out->peer[out->n] = g.dst[e];
                    out->w[out->n++] = g.w[e];
                }
                if (g.dst[e] == rank) {
                    in->peer[in->n] = g.src[i];
                    in->w[in->n++] = g.w[e];
                }
            }
    }
}

static void general(void)
{
#ifdef FABMPI
    const int exact = 1;
#else
    const int exact = 0;
#endif
    for (int ring = 0; ring <= 1; ring++)
        for (int weighted = 1; weighted >= 0; weighted--) {
            struct given g;
            struct side in, out;
            given_by(rank, ring, &g);
            expected(ring, &in, &out);
            const int *w = !weighted ? MPI_UNWEIGHTED : g.nedges ? g.w : MPI_WEIGHTS_EMPTY;
            MPI_Comm c;
            CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, g.n, g.src, g.deg, g.dst, w,
                                            MPI_INFO_NULL, 0, &c));
            check_dist(c, &in, &out, weighted, exact);
            CHECK_MPI(MPI_Comm_free(&c));
        }
}

/* ---- errors ------------------------------------------------------------------- */

static void errors(void)
{
    int one[1] = {0}, far[1] = {size}, w1[1] = {1}, deg1[1] = {1}, negdeg[1] = {-1};
    int i0, o0, wf, r;
    MPI_Comm c;
    /* Every process makes the same bad call. */
    TOPO_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, one, w1, 1, one, w1,
                                            MPI_INFO_NULL, 0, &c),
             MPI_ERR_ARG);
    TOPO_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, far, w1, 1, one, w1,
                                            MPI_INFO_NULL, 0, &c),
             MPI_ERR_RANK);
    TOPO_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, one, w1, 1, far, w1,
                                            MPI_INFO_NULL, 0, &c),
             MPI_ERR_RANK);
    TOPO_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_NULL, 1, one, w1, 1, one, w1,
                                            MPI_INFO_NULL, 0, &c),
             MPI_ERR_COMM);
    TOPO_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, -1, one, deg1, one, w1, MPI_INFO_NULL, 0, &c),
             MPI_ERR_ARG);
    TOPO_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, one, negdeg, one, w1, MPI_INFO_NULL, 0,
                                   &c),
             MPI_ERR_ARG);
    TOPO_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, far, deg1, one, w1, MPI_INFO_NULL, 0, &c),
             MPI_ERR_RANK);
    TOPO_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, one, deg1, far, w1, MPI_INFO_NULL, 0, &c),
             MPI_ERR_RANK);
#ifndef OPEN_MPI /* Open MPI 4.1 accepts these */
    int negw[1] = {-1};
    TOPO_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, one, deg1, one, negw, MPI_INFO_NULL, 0, &c),
             MPI_ERR_ARG);
    TOPO_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, one, deg1, one, MPI_WEIGHTS_EMPTY,
                                   MPI_INFO_NULL, 0, &c),
             MPI_ERR_ARG);
    /* Weighted on one side and MPI_UNWEIGHTED on the other. */
    TOPO_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, one, MPI_UNWEIGHTED, 1, one, w1,
                                            MPI_INFO_NULL, 0, &c),
             MPI_ERR_ARG);
#endif
    /* Wrong kind of topology, or none. */
    TOPO_ERR(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &i0, &o0, &wf), MPI_ERR_TOPOLOGY);
    int dims[1] = {size}, periods[1] = {1};
    MPI_Comm cart;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    TOPO_ERR(MPI_Dist_graph_neighbors_count(cart, &i0, &o0, &wf), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Dist_graph_neighbors(cart, 1, one, w1, 1, one, w1), MPI_ERR_TOPOLOGY);
    CHECK_MPI(MPI_Comm_free(&cart));
    TOPO_ERR(MPI_Dist_graph_neighbors_count(MPI_COMM_NULL, &i0, &o0, &wf), MPI_ERR_COMM);

    int ring_in[1] = {(rank - 1 + size) % size}, ring_out[1] = {(rank + 1) % size};
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, ring_in, MPI_UNWEIGHTED, 1,
                                             ring_out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    TOPO_ERR(MPI_Dist_graph_neighbors(c, -1, one, MPI_UNWEIGHTED, 1, one, MPI_UNWEIGHTED),
             MPI_ERR_ARG);
    TOPO_ERR(MPI_Cart_coords(c, 0, 1, &r), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Graph_neighbors_count(c, 0, &r), MPI_ERR_TOPOLOGY);
    CHECK_MPI(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECKF(size <= 64, "at most 64 ranks (size %d)", size);

    adjacent();
    general();
    errors();

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("topo_dist_graph: ok (%d ranks)\n", size);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
