/* type_status.c — what a receive status says in units of a datatype
 * (MPI_Get_count, MPI_Get_elements) and the status setters generalized
 * requests use.  status->fm_count is the received byte count. */
#include <limits.h>
#include <stdint.h>

#include "mpi/type_check.h"
#include "dtype/dtype.h"
#include "mpi/api.h"

/* Get_count and Get_elements in every width: `which` picks the question,
 * max is the largest answer the caller's type holds (larger ones are
 * MPI_UNDEFINED, as MPI-3.1 says for the int calls). */
enum { COUNT_OF, ELEMENTS_OF };

static int status_count(const char *call, const MPI_Status *status, MPI_Datatype datatype,
                        int which, MPI_Count max, MPI_Count *count)
{
    FM_CHECK_PTR(call, status, "status");
    FM_CHECK_DT_ARG(call, datatype, "datatype");
    FM_CHECK_PTR(call, count, "count");
    MPI_Count n = which == COUNT_OF ? fm_dt_count_of(datatype, status->fm_count)
                                    : fm_dt_elements_of(datatype, status->fm_count);
    *count = n > max ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}

static int status_count_int(const char *call, const MPI_Status *status, MPI_Datatype datatype,
                            int which, int *count)
{
    MPI_Count n = 0;
    int rc = status_count(call, status, datatype, which, INT_MAX, count ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *count = (int)n;
    return rc;
}

#pragma weak MPI_Get_count = PMPI_Get_count
int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    FM_API_LOCK();
    return status_count_int("MPI_Get_count", status, datatype, COUNT_OF, count);
}

#pragma weak MPI_Get_count_c = PMPI_Get_count_c
int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    FM_API_LOCK();
    return status_count("MPI_Get_count_c", status, datatype, COUNT_OF, INT64_MAX, count);
}

#pragma weak MPI_Get_elements = PMPI_Get_elements
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    FM_API_LOCK();
    return status_count_int("MPI_Get_elements", status, datatype, ELEMENTS_OF, count);
}

#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x
int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    FM_API_LOCK();
    return status_count("MPI_Get_elements_x", status, datatype, ELEMENTS_OF, INT64_MAX, count);
}

#pragma weak MPI_Get_elements_c = PMPI_Get_elements_c
int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    FM_API_LOCK();
    return status_count("MPI_Get_elements_c", status, datatype, ELEMENTS_OF, INT64_MAX, count);
}

/* count is in basic elements: MPI says MPI_Get_elements then returns it
 * (and MPI_Get_count the whole datatype elements that makes, if any). */
static int set_elements(const char *call, MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count count)
{
    FM_CHECK_PTR(call, status, "status");
    FM_CHECK_DT_ARG(call, datatype, "datatype");
    FM_CHECK_NONNEG(call, count, "count", MPI_ERR_COUNT);
    MPI_Count bytes = fm_dt_bytes_of_elements(datatype, count);
    if (bytes < 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_COUNT,
                        "count=%lld basic elements of the datatype %s", (long long)count,
                        "overflow MPI_Count or end inside a pair type's element");
    status->fm_count = bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    FM_API_LOCK();
    return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    FM_API_LOCK();
    return set_elements("MPI_Status_set_elements", status, datatype, count);
}

#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    FM_API_LOCK();
    FM_CHECK_PTR("MPI_Status_set_cancelled", status, "status");
    status->fm_cancelled = flag != 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    FM_API_LOCK();
    FM_CHECK_PTR("MPI_Test_cancelled", status, "status");
    FM_CHECK_PTR("MPI_Test_cancelled", flag, "flag");
    *flag = status->fm_cancelled;
    return MPI_SUCCESS;
}
