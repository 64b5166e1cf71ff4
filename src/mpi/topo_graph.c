/* topo_graph.c — graph topologies: MPI_Graph_create, Graph_map, Graph_get,
 * Graphdims_get, Graph_neighbors_count, Graph_neighbors.
 *
 * reorder is accepted and ignored: node i is the old rank i.  Self loops
 * and repeated edges are allowed (MPI-2.2 and later).  A caller's array
 * shorter than the data (maxindex, maxedges, maxneighbors) gets the first
 * entries that fit, as Open MPI does: the standard calls these the lengths
 * of the caller's arrays, not conditions. */
#include "mpi/topo_api.h"

/* The graph arguments of Graph_create and Graph_map. */
static int check_graph(const char *call, MPI_Comm comm, int nnodes, const int *index,
                       const int *edges)
{
    if (nnodes < 0 || nnodes > comm->size)
        return fm_raise(comm, call, MPI_ERR_ARG, "nnodes=%d must be in 0..%d (the size of %s)",
                        nnodes, comm->size, fm_comm_label(comm));
    FM_CHECK_ARRAY(call, comm, index, nnodes, "index");
    for (int i = 0; i < nnodes; i++) {
        int prev = i > 0 ? index[i - 1] : 0;
        if (index[i] < prev)
            return fm_raise(comm, call, MPI_ERR_ARG,
                            "index[%d]=%d is less than %s=%d: index must be cumulative "
                            "neighbour counts",
                            i, index[i], i > 0 ? "the entry before it" : "0", prev);
    }
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    FM_CHECK_ARRAY(call, comm, edges, nedges, "edges");
    for (int j = 0; j < nedges; j++)
        if (edges[j] < 0 || edges[j] >= nnodes)
            return fm_raise(comm, call, MPI_ERR_ARG,
                            "edges[%d]=%d is not a node of the graph (nnodes=%d)", j, edges[j],
                            nnodes);
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_create = PMPI_Graph_create
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *comm_graph)
{
    FM_API_LOCK();
    const char *call = "MPI_Graph_create";
    (void)reorder; /* identity: see the file comment */
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm_old);
    FM_CHECK_INTRA(call, comm_old);
    FM_CHECK_PTR(call, comm_old, comm_graph, "comm_graph");
    int rc = check_graph(call, comm_old, nnodes, index, edges);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm nc;
    rc = fm_comm_first_ranks(call, comm_old, nnodes, &nc);
    if (rc != MPI_SUCCESS)
        return rc;
    struct fm_topo *t = nc ? fm_topo_graph_new(nnodes, index, edges, nc->rank) : NULL;
    return fm_topo_attach(call, comm_old, nc, t, comm_graph);
}

#pragma weak MPI_Graph_map = PMPI_Graph_map
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                  int *newrank)
{
    FM_API_LOCK();
    const char *call = "MPI_Graph_map";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_INTRA(call, comm);
    FM_CHECK_PTR(call, comm, newrank, "newrank");
    int rc = check_graph(call, comm, nnodes, index, edges);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The identity placement MPI_Graph_create uses. */
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    FM_API_LOCK();
    const char *call = "MPI_Graphdims_get";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_TOPO(call, comm, MPI_GRAPH);
    FM_CHECK_PTR(call, comm, nnodes, "nnodes");
    FM_CHECK_PTR(call, comm, nedges, "nedges");
    *nnodes = comm->topo->nnodes;
    *nedges = comm->topo->nedges;
    return MPI_SUCCESS;
}

/* The first max entries of n: what fits in a caller's array of max. */
static int fitting(int max, int n) { return max < n ? max : n; }

#pragma weak MPI_Graph_get = PMPI_Graph_get
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    FM_API_LOCK();
    const char *call = "MPI_Graph_get";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_TOPO(call, comm, MPI_GRAPH);
    const struct fm_topo *t = comm->topo;
    if (maxindex < 0 || maxedges < 0)
        return fm_raise(comm, call, MPI_ERR_ARG, "maxindex=%d and maxedges=%d must be >= 0",
                        maxindex, maxedges);
    int ni = fitting(maxindex, t->nnodes), ne = fitting(maxedges, t->nedges);
    FM_CHECK_ARRAY(call, comm, index, ni, "index");
    FM_CHECK_ARRAY(call, comm, edges, ne, "edges");
    for (int i = 0; i < ni; i++)
        index[i] = t->index[i];
    for (int j = 0; j < ne; j++)
        edges[j] = t->edges[j];
    return MPI_SUCCESS;
}

/* rank must be a node of comm's graph. */
#define CHECK_NODE(call, comm, rank)                                                   \
    do {                                                                               \
        if ((rank) < 0 || (rank) >= (comm)->topo->nnodes)                              \
            return fm_raise(comm, call, MPI_ERR_RANK,                                  \
                            "rank=%d is not a node of the graph (nnodes=%d)", rank,    \
                            (comm)->topo->nnodes);                                     \
    } while (0)

#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    FM_API_LOCK();
    const char *call = "MPI_Graph_neighbors_count";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_TOPO(call, comm, MPI_GRAPH);
    CHECK_NODE(call, comm, rank);
    FM_CHECK_PTR(call, comm, nneighbors, "nneighbors");
    const struct fm_topo *t = comm->topo;
    *nneighbors = t->index[rank] - (rank > 0 ? t->index[rank - 1] : 0);
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    FM_API_LOCK();
    const char *call = "MPI_Graph_neighbors";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_TOPO(call, comm, MPI_GRAPH);
    CHECK_NODE(call, comm, rank);
    if (maxneighbors < 0)
        return fm_raise(comm, call, MPI_ERR_ARG, "maxneighbors=%d must be >= 0", maxneighbors);
    const struct fm_topo *t = comm->topo;
    int first = rank > 0 ? t->index[rank - 1] : 0;
    int n = fitting(maxneighbors, t->index[rank] - first);
    FM_CHECK_ARRAY(call, comm, neighbors, n, "neighbors");
    for (int i = 0; i < n; i++)
        neighbors[i] = t->edges[first + i];
    return MPI_SUCCESS;
}
