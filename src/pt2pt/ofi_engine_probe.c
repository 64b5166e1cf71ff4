/* ofi_engine_probe.c — Probe / Mprobe with FI_PEEK (FI_CLAIM keeps a
 * matched-probed message for the one Mrecv that names it), that Mrecv, and
 * Cancel of posted receives with fi_cancel (found through the request's op;
 * the shadow list knows which receives the provider still holds). */
#include <stddef.h>
#include <stdlib.h>

#include "dtype/dtype.h"
#include "mpi/comm.h"
#include "pt2pt/internal.h"
#include "pt2pt/ofi_engine_int.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

int fm_ofi_iprobe(int src, int tag, MPI_Comm comm, int *found, MPI_Status *status,
                  struct fm_message **msg)
{
    *found = 0;
    fm_ofi_op *op = fm_ofi_op_get(FM_OFI_T_PEEK);
    if (!op)
        return FM_ERR_NOMEM;
    int any_src = src == MPI_ANY_SOURCE, any_tag = tag == MPI_ANY_TAG;
    op->peer_world = any_src ? -1 : comm->world[src];
    op->tag = fm_ofi_tag_make(&fm_ofi_eng.lay, comm->ctx, any_src ? 0 : src, any_tag ? 0 : tag,
                              FM_OFI_PROTO_DATA);
    op->ignore = fm_ofi_recv_ignore(any_src, any_tag);
    op->addr = fm_ofi_eng.full && !any_src ? fm_ofi.addr[op->peer_world] : FI_ADDR_UNSPEC;
    op->flags = FI_PEEK | (msg ? FI_CLAIM : 0);
    /* A peek is not parked: behind parked receives it could find a message
     * one of them is about to take.  "Not found yet" is a valid answer. */
    if (fm_ofi_eng.parked[FM_OFI_Q_RECV]) {
        fm_ofi_op_put(op);
        return FM_OK;
    }
    ssize_t rc = fi_trecvmsg(fm_ofi.ep,
                             &(struct fi_msg_tagged){.addr = op->addr, .tag = op->tag,
                                                     .ignore = op->ignore, .context = &op->base.ctx},
                             op->flags);
    if (rc == -FI_EAGAIN) {
        fm_ofi_op_put(op);
        return FM_OK;
    }
    if (rc != 0) {
        fm_ofi_op_put(op);
        return FM_ERR_NET;
    }
    op->state = FM_OFI_S_POSTED;
    /* The provider answers a peek promptly (found, or FI_ENOMSG); this
     * waits for that local answer, not for a message to arrive. */
    while (!op->peek_done)
        fm_progress();
    if (!op->peek_found) {
        fm_ofi_op_put(op);
        return FM_OK;
    }
    *found = 1;
    int s = fm_ofi_src_of(op->peek_tag, op->peek_data);
    int t = any_tag ? fm_ofi_tag_tag(&fm_ofi_eng.lay, op->peek_tag) : tag;
    if (status) {
        status->MPI_SOURCE = s;
        status->MPI_TAG = t;
        status->MPI_ERROR = MPI_SUCCESS;
        status->fm_count = (MPI_Count)op->peek_len;
        status->fm_cancelled = 0;
    }
    if (!msg) {
        fm_ofi_op_put(op);
        return FM_OK;
    }
    /* The claimed message now belongs to this op's fi_context: the
     * MPI_Message carries the op until Mrecv receives with FI_CLAIM. */
    struct fm_message *u = fm_msg_alloc(0);
    if (!u) {
        fm_ofi_op_put(op); /* leaks the claimed message in the provider */
        return FM_ERR_NOMEM;
    }
    u->comm = comm;
    u->peer = comm->world[s];
    u->h.h.src = s;
    u->h.h.tag = t;
    u->h.h.len = op->peek_len;
    u->h.sreq = (uintptr_t)op;
    *msg = u;
    return FM_OK;
}

int fm_ofi_imrecv(void *buf, MPI_Count count, MPI_Datatype dt, struct fm_message *u,
                  struct fm_request **out)
{
    struct fm_request *r = fm_req_alloc(FM_REQ_RECV);
    if (!r)
        return FM_ERR_NOMEM;
    *out = r;
    if (u == &fm_message_no_proc) {
        fm_set_recv_status(r, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS);
        r->done = 1;
        return FM_OK;
    }
    fm_ofi_op *op = (fm_ofi_op *)(uintptr_t)u->h.sreq;
    r->comm = u->comm;
    r->comm->refcount++;
    r->rbuf = buf;
    r->count = count;
    r->dt = dt;
    if (!(dt->flags & FM_DT_PREDEFINED))
        fm_dt_retain(dt);
    r->peer = u->h.h.src;
    r->tag = u->h.h.tag;
    r->ctx = u->comm->ctx;
    r->bytes = (uint64_t)count * (uint64_t)dt->size;
    fm_msg_free(u);
    /* Same op, same fi_context as the claiming peek. */
    op->type = FM_OFI_T_RECV;
    op->flags = FI_CLAIM;
    op->peek_done = 0;
    return fm_ofi_post_recv(op, r, r->ctx, r->peer, r->tag);
}

int fm_ofi_cancel(struct fm_request *r)
{
    if (r->kind != FM_REQ_RECV || r->done || !r->peer_req)
        return FM_OK; /* sends run to completion; PROC_NULL receives are done */
    fm_ofi_op *op = (fm_ofi_op *)(uintptr_t)r->peer_req;
    if (op->req != r || op->type != FM_OFI_T_RECV || op->cancelling)
        return FM_OK;
    if (fm_ofi_unpark(op)) {
        /* Never reached the provider: cancelled on the spot. */
        fm_ofi_op_put(op);
        fm_set_recv_status(r, r->peer, r->tag, 0, MPI_SUCCESS);
        r->status.fm_cancelled = 1;
        fm_req_complete(r);
        return FM_OK;
    }
    if (op->state != FM_OFI_S_POSTED)
        return FM_OK;
    /* The outcome comes as a completion: FI_ECANCELED (cancelled) or the
     * message, if the provider had matched it already. */
    op->cancelling = 1;
    fi_cancel(&fm_ofi.ep->fid, &op->base.ctx);
    return FM_OK;
}
