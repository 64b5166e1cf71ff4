/* ofi_engine_xfer.c — sends and receives of the provider-matching engine:
 * fi_tinject / fi_tsend / fi_trecv with the request's op as fi_context,
 * the synchronous-send ack, completions, and the queue of posts that met
 * -FI_EAGAIN (retried from progress, never spun on inside an MPI call). */
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "core/comm.h"
#include "pt2pt/internal.h"
#include "pt2pt/ofi_engine_int.h"
#include "pt2pt/pt2pt.h"
#include "util/log.h"
#include "util/status.h"
#include "util/pvar.h"

fm_ofi_engine fm_ofi_eng;

/* Ops are never freed while the library runs: the provider may keep using
 * an fi_context until the endpoint closes, so they return to a pool. */
fm_ofi_op *fm_ofi_op_get(int type)
{
    fm_ofi_op *op = fm_ofi_eng.pool;
    if (op)
        fm_ofi_eng.pool = op->pool_next;
    else if (!(op = malloc(sizeof *op)))
        return NULL;
    memset(op, 0, sizeof *op);
    op->base.kind = FM_OFI_OP_TAGGED;
    op->type = type;
    op->addr = FI_ADDR_UNSPEC;
    return op;
}

void fm_ofi_op_put(fm_ofi_op *op)
{
    free(op->tmp);
    op->tmp = NULL;
    op->state = FM_OFI_S_IDLE;
    op->pool_next = fm_ofi_eng.pool;
    fm_ofi_eng.pool = op;
}

static void shadow_add(fm_ofi_op *op)
{
    op->prev = NULL;
    op->next = fm_ofi_eng.posted;
    if (op->next)
        op->next->prev = op;
    fm_ofi_eng.posted = op;
    fm_ofi_eng.nposted++;
}

static void shadow_del(fm_ofi_op *op)
{
    if (op->prev)
        op->prev->next = op->next;
    else
        fm_ofi_eng.posted = op->next;
    if (op->next)
        op->next->prev = op->prev;
    op->prev = op->next = NULL;
    fm_ofi_eng.nposted--;
}

static ssize_t issue_op(fm_ofi_op *op);

ssize_t fm_ofi_issue(fm_ofi_op *op)
{
    ssize_t rc = issue_op(op);
    if (rc == 0 && op->type == FM_OFI_T_SEND) {
        FM_PV_INC(pt2pt_ofi_engine_sent);
        FM_PV_ADD(pt2pt_ofi_engine_sent_bytes, op->len);
    }
    fm_log(3, "ofi engine: post type %d peer %d len %zu tag %#llx ignore %#llx flags %#llx: %zd",
           op->type, op->peer_world, op->len, (unsigned long long)op->tag,
           (unsigned long long)op->ignore, (unsigned long long)op->flags, rc);
    return rc;
}

static ssize_t issue_op(fm_ofi_op *op)
{
    void *ctx = &op->base.ctx;
    switch (op->type) {
    case FM_OFI_T_SEND:
        if (op->flags & FM_OFI_F_INJECT)
            return fm_ofi_eng.use_data
                       ? fm_ofi_tinjectdata(op->buf, op->len, op->data, op->addr, op->tag)
                       : fm_ofi_tinject(op->buf, op->len, op->addr, op->tag);
        return fm_ofi_eng.use_data
                   ? fm_ofi_tsenddata(op->buf, op->len, op->data, op->addr, op->tag, ctx)
                   : fm_ofi_tsend(op->buf, op->len, op->addr, op->tag, ctx);
    case FM_OFI_T_ACK_SEND:
    {
        /* One byte, matching the sender's one-byte ack receive: every
         * provider handles that, without relying on zero-length buffers. */
        static const char ack_byte;
        return fm_ofi_tinject(&ack_byte, 1, op->addr, op->tag);
    }
    case FM_OFI_T_RECV:
    case FM_OFI_T_ACK_RECV:
    case FM_OFI_T_UNEXP:
        if (!(op->flags & FI_CLAIM) && !(op->type == FM_OFI_T_RECV && fm_ofi_eng.spill))
            return fm_ofi_trecv(op->buf, op->len, op->addr, op->tag, op->ignore, ctx);
        __attribute__((fallthrough)); /* claimed or spilling: fi_trecvmsg */
    case FM_OFI_T_PEEK:
    case FM_OFI_T_DRAIN: {
        /* A user receive may spill what does not fit (see spill). */
        struct iovec iov[2] = {{op->buf, op->len}, {fm_ofi_eng.spill, fm_ofi_eng.spill_len}};
        void *desc[2] = {NULL, NULL};
        size_t n = op->buf ? 1 : 0;
        if (op->type == FM_OFI_T_RECV && fm_ofi_eng.spill) {
            if (!op->buf)
                iov[0] = iov[1];
            n = op->buf ? 2 : 1;
        }
        struct fi_msg_tagged m = {.msg_iov = iov, .desc = desc, .iov_count = n,
                                  .addr = op->addr, .tag = op->tag, .ignore = op->ignore,
                                  .context = ctx, .data = 0};
        return fm_ofi_trecvmsg(&m, op->flags & (FI_PEEK | FI_CLAIM));
    }
    }
    return -FI_EINVAL;
}

/* The op left: bookkeeping that does not wait for a completion. */
static void issued(fm_ofi_op *op)
{
    if (op->type == FM_OFI_T_SEND || op->type == FM_OFI_T_ACK_SEND)
        fm_ofi_mark_sent(op->peer_world); /* finalize flushes behind it */
    if (op->type == FM_OFI_T_ACK_SEND) {
        fm_ofi_op_put(op);
        return;
    }
    if (op->type == FM_OFI_T_SEND && (op->flags & FM_OFI_F_INJECT)) {
        struct fm_request *r = op->req;
        fm_ofi_op_put(op);
        r->sent = 1;
        if (!(r->flags & FM_REQF_SYNC) || r->acked)
            fm_req_complete(r);
        return;
    }
    op->state = FM_OFI_S_POSTED;
    if (op->type == FM_OFI_T_RECV)
        shadow_add(op);
}

static int post_failed(fm_ofi_op *op, ssize_t rc)
{
    static const char *what[] = {"",      "send",  "receive", "sync ack receive", "sync ack",
                                 "probe", "drain", "claimed receive"};
    fm_error_msg("ofi engine: posting a tagged %s (rank %d) failed: %s", what[op->type],
                 op->peer_world, fi_strerror((int)-rc));
    return FM_ERR_NET;
}

/* Which parked queue: sends (and acks) or receives (and probes' kin).
 * Two queues, because a receive can wait for room in the provider until
 * messages arrive, and the peer's matching sends may sit behind our own
 * parked sends: one queue for both would deadlock a full all-to-all. */
static int queue_of(const fm_ofi_op *op)
{
    return op->type == FM_OFI_T_SEND || op->type == FM_OFI_T_ACK_SEND ? FM_OFI_Q_SEND
           : op->type == FM_OFI_T_ACK_RECV || (op->flags & (FM_OFI_F_COLL | FI_CLAIM))
               ? FM_OFI_Q_ACK
               : FM_OFI_Q_RECV;
}

/* A user receive must wait in software: the provider holds posted_max
 * already (rxm, for one, answers -FI_EAGAIN past its rx_attr->size, and
 * every progress call would retry), or a drain peek is in flight (what it
 * claims goes to the earliest held receive that matches, so no receive may
 * reach the provider, where it could have matched it, meanwhile).
 * Receives leave Q_RECV strictly in posting order, so a later receive never
 * reaches the provider before an earlier one, wildcards included; held
 * receives match what the drain finds (docs/ARCHITECTURE.md, "OFI"). */
static int no_slot(const fm_ofi_op *op)
{
    return op->type == FM_OFI_T_RECV && !(op->flags & (FM_OFI_F_COLL | FI_CLAIM)) &&
           (fm_ofi_eng.nposted >= fm_ofi_eng.posted_max || fm_ofi_eng.drain);
}

static void park(fm_ofi_op *op)
{
    int q = queue_of(op);
    op->state = FM_OFI_S_PARKED;
    op->next = NULL;
    op->prev = fm_ofi_eng.parked_tail[q];
    if (op->prev)
        op->prev->next = op;
    else
        fm_ofi_eng.parked[q] = op;
    fm_ofi_eng.parked_tail[q] = op;
}

int fm_ofi_unpark(fm_ofi_op *op)
{
    if (op->state != FM_OFI_S_PARKED)
        return 0;
    int q = queue_of(op);
    if (op->prev)
        op->prev->next = op->next;
    else
        fm_ofi_eng.parked[q] = op->next;
    if (op->next)
        op->next->prev = op->prev;
    else
        fm_ofi_eng.parked_tail[q] = op->prev;
    op->prev = op->next = NULL;
    op->state = FM_OFI_S_IDLE;
    return 1;
}

int fm_ofi_post(fm_ofi_op *op)
{
    if (!fm_ofi_eng.parked[queue_of(op)] && !no_slot(op)) {
        ssize_t rc = fm_ofi_issue(op);
        if (rc == 0) {
            issued(op);
            return FM_OK;
        }
        if (rc != -FI_EAGAIN)
            return post_failed(op, rc);
    }
    park(op);
    return FM_OK;
}

/* Polls without a completion before an idle drain (drain_idle): a wait
 * this long is likely blocked on a message behind an unexpected one. */
#define FM_OFI_IDLE_DRAIN 256

static int idle_drain_due(void)
{
    if (fm_ofi_eng.drain_burst)
        return 1;
    if (fm_ofi_eng.events != fm_ofi_eng.events_seen) {
        fm_ofi_eng.events_seen = fm_ofi_eng.events;
        fm_ofi_eng.idle_polls = 0;
        return 0;
    }
    if (++fm_ofi_eng.idle_polls < FM_OFI_IDLE_DRAIN)
        return 0;
    fm_ofi_eng.idle_polls = 0;
    return 1;
}

int fm_ofi_engine_progress(void)
{
    int n = 0;
    for (int q = 0; q < FM_OFI_NQUEUES; q++) {
        fm_ofi_op *op;
        while ((op = fm_ofi_eng.parked[q]) && !no_slot(op)) {
            ssize_t rc = fm_ofi_issue(op);
            if (rc == -FI_EAGAIN)
                break;
            fm_ofi_unpark(op);
            if (rc != 0) {
                post_failed(op, rc);
                abort();
            }
            issued(op);
            n++;
        }
    }
    /* Receives held: what arrived unexpected may be for one of them. */
    if (!fm_ofi_eng.drain && (fm_ofi_eng.parked[FM_OFI_Q_RECV] ||
                              (fm_ofi_eng.drain_idle && idle_drain_due())))
        fm_ofi_drain_start();
    return n;
}

uint64_t fm_ofi_recv_ignore(int any_src, int any_tag)
{
    uint64_t ig = fm_ofi_tag_ignore(&fm_ofi_eng.lay, any_src, any_tag);
    /* With the sync flag in CQ data the SYNC tag bit is never set, and a
     * receive naming source and tag can match exactly: libfabric 1.17's shm
     * provider never matches an earlier unexpected message to a receive
     * with ignore bits (see auto_avoids in ofi_engine.c). */
    if (fm_ofi_eng.sync_in_data)
        ig &= ~((uint64_t)FM_OFI_PROTO_SYNC << fm_ofi_eng.lay.proto_shift);
    return ig;
}

int fm_ofi_src_of(uint64_t tag, uint64_t data)
{
    return fm_ofi_eng.full ? (int)(uint32_t)data : fm_ofi_tag_src(&fm_ofi_eng.lay, tag);
}

int fm_ofi_env_matches(uint64_t rtag, uint64_t rignore, int rsrc, uint64_t tag, uint64_t data)
{
    if ((tag ^ rtag) & ~rignore)
        return 0;
    /* Full mode: the source is in CQ data (directed receives by address). */
    return !fm_ofi_eng.full || rsrc == MPI_ANY_SOURCE || fm_ofi_src_of(tag, data) == rsrc;
}

int fm_ofi_isend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, int coll, int mode, struct fm_request **out)
{
    struct fm_request *r = fm_req_alloc(FM_REQ_SEND);
    if (!r)
        return FM_ERR_NOMEM;
    *out = r;
    r->comm = comm;
    comm->refcount++;
    if (dest == MPI_PROC_NULL) {
        r->status.MPI_SOURCE = MPI_PROC_NULL;
        r->status.MPI_TAG = MPI_ANY_TAG;
        r->done = 1;
        return FM_OK;
    }
    int peer = comm->world[dest];
    uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;
    uint32_t ctx = comm->ctx + (uint32_t)coll;
    r->count = count;
    r->peer = dest;
    r->tag = tag;
    r->bytes = bytes;
    r->peer_world = peer;
    if (bytes > fm_ofi_eng.max_msg) {
        fm_error_msg("ofi engine: a message of %llu bytes exceeds provider %s's largest (%zu)",
                     (unsigned long long)bytes, fm_ofi_provider()->fabric_attr->prov_name,
                     fm_ofi_eng.max_msg);
        return FM_ERR_ARG;
    }
    const void *data = fm_contig_source(buf, count, dt, bytes, &r->tmp);
    if (!data && bytes)
        return FM_ERR_NOMEM;
    r->sbuf = data;
    int proto = FM_OFI_PROTO_DATA;
    if (mode == FM_SEND_SYNC) {
        /* The ack receive goes first so it waits in the provider before
         * the receiver can possibly answer. */
        r->flags |= FM_REQF_SYNC;
        if (!fm_ofi_eng.sync_in_data)
            proto = FM_OFI_PROTO_SYNC;
        fm_ofi_op *ack = fm_ofi_op_get(FM_OFI_T_ACK_RECV);
        if (!ack)
            return FM_ERR_NOMEM;
        ack->req = r;
        ack->peer_world = peer;
        ack->buf = &ack->peek_data;
        ack->len = 1;
        ack->tag = fm_ofi_tag_make(&fm_ofi_eng.lay, ctx, dest, tag, FM_OFI_PROTO_ACK);
        if (fm_ofi_eng.full)
            ack->addr = fm_ofi_peer_addr(peer);
        int rc = fm_ofi_post(ack);
        if (rc != FM_OK)
            return rc;
    }
    fm_ofi_op *op = fm_ofi_op_get(FM_OFI_T_SEND);
    if (!op)
        return FM_ERR_NOMEM;
    op->req = r;
    op->peer_world = peer;
    op->buf = (void *)data;
    op->len = bytes;
    op->addr = fm_ofi_peer_addr(peer);
    op->data = (uint32_t)comm->rank;
    if (mode == FM_SEND_SYNC && fm_ofi_eng.sync_in_data)
        op->data |= FM_OFI_DATA_SYNC;
    op->tag = fm_ofi_tag_make(&fm_ofi_eng.lay, ctx, comm->rank, tag, proto);
    if (bytes <= fm_ofi_eng.inject)
        op->flags |= FM_OFI_F_INJECT;
    return fm_ofi_post(op);
}

/* coll: 0 on the communicator's point-to-point context, 1 on its
 * collective one (a constant in each caller, so the add folds away). */
static inline int send_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                           MPI_Comm comm, uint32_t coll)
{
    if (dest == MPI_PROC_NULL)
        return FM_OK;
    uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;
    if (!fm_dt_is_contig(dt) || bytes > fm_ofi_eng.inject || fm_ofi_eng.parked[FM_OFI_Q_SEND])
        return FM_ERR_AGAIN;
    int peer = comm->world[dest];
    uint64_t t =
        fm_ofi_tag_make(&fm_ofi_eng.lay, comm->ctx + coll, comm->rank, tag, FM_OFI_PROTO_DATA);
    const char *p = (const char *)buf + dt->true_lb;
    ssize_t rc = fm_ofi_eng.use_data
                     ? fm_ofi_tinjectdata(p, bytes, (uint32_t)comm->rank, fm_ofi_peer_addr(peer), t)
                     : fm_ofi_tinject(p, bytes, fm_ofi_peer_addr(peer), t);
    if (rc != 0)
        return FM_ERR_AGAIN; /* the general path parks it or reports the error */
    FM_PV_INC(pt2pt_ofi_engine_sent);
    FM_PV_ADD(pt2pt_ofi_engine_sent_bytes, bytes);
    fm_ofi_mark_sent(peer);
    return FM_OK;
}

int fm_ofi_send_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm)
{
    return send_now(buf, count, dt, dest, tag, comm, 0);
}

int fm_ofi_coll_send_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                         MPI_Comm comm)
{
    return send_now(buf, count, dt, dest, tag, comm, 1);
}

/* The provider holds what arrived before a receive was posted: a
 * collective's receive always posts one. */
int fm_ofi_coll_recv_now(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                         MPI_Comm comm, long long *got)
{
    (void)buf, (void)count, (void)dt, (void)src, (void)tag, (void)comm, (void)got;
    return FM_ERR_AGAIN;
}

int fm_ofi_post_recv(fm_ofi_op *op, struct fm_request *r, uint32_t ctx, int src, int tag)
{
    op->req = r;
    r->peer_req = (uintptr_t)op;
    op->len = r->bytes;
    if (fm_dt_is_contig(r->dt) || r->bytes == 0) {
        op->buf = (char *)r->rbuf + r->dt->true_lb;
    } else {
        if (!(op->tmp = malloc(r->bytes)))
            return FM_ERR_NOMEM;
        op->buf = op->tmp;
    }
    int any_src = src == MPI_ANY_SOURCE, any_tag = tag == MPI_ANY_TAG;
    op->peer_world = any_src ? -1 : r->comm->world[src];
    if (!(op->flags & FI_CLAIM)) {
        op->tag = fm_ofi_tag_make(&fm_ofi_eng.lay, ctx, any_src ? 0 : src, any_tag ? 0 : tag,
                                  FM_OFI_PROTO_DATA);
        op->ignore = fm_ofi_recv_ignore(any_src, any_tag);
        op->addr = fm_ofi_eng.full && !any_src ? fm_ofi_peer_addr(op->peer_world) : FI_ADDR_UNSPEC;
        /* Messages drained while receives were held came first. */
        if (fm_ofi_eng.unexp && op->type == FM_OFI_T_RECV && !(op->flags & FM_OFI_F_COLL) &&
            fm_ofi_unexp_take(op))
            return FM_OK;
    }
    return fm_ofi_post(op);
}

int fm_ofi_irecv(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                 int coll, struct fm_request **out)
{
    int rc = fm_recv_request_new(buf, count, dt, src, tag, comm, coll, out);
    struct fm_request *r = *out;
    if (rc != FM_OK || r->done)
        return rc;
    r->ctx = comm->ctx + (uint32_t)coll;
    fm_ofi_op *op = fm_ofi_op_get(FM_OFI_T_RECV);
    if (!op)
        return FM_ERR_NOMEM;
    if (coll)
        op->flags |= FM_OFI_F_COLL;
    return fm_ofi_post_recv(op, r, r->ctx, src, tag);
}

/* The receiver's half of a synchronous send: an empty message with the
 * ACK bit, our rank as source, back to the sender. */
static void send_ack(struct fm_request *r, uint64_t tag, int src)
{
    const fm_ofi_tag_layout *l = &fm_ofi_eng.lay;
    fm_ofi_op *op = fm_ofi_op_get(FM_OFI_T_ACK_SEND);
    if (!op) {
        fm_error_msg("ofi engine: out of memory acknowledging a synchronous send");
        abort();
    }
    op->peer_world = r->comm->world[src];
    op->addr = fm_ofi_peer_addr(op->peer_world);
    op->tag = (tag & ~(l->proto_mask | l->src_mask)) |
              ((uint64_t)FM_OFI_PROTO_ACK << l->proto_shift) |
              (((uint64_t)(uint32_t)r->comm->rank << l->src_shift) & l->src_mask);
    if (fm_ofi_post(op) != FM_OK)
        abort(); /* logged; the sender would wait forever */
}

void fm_ofi_recv_finish(struct fm_request *r, uint64_t tag, size_t len, uint64_t data, int err,
                        uint64_t msg_len)
{
    int src = fm_ofi_src_of(tag, data);
    /* A named tag is reported as asked (mode 2 folds library tags). */
    int utag = r->tag != MPI_ANY_TAG ? r->tag : fm_ofi_tag_tag(&fm_ofi_eng.lay, tag);
    r->msg_bytes = msg_len;
    r->peer_world = r->comm->world[src];
    fm_set_recv_status(r, src, utag, len, err);
    if (fm_ofi_eng.sync_in_data ? (data & FM_OFI_DATA_SYNC) != 0
                                : (fm_ofi_tag_proto(&fm_ofi_eng.lay, tag) & FM_OFI_PROTO_SYNC) != 0)
        send_ack(r, tag, src);
    fm_req_complete(r);
}

void fm_ofi_recv_done(fm_ofi_op *op, uint64_t tag, size_t len, uint64_t data, int err,
                      uint64_t msg_len)
{
    struct fm_request *r = op->req;
    shadow_del(op);
    if (op->tmp && len)
        fm_dt_unpack(r->rbuf, r->count, r->dt, 0, op->tmp, len);
    fm_ofi_op_put(op);
    fm_ofi_recv_finish(r, tag, len, data, err, msg_len);
}

void fm_ofi_tagged_event(const struct fi_cq_tagged_entry *e)
{
    fm_ofi_op *op = e->op_context;
    struct fm_request *r = op->req;
    fm_log(3, "ofi engine: completion type %d len %zu tag %#llx data %llu", op->type, e->len,
           (unsigned long long)e->tag, (unsigned long long)e->data);
    fm_ofi_eng.events++;
    switch (op->type) {
    case FM_OFI_T_SEND:
        fm_ofi_op_put(op);
        r->sent = 1;
        if (!(r->flags & FM_REQF_SYNC) || r->acked)
            fm_req_complete(r);
        return;
    case FM_OFI_T_ACK_RECV:
        fm_ofi_op_put(op);
        r->acked = 1;
        if (r->sent)
            fm_req_complete(r);
        return;
    case FM_OFI_T_RECV:
        if (e->len > op->len) /* it spilled: truncated, though the provider saw no error */
            fm_ofi_recv_done(op, e->tag, op->len, e->data, MPI_ERR_TRUNCATE, e->len);
        else
            fm_ofi_recv_done(op, e->tag, e->len, e->data, MPI_SUCCESS, e->len);
        return;
    case FM_OFI_T_PEEK:
        op->state = FM_OFI_S_IDLE;
        op->peek_done = op->peek_found = 1;
        op->peek_len = e->len;
        op->peek_tag = e->tag;
        op->peek_data = e->data;
        return;
    case FM_OFI_T_DRAIN:
        fm_ofi_drain_found(op, e);
        return;
    case FM_OFI_T_UNEXP:
        fm_ofi_unexp_arrived(op, e->len, MPI_SUCCESS, e->len);
        return;
    }
}

void fm_ofi_tagged_error(const struct fi_cq_err_entry *e)
{
    /* libfabric 1.17's shm reports a truncation as err = -FI_ETRUNC;
     * the API (and every other provider) says a positive errno. */
    const int err = e->err < 0 ? -e->err : e->err;
    fm_ofi_op *op = e->op_context;
    struct fm_request *r = op->req;
    if (op->type == FM_OFI_T_PEEK) {
        op->state = FM_OFI_S_IDLE;
        op->peek_done = 1;
        op->peek_found = 0;
        if (err != FI_ENOMSG)
            fm_error_msg("ofi engine: probe failed: %s", fi_strerror(err));
        return;
    }
    if (op->type == FM_OFI_T_DRAIN) {
        if (err != FI_ENOMSG && fm_ofi_is_up())
            fm_error_msg("ofi engine: peek for unexpected messages failed: %s",
                         fi_strerror(err));
        fm_ofi_drain_none(op);
        return;
    }
    if (op->type == FM_OFI_T_UNEXP) {
        if (!fm_ofi_is_up()) {
            op->state = FM_OFI_S_IDLE; /* finalize: the entry stays queued */
            return;
        }
        if (err != FI_ETRUNC)
            fm_error_msg("ofi engine: receiving a drained message failed: %s (provider: %s)",
                         fi_strerror(err),
                         fm_ofi_cq_errstr(e));
        fm_ofi_unexp_arrived(op, e->len, err == FI_ETRUNC ? MPI_ERR_TRUNCATE : MPI_ERR_OTHER,
                             e->len + e->olen);
        return;
    }
    if (op->type == FM_OFI_T_RECV && err == FI_ECANCELED) {
        shadow_del(op);
        fm_ofi_op_put(op);
        fm_set_recv_status(r, r->peer, r->tag, 0, MPI_SUCCESS);
        r->status.fm_cancelled = 1;
        fm_req_complete(r);
        return;
    }
    if (op->type == FM_OFI_T_RECV && err == FI_ETRUNC) {
        /* The provider filled the buffer and says how much did not fit. */
        fm_ofi_recv_done(op, e->tag, e->len, e->data, MPI_ERR_TRUNCATE, e->len + e->olen);
        return;
    }
    if (err == FI_ECANCELED || !fm_ofi_is_up()) {
        if (op->type == FM_OFI_T_RECV)
            shadow_del(op);
        fm_ofi_op_put(op); /* finalize: the endpoint is going away */
        return;
    }
    fm_error_msg("ofi engine: tagged %s failed: %s (provider: %s)",
                 op->type == FM_OFI_T_SEND ? "send" : "receive", fi_strerror(err),
                 fm_ofi_cq_errstr(e));
    if (op->type == FM_OFI_T_RECV)
        shadow_del(op);
    fm_ofi_op_put(op);
    if (r) {
        r->status.MPI_ERROR = MPI_ERR_OTHER;
        fm_req_complete(r);
    }
}
