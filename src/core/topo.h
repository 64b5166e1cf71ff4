/* topo.h — process topologies: the Cartesian, graph or distributed-graph
 * structure a communicator may carry (comm->topo), and the neighbour lists
 * neighborhood collectives walk.
 *
 * A topology never changes after it is built, so MPI_Comm_dup shares it
 * (fm_topo_retain) instead of copying it.  Entry points and their argument
 * checks are in src/mpi/topo_*.c; the constructors here trust their
 * arguments. */
#ifndef FM_CORE_TOPO_H
#define FM_CORE_TOPO_H

#include <mpi.h>

struct fm_topo {
    int refcount;
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */

    /* MPI_CART: grid shape, and this process's coordinates. */
    int ndims;
    const int *dims, *periods, *coords;

    /* MPI_GRAPH: the whole graph (MPI_Graph_get returns it): node i's
     * neighbours are edges[index[i-1] .. index[i]) (from 0 for i = 0). */
    int nnodes, nedges;
    const int *index, *edges;

    /* MPI_DIST_GRAPH: whether weights were given (inw/outw are NULL if not). */
    int weighted;
    const int *inw, *outw;

    /* This process's neighbours in the order neighborhood collectives use
     * them (MPI-4.0 8.6): Cartesian, for each dimension the rank at -1
     * then at +1 (MPI_PROC_NULL kept in its slot), the same list in and
     * out; graph, its edges in the order given, in and out; distributed
     * graph, the sources and the destinations as they were given. */
    int nin, nout;
    const int *in, *out;

    int data[]; /* every array above points in here */
};

/* Constructors return NULL when out of memory; the result has refcount 1.
 * rank: the calling process's rank in the communicator the topology is
 * attached to. */
struct fm_topo *fm_topo_cart_new(int ndims, const int *dims, const int *periods, int rank);
struct fm_topo *fm_topo_graph_new(int nnodes, const int *index, const int *edges, int rank);
/* inw/outw are ignored unless weighted. */
struct fm_topo *fm_topo_dist_graph_new(int indegree, const int *in, const int *inw,
                                       int outdegree, const int *out, const int *outw,
                                       int weighted);

static inline struct fm_topo *fm_topo_retain(struct fm_topo *t)
{
    if (t)
        t->refcount++;
    return t;
}
void fm_topo_release(struct fm_topo *t);

/* ---- Cartesian arithmetic (ranks are row-major over the grid) ------------ */
/* Number of grid points, or -1 when it exceeds INT_MAX. */
long long fm_topo_grid_size(int ndims, const int *dims);
/* Coordinates of rank (0 <= rank < grid size): the first n of them (all
 * when n >= ndims) into coords[]. */
void fm_topo_cart_coords(const struct fm_topo *t, int rank, int n, int *coords);
/* Rank at coords; periodic dimensions wrap, so any value is valid there.
 * Returns -1, and the offending dimension in *bad_dim, when a coordinate of
 * a non-periodic dimension lies outside the grid. */
int fm_topo_cart_rank(const struct fm_topo *t, const int *coords, int *bad_dim);
/* MPI_Cart_shift for this process: ranks disp steps back (source) and
 * forward (dest) along dimension dir; MPI_PROC_NULL past a non-periodic
 * edge. */
void fm_topo_cart_shift(const struct fm_topo *t, int dir, int disp, int *source, int *dest);

/* ---- what neighborhood collectives use ------------------------------------ */
struct fm_comm;
/* comm's neighbour lists (pointers into its topology, valid while comm
 * lives); FM_ERR_TOPOLOGY when comm has no topology. */
int fm_topo_neighbors(const struct fm_comm *comm, int *nin, const int **in, int *nout,
                      const int **out);

#endif
