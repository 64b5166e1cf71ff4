/* type_create.c — the derived datatype constructors past contiguous, each
 * with its MPI-4.0 large-count variant (MPI_Type_vector_c: MPI_Count
 * counts, displacements and strides).  One body per constructor checks the
 * arguments, lays them out as MPI_Type_get_contents(_c) will return them
 * (type_args.h) and hands them to src/dtype/build.c; arrays come as
 * fm_iarr, so both widths are read by the same loop. */
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "mpi/api.h"
#include "mpi/type_args.h"
#include "mpi/type_check.h"
#include "util/int_array.h"

static int finish(const char *call, int rc)
{
    return rc ? fm_raise_status(MPI_COMM_NULL, call, rc) : MPI_SUCCESS;
}

/* Every blocklength must be >= 0; names the first offender. */
static int check_blocklens(const char *call, MPI_Count count, fm_iarr bl)
{
    for (MPI_Count i = 0; i < count; i++)
        if (fm_iarr_at(bl, i) < 0)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                            "array_of_blocklengths[%lld]=%lld must be >= 0", (long long)i,
                            fm_iarr_at(bl, i));
    return MPI_SUCCESS;
}

/* ---- vector, hvector ----------------------------------------------------- */

static int vector(const char *call, int combiner, MPI_Count count, MPI_Count blocklength,
                  MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    FM_CHECK_NONNEG(call, count, "count", MPI_ERR_COUNT);
    FM_CHECK_NONNEG(call, blocklength, "blocklength", MPI_ERR_ARG);
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    struct fm_type_args a;
    int rc = fm_type_args_init(&a, large, 3);
    if (rc)
        return finish(call, rc);
    fm_type_arg_int(&a, count);
    fm_type_arg_int(&a, blocklength);
    if (combiner == MPI_COMBINER_HVECTOR)
        fm_type_arg_addr(&a, stride);
    else
        fm_type_arg_int(&a, stride);
    return finish(call, fm_type_args_create(&a, combiner, 1, &oldtype, newtype));
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return vector("MPI_Type_vector", MPI_COMBINER_VECTOR, count, blocklength, stride, oldtype,
                  newtype, 0);
}

#pragma weak MPI_Type_vector_c = PMPI_Type_vector_c
int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return vector("MPI_Type_vector_c", MPI_COMBINER_VECTOR, count, blocklength, stride, oldtype,
                  newtype, 1);
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return vector("MPI_Type_create_hvector", MPI_COMBINER_HVECTOR, count, blocklength, stride,
                  oldtype, newtype, 0);
}

#pragma weak MPI_Type_create_hvector_c = PMPI_Type_create_hvector_c
int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return vector("MPI_Type_create_hvector_c", MPI_COMBINER_HVECTOR, count, blocklength, stride,
                  oldtype, newtype, 1);
}

/* ---- indexed, hindexed --------------------------------------------------- */

static int indexed(const char *call, int combiner, MPI_Count count, fm_iarr bl, fm_iarr displs,
                   MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    FM_CHECK_NONNEG(call, count, "count", MPI_ERR_COUNT);
    if (count > 0) {
        FM_CHECK_PTR(call, bl.p, "array_of_blocklengths");
        FM_CHECK_PTR(call, displs.p, "array_of_displacements");
        int rc = check_blocklens(call, count, bl);
        if (rc)
            return rc;
    }
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    FM_CHECK_ARGS_FIT(call, count, 2, 1);
    struct fm_type_args a;
    int rc = fm_type_args_init(&a, large, 1 + 2 * count);
    if (rc)
        return finish(call, rc);
    fm_type_arg_int(&a, count);
    for (MPI_Count i = 0; i < count; i++)
        fm_type_arg_int(&a, fm_iarr_at(bl, i));
    for (MPI_Count i = 0; i < count; i++) {
        if (combiner == MPI_COMBINER_HINDEXED)
            fm_type_arg_addr(&a, fm_iarr_at(displs, i));
        else
            fm_type_arg_int(&a, fm_iarr_at(displs, i));
    }
    return finish(call, fm_type_args_create(&a, combiner, 1, &oldtype, newtype));
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return indexed("MPI_Type_indexed", MPI_COMBINER_INDEXED, count,
                   fm_iarr_int(array_of_blocklengths), fm_iarr_int(array_of_displacements),
                   oldtype, newtype, 0);
}

#pragma weak MPI_Type_indexed_c = PMPI_Type_indexed_c
int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return indexed("MPI_Type_indexed_c", MPI_COMBINER_INDEXED, count,
                   fm_iarr_wide(array_of_blocklengths), fm_iarr_wide(array_of_displacements),
                   oldtype, newtype, 1);
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return indexed("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count,
                   fm_iarr_int(array_of_blocklengths), fm_iarr_wide(array_of_displacements),
                   oldtype, newtype, 0);
}

#pragma weak MPI_Type_create_hindexed_c = PMPI_Type_create_hindexed_c
int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return indexed("MPI_Type_create_hindexed_c", MPI_COMBINER_HINDEXED, count,
                   fm_iarr_wide(array_of_blocklengths), fm_iarr_wide(array_of_displacements),
                   oldtype, newtype, 1);
}

/* ---- indexed_block, hindexed_block --------------------------------------- */

static int indexed_block(const char *call, int combiner, MPI_Count count, MPI_Count blocklength,
                         fm_iarr displs, MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    FM_CHECK_NONNEG(call, count, "count", MPI_ERR_COUNT);
    FM_CHECK_NONNEG(call, blocklength, "blocklength", MPI_ERR_ARG);
    if (count > 0)
        FM_CHECK_PTR(call, displs.p, "array_of_displacements");
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    FM_CHECK_ARGS_FIT(call, count, 1, 2);
    struct fm_type_args a;
    int rc = fm_type_args_init(&a, large, 2 + count);
    if (rc)
        return finish(call, rc);
    fm_type_arg_int(&a, count);
    fm_type_arg_int(&a, blocklength);
    for (MPI_Count i = 0; i < count; i++) {
        if (combiner == MPI_COMBINER_HINDEXED_BLOCK)
            fm_type_arg_addr(&a, fm_iarr_at(displs, i));
        else
            fm_type_arg_int(&a, fm_iarr_at(displs, i));
    }
    return finish(call, fm_type_args_create(&a, combiner, 1, &oldtype, newtype));
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return indexed_block("MPI_Type_create_indexed_block", MPI_COMBINER_INDEXED_BLOCK, count,
                         blocklength, fm_iarr_int(array_of_displacements), oldtype, newtype, 0);
}

#pragma weak MPI_Type_create_indexed_block_c = PMPI_Type_create_indexed_block_c
int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return indexed_block("MPI_Type_create_indexed_block_c", MPI_COMBINER_INDEXED_BLOCK, count,
                         blocklength, fm_iarr_wide(array_of_displacements), oldtype, newtype, 1);
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return indexed_block("MPI_Type_create_hindexed_block", MPI_COMBINER_HINDEXED_BLOCK, count,
                         blocklength, fm_iarr_wide(array_of_displacements), oldtype, newtype, 0);
}

#pragma weak MPI_Type_create_hindexed_block_c = PMPI_Type_create_hindexed_block_c
int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return indexed_block("MPI_Type_create_hindexed_block_c", MPI_COMBINER_HINDEXED_BLOCK, count,
                         blocklength, fm_iarr_wide(array_of_displacements), oldtype, newtype, 1);
}

/* ---- struct --------------------------------------------------------------- */

static int type_struct(const char *call, MPI_Count count, fm_iarr bl, fm_iarr displs,
                       const MPI_Datatype types[], MPI_Datatype *newtype, int large)
{
    FM_CHECK_NONNEG(call, count, "count", MPI_ERR_COUNT);
    if (count > 0) {
        FM_CHECK_PTR(call, bl.p, "array_of_blocklengths");
        FM_CHECK_PTR(call, displs.p, "array_of_displacements");
        FM_CHECK_PTR(call, types, "array_of_types");
        int rc = check_blocklens(call, count, bl);
        if (rc)
            return rc;
        for (MPI_Count i = 0; i < count; i++)
            if (!fm_dt_valid(types[i]))
                return fm_raise(MPI_COMM_NULL, call, MPI_ERR_TYPE,
                                "array_of_types[%lld]=%s is not a valid datatype", (long long)i,
                                types[i] == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
                                                              : "<invalid>");
    }
    FM_CHECK_PTR(call, newtype, "newtype");
    FM_CHECK_ARGS_FIT(call, count, 2, 1);
    struct fm_type_args a;
    int rc = fm_type_args_init(&a, large, 1 + 2 * count);
    if (rc)
        return finish(call, rc);
    fm_type_arg_int(&a, count);
    for (MPI_Count i = 0; i < count; i++)
        fm_type_arg_int(&a, fm_iarr_at(bl, i));
    for (MPI_Count i = 0; i < count; i++)
        fm_type_arg_addr(&a, fm_iarr_at(displs, i));
    return finish(call, fm_type_args_create(&a, MPI_COMBINER_STRUCT, (int)count, types, newtype));
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return type_struct("MPI_Type_create_struct", count, fm_iarr_int(array_of_blocklengths),
                       fm_iarr_wide(array_of_displacements), array_of_types, newtype, 0);
}

#pragma weak MPI_Type_create_struct_c = PMPI_Type_create_struct_c
int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return type_struct("MPI_Type_create_struct_c", count, fm_iarr_wide(array_of_blocklengths),
                       fm_iarr_wide(array_of_displacements), array_of_types, newtype, 1);
}

/* ---- resized -------------------------------------------------------------- */

static int resized(const char *call, MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                   MPI_Datatype *newtype, int large)
{
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    struct fm_type_args a;
    int rc = fm_type_args_init(&a, large, 2);
    if (rc)
        return finish(call, rc);
    fm_type_arg_addr(&a, lb);
    fm_type_arg_addr(&a, extent);
    return finish(call, fm_type_args_create(&a, MPI_COMBINER_RESIZED, 1, &oldtype, newtype));
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return resized("MPI_Type_create_resized", oldtype, lb, extent, newtype, 0);
}

#pragma weak MPI_Type_create_resized_c = PMPI_Type_create_resized_c
int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return resized("MPI_Type_create_resized_c", oldtype, lb, extent, newtype, 1);
}

/* ---- subarray ------------------------------------------------------------- */

static int subarray(const char *call, int ndims, fm_iarr sizes, fm_iarr subsizes, fm_iarr starts,
                    int order, MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    if (ndims <= 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_DIMS, "ndims=%d must be >= 1", ndims);
    FM_CHECK_PTR(call, sizes.p, "array_of_sizes");
    FM_CHECK_PTR(call, subsizes.p, "array_of_subsizes");
    FM_CHECK_PTR(call, starts.p, "array_of_starts");
    for (int i = 0; i < ndims; i++) {
        long long sz = fm_iarr_at(sizes, i), sub = fm_iarr_at(subsizes, i),
                  st = fm_iarr_at(starts, i);
        if (sz <= 0)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                            "array_of_sizes[%d]=%lld must be >= 1", i, sz);
        if (sub < 0 || sub > sz)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                            "array_of_subsizes[%d]=%lld must be in 0..%lld", i, sub, sz);
        if (st < 0 || st > sz - sub)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                            "array_of_starts[%d]=%lld must be in 0..%lld (size %lld, subsize "
                            "%lld)", i, st, sz - sub, sz, sub);
    }
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "order=%d must be MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    FM_CHECK_ARGS_FIT(call, ndims, 3, 2);
    struct fm_type_args a;
    int rc = fm_type_args_init(&a, large, 3 * (MPI_Count)ndims + 2);
    if (rc)
        return finish(call, rc);
    fm_type_arg_plain(&a, ndims);
    for (int i = 0; i < ndims; i++)
        fm_type_arg_int(&a, fm_iarr_at(sizes, i));
    for (int i = 0; i < ndims; i++)
        fm_type_arg_int(&a, fm_iarr_at(subsizes, i));
    for (int i = 0; i < ndims; i++)
        fm_type_arg_int(&a, fm_iarr_at(starts, i));
    fm_type_arg_plain(&a, order);
    return finish(call, fm_type_args_create(&a, MPI_COMBINER_SUBARRAY, 1, &oldtype, newtype));
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return subarray("MPI_Type_create_subarray", ndims, fm_iarr_int(array_of_sizes),
                    fm_iarr_int(array_of_subsizes), fm_iarr_int(array_of_starts), order, oldtype,
                    newtype, 0);
}

#pragma weak MPI_Type_create_subarray_c = PMPI_Type_create_subarray_c
int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order,
                                MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return subarray("MPI_Type_create_subarray_c", ndims, fm_iarr_wide(array_of_sizes),
                    fm_iarr_wide(array_of_subsizes), fm_iarr_wide(array_of_starts), order,
                    oldtype, newtype, 1);
}
