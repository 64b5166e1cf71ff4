/* type_api.c — MPI datatype entry points: contiguous, commit, free, dup,
 * size/extent queries, names, with the large-count variants of contiguous
 * and the queries (MPI_Type_contiguous_c, MPI_Type_size_c, ...).  Queries
 * work before MPI_Init (predefined types are static), so none of these
 * checks the init state. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "mpi/type_check.h"
#include "dtype/dtype.h"
#include "mpi/api.h"
#include "mpi/comm.h"
#include "mpi/type_args.h"
#include "util/int_array.h"

static int contiguous(const char *call, MPI_Count count, MPI_Datatype oldtype,
                      MPI_Datatype *newtype, int large)
{
    FM_CHECK_NONNEG(call, count, "count", MPI_ERR_COUNT);
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    struct fm_type_args a;
    int rc = fm_type_args_init(&a, large, 1);
    if (rc == FM_OK) {
        fm_type_arg_int(&a, count);
        rc = fm_type_args_create(&a, MPI_COMBINER_CONTIGUOUS, 1, &oldtype, newtype);
    }
    return rc ? fm_raise_status(MPI_COMM_NULL, call, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return contiguous("MPI_Type_contiguous", count, oldtype, newtype, 0);
}

#pragma weak MPI_Type_contiguous_c = PMPI_Type_contiguous_c
int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return contiguous("MPI_Type_contiguous_c", count, oldtype, newtype, 1);
}

#pragma weak MPI_Type_commit = PMPI_Type_commit
int PMPI_Type_commit(MPI_Datatype *datatype)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Type_commit";
    FM_CHECK_PTR(call, datatype, "datatype");
    FM_CHECK_DT_ARG(call, *datatype, "datatype");
    int rc = fm_dt_commit(*datatype);
    if (rc)
        return fm_raise(MPI_COMM_NULL, call, fm_status_to_mpi_class(rc),
                        "datatype %s: %s (more than INT_MAX blocks?)",
                        (*datatype)->name[0] ? (*datatype)->name : "<unnamed>",
                        fm_status_msg(rc));
    return MPI_SUCCESS;
}

/* A failed attribute callback (status FM_ERR_OTHER) or another status. */
static int raise_attr(const char *call, int rc, const char *which)
{
    if (rc != FM_ERR_OTHER)
        return fm_raise_status(MPI_COMM_NULL, call, rc);
    int keyval, code = fm_attr_last_failure(&keyval);
    return fm_raise(MPI_COMM_NULL, call, MPI_ERR_OTHER,
                    "attribute %s callback of keyval=%d returned %d", which, keyval, code);
}

#pragma weak MPI_Type_free = PMPI_Type_free
int PMPI_Type_free(MPI_Datatype *datatype)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Type_free";
    FM_CHECK_PTR(call, datatype, "datatype");
    FM_CHECK_DT_ARG(call, *datatype, "datatype");
    const int *f90;
    int nf90 = fm_type_f90_ints(*datatype, &f90);
    if (nf90 > 0) {
        int c = (*datatype)->combiner;
        char args[48];
        if (nf90 == 1)
            snprintf(args, sizeof args, "r=%d", f90[0]);
        else
            snprintf(args, sizeof args, "p=%d, r=%d", f90[0], f90[1]);
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_TYPE,
                        "datatype=%s comes from MPI_Type_create_f90_%s(%s) and cannot be freed "
                        "(the standard makes those types predefined)",
                        (*datatype)->name,
                        c == MPI_COMBINER_F90_INTEGER ? "integer"
                        : c == MPI_COMBINER_F90_REAL  ? "real"
                                                      : "complex",
                        args);
    }
    if ((*datatype)->flags & FM_DT_PREDEFINED)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_TYPE,
                        "datatype=%s is predefined and cannot be freed", (*datatype)->name);
    /* Its attributes go first; a failing delete callback keeps the type. */
    int rc = fm_attr_type_free(*datatype);
    if (rc != FM_OK)
        return raise_attr(call, rc, "delete");
    /* Pending operations and types built on it hold their own references. */
    fm_dt_release(*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_dup = PMPI_Type_dup
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Type_dup";
    FM_CHECK_DT_ARG(call, oldtype, "oldtype");
    FM_CHECK_PTR(call, newtype, "newtype");
    int rc = fm_dt_create(MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &oldtype, newtype);
    if (rc)
        return fm_raise_status(MPI_COMM_NULL, call, rc);
    if ((rc = fm_attr_type_dup(oldtype, *newtype)) != FM_OK) {
        fm_dt_release(*newtype);
        *newtype = MPI_DATATYPE_NULL;
        return raise_attr(call, rc, "copy");
    }
    return MPI_SUCCESS;
}

/* The size and bounds queries, in every width: the int size says
 * MPI_UNDEFINED when it does not fit (MPI-3.1 4.1.5); the _x and _c ones
 * give the whole value (and are the same call). */
static int type_size(const char *call, MPI_Datatype datatype, MPI_Count *size)
{
    FM_CHECK_DT_ARG(call, datatype, "datatype");
    FM_CHECK_PTR(call, size, "size");
    *size = datatype->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    FM_API_LOCK();
    MPI_Count n = 0;
    int rc = type_size("MPI_Type_size", datatype, size ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *size = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}

#pragma weak MPI_Type_size_x = PMPI_Type_size_x
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    FM_API_LOCK();
    return type_size("MPI_Type_size_x", datatype, size);
}

#pragma weak MPI_Type_size_c = PMPI_Type_size_c
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    FM_API_LOCK();
    return type_size("MPI_Type_size_c", datatype, size);
}

/* true_bounds: the true lower bound and extent instead of the MPI ones. */
static int type_bounds(const char *call, MPI_Datatype datatype, int true_bounds, void *lb,
                       void *extent, const char *lb_name, const char *extent_name)
{
    FM_CHECK_DT_ARG(call, datatype, "datatype");
    FM_CHECK_PTR(call, lb, lb_name);
    FM_CHECK_PTR(call, extent, extent_name);
    /* MPI_Aint or MPI_Count, both 8 bytes (util/int_array.h asserts it);
     * memcpy, as the two are distinct types to the aliasing rules. */
    MPI_Count l = true_bounds ? datatype->true_lb : datatype->lb;
    MPI_Count e = true_bounds ? datatype->true_extent : datatype->extent;
    memcpy(lb, &l, sizeof l);
    memcpy(extent, &e, sizeof e);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    FM_API_LOCK();
    return type_bounds("MPI_Type_get_extent", datatype, 0, lb, extent, "lb", "extent");
}

#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    FM_API_LOCK();
    return type_bounds("MPI_Type_get_extent_x", datatype, 0, lb, extent, "lb", "extent");
}

#pragma weak MPI_Type_get_extent_c = PMPI_Type_get_extent_c
int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    FM_API_LOCK();
    return type_bounds("MPI_Type_get_extent_c", datatype, 0, lb, extent, "lb", "extent");
}

#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    FM_API_LOCK();
    return type_bounds("MPI_Type_get_true_extent", datatype, 1, true_lb, true_extent, "true_lb",
                       "true_extent");
}

#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    FM_API_LOCK();
    return type_bounds("MPI_Type_get_true_extent_x", datatype, 1, true_lb, true_extent,
                       "true_lb", "true_extent");
}

#pragma weak MPI_Type_get_true_extent_c = PMPI_Type_get_true_extent_c
int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    FM_API_LOCK();
    return type_bounds("MPI_Type_get_true_extent_c", datatype, 1, true_lb, true_extent,
                       "true_lb", "true_extent");
}

#pragma weak MPI_Type_set_name = PMPI_Type_set_name
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    FM_API_LOCK();
    FM_CHECK_DT_ARG("MPI_Type_set_name", datatype, "datatype");
    FM_CHECK_PTR("MPI_Type_set_name", type_name, "type_name");
    /* MPI: longer names are truncated. */
    size_t n = strnlen(type_name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(datatype->name, type_name, n);
    datatype->name[n] = '\0';
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_name = PMPI_Type_get_name
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    FM_API_LOCK();
    FM_CHECK_DT_ARG("MPI_Type_get_name", datatype, "datatype");
    FM_CHECK_PTR("MPI_Type_get_name", type_name, "type_name");
    FM_CHECK_PTR("MPI_Type_get_name", resultlen, "resultlen");
    size_t n = strnlen(datatype->name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(type_name, datatype->name, n);
    type_name[n] = '\0';
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
