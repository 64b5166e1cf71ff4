/* probe.c — Probe/Mprobe over the unexpected queue, and matched receive of
 * a probed message. */
#include <stddef.h>

#include "dtype/dtype.h"
#include "core/comm.h"
#include "pt2pt/internal.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

struct fm_message fab_message_no_proc;

int fm_sw_iprobe(int src, int tag, MPI_Comm comm, int *found, MPI_Status *status,
                 struct fm_message **msg)
{
    fm_match_entry *m = fm_match_peek(comm->mq, src, tag);
    if (!m) {
        *found = 0;
        return FM_OK;
    }
    struct fm_message *u = (struct fm_message *)((char *)m - offsetof(struct fm_message, me));
    *found = 1;
    if (status) {
        status->MPI_SOURCE = u->h.h.src;
        status->MPI_TAG = u->h.h.tag;
        status->fm_count = (MPI_Count)u->h.h.len;
        status->fm_cancelled = 0;
    }
    if (msg) {
        fm_match_remove_unexpected(comm->mq, m);
        u->comm = comm;
        *msg = u;
    }
    return FM_OK;
}

int fm_sw_imrecv(void *buf, MPI_Count count, MPI_Datatype dt, struct fm_message *u,
                 struct fm_request **out)
{
    /* On the message's VCI: its rendezvous answers travel there. */
    struct fm_request *r =
        fm_req_alloc_on(u == &fab_message_no_proc ? &fm_vci0 : u->vci, FM_REQ_RECV);
    if (!r)
        return FM_ERR_NOMEM;
    *out = r;
    if (u == &fab_message_no_proc) {
        fm_set_recv_status(r, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS);
        r->done = 1;
        return FM_OK;
    }
    r->comm = u->comm;
    r->comm->refcount++;
    r->rbuf = buf;
    r->count = count;
    r->dt = dt;
    if (!(dt->flags & FM_DT_PREDEFINED))
        fm_dt_retain(dt);
    r->bytes = (uint64_t)count * (uint64_t)dt->size;
    fm_recv_matched(r, u->peer, &u->h, u->data);
    fm_msg_free(u);
    return FM_OK;
}
