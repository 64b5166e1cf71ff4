/* topo_cart.c — Cartesian topologies: MPI_Cart_create, Cart_sub,
 * Cart_coords, Cart_rank, Cart_shift, Cart_get, Cartdim_get, Cart_map.
 *
 * reorder is accepted and ignored: grid point i is the old rank i (see
 * docs/ARCHITECTURE.md, "Process topologies").  A maxdims below the number
 * of dimensions gets the first maxdims entries, as Open MPI and MPICH do
 * for MPI_Cart_get: the standard calls it the length of the caller's
 * arrays, not a condition. */
#include <limits.h>
#include <stdlib.h>

#include "mpi/topo_api.h"

/* The grid shape arguments of Cart_create and Cart_map; on success *npoints
 * is the number of grid points, at most comm's size. */
static int check_grid(const char *call, MPI_Comm comm, int ndims, const int *dims,
                      const int *periods, long long *npoints)
{
    if (ndims < 0)
        return fm_raise(comm, call, MPI_ERR_DIMS, "ndims=%d must be >= 0", ndims);
    FM_CHECK_ARRAY(call, comm, dims, ndims, "dims");
    FM_CHECK_ARRAY(call, comm, periods, ndims, "periods");
    for (int i = 0; i < ndims; i++)
        if (dims[i] <= 0)
            return fm_raise(comm, call, MPI_ERR_DIMS, "dims[%d]=%d must be > 0", i, dims[i]);
    long long n = fm_topo_grid_size(ndims, dims);
    if (n < 0 || n > comm->size)
        return fm_raise(comm, call, MPI_ERR_ARG,
                        "the grid has %s%lld points, more than the %d processes of %s",
                        n < 0 ? "over " : "", n < 0 ? (long long)INT_MAX : n, comm->size,
                        fm_comm_label(comm));
    *npoints = n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_create = PMPI_Cart_create
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart)
{
    FM_API_LOCK();
    const char *call = "MPI_Cart_create";
    (void)reorder; /* identity: see the file comment */
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm_old);
    FM_CHECK_INTRA(call, comm_old);
    FM_CHECK_PTR(call, comm_old, comm_cart, "comm_cart");
    long long n;
    int rc = check_grid(call, comm_old, ndims, dims, periods, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm nc;
    rc = fm_comm_first_ranks(call, comm_old, (int)n, &nc);
    if (rc != MPI_SUCCESS)
        return rc;
    struct fm_topo *t = nc ? fm_topo_cart_new(ndims, dims, periods, nc->rank) : NULL;
    return fm_topo_attach(call, comm_old, nc, t, comm_cart);
}

#pragma weak MPI_Cart_map = PMPI_Cart_map
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                 int *newrank)
{
    FM_API_LOCK();
    const char *call = "MPI_Cart_map";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_INTRA(call, comm);
    FM_CHECK_PTR(call, comm, newrank, "newrank");
    long long n;
    int rc = check_grid(call, comm, ndims, dims, periods, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The identity placement MPI_Cart_create uses. */
    *newrank = comm->rank < n ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* Processes that share the coordinates of the dropped dimensions form one
 * new communicator; ordering them by old rank keeps the kept dimensions
 * row-major, so a member's new rank is its rank in the sub-grid. */
#pragma weak MPI_Cart_sub = PMPI_Cart_sub
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    FM_API_LOCK();
    const char *call = "MPI_Cart_sub";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_TOPO(call, comm, MPI_CART);
    const struct fm_topo *t = comm->topo;
    FM_CHECK_ARRAY(call, comm, remain_dims, t->ndims, "remain_dims");
    FM_CHECK_PTR(call, comm, newcomm, "newcomm");
    int kept = 0, color = 0;
    int *dims = malloc(2 * (size_t)(t->ndims > 0 ? t->ndims : 1) * sizeof(int));
    if (!dims)
        return fm_raise(comm, call, MPI_ERR_NO_MEM, "no memory for %d dimensions", t->ndims);
    int *periods = dims + t->ndims;
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            dims[kept] = t->dims[i];
            periods[kept++] = t->periods[i];
        } else {
            color = color * t->dims[i] + t->coords[i];
        }
    }
    MPI_Comm nc;
    int rc = fm_comm_split(call, comm, color, comm->rank, &nc);
    if (rc == MPI_SUCCESS) {
        struct fm_topo *sub = nc ? fm_topo_cart_new(kept, dims, periods, nc->rank) : NULL;
        rc = fm_topo_attach(call, comm, nc, sub, newcomm);
    }
    free(dims);
    return rc;
}

#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    FM_API_LOCK();
    const char *call = "MPI_Cartdim_get";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_TOPO(call, comm, MPI_CART);
    FM_CHECK_PTR(call, comm, ndims, "ndims");
    *ndims = comm->topo->ndims;
    return MPI_SUCCESS;
}

/* The length of the caller's arrays. */
#define CHECK_MAXDIMS(call, comm, maxdims)                                            \
    do {                                                                              \
        if ((maxdims) < 0)                                                            \
            return fm_raise(comm, call, MPI_ERR_ARG, "maxdims=%d must be >= 0", maxdims); \
    } while (0)

#pragma weak MPI_Cart_get = PMPI_Cart_get
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    FM_API_LOCK();
    const char *call = "MPI_Cart_get";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_TOPO(call, comm, MPI_CART);
    const struct fm_topo *t = comm->topo;
    CHECK_MAXDIMS(call, comm, maxdims);
    int n = maxdims < t->ndims ? maxdims : t->ndims;
    FM_CHECK_ARRAY(call, comm, dims, n, "dims");
    FM_CHECK_ARRAY(call, comm, periods, n, "periods");
    FM_CHECK_ARRAY(call, comm, coords, n, "coords");
    for (int i = 0; i < n; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_coords = PMPI_Cart_coords
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    FM_API_LOCK();
    const char *call = "MPI_Cart_coords";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_TOPO(call, comm, MPI_CART);
    const struct fm_topo *t = comm->topo;
    if (rank < 0 || rank >= comm->size)
        return fm_raise(comm, call, MPI_ERR_RANK, "rank=%d is not a rank of %s (size %d)",
                        rank, fm_comm_label(comm), comm->size);
    CHECK_MAXDIMS(call, comm, maxdims);
    FM_CHECK_ARRAY(call, comm, coords, maxdims < t->ndims ? maxdims : t->ndims, "coords");
    fm_topo_cart_coords(t, rank, maxdims, coords);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_rank = PMPI_Cart_rank
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    FM_API_LOCK();
    const char *call = "MPI_Cart_rank";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_TOPO(call, comm, MPI_CART);
    const struct fm_topo *t = comm->topo;
    FM_CHECK_ARRAY(call, comm, coords, t->ndims, "coords");
    FM_CHECK_PTR(call, comm, rank, "rank");
    int bad = -1, r = fm_topo_cart_rank(t, coords, &bad);
    if (r < 0)
        return fm_raise(comm, call, MPI_ERR_RANK,
                        "coords[%d]=%d is outside 0..%d of a non-periodic dimension", bad,
                        coords[bad], t->dims[bad] - 1);
    *rank = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_shift = PMPI_Cart_shift
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    FM_API_LOCK();
    const char *call = "MPI_Cart_shift";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_TOPO(call, comm, MPI_CART);
    const struct fm_topo *t = comm->topo;
    if (direction < 0 || direction >= t->ndims)
        return fm_raise(comm, call, MPI_ERR_DIMS,
                        "direction=%d is not a dimension of the %d-dimensional grid",
                        direction, t->ndims);
    FM_CHECK_PTR(call, comm, rank_source, "rank_source");
    FM_CHECK_PTR(call, comm, rank_dest, "rank_dest");
    fm_topo_cart_shift(t, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}
