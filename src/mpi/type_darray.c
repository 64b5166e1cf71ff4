/* type_darray.c — MPI_Type_create_darray: the piece of an HPF-style
 * distributed array (block, cyclic(k) or not distributed in each
 * dimension) that process `rank` of a row-major grid of `size` holds.
 * The checks are here; the layout is a piece walk of its own in
 * src/dtype/build.c, so MPI_Type_get_contents returns the arguments as
 * given and a large array costs memory in its dimensions, not elements.
 * MPI_Type_create_darray_c takes MPI_Count global sizes. */
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "mpi/api.h"
#include "mpi/type_args.h"
#include "mpi/type_check.h"
#include "util/int_array.h"

static const char *distrib_name(int d)
{
    return d == MPI_DISTRIBUTE_BLOCK ? "MPI_DISTRIBUTE_BLOCK"
           : d == MPI_DISTRIBUTE_CYCLIC ? "MPI_DISTRIBUTE_CYCLIC"
                                        : "MPI_DISTRIBUTE_NONE";
}

/* One dimension's arguments; MPI_SUCCESS or the raised error. */
static int check_dim(const char *call, int i, MPI_Count gsize, int distrib, int darg, int psize)
{
    if (gsize <= 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "array_of_gsizes[%d]=%lld must be >= 1", i, (long long)gsize);
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
                        "covers %lld of array_of_gsizes[%d]=%lld elements", i, darg,
                        distrib_name(distrib), i, psize, (long long)darg * psize, i,
                        (long long)gsize);
    return MPI_SUCCESS;
}

static int darray(const char *call, int size, int rank, int ndims, fm_iarr gsizes,
                  const int distribs[], const int dargs[], const int psizes[], int order,
                  MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    if (size <= 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "size=%d must be >= 1", size);
    if (rank < 0 || rank >= size)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "rank=%d must be in 0..size-1=%d",
                        rank, size - 1);
    if (ndims <= 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_DIMS, "ndims=%d must be >= 1", ndims);
    FM_CHECK_PTR(call, gsizes.p, "array_of_gsizes");
    FM_CHECK_PTR(call, distribs, "array_of_distribs");
    FM_CHECK_PTR(call, dargs, "array_of_dargs");
    FM_CHECK_PTR(call, psizes, "array_of_psizes");
    long long grid = 1;
    for (int i = 0; i < ndims; i++) {
        int rc = check_dim(call, i, fm_iarr_at(gsizes, i), distribs[i], dargs[i], psizes[i]);
        if (rc != MPI_SUCCESS)
            return rc;
        if (grid <= size)
            grid *= psizes[i]; /* stops growing once past size: no overflow */
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
    FM_CHECK_ARGS_FIT(call, ndims, 4, 4);
    /* The MPI_Type_get_contents layout: size, rank, ndims, then the four
     * arrays, then order (type_args.h moves gsizes to the large counts of
     * the _c form). */
    struct fm_type_args a;
    int rc = fm_type_args_init(&a, large, 4 * (MPI_Count)ndims + 4);
    if (rc)
        return fm_raise_status(MPI_COMM_NULL, call, rc);
    fm_type_arg_plain(&a, size);
    fm_type_arg_plain(&a, rank);
    fm_type_arg_plain(&a, ndims);
    for (int i = 0; i < ndims; i++)
        fm_type_arg_int(&a, fm_iarr_at(gsizes, i));
    for (int i = 0; i < ndims; i++)
        fm_type_arg_plain(&a, distribs[i]);
    for (int i = 0; i < ndims; i++)
        fm_type_arg_plain(&a, dargs[i]);
    for (int i = 0; i < ndims; i++)
        fm_type_arg_plain(&a, psizes[i]);
    fm_type_arg_plain(&a, order);
    rc = fm_type_args_create(&a, MPI_COMBINER_DARRAY, 1, &oldtype, newtype);
    return rc ? fm_raise_status(MPI_COMM_NULL, call, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return darray("MPI_Type_create_darray", size, rank, ndims, fm_iarr_int(array_of_gsizes),
                  array_of_distribs, array_of_dargs, array_of_psizes, order, oldtype, newtype, 0);
}

#pragma weak MPI_Type_create_darray_c = PMPI_Type_create_darray_c
int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return darray("MPI_Type_create_darray_c", size, rank, ndims, fm_iarr_wide(array_of_gsizes),
                  array_of_distribs, array_of_dargs, array_of_psizes, order, oldtype, newtype, 1);
}
