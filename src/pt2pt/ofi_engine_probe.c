/* ofi_engine_probe.c — Probe / Mprobe with FI_PEEK (FI_CLAIM keeps a
 * matched-probed message for the one Mrecv that names it), that Mrecv,
 * Cancel of posted receives with fi_cancel (found through the request's op;
 * the shadow list knows which receives the provider still holds), and the
 * drain that keeps receives held in software (beyond posted_max) matching:
 * while any is held, every unexpected user message is peeked and claimed
 * in arrival order, into the first held receive it matches or into the
 * software unexpected queue that receives and probes search first.  Why
 * that keeps MPI's order: docs/ARCHITECTURE.md, "OFI (libfabric)". */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "core/comm.h"
#include "pt2pt/internal.h"
#include "pt2pt/ofi_engine_int.h"
#include "pt2pt/pt2pt.h"
#include "util/log.h"
#include "util/status.h"
#include "util/copy.h"

/* ---- the software unexpected queue ------------------------------------ */

static void unexp_unlink(fm_ofi_op *e)
{
    if (e->uprev)
        e->uprev->unext = e->unext;
    else
        fm_ofi_eng.unexp = e->unext;
    if (e->unext)
        e->unext->uprev = e->uprev;
    else
        fm_ofi_eng.unexp_tail = e->uprev;
    e->uprev = e->unext = NULL;
}

static fm_ofi_op *unexp_find(uint64_t tag, uint64_t ignore, int src)
{
    for (fm_ofi_op *e = fm_ofi_eng.unexp; e; e = e->unext)
        if (fm_ofi_env_matches(tag, ignore, src, e->peek_tag, e->peek_data))
            return e;
    return NULL;
}

/* Both halves are there (entry matched, data arrived): into the receive. */
static void unexp_deliver(fm_ofi_op *e)
{
    struct fm_request *r = e->req;
    size_t take = e->got < r->bytes ? e->got : (size_t)r->bytes;
    int err = e->err != MPI_SUCCESS ? e->err
              : e->msg_len > r->bytes ? MPI_ERR_TRUNCATE
                                      : MPI_SUCCESS;
    if (take) {
        if (fm_dt_is_contig(r->dt))
            fm_copy((char *)r->rbuf + r->dt->true_lb, e->buf, take);
        else
            fm_dt_unpack(r->rbuf, r->count, r->dt, 0, e->buf, take);
    }
    uint64_t tag = e->peek_tag, data = e->peek_data, msg_len = e->msg_len;
    fm_ofi_op_put(e);
    /* A synchronous sender gets its ack now, when the message is matched. */
    fm_ofi_recv_finish(r, tag, take, data, err, msg_len);
}

/* Receive r takes entry e (already off the queue). */
static void unexp_bind(fm_ofi_op *e, struct fm_request *r)
{
    e->req = r;
    r->peer_req = (uintptr_t)e; /* cancel finds a matched receive: no effect */
    if (e->arrived)
        unexp_deliver(e);
}

int fm_ofi_unexp_take(fm_ofi_op *op)
{
    struct fm_request *r = op->req;
    fm_ofi_op *e = unexp_find(op->tag, op->ignore, r->peer);
    if (!e)
        return 0;
    unexp_unlink(e);
    fm_ofi_op_put(op);
    unexp_bind(e, r);
    return 1;
}

void fm_ofi_unexp_arrived(fm_ofi_op *e, size_t len, int err, uint64_t msg_len)
{
    e->state = FM_OFI_S_IDLE;
    e->arrived = 1;
    e->got = len;
    e->err = err;
    e->msg_len = msg_len;
    if (e->req)
        unexp_deliver(e);
}

/* ---- the drain -------------------------------------------------------- */

void fm_ofi_drain_start(void)
{
    fm_ofi_op *op = fm_ofi_op_get(FM_OFI_T_DRAIN);
    if (!op)
        return; /* tried again at the next progress */
    op->peer_world = -1;
    op->tag = fm_ofi_eng.drain_tag;
    op->ignore = fm_ofi_eng.drain_ignore;
    op->flags = FI_PEEK | FI_CLAIM;
    ssize_t rc = fm_ofi_issue(op);
    if (rc == 0) {
        op->state = FM_OFI_S_POSTED;
        fm_ofi_eng.drain = op;
        return;
    }
    fm_ofi_op_put(op);
    if (rc != -FI_EAGAIN) {
        fm_error_msg("ofi engine: peeking for unexpected messages (receives are held in "
                     "software) failed: %s", fi_strerror((int)-rc));
        abort(); /* held receives could never match */
    }
}

void fm_ofi_drain_none(fm_ofi_op *op)
{
    fm_ofi_eng.drain = NULL;
    fm_ofi_eng.drain_burst = 0;
    fm_ofi_eng.drain_empty++;
    fm_ofi_op_put(op);
}

void fm_ofi_drain_found(fm_ofi_op *op, const struct fi_cq_tagged_entry *e)
{
    fm_ofi_eng.drain = NULL;
    fm_ofi_eng.drain_burst = fm_ofi_eng.drain_idle; /* more may be waiting */
    op->state = FM_OFI_S_IDLE;
    op->peek_len = e->len;
    op->peek_tag = e->tag;
    op->peek_data = e->data;
    /* No receive in the provider matches it (it would have taken it), and
     * held receives come after all of those, in posting order. */
    fm_ofi_op *h = fm_ofi_eng.parked[FM_OFI_Q_RECV];
    while (h && !fm_ofi_env_matches(h->tag, h->ignore, h->req->peer, e->tag, e->data))
        h = h->next;
    fm_log(3, "ofi engine: drained tag %#llx len %zu into %s", (unsigned long long)e->tag,
           e->len, h ? "a held receive" : "the software unexpected queue");
    if (h) {
        /* The claim must use the peek's fi_context: this op becomes the
         * receive, h's op goes back to the pool. */
        struct fm_request *r = h->req;
        fm_ofi_unpark(h);
        op->type = FM_OFI_T_RECV;
        op->req = r;
        op->buf = h->buf;
        op->len = h->len;
        op->tmp = h->tmp;
        h->tmp = NULL;
        op->peer_world = h->peer_world;
        r->peer_req = (uintptr_t)op;
        fm_ofi_op_put(h);
    } else {
        op->type = FM_OFI_T_UNEXP;
        op->len = e->len;
        if (e->len && !(op->tmp = malloc(e->len))) {
            fm_error_msg("ofi engine: out of memory keeping an unexpected message of %zu bytes",
                         e->len);
            abort();
        }
        op->buf = op->tmp;
        op->req = NULL;
        op->arrived = 0;
        op->unext = NULL;
        op->uprev = fm_ofi_eng.unexp_tail;
        if (op->uprev)
            op->uprev->unext = op;
        else
            fm_ofi_eng.unexp = op;
        fm_ofi_eng.unexp_tail = op;
    }
    op->flags = FI_CLAIM;
    if (fm_ofi_post(op) != FM_OK)
        abort(); /* logged; the message is claimed and nobody else can take it */
}

/* Until a drain peek begun after this call found nothing: every user
 * message the provider held unexpected is then in the software queue (or
 * in the held receive it matched).  Progress starts the next peek at once
 * while receives are held; once none is held, only the peek in flight is
 * waited for (after it nothing is drained). */
static void drain_all(void)
{
    unsigned want = fm_ofi_eng.drain_empty + (fm_ofi_eng.drain ? 2u : 1u);
    fm_wait_until(fm_ofi_eng.parked[FM_OFI_Q_RECV] ? (int)(fm_ofi_eng.drain_empty - want) >= 0
                                                   : !fm_ofi_eng.drain);
}

/* ---- probe ------------------------------------------------------------ */

/* A probe found a message: status, and for Mprobe the MPI_Message that
 * carries `op` (a claiming peek, or a software-queue entry) to Mrecv. */
static int probe_found(MPI_Comm comm, int s, int t, size_t len, fm_ofi_op *op,
                       MPI_Status *status, struct fm_message **msg)
{
    if (status) {
        status->MPI_SOURCE = s;
        status->MPI_TAG = t;
        status->fm_count = (MPI_Count)len;
        status->fm_cancelled = 0;
    }
    if (!msg)
        return FM_OK;
    struct fm_message *u = fm_msg_alloc(&fm_vci0, 0);
    if (!u)
        return FM_ERR_NOMEM;
    u->comm = comm;
    u->peer = comm->world[s];
    u->h.h.src = s;
    u->h.h.tag = t;
    u->h.h.len = len;
    u->h.sreq = (uintptr_t)op;
    *msg = u;
    return FM_OK;
}

int fm_ofi_iprobe(int src, int tag, MPI_Comm comm, int *found, MPI_Status *status,
                  struct fm_message **msg)
{
    *found = 0;
    int any_src = src == MPI_ANY_SOURCE, any_tag = tag == MPI_ANY_TAG;
    uint64_t ptag = fm_ofi_tag_make(&fm_ofi_eng.lay, comm->ctx, any_src ? 0 : src,
                                    any_tag ? 0 : tag, FM_OFI_PROTO_DATA);
    uint64_t pignore = fm_ofi_recv_ignore(any_src, any_tag);
    /* Receives held: what the provider holds unexpected goes to them or to
     * the software queue first, then the queue is searched (its messages
     * came before anything still in the provider). */
    if (fm_ofi_eng.parked[FM_OFI_Q_RECV] || fm_ofi_eng.drain)
        drain_all();
    if (fm_ofi_eng.unexp) {
        fm_ofi_op *e = unexp_find(ptag, pignore, src);
        if (e) {
            int s = fm_ofi_src_of(e->peek_tag, e->peek_data);
            int t = any_tag ? fm_ofi_tag_tag(&fm_ofi_eng.lay, e->peek_tag) : tag;
            int rc = probe_found(comm, s, t, e->peek_len, e, status, msg);
            if (rc != FM_OK)
                return rc;
            if (msg)
                unexp_unlink(e); /* Mrecv's alone now */
            *found = 1;
            return FM_OK;
        }
    }
    /* Still held (a slot has not freed): a provider peek could find a
     * message a held receive is about to take.  The drain just showed the
     * provider had nothing unexpected; "not found yet" is a valid answer. */
    if (fm_ofi_eng.parked[FM_OFI_Q_RECV])
        return FM_OK;
    fm_ofi_op *op = fm_ofi_op_get(FM_OFI_T_PEEK);
    if (!op)
        return FM_ERR_NOMEM;
    op->peer_world = any_src ? -1 : comm->world[src];
    op->tag = ptag;
    op->ignore = pignore;
    op->addr = fm_ofi_eng.full && !any_src ? fm_ofi_peer_addr(op->peer_world) : FI_ADDR_UNSPEC;
    op->flags = FI_PEEK | (msg ? FI_CLAIM : 0);
    ssize_t rc = fm_ofi_trecvmsg(&(struct fi_msg_tagged){.addr = op->addr, .tag = op->tag,
                                                         .ignore = op->ignore,
                                                         .context = &op->base.ctx},
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
    fm_wait_until(op->peek_done);
    if (!op->peek_found) {
        fm_ofi_op_put(op);
        return FM_OK;
    }
    *found = 1;
    int s = fm_ofi_src_of(op->peek_tag, op->peek_data);
    int t = any_tag ? fm_ofi_tag_tag(&fm_ofi_eng.lay, op->peek_tag) : tag;
    /* Mprobe: the claimed message now belongs to this op's fi_context, and
     * the MPI_Message carries the op until Mrecv receives with FI_CLAIM. */
    int prc = probe_found(comm, s, t, op->peek_len, op, status, msg);
    if (!msg || prc != FM_OK)
        fm_ofi_op_put(op); /* on failure this leaks the claimed message */
    return prc;
}

int fm_ofi_imrecv(void *buf, MPI_Count count, MPI_Datatype dt, struct fm_message *u,
                  struct fm_request **out)
{
    struct fm_request *r = fm_req_alloc(FM_REQ_RECV);
    if (!r)
        return FM_ERR_NOMEM;
    *out = r;
    if (u == &fab_message_no_proc) {
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
    if (op->type == FM_OFI_T_UNEXP) {
        /* Probed in the software queue: its data is, or will be, there. */
        unexp_bind(op, r);
        return FM_OK;
    }
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
    if (op->req != r || op->type != FM_OFI_T_RECV || op->cancelling || (op->flags & FI_CLAIM))
        return FM_OK; /* matched already (a claimed message, the software queue) */
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
    fm_ofi_tcancel(&op->base.ctx);
    return FM_OK;
}
