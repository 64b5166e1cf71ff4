/* topo_dist_graph.c — distributed graph topologies:
 * MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create,
 * MPI_Dist_graph_neighbors_count, MPI_Dist_graph_neighbors.
 *
 * reorder is accepted and ignored (the new communicator has comm_old's
 * ranks), and info holds no keys fabmpi interprets.  Weights: MPI_UNWEIGHTED
 * makes the graph unweighted (the standard wants it on every process or
 * none); MPI_WEIGHTS_EMPTY, or any array, is accepted where there are no
 * edges to weigh.  A caller's array shorter than the data (maxindegree,
 * maxoutdegree) gets the first entries that fit, as Open MPI does. */
#include <assert.h>
#include <limits.h>
#include <stdlib.h>

#include "coll/coll.h"
#include "mpi/info.h"
#include "mpi/topo_api.h"

static int is_unweighted(const int *w) { return w == MPI_UNWEIGHTED; }
/* A weight array a process may pass when it has no edges. */
static int is_placeholder(const int *w) { return w == MPI_WEIGHTS_EMPTY || w == MPI_UNWEIGHTED; }

static int check_info(const char *call, MPI_Comm comm, MPI_Info info)
{
    if (info != MPI_INFO_NULL && !fm_info_valid(info))
        return fm_raise(comm, call, MPI_ERR_INFO, "info is not a valid info object");
    return MPI_SUCCESS;
}

/* n ranks of comm in ranks[] (what names them in messages: "sources"). */
static int check_ranks(const char *call, MPI_Comm comm, int n, const int *ranks,
                       const char *what)
{
    FM_CHECK_ARRAY(call, comm, ranks, n, what);
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= comm->size)
            return fm_raise(comm, call, MPI_ERR_RANK, "%s[%d]=%d is not a rank of %s (size %d)",
                            what, i, ranks[i], fm_comm_label(comm), comm->size);
    return MPI_SUCCESS;
}

/* n weights of a weighted graph: a real array (when n > 0) of values >= 0. */
static int check_weights(const char *call, MPI_Comm comm, int n, const int *w, const char *what)
{
    if (n == 0)
        return MPI_SUCCESS;
    if (!w || is_placeholder(w))
        return fm_raise(comm, call, MPI_ERR_ARG, "%s=%s with %d edges to weigh", what,
                        !w ? "NULL" : "MPI_WEIGHTS_EMPTY", n);
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return fm_raise(comm, call, MPI_ERR_ARG, "%s[%d]=%d must be >= 0", what, i, w[i]);
    return MPI_SUCCESS;
}

/* The communicator for comm_old's ranks as they are, with t attached. */
static int make_comm(const char *call, MPI_Comm comm_old, int indegree, const int *in,
                     const int *inw, int outdegree, const int *out, const int *outw,
                     int weighted, MPI_Comm *newcomm)
{
    MPI_Comm nc;
    int rc = fm_comm_first_ranks(call, comm_old, comm_old->size, &nc);
    if (rc != MPI_SUCCESS)
        return rc;
    struct fm_topo *t = fm_topo_dist_graph_new(indegree, in, inw, outdegree, out, outw, weighted);
    return fm_topo_attach(call, comm_old, nc, t, newcomm);
}

#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    FM_API_LOCK();
    const char *call = "MPI_Dist_graph_create_adjacent";
    (void)reorder; /* identity: see the file comment */
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm_old);
    FM_CHECK_INTRA(call, comm_old);
    FM_CHECK_PTR(call, comm_old, comm_dist_graph, "comm_dist_graph");
    if (indegree < 0 || outdegree < 0)
        return fm_raise(comm_old, call, MPI_ERR_ARG,
                        "indegree=%d and outdegree=%d must be >= 0", indegree, outdegree);
    int rc = check_ranks(call, comm_old, indegree, sources, "sources");
    if (rc == MPI_SUCCESS)
        rc = check_ranks(call, comm_old, outdegree, destinations, "destinations");
    if (rc != MPI_SUCCESS)
        return rc;
    if (is_unweighted(sourceweights) != is_unweighted(destweights))
        return fm_raise(comm_old, call, MPI_ERR_ARG,
                        "%s is MPI_UNWEIGHTED but %s is not: a graph is weighted or not",
                        is_unweighted(sourceweights) ? "sourceweights" : "destweights",
                        is_unweighted(sourceweights) ? "destweights" : "sourceweights");
    int weighted = !is_unweighted(sourceweights);
    if (weighted) {
        rc = check_weights(call, comm_old, indegree, sourceweights, "sourceweights");
        if (rc == MPI_SUCCESS)
            rc = check_weights(call, comm_old, outdegree, destweights, "destweights");
        if (rc != MPI_SUCCESS)
            return rc;
    }
    rc = check_info(call, comm_old, info);
    if (rc != MPI_SUCCESS)
        return rc;
    return make_comm(call, comm_old, indegree, sources, sourceweights, outdegree, destinations,
                     destweights, weighted, comm_dist_graph);
}

/* What MPI_Dist_graph_create sends about one edge: to its source an OUT
 * record naming the destination, to its destination an IN record naming
 * the source. */
enum { EDGE_IN, EDGE_OUT };
struct edge_rec {
    int dir, peer, weight;
};
#define REC_INTS 3 /* records travel as MPI_INT triples */
static_assert(sizeof(struct edge_rec) == REC_INTS * sizeof(int), "edge_rec is 3 ints");

/* The edges this process was given, as records sorted by the rank they go
 * to (counts[r] ints for rank r, displs its offset), so one alltoallv
 * delivers every record where it belongs. */
static int pack_edges(MPI_Comm comm, int n, const int *sources, const int *degrees,
                      const int *destinations, const int *weights, int weighted,
                      int *counts, int *displs, struct edge_rec **out)
{
    int size = comm->size;
    long long nedges = 0;
    for (int i = 0; i < n; i++)
        nedges += degrees[i];
    if (2 * REC_INTS * nedges > INT_MAX)
        return FM_ERR_COUNT; /* alltoallv counts and displacements are ints */
    for (int r = 0; r < size; r++)
        counts[r] = 0;
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            counts[sources[i]] += REC_INTS;
            counts[destinations[e]] += REC_INTS;
        }
    for (int r = 0, total = 0; r < size; r++) {
        displs[r] = total;
        total += counts[r];
    }
    struct edge_rec *recs = malloc((size_t)(2 * nedges > 0 ? 2 * nedges : 1) * sizeof(*recs));
    int *fill = malloc((size_t)size * sizeof(int));
    if (!recs || !fill) {
        free(recs);
        free(fill);
        return FM_ERR_NOMEM;
    }
    for (int r = 0; r < size; r++)
        fill[r] = displs[r] / REC_INTS;
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            int s = sources[i], d = destinations[e], w = weighted ? weights[e] : 0;
            recs[fill[s]++] = (struct edge_rec){EDGE_OUT, d, w};
            recs[fill[d]++] = (struct edge_rec){EDGE_IN, s, w};
        }
    free(fill);
    *out = recs;
    return FM_OK;
}

/* Deliver every record to the rank it names: *got gets this process's
 * *nrec records, in order of the rank that gave the edge, then of its
 * position there.  Every process takes part in both collectives whatever
 * failed locally: one that could not pack its records sends counts of -1,
 * and every process then fails with FM_ERR_COLL_PEER rather than build a
 * graph with edges missing.  (A process out of memory for what it
 * receives fails alone, and the others then wait for it in the context-id
 * agreement, as with any allocation failure in communicator creation.) */
static int exchange(MPI_Comm comm, int n, const int *sources, const int *degrees,
                    const int *destinations, const int *weights, int weighted,
                    struct edge_rec **got, int *nrec)
{
    int size = comm->size;
    int *cnt = malloc(4 * (size_t)size * sizeof(int));
    if (!cnt)
        return FM_ERR_NOMEM;
    int *sdispl = cnt + size, *rcnt = sdispl + size, *rdispl = rcnt + size;
    struct edge_rec *sent = NULL, *recs = NULL;
    int rc = pack_edges(comm, n, sources, degrees, destinations, weights, weighted, cnt, sdispl,
                        &sent);
    for (int r = 0; rc != FM_OK && r < size; r++)
        cnt[r] = -1;
    int crc = fm_coll_alltoall(cnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm);
    long long total = 0;
    for (int r = 0; r < size; r++) {
        if (crc != FM_OK || rcnt[r] < 0) {
            if (rc == FM_OK)
                rc = crc != FM_OK ? crc : FM_ERR_COLL_PEER;
            rcnt[r] = 0;
        }
        if (rc != FM_OK)
            cnt[r] = sdispl[r] = 0;
        rdispl[r] = (int)total;
        total += rcnt[r];
        if (total > INT_MAX && rc == FM_OK)
            rc = FM_ERR_COUNT;
    }
    if (rc == FM_OK && !(recs = malloc((size_t)(total > 0 ? total : 1) * sizeof(int))))
        rc = FM_ERR_NOMEM;
    if (rc != FM_OK) /* still take part; receive nothing */
        for (int r = 0; r < size; r++)
            rcnt[r] = rdispl[r] = 0;
    int arc = fm_coll_alltoallv(sent, fm_iarr_int(cnt), fm_iarr_int(sdispl), MPI_INT, recs,
                                fm_iarr_int(rcnt), fm_iarr_int(rdispl), MPI_INT, comm);
    free(sent);
    free(cnt);
    if (rc == FM_OK)
        rc = arc;
    if (rc != FM_OK) {
        free(recs);
        return rc;
    }
    *got = recs;
    *nrec = (int)(total / REC_INTS);
    return FM_OK;
}

/* Split the records into this process's in and out lists (keeping their
 * order) and build the communicator. */
static int gather_edges(const char *call, MPI_Comm comm, int n, const int *sources,
                        const int *degrees, const int *destinations, const int *weights,
                        int weighted, MPI_Comm *newcomm)
{
    struct edge_rec *got = NULL;
    int nrec = 0;
    int rc = exchange(comm, n, sources, degrees, destinations, weights, weighted, &got, &nrec);
    if (rc == FM_ERR_COUNT)
        return fm_raise(comm, call, MPI_ERR_COUNT,
                        "the edges to exchange exceed the int counts of an alltoallv");
    if (rc != FM_OK)
        return fm_raise_status(comm, call, rc);
    /* lists: in peers, out peers, then in weights, out weights. */
    int *lists = malloc((size_t)(nrec > 0 ? 2 * nrec : 1) * sizeof(int));
    if (!lists) {
        free(got);
        return fm_raise(comm, call, MPI_ERR_NO_MEM, "no memory for %d edges", nrec);
    }
    int nin = 0;
    for (int i = 0; i < nrec; i++)
        nin += got[i].dir == EDGE_IN;
    int *in = lists, *out = in + nin, *inw = lists + nrec, *outw = inw + nin;
    for (int i = 0, a = 0, b = 0; i < nrec; i++) {
        if (got[i].dir == EDGE_IN) {
            inw[a] = got[i].weight;
            in[a++] = got[i].peer;
        } else {
            outw[b] = got[i].weight;
            out[b++] = got[i].peer;
        }
    }
    free(got);
    rc = make_comm(call, comm, nin, in, inw, nrec - nin, out, outw, weighted, newcomm);
    free(lists);
    return rc;
}

#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *comm_dist_graph)
{
    FM_API_LOCK();
    const char *call = "MPI_Dist_graph_create";
    (void)reorder; /* identity: see the file comment */
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm_old);
    FM_CHECK_INTRA(call, comm_old);
    FM_CHECK_PTR(call, comm_old, comm_dist_graph, "comm_dist_graph");
    if (n < 0)
        return fm_raise(comm_old, call, MPI_ERR_ARG, "n=%d must be >= 0", n);
    int rc = check_ranks(call, comm_old, n, sources, "sources");
    if (rc != MPI_SUCCESS)
        return rc;
    FM_CHECK_ARRAY(call, comm_old, degrees, n, "degrees");
    long long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return fm_raise(comm_old, call, MPI_ERR_ARG, "degrees[%d]=%d must be >= 0", i,
                            degrees[i]);
        nedges += degrees[i];
    }
    if (nedges > INT_MAX)
        return fm_raise(comm_old, call, MPI_ERR_ARG,
                        "the degrees add up to %lld edges, more than an int counts", nedges);
    rc = check_ranks(call, comm_old, (int)nedges, destinations, "destinations");
    int weighted = !is_unweighted(weights);
    if (rc == MPI_SUCCESS && weighted)
        rc = check_weights(call, comm_old, (int)nedges, weights, "weights");
    if (rc == MPI_SUCCESS)
        rc = check_info(call, comm_old, info);
    if (rc != MPI_SUCCESS)
        return rc;
    return gather_edges(call, comm_old, n, sources, degrees, destinations, weights, weighted,
                        comm_dist_graph);
}

#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    FM_API_LOCK();
    const char *call = "MPI_Dist_graph_neighbors_count";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_TOPO(call, comm, MPI_DIST_GRAPH);
    FM_CHECK_PTR(call, comm, indegree, "indegree");
    FM_CHECK_PTR(call, comm, outdegree, "outdegree");
    FM_CHECK_PTR(call, comm, weighted, "weighted");
    *indegree = comm->topo->nin;
    *outdegree = comm->topo->nout;
    *weighted = comm->topo->weighted;
    return MPI_SUCCESS;
}

/* Copy n entries of src to dst, and n weights when the graph has them and
 * the caller asked for them (a weight array may be MPI_UNWEIGHTED). */
static void copy_side(int n, const int *src, const int *srcw, int *dst, int *dstw)
{
    for (int i = 0; i < n; i++)
        dst[i] = src[i];
    if (srcw && !is_placeholder(dstw))
        for (int i = 0; i < n; i++)
            dstw[i] = srcw[i];
}

#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[])
{
    FM_API_LOCK();
    const char *call = "MPI_Dist_graph_neighbors";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_TOPO(call, comm, MPI_DIST_GRAPH);
    const struct fm_topo *t = comm->topo;
    if (maxindegree < 0 || maxoutdegree < 0)
        return fm_raise(comm, call, MPI_ERR_ARG,
                        "maxindegree=%d and maxoutdegree=%d must be >= 0", maxindegree,
                        maxoutdegree);
    int nin = maxindegree < t->nin ? maxindegree : t->nin;
    int nout = maxoutdegree < t->nout ? maxoutdegree : t->nout;
    FM_CHECK_ARRAY(call, comm, sources, nin, "sources");
    FM_CHECK_ARRAY(call, comm, destinations, nout, "destinations");
    if (t->weighted) {
        FM_CHECK_ARRAY(call, comm, sourceweights, nin, "sourceweights");
        FM_CHECK_ARRAY(call, comm, destweights, nout, "destweights");
    }
    copy_side(nin, t->in, t->inw, sources, sourceweights);
    copy_side(nout, t->out, t->outw, destinations, destweights);
    return MPI_SUCCESS;
}
