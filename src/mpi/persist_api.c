/* persist_api.c — persistent requests: MPI_Send_init & co., MPI_Start(all).
 *
 * The user's handle is a request flagged FM_REQF_PERSISTENT that keeps the
 * arguments; each Start creates an ordinary request and hands it to the
 * handle (fm_req_adopt), whose completion is copied up into the handle —
 * except a small send the transport takes at once, which completes the
 * handle itself. */
#include <string.h>

#include "dtype/dtype.h"
#include "mpi/api.h"
#include "mpi/bsend.h"
#include "mpi/request_api.h"
#include "coll/sched.h"
#include "pt2pt/pt2pt.h"

enum { FM_SEND_BUFFERED = 100 }; /* persistent-only mode: Bsend_init */

static int init_request(const char *call, int kind, const void *buf, MPI_Count count,
                        MPI_Datatype dt, int peer, int tag, MPI_Comm comm, int mode,
                        MPI_Request *request)
{
    struct fm_request *r = fm_req_alloc(kind);
    if (!r)
        return fm_raise(comm, call, MPI_ERR_NO_MEM, "out of memory");
    r->flags |= FM_REQF_PERSISTENT;
    r->user_buf = buf;
    r->count = count;
    r->dt = dt;
    if (!(dt->flags & FM_DT_PREDEFINED))
        fm_dt_retain(dt);
    r->peer = peer;
    r->tag = tag;
    r->comm = comm;
    comm->refcount++;
    r->mode = mode;
    r->done = 1; /* inactive: Wait returns at once */
    fm_empty_status(&r->status);
    *request = r;
    return MPI_SUCCESS;
}

/* Each *_init and its large-count variant (*_init_c): one body. */
static int p2p_init(const char *call, int kind, const void *buf, MPI_Count count,
                    MPI_Datatype dt, int peer, int tag, MPI_Comm comm, int mode,
                    MPI_Request *request)
{
    int is_recv = kind == FM_REQ_RECV;
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_COUNT(call, comm, count);
    FM_CHECK_TYPE(call, comm, dt);
    FM_CHECK_BUF(call, comm, buf, count, dt, "buf");
    FM_CHECK_RANK(call, comm, peer, is_recv ? "source" : "dest", is_recv);
    FM_CHECK_TAG(call, comm, tag, is_recv);
    return init_request(call, kind, buf, count, dt, peer, tag, comm, mode, request);
}

#pragma weak MPI_Send_init = PMPI_Send_init
int PMPI_Send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    FM_API_LOCK();
    return p2p_init("MPI_Send_init", FM_REQ_SEND, buf, count, dt, dest, tag, comm, FM_SEND_STD,
                    request);
}

#pragma weak MPI_Send_init_c = PMPI_Send_init_c
int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return p2p_init("MPI_Send_init_c", FM_REQ_SEND, buf, count, dt, dest, tag, comm, FM_SEND_STD,
                    request);
}

#pragma weak MPI_Ssend_init = PMPI_Ssend_init
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    FM_API_LOCK();
    return p2p_init("MPI_Ssend_init", FM_REQ_SEND, buf, count, dt, dest, tag, comm, FM_SEND_SYNC,
                    request);
}

#pragma weak MPI_Ssend_init_c = PMPI_Ssend_init_c
int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return p2p_init("MPI_Ssend_init_c", FM_REQ_SEND, buf, count, dt, dest, tag, comm, FM_SEND_SYNC,
                    request);
}

#pragma weak MPI_Rsend_init = PMPI_Rsend_init
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    FM_API_LOCK();
    return p2p_init("MPI_Rsend_init", FM_REQ_SEND, buf, count, dt, dest, tag, comm, FM_SEND_READY,
                    request);
}

#pragma weak MPI_Rsend_init_c = PMPI_Rsend_init_c
int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return p2p_init("MPI_Rsend_init_c", FM_REQ_SEND, buf, count, dt, dest, tag, comm, FM_SEND_READY,
                    request);
}

#pragma weak MPI_Bsend_init = PMPI_Bsend_init
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    FM_API_LOCK();
    return p2p_init("MPI_Bsend_init", FM_REQ_SEND, buf, count, dt, dest, tag, comm,
                    FM_SEND_BUFFERED, request);
}

#pragma weak MPI_Bsend_init_c = PMPI_Bsend_init_c
int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return p2p_init("MPI_Bsend_init_c", FM_REQ_SEND, buf, count, dt, dest, tag, comm,
                    FM_SEND_BUFFERED, request);
}

#pragma weak MPI_Recv_init = PMPI_Recv_init
int PMPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    FM_API_LOCK();
    return p2p_init("MPI_Recv_init", FM_REQ_RECV, buf, count, dt, source, tag, comm, 0, request);
}

#pragma weak MPI_Recv_init_c = PMPI_Recv_init_c
int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return p2p_init("MPI_Recv_init_c", FM_REQ_RECV, buf, count, dt, source, tag, comm, 0, request);
}

static int start_one(const char *call, struct fm_request *p)
{
    if (!(p->flags & FM_REQF_PERSISTENT))
        return fm_raise(p->comm, call, MPI_ERR_REQUEST,
                        "request is not a persistent request (from MPI_Send_init & co.)");
    if (p->flags & FM_REQF_ACTIVE)
        return fm_raise(p->comm, call, MPI_ERR_REQUEST,
                        "request is already active; complete it before starting it again");
    struct fm_request *inner;
    int rc;
    if (p->kind == FM_REQ_COLL) {
        rc = fm_sched_restart(p);
        return rc == FM_OK ? MPI_SUCCESS : fm_raise_status(p->comm, call, rc);
    }
    if (p->kind == FM_REQ_RECV) {
        rc = fm_irecv((void *)p->user_buf, p->count, p->dt, p->peer, p->tag, p->comm, 0, &inner);
    } else if (p->mode == FM_SEND_BUFFERED) {
        int err = fm_bsend(call, p->user_buf, p->count, p->dt, p->peer, p->tag, p->comm);
        if (err != MPI_SUCCESS)
            return err;
        inner = fm_req_alloc(FM_REQ_SEND);
        rc = inner ? FM_OK : FM_ERR_NOMEM;
        if (inner)
            inner->done = 1;
    } else if (p->mode != FM_SEND_SYNC && p->peer != MPI_PROC_NULL &&
               fm_isend_eager_now(p->user_buf, p->count, p->dt, p->peer, p->tag, p->comm) == FM_OK) {
        /* Taken by the transport at once, as MPI_Isend's are: no inner
         * request, and the short header MPI_Isend's get.  Through fm_isend
         * every message carried the full header, half as many fitted a
         * ring line, and osu_bw_persistent at 1-8 B ran at half
         * osu_bw's rate. */
        p->flags |= FM_REQF_ACTIVE;
        memset(&p->status, 0, sizeof p->status);
        p->done = 1;
        return MPI_SUCCESS;
    } else {
        rc = fm_isend(p->user_buf, p->count, p->dt, p->peer, p->tag, p->comm, 0, p->mode, &inner);
    }
    if (rc != FM_OK)
        return fm_raise_status(p->comm, call, rc);
    fm_req_adopt(p, inner);
    return MPI_SUCCESS;
}

#pragma weak MPI_Start = PMPI_Start
int PMPI_Start(MPI_Request *request)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Start");
    if (!request || !*request || (*request)->magic != FM_MAGIC_REQ)
        return fm_raise(MPI_COMM_NULL, "MPI_Start", MPI_ERR_REQUEST,
                        "request is not a valid persistent request");
    return start_one("MPI_Start", *request);
}

#pragma weak MPI_Startall = PMPI_Startall
int PMPI_Startall(int count, MPI_Request requests[])
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Startall");
    if (count < 0)
        return fm_raise(MPI_COMM_NULL, "MPI_Startall", MPI_ERR_COUNT, "count=%d must be >= 0",
                        count);
    for (int i = 0; i < count; i++) {
        if (!requests[i] || requests[i]->magic != FM_MAGIC_REQ)
            return fm_raise(MPI_COMM_NULL, "MPI_Startall", MPI_ERR_REQUEST,
                            "array_of_requests[%d] is not a valid persistent request", i);
        int rc = start_one("MPI_Startall", requests[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}
