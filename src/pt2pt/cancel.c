/* cancel.c — MPI_Cancel under software matching.
 *
 * A posted receive is cancelled if it is still in its matching queue.
 *
 * A send is cancelled when its message has not been matched:
 *  - still parked here (the transport had no room): taken back at once;
 *  - gone, as a message that names the request (an RTS, whose data still
 *    waits in our buffer, or a synchronous eager message): we send CANCEL
 *    with its envelope and request, and the receiver drops the message if
 *    it still waits in its unexpected queue and answers CANCELLED.  If it
 *    had matched, no answer comes: the transfer completes as usual
 *    (FIN, last DATA chunk or ACK), so the request is completed exactly
 *    once either way and no answer ever names a request already freed.
 *  - gone as a plain eager message: it is complete here, and the receiver
 *    could not tell it apart from the others with its envelope, so the
 *    cancel has no effect (MPI-3.1 3.8.4 allows that: the send then
 *    completes normally and MPI_Test_cancelled says false).
 * A cancel costs nothing to sends that are never cancelled. */
#include <stddef.h>
#include <stdint.h>

#include "core/comm.h"
#include "core/vci.h"
#include "pt2pt/internal.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

static void complete_cancelled(struct fm_request *r)
{
    if (r->kind == FM_REQ_SEND)
        fm_rndv_out_done(r, r->peer_world);
    r->status.fm_cancelled = 1;
    fm_req_complete(r);
}

static int cancel_recv(struct fm_request *r)
{
    if (r->done || !r->mq)
        return FM_OK; /* matched: runs to completion */
    if (fm_match_cancel(r->mq, &r->me)) {
        fm_set_recv_status(r, r->peer, r->tag, 0, MPI_SUCCESS);
        complete_cancelled(r);
    }
    return FM_OK;
}

static int cancel_send(struct fm_request *r)
{
    if (r->done || r->kind != FM_REQ_SEND || (r->flags & FM_REQF_CANCEL_ASKED) || !r->comm)
        return FM_OK;
    int peer = r->peer_world;
    struct fm_vci *v = fm_req_vci(r);
    if (fm_pending_withdraw(v, peer, r)) {
        complete_cancelled(r);
        return FM_OK;
    }
    int names_request = r->bytes > fm_eager_limit(peer) || (r->flags & FM_REQF_SYNC);
    if (!names_request || r->acked) /* acked: a synchronous send was matched */
        return FM_OK;
    r->flags |= FM_REQF_CANCEL_ASKED;
    fm_hdr_rndv h = {.h = {.proto = FM_PROTO_CANCEL, .ctx = r->comm->ctx, .src = r->comm->rank,
                           .tag = r->tag},
                     .sreq = (uintptr_t)r};
    return fm_send_or_park(v, peer, &h, sizeof h, NULL, 0, NULL);
}

int fm_sw_cancel(struct fm_request *r)
{
    return r->kind == FM_REQ_RECV ? cancel_recv(r) : cancel_send(r);
}

/* Receiver: drop the message `sreq` of `peer` if no receive has taken it. */
void fm_on_cancel(int peer, const void *msg, size_t len)
{
    (void)len;
    const fm_hdr_rndv *c = msg;
    struct fm_vci *v = fm_vci_of_ctx(c->h.ctx);
    fm_match_queue *q = fm_ctx_queue_fast(&v->ctx, c->h.ctx);
    if (!q)
        return;
    for (fm_match_entry *e = fm_match_unexpected_next(q, NULL); e;
         e = fm_match_unexpected_next(q, e)) {
        struct fm_message *u = MSG_OF(e);
        if (u->peer != peer || e->src != c->h.src || e->tag != c->h.tag || u->h.sreq != c->sreq ||
            (u->h.h.proto != FM_PROTO_RTS && u->h.h.proto != FM_PROTO_EAGER_SYNC))
            continue;
        fm_match_remove_unexpected(q, e);
        fm_msg_free(u);
        fm_send_ctrl(v, peer, FM_PROTO_CANCELLED, c->sreq, 0, 0);
        return;
    }
}

/* Sender: the receiver dropped the message; nothing else will come for it. */
void fm_on_cancelled(int peer, const void *msg, size_t len)
{
    (void)peer, (void)len;
    complete_cancelled((struct fm_request *)(uintptr_t)((const fm_hdr_rndv *)msg)->sreq);
}
