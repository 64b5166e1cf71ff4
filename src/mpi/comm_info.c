/* comm_info.c — info hints on communicators: MPI_Comm_set_info,
 * MPI_Comm_get_info, MPI_Comm_dup_with_info, and the hints a communicator
 * keeps (comm->info).
 *
 * No communicator hint changes what fabmpi does yet (the MPI-4.0 assertions
 * mpi_assert_no_any_tag, _no_any_source, _exact_length and
 * _allow_overtaking would let matching skip work; none does today), so
 * hints are kept as given and MPI_Comm_get_info hands them back, as the
 * standard allows.  MPI_Comm_dup copies them to the new communicator
 * (MPI-4.0 §7.4.2); MPI_Comm_dup_with_info gives it the caller's instead;
 * communicators made any other way start without. */
#include "mpi/api.h"
#include "mpi/info.h"

int fm_comm_info_adopt(MPI_Comm comm, MPI_Info hints)
{
    MPI_Info copy = MPI_INFO_NULL;
    int rc = fm_info_merge(&copy, hints);
    if (rc != FM_OK) {
        fm_info_release(copy);
        return rc;
    }
    fm_info_release(comm->info);
    comm->info = copy;
    return FM_OK;
}

void fm_comm_info_on_destroy(MPI_Comm comm)
{
    fm_info_release(comm->info);
    comm->info = MPI_INFO_NULL;
}

#define CHECK_INFO_ARG(call, comm, info, null_ok)                                       \
    do {                                                                                \
        if (!((null_ok) && (info) == MPI_INFO_NULL) && !fm_info_valid(info))            \
            return fm_raise(comm, call, MPI_ERR_INFO, "info=%s is not a valid info object", \
                            (info) == MPI_INFO_NULL ? "MPI_INFO_NULL" : "<invalid>");   \
    } while (0)

/* Collective in the standard, but nothing to agree on while every hint is
 * only kept: each process stores its own.  Keys not in info keep their
 * values, as for windows. */
#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    FM_API_LOCK();
    const char *call = "MPI_Comm_set_info";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    CHECK_INFO_ARG(call, comm, info, 0);
    int rc = fm_info_merge(&comm->info, info);
    return rc == FM_OK ? MPI_SUCCESS : fm_raise_status(comm, call, rc);
}

#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    FM_API_LOCK();
    const char *call = "MPI_Comm_get_info";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    if (!info_used)
        return fm_raise(comm, call, MPI_ERR_ARG, "info_used=NULL");
    int rc = fm_info_copy(comm->info, info_used);
    return rc == FM_OK ? MPI_SUCCESS : fm_raise_status(comm, call, rc);
}

/* MPI_INFO_NULL is accepted: the new communicator has no hints. */
#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    FM_API_LOCK();
    const char *call = "MPI_Comm_dup_with_info";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    CHECK_INFO_ARG(call, comm, info, 1);
    if (!newcomm)
        return fm_raise(comm, call, MPI_ERR_ARG, "newcomm=NULL");
    return fm_comm_dup_hinted(call, comm, info, newcomm);
}

#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                            MPI_Request *request)
{
    FM_API_LOCK();
    const char *call = "MPI_Comm_idup_with_info";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    CHECK_INFO_ARG(call, comm, info, 1);
    if (!newcomm)
        return fm_raise(comm, call, MPI_ERR_ARG, "newcomm=NULL");
    if (!request)
        return fm_raise(comm, call, MPI_ERR_ARG, "request=NULL");
    return fm_comm_idup_hinted(call, comm, info, newcomm, request);
}
