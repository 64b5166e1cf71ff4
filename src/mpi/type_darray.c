/* type_darray.c — MPI_Type_create_darray: the piece of an HPF-style
 * distributed array (block, cyclic(k) or not distributed in each
 * dimension) that process `rank` of a row-major grid of `size` holds.
 * The checks are here; the layout is a piece walk of its own in
 * src/dtype/build.c, so MPI_Type_get_contents returns the arguments as
 * given and a large array costs memory in its dimensions, not elements. */
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "mpi/api.h"
#include "mpi/type_check.h"

static const char *distrib_name(int d)
{
    return d == MPI_DISTRIBUTE_BLOCK ? "MPI_DISTRIBUTE_BLOCK"
           : d == MPI_DISTRIBUTE_CYCLIC ? "MPI_DISTRIBUTE_CYCLIC"
                                        : "MPI_DISTRIBUTE_NONE";
}

/* One dimension's arguments; MPI_SUCCESS or the raised error. */
static int check_dim(const char *call, int i, int gsize, int distrib, int darg, int psize)
{
    if (gsize <= 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "array_of_gsizes[%d]=%d must be >= 1", i, gsize);
    if (psize <= 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "array_of_psizes[%d]=%d must be >= 1", i, psize);
    if (distrib != MPI_DISTRIBUTE_BLOCK && distrib != MPI_DISTRIBUTE_CYCLIC &&
        distrib != MPI_DISTRIBUTE_NONE)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "array_of_distribs[%d]=%d must be MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE",
                        i, distrib);
    if (distrib == MPI_DISTRIBUTE_NONE) {
        /* Not distributed: the whole dimension on each process of a
         * grid dimension of one (darg is not used). */
        if (psize != 1)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                            "array_of_psizes[%d]=%d with MPI_DISTRIBUTE_NONE; must be 1", i,
                            psize);
        return MPI_SUCCESS;
    }
    if (darg == MPI_DISTRIBUTE_DFLT_DARG)
        return MPI_SUCCESS;
    if (darg <= 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "array_of_dargs[%d]=%d must be >= 1 or MPI_DISTRIBUTE_DFLT_DARG", i,
                        darg);
    /* A block distribution must fit in one block per process. */
    if (distrib == MPI_DISTRIBUTE_BLOCK && (long long)darg * psize < gsize)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "array_of_dargs[%d]=%d with %s over array_of_psizes[%d]=%d processes "
                        "covers %lld of array_of_gsizes[%d]=%d elements", i, darg,
                        distrib_name(distrib), i, psize, (long long)darg * psize, i, gsize);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_darray";
    if (size <= 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "size=%d must be >= 1", size);
    if (rank < 0 || rank >= size)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "rank=%d must be in 0..size-1=%d",
                        rank, size - 1);
    if (ndims <= 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_DIMS, "ndims=%d must be >= 1", ndims);
    FM_CHECK_PTR(call, array_of_gsizes, "array_of_gsizes");
    FM_CHECK_PTR(call, array_of_distribs, "array_of_distribs");
    FM_CHECK_PTR(call, array_of_dargs, "array_of_dargs");
    FM_CHECK_PTR(call, array_of_psizes, "array_of_psizes");
    long long grid = 1;
    for (int i = 0; i < ndims; i++) {
        int rc = check_dim(call, i, array_of_gsizes[i], array_of_distribs[i], array_of_dargs[i],
                           array_of_psizes[i]);
        if (rc != MPI_SUCCESS)
            return rc;
        if (grid <= size)
            grid *= array_of_psizes[i]; /* stops growing once past size: no overflow */
    }
    if (grid > size)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "array_of_psizes multiply to more than size=%d", size);
    if (grid != size)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "array_of_psizes multiply to %lld, not size=%d", grid, size);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "order=%d must be MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    /* The MPI_Type_get_contents layout: size, rank, ndims, then the four
     * arrays, then order. */
    int n = 4 * ndims + 4;
    int *ints = malloc(sizeof(int) * (size_t)n);
    if (!ints)
        return fm_raise_status(MPI_COMM_NULL, call, FM_ERR_NOMEM);
    ints[0] = size;
    ints[1] = rank;
    ints[2] = ndims;
    memcpy(ints + 3, array_of_gsizes, sizeof(int) * (size_t)ndims);
    memcpy(ints + 3 + ndims, array_of_distribs, sizeof(int) * (size_t)ndims);
    memcpy(ints + 3 + 2 * ndims, array_of_dargs, sizeof(int) * (size_t)ndims);
    memcpy(ints + 3 + 3 * ndims, array_of_psizes, sizeof(int) * (size_t)ndims);
    ints[n - 1] = order;
    int rc = fm_dt_create(MPI_COMBINER_DARRAY, n, ints, 0, NULL, 1, &oldtype, newtype);
    free(ints);
    return rc ? fm_raise_status(MPI_COMM_NULL, call, rc) : MPI_SUCCESS;
}
