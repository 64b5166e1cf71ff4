/* topo.c — building, sharing and reading process topologies (topo.h).
 *
 * Each topology is one allocation: the struct, then every array it points
 * at, so freeing it is one free() and nothing can be half built. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "core/topo.h"
#include "util/status.h"

/* The struct with room for nints ints behind it, zeroed. */
static struct fm_topo *topo_alloc(int kind, size_t nints)
{
    struct fm_topo *t = calloc(1, sizeof(*t) + nints * sizeof(int));
    if (t) {
        t->refcount = 1;
        t->kind = kind;
    }
    return t;
}

void fm_topo_release(struct fm_topo *t)
{
    if (t && --t->refcount == 0)
        free(t);
}

long long fm_topo_grid_size(int ndims, const int *dims)
{
    long long n = 1;
    for (int i = 0; i < ndims; i++) {
        n *= dims[i];
        if (n > INT_MAX)
            return -1;
    }
    return n;
}

void fm_topo_cart_coords(const struct fm_topo *t, int rank, int n, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        if (i < n)
            coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* c reduced into 0..n-1 (n > 0), for any int c. */
static int wrap(long long c, int n)
{
    long long r = c % n;
    return (int)(r < 0 ? r + n : r);
}

int fm_topo_cart_rank(const struct fm_topo *t, const int *coords, int *bad_dim)
{
    int rank = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i];
        if (t->periods[i]) {
            c = wrap(c, t->dims[i]);
        } else if (c < 0 || c >= t->dims[i]) {
            *bad_dim = i;
            return -1;
        }
        rank = rank * t->dims[i] + c;
    }
    return rank;
}

/* Rank of this process's neighbour `step` places along dimension dir
 * (long long: a coordinate plus an arbitrary int displacement may
 * overflow an int). */
static int cart_step(const struct fm_topo *t, int dir, long long step)
{
    long long c = (long long)t->coords[dir] + step;
    int n = t->dims[dir];
    if (t->periods[dir])
        c = wrap(c, n);
    else if (c < 0 || c >= n)
        return MPI_PROC_NULL;
    long long rank = 0;
    for (int i = 0; i < t->ndims; i++)
        rank = rank * t->dims[i] + (i == dir ? c : t->coords[i]);
    return (int)rank;
}

void fm_topo_cart_shift(const struct fm_topo *t, int dir, int disp, int *source, int *dest)
{
    *source = cart_step(t, dir, -(long long)disp);
    *dest = cart_step(t, dir, disp);
}

struct fm_topo *fm_topo_cart_new(int ndims, const int *dims, const int *periods, int rank)
{
    /* dims, periods, coords, then the 2 * ndims neighbours. */
    struct fm_topo *t = topo_alloc(MPI_CART, (size_t)ndims * 5);
    if (!t)
        return NULL;
    int *d = t->data, *p = d + ndims, *c = p + ndims, *nb = c + ndims;
    for (int i = 0; i < ndims; i++) {
        d[i] = dims[i];
        p[i] = periods[i] != 0; /* any non-zero is true; MPI_Cart_get returns 1 */
    }
    t->ndims = ndims;
    t->dims = d;
    t->periods = p;
    t->coords = c;
    fm_topo_cart_coords(t, rank, ndims, c);
    for (int i = 0; i < ndims; i++)
        fm_topo_cart_shift(t, i, 1, &nb[2 * i], &nb[2 * i + 1]);
    t->nin = t->nout = 2 * ndims;
    t->in = t->out = nb;
    return t;
}

struct fm_topo *fm_topo_graph_new(int nnodes, const int *index, const int *edges, int rank)
{
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    struct fm_topo *t = topo_alloc(MPI_GRAPH, (size_t)nnodes + (size_t)nedges);
    if (!t)
        return NULL;
    int *ix = t->data, *ed = ix + nnodes;
    if (nnodes > 0)
        memcpy(ix, index, (size_t)nnodes * sizeof(int));
    if (nedges > 0)
        memcpy(ed, edges, (size_t)nedges * sizeof(int));
    t->nnodes = nnodes;
    t->nedges = nedges;
    t->index = ix;
    t->edges = ed;
    int first = rank > 0 ? ix[rank - 1] : 0;
    t->nin = t->nout = ix[rank] - first;
    t->in = t->out = ed + first;
    return t;
}

struct fm_topo *fm_topo_dist_graph_new(int indegree, const int *in, const int *inw,
                                       int outdegree, const int *out, const int *outw,
                                       int weighted)
{
    size_t n = (size_t)indegree + (size_t)outdegree;
    struct fm_topo *t = topo_alloc(MPI_DIST_GRAPH, weighted ? 2 * n : n);
    if (!t)
        return NULL;
    int *i = t->data, *o = i + indegree;
    if (indegree > 0)
        memcpy(i, in, (size_t)indegree * sizeof(int));
    if (outdegree > 0)
        memcpy(o, out, (size_t)outdegree * sizeof(int));
    if (weighted) {
        int *iw = o + outdegree, *ow = iw + indegree;
        if (indegree > 0)
            memcpy(iw, inw, (size_t)indegree * sizeof(int));
        if (outdegree > 0)
            memcpy(ow, outw, (size_t)outdegree * sizeof(int));
        t->inw = iw;
        t->outw = ow;
    }
    t->weighted = weighted;
    t->nin = indegree;
    t->nout = outdegree;
    t->in = i;
    t->out = o;
    return t;
}

int fm_topo_neighbors(const struct fm_comm *comm, int *nin, const int **in, int *nout,
                      const int **out)
{
    const struct fm_topo *t = comm->topo;
    if (!t)
        return FM_ERR_TOPOLOGY;
    *nin = t->nin;
    *in = t->in;
    *nout = t->nout;
    *out = t->out;
    return FM_OK;
}
