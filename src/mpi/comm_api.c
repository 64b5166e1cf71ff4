/* comm_api.c — MPI_Comm_* entry points that need no new membership:
 * rank/size, dup/idup, free, compare, group, names. */
#include <string.h>

#include "coll/coll.h"
#include "coll/sched.h"
#include "core/request.h"
#include "core/topo.h"
#include "mpi/api.h"
#include "mpi/info.h"

#define CHECK_PTR(call, comm, p, what)                                     \
    do {                                                                   \
        if (!(p))                                                          \
            return fm_raise(comm, call, MPI_ERR_ARG, "%s=NULL", what);     \
    } while (0)

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Comm_rank");
    FM_CHECK_COMM("MPI_Comm_rank", comm);
    CHECK_PTR("MPI_Comm_rank", comm, rank, "rank");
    *rank = comm->rank;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Comm_size");
    FM_CHECK_COMM("MPI_Comm_size", comm);
    CHECK_PTR("MPI_Comm_size", comm, size, "size");
    *size = comm->size;
    return MPI_SUCCESS;
}

/* Raise a failed attribute callback (status FM_ERR_OTHER) or other status. */
static int raise_attr(MPI_Comm comm, const char *call, int rc, const char *which)
{
    if (rc != FM_ERR_OTHER)
        return fm_raise_status(comm, call, rc);
    int keyval, code = fm_attr_last_failure(&keyval);
    return fm_raise(comm, call, MPI_ERR_OTHER, "attribute %s callback of keyval=%d returned %d",
                    which, keyval, code);
}

/* The new communicator of a dup: attributes copied, `hints` its info.
 * FM_OK, or a status (nc is released). */
static int dup_adorn(MPI_Comm comm, MPI_Comm nc, MPI_Info hints, MPI_Comm *newcomm)
{
    int rc = fm_comm_info_adopt(nc, hints);
    if (rc == FM_OK && (rc = fm_attr_copy_all(comm, nc)) != FM_OK)
        fm_attr_delete_all(nc); /* undo the copies made; the first error is what counts */
    if (rc != FM_OK) {
        fm_comm_release(nc);
        return rc;
    }
    *newcomm = nc;
    return FM_OK;
}

/* An intracommunicator's dup on context ctx (given back on failure); it
 * shares comm's topology (topologies never change).  A blocking dup also
 * gets transport contexts of its own when grouping asks for them. */
static int dup_finish(MPI_Comm comm, uint32_t ctx, MPI_Info hints, int blocking,
                      MPI_Comm *newcomm)
{
    MPI_Comm nc;
    int rc = fm_comm_build(comm->group, ctx, comm, &nc);
    if (rc != FM_OK) {
        fm_ctx_free(ctx);
        return rc;
    }
    nc->topo = fm_topo_retain(comm->topo);
    if (blocking && (rc = fm_coll_comm_contexts(nc)) != FM_OK) {
        fm_comm_release(nc);
        return rc;
    }
    return dup_adorn(comm, nc, hints, newcomm);
}

/* One collective agreement (the context id; for an intercommunicator,
 * bridged between its groups, with a new local communicator), then local
 * copies of attributes and hints. */
int fm_comm_dup_hinted(const char *call, MPI_Comm comm, MPI_Info hints, MPI_Comm *newcomm)
{
    int rc;
    if (fm_comm_is_inter(comm)) {
        MPI_Comm nc;
        rc = fm_intercomm_dup(comm, &nc);
        if (rc != FM_OK)
            return fm_ctx_raise(comm, call, rc);
        rc = dup_adorn(comm, nc, hints, newcomm);
    } else {
        uint32_t ctx;
        rc = fm_ctx_alloc(comm, &ctx);
        if (rc != FM_OK)
            return fm_ctx_raise(comm, call, rc);
        rc = dup_finish(comm, ctx, hints, 1, newcomm);
    }
    return rc == FM_OK ? MPI_SUCCESS : raise_attr(comm, call, rc, "copy");
}

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Comm_dup");
    FM_CHECK_COMM("MPI_Comm_dup", comm);
    CHECK_PTR("MPI_Comm_dup", comm, newcomm, "newcomm");
    return fm_comm_dup_hinted("MPI_Comm_dup", comm, comm->info, newcomm);
}

/* The agreement runs as a schedule (fm_ctx_alloc_sched); *newcomm is set
 * when the request completes. */
struct idup {
    MPI_Comm comm;
    MPI_Comm *newcomm;
    MPI_Info hints; /* a copy taken at the call */
};

static void idup_done(fm_coll_call *cc, uint32_t ctx, void *arg)
{
    struct idup *d = arg;
    *d->newcomm = MPI_COMM_NULL;
    if (cc->rc == FM_OK)
        fm_cc_fail(cc, dup_finish(d->comm, ctx, d->hints, 0, d->newcomm));
    fm_info_release(d->hints);
    d->hints = MPI_INFO_NULL;
}

/* An intercommunicator's: the new one comes built (intercomm.c). */
static void inter_idup_done(fm_coll_call *cc, MPI_Comm nc, void *arg)
{
    struct idup *d = arg;
    *d->newcomm = MPI_COMM_NULL;
    if (nc != MPI_COMM_NULL)
        fm_cc_fail(cc, dup_adorn(d->comm, nc, d->hints, d->newcomm));
    fm_info_release(d->hints);
    d->hints = MPI_INFO_NULL;
}

int fm_comm_idup_hinted(const char *call, MPI_Comm comm, MPI_Info hints, MPI_Comm *newcomm,
                        MPI_Request *request)
{
    fm_coll_call cc;
    int rc = fm_sched_begin(&cc, comm);
    if (rc != FM_OK)
        return fm_raise_status(comm, call, rc);
    struct idup *d = fm_sched_alloc(&cc, sizeof *d);
    if (!d) {
        fm_sched_abandon(&cc);
        return fm_raise_status(comm, call, FM_ERR_NOMEM);
    }
    *d = (struct idup){.comm = comm, .newcomm = newcomm, .hints = MPI_INFO_NULL};
    rc = fm_info_merge(&d->hints, hints);
    if (rc == FM_OK)
        rc = fm_comm_is_inter(comm) ? fm_intercomm_dup_sched(&cc, inter_idup_done, d)
                                    : fm_ctx_alloc_sched(&cc, idup_done, d);
    if (rc != FM_OK) {
        fm_info_release(d->hints);
        fm_sched_abandon(&cc);
        return fm_raise_status(comm, call, rc);
    }
    rc = fm_sched_start_new(&cc, request);
    return rc == FM_OK ? MPI_SUCCESS : fm_raise_status(comm, call, rc);
}

#pragma weak MPI_Comm_idup = PMPI_Comm_idup
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    FM_API_LOCK();
    const char *call = "MPI_Comm_idup";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    CHECK_PTR(call, comm, newcomm, "newcomm");
    CHECK_PTR(call, comm, request, "request");
    return fm_comm_idup_hinted(call, comm, comm->info, newcomm, request);
}

#pragma weak MPI_Comm_free = PMPI_Comm_free
int PMPI_Comm_free(MPI_Comm *comm)
{
    FM_API_LOCK();
    const char *call = "MPI_Comm_free";
    FM_CHECK_INIT(call);
    CHECK_PTR(call, MPI_COMM_NULL, comm, "comm");
    FM_CHECK_COMM(call, *comm);
    MPI_Comm c = *comm;
    if (c->predefined)
        return fm_raise(c, call, MPI_ERR_COMM, "comm=%s is predefined and cannot be freed",
                        c->name);
    int rc = fm_attr_delete_all(c);
    if (rc != FM_OK)
        return raise_attr(c, call, rc, "delete");
    /* Pending requests hold references; the context is released with the last. */
    fm_comm_release(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_compare = PMPI_Comm_compare
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    FM_API_LOCK();
    const char *call = "MPI_Comm_compare";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm1);
    FM_CHECK_COMM(call, comm2);
    CHECK_PTR(call, comm1, result, "result");
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (fm_comm_is_inter(comm1) != fm_comm_is_inter(comm2)) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int g = fm_group_compare(comm1->group, comm2->group);
    if (fm_comm_is_inter(comm1)) { /* both groups count: the weaker answer */
        int r = fm_group_compare(comm1->remote_group, comm2->remote_group);
        g = g == MPI_UNEQUAL || r == MPI_UNEQUAL ? MPI_UNEQUAL
            : g == MPI_SIMILAR || r == MPI_SIMILAR ? MPI_SIMILAR : MPI_IDENT;
    }
    *result = g == MPI_IDENT ? MPI_CONGRUENT : g;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_group = PMPI_Comm_group
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Comm_group");
    FM_CHECK_COMM("MPI_Comm_group", comm);
    CHECK_PTR("MPI_Comm_group", comm, group, "group");
    fm_group_retain(comm->group);
    *group = comm->group;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Comm_test_inter");
    FM_CHECK_COMM("MPI_Comm_test_inter", comm);
    CHECK_PTR("MPI_Comm_test_inter", comm, flag, "flag");
    *flag = fm_comm_is_inter(comm);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Comm_set_name");
    FM_CHECK_COMM("MPI_Comm_set_name", comm);
    CHECK_PTR("MPI_Comm_set_name", comm, comm_name, "comm_name");
    /* Longer names are truncated, as the standard allows. */
    size_t n = strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(comm->name, comm_name, n);
    comm->name[n] = '\0';
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Comm_get_name");
    FM_CHECK_COMM("MPI_Comm_get_name", comm);
    CHECK_PTR("MPI_Comm_get_name", comm, comm_name, "comm_name");
    CHECK_PTR("MPI_Comm_get_name", comm, resultlen, "resultlen");
    size_t n = strlen(comm->name);
    memcpy(comm_name, comm->name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
