/* type_create.c — the derived datatype constructors past contiguous.  Each
 * checks its arguments, lays them out as MPI_Type_get_contents will return
 * them, and hands them to fm_dt_create (src/dtype/build.c). */
#include <stdlib.h>
#include <string.h>

#include "mpi/type_check.h"
#include "dtype/dtype.h"
#include "mpi/api.h"

static int finish(const char *call, int rc)
{
    return rc ? fm_raise_status(MPI_COMM_NULL, call, rc) : MPI_SUCCESS;
}

/* Every blocklength must be >= 0; names the first offender. */
static int check_blocklens(const char *call, int count, const int *bl)
{
    for (int i = 0; i < count; i++)
        if (bl[i] < 0)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                            "array_of_blocklengths[%d]=%d must be >= 0", i, bl[i]);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_vector";
    FM_CHECK_NONNEG(call, count, "count", MPI_ERR_COUNT);
    FM_CHECK_NONNEG(call, blocklength, "blocklength", MPI_ERR_ARG);
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    int ints[3] = {count, blocklength, stride};
    return finish(call,
                  fm_dt_create(MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &oldtype, newtype));
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hvector";
    FM_CHECK_NONNEG(call, count, "count", MPI_ERR_COUNT);
    FM_CHECK_NONNEG(call, blocklength, "blocklength", MPI_ERR_ARG);
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    int ints[2] = {count, blocklength};
    return finish(call, fm_dt_create(MPI_COMBINER_HVECTOR, 2, ints, 1, &stride, 1, &oldtype,
                                     newtype));
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_indexed";
    FM_CHECK_NONNEG(call, count, "count", MPI_ERR_COUNT);
    if (count > 0) {
        FM_CHECK_PTR(call, array_of_blocklengths, "array_of_blocklengths");
        FM_CHECK_PTR(call, array_of_displacements, "array_of_displacements");
        int rc = check_blocklens(call, count, array_of_blocklengths);
        if (rc)
            return rc;
    }
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    int *ints = malloc(sizeof(int) * (1 + 2 * (size_t)count));
    if (!ints)
        return fm_raise_status(MPI_COMM_NULL, call, FM_ERR_NOMEM);
    ints[0] = count;
    if (count > 0) {
        memcpy(ints + 1, array_of_blocklengths, sizeof(int) * (size_t)count);
        memcpy(ints + 1 + count, array_of_displacements, sizeof(int) * (size_t)count);
    }
    int rc = fm_dt_create(MPI_COMBINER_INDEXED, 1 + 2 * count, ints, 0, NULL, 1, &oldtype,
                          newtype);
    free(ints);
    return finish(call, rc);
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hindexed";
    FM_CHECK_NONNEG(call, count, "count", MPI_ERR_COUNT);
    if (count > 0) {
        FM_CHECK_PTR(call, array_of_blocklengths, "array_of_blocklengths");
        FM_CHECK_PTR(call, array_of_displacements, "array_of_displacements");
        int rc = check_blocklens(call, count, array_of_blocklengths);
        if (rc)
            return rc;
    }
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    int *ints = malloc(sizeof(int) * (1 + (size_t)count));
    if (!ints)
        return fm_raise_status(MPI_COMM_NULL, call, FM_ERR_NOMEM);
    ints[0] = count;
    if (count > 0)
        memcpy(ints + 1, array_of_blocklengths, sizeof(int) * (size_t)count);
    int rc = fm_dt_create(MPI_COMBINER_HINDEXED, 1 + count, ints, count, array_of_displacements,
                          1, &oldtype, newtype);
    free(ints);
    return finish(call, rc);
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_indexed_block";
    FM_CHECK_NONNEG(call, count, "count", MPI_ERR_COUNT);
    FM_CHECK_NONNEG(call, blocklength, "blocklength", MPI_ERR_ARG);
    if (count > 0)
        FM_CHECK_PTR(call, array_of_displacements, "array_of_displacements");
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    int *ints = malloc(sizeof(int) * (2 + (size_t)count));
    if (!ints)
        return fm_raise_status(MPI_COMM_NULL, call, FM_ERR_NOMEM);
    ints[0] = count;
    ints[1] = blocklength;
    if (count > 0)
        memcpy(ints + 2, array_of_displacements, sizeof(int) * (size_t)count);
    int rc = fm_dt_create(MPI_COMBINER_INDEXED_BLOCK, 2 + count, ints, 0, NULL, 1, &oldtype,
                          newtype);
    free(ints);
    return finish(call, rc);
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hindexed_block";
    FM_CHECK_NONNEG(call, count, "count", MPI_ERR_COUNT);
    FM_CHECK_NONNEG(call, blocklength, "blocklength", MPI_ERR_ARG);
    if (count > 0)
        FM_CHECK_PTR(call, array_of_displacements, "array_of_displacements");
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    int ints[2] = {count, blocklength};
    return finish(call, fm_dt_create(MPI_COMBINER_HINDEXED_BLOCK, 2, ints, count,
                                     array_of_displacements, 1, &oldtype, newtype));
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_struct";
    FM_CHECK_NONNEG(call, count, "count", MPI_ERR_COUNT);
    if (count > 0) {
        FM_CHECK_PTR(call, array_of_blocklengths, "array_of_blocklengths");
        FM_CHECK_PTR(call, array_of_displacements, "array_of_displacements");
        FM_CHECK_PTR(call, array_of_types, "array_of_types");
        int rc = check_blocklens(call, count, array_of_blocklengths);
        if (rc)
            return rc;
        for (int i = 0; i < count; i++)
            if (!fm_dt_valid(array_of_types[i]))
                return fm_raise(MPI_COMM_NULL, call, MPI_ERR_TYPE,
                                "array_of_types[%d]=%s is not a valid datatype", i,
                                array_of_types[i] == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
                                                                       : "<invalid>");
    }
    FM_CHECK_PTR(call, newtype, "newtype");
    int *ints = malloc(sizeof(int) * (1 + (size_t)count));
    if (!ints)
        return fm_raise_status(MPI_COMM_NULL, call, FM_ERR_NOMEM);
    ints[0] = count;
    if (count > 0)
        memcpy(ints + 1, array_of_blocklengths, sizeof(int) * (size_t)count);
    int rc = fm_dt_create(MPI_COMBINER_STRUCT, 1 + count, ints, count, array_of_displacements,
                          count, array_of_types, newtype);
    free(ints);
    return finish(call, rc);
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_resized";
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    MPI_Aint aints[2] = {lb, extent};
    return finish(call,
                  fm_dt_create(MPI_COMBINER_RESIZED, 0, NULL, 2, aints, 1, &oldtype, newtype));
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_subarray";
    if (ndims <= 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_DIMS, "ndims=%d must be >= 1", ndims);
    FM_CHECK_PTR(call, array_of_sizes, "array_of_sizes");
    FM_CHECK_PTR(call, array_of_subsizes, "array_of_subsizes");
    FM_CHECK_PTR(call, array_of_starts, "array_of_starts");
    for (int i = 0; i < ndims; i++) {
        int sz = array_of_sizes[i], sub = array_of_subsizes[i], st = array_of_starts[i];
        if (sz <= 0)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                            "array_of_sizes[%d]=%d must be >= 1", i, sz);
        if (sub < 0 || sub > sz)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                            "array_of_subsizes[%d]=%d must be in 0..%d", i, sub, sz);
        if (st < 0 || st > sz - sub)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                            "array_of_starts[%d]=%d must be in 0..%d (size %d, subsize %d)", i,
                            st, sz - sub, sz, sub);
    }
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "order=%d must be MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    int n = 3 * ndims + 2;
    int *ints = malloc(sizeof(int) * (size_t)n);
    if (!ints)
        return fm_raise_status(MPI_COMM_NULL, call, FM_ERR_NOMEM);
    ints[0] = ndims;
    memcpy(ints + 1, array_of_sizes, sizeof(int) * (size_t)ndims);
    memcpy(ints + 1 + ndims, array_of_subsizes, sizeof(int) * (size_t)ndims);
    memcpy(ints + 1 + 2 * ndims, array_of_starts, sizeof(int) * (size_t)ndims);
    ints[n - 1] = order;
    int rc = fm_dt_create(MPI_COMBINER_SUBARRAY, n, ints, 0, NULL, 1, &oldtype, newtype);
    free(ints);
    return finish(call, rc);
}
