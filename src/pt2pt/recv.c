/* recv.c — posting receives and delivering matched messages into them. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "boot/boot.h"
#include "dtype/dtype.h"
#include "core/comm.h"
#include "core/vci.h"
#include "pt2pt/envelope.h"
#include "pt2pt/internal.h"
#include "pt2pt/pt2pt.h"
#include "util/log.h"
#include "util/memcheck.h"
#include "util/status.h"
#include "util/event.h"
#include "util/pvar.h"
#include "util/copy.h"


/* Payloads of unexpected eager messages too large for the record come from
 * per-VCI free lists by power-of-two size class, 256 B to 1 MiB, of which
 * up to FM_UNEXP_CACHE bytes are kept.  From malloc each time, glibc served
 * a 128 KiB one with mmap and munmap, or from a heap it trimmed and grew
 * again: page faults every message (osu_allgatherv at 4 ranks on the 2
 * cores, 128 KiB, where the ring's eager blocks arrive before their
 * receives: 735-775 us a call, 85 with glibc's trimming and mmap turned
 * off by tunables; Open MPI 134). */
enum { FM_UNEXP_CLASS_MIN = 8 };
#define FM_UNEXP_CACHE ((size_t)8 << 20)

static int payload_class(size_t n)
{
    if (n > (size_t)1 << (FM_UNEXP_CLASS_MIN + FM_UNEXP_CLASSES - 1))
        return -1;
    const int bits = n <= (size_t)1 << FM_UNEXP_CLASS_MIN ? FM_UNEXP_CLASS_MIN
                                                          : 64 - __builtin_clzll(n - 1);
    return bits - FM_UNEXP_CLASS_MIN;
}

static size_t class_bytes(int c) { return (size_t)1 << (c + FM_UNEXP_CLASS_MIN); }

static void *payload_get(struct fm_vci *v, size_t n, int *cls)
{
    const int c = *cls = payload_class(n);
    if (c < 0)
        return malloc(n);
    void *b = v->unexp_buf[c];
    if (!b)
        return malloc(class_bytes(c));
    v->unexp_buf[c] = *(void **)b;
    v->unexp_cached -= class_bytes(c);
    return b;
}

static void payload_put(struct fm_vci *v, void *b, int c)
{
    if (c < 0 || v->unexp_cached + class_bytes(c) > FM_UNEXP_CACHE) {
        free(b);
        return;
    }
    *(void **)b = v->unexp_buf[c];
    v->unexp_buf[c] = b;
    v->unexp_cached += class_bytes(c);
}

struct fm_message *fm_msg_alloc(struct fm_vci *v, size_t payload)
{
    struct fm_message *m = v->msg_free;
    if (m)
        v->msg_free = m->next_free;
    else if (!(m = malloc(sizeof *m)))
        return NULL;
    m->magic = FM_MAGIC_MSG;
    m->data = NULL;
    m->vci = v;
    if (payload > FM_UNEXP_INLINE) {
        if (!(m->data = payload_get(v, payload, &m->data_class))) {
            m->next_free = v->msg_free;
            v->msg_free = m;
            return NULL;
        }
    } else if (payload) {
        m->data = m->inline_data;
    }
    return m;
}

void fm_msg_free(struct fm_message *m)
{
    if (m->data && m->data != (void *)m->inline_data)
        payload_put(m->vci, m->data, m->data_class);
    m->data = NULL;
    m->magic = 0;
    m->next_free = m->vci->msg_free;
    m->vci->msg_free = m;
}

void fm_msg_pool_release(struct fm_vci *v)
{
    while (v->msg_free) {
        struct fm_message *m = v->msg_free;
        v->msg_free = m->next_free;
        free(m);
    }
    for (int c = 0; c < FM_UNEXP_CLASSES; c++)
        while (v->unexp_buf[c]) {
            void *b = v->unexp_buf[c];
            v->unexp_buf[c] = *(void **)b;
            free(b);
        }
    v->unexp_cached = 0;
}

/* Copy len bytes at packed offset `off` of a message into (buf, count, dt). */
static void copy_to(void *buf, MPI_Count count, MPI_Datatype dt, uint64_t off, const void *data,
                    size_t len)
{
    if (!len)
        return;
    if (fm_dt_is_contig(dt))
        fm_copy((char *)buf + dt->true_lb + off, data, len);
    else
        fm_dt_unpack(buf, count, dt, off, data, len);
}

/* The same into r's buffer. */
static void copy_in(struct fm_request *r, uint64_t off, const void *data, size_t len)
{
    copy_to(r->rbuf, r->count, r->dt, off, data, len);
}

void fm_send_ctrl(struct fm_vci *v, int peer, int proto, uint64_t sreq, uint64_t rreq,
                  uint64_t len)
{
    fm_hdr_rndv h;
    memset(&h, 0, sizeof h);
    h.h.proto = (uint8_t)proto;
    h.h.len = len;
    h.sreq = sreq;
    h.rreq = rreq;
    int rc = fm_send_or_park(v, peer, &h, sizeof h, NULL, 0, NULL);
    if (rc != FM_OK)
        fm_boot_abort(1, "fabmpi: cannot send a control message (out of memory)");
}

/* Single-copy pull of a rendezvous message straight into a contiguous
 * user buffer. */
static void pull_into(struct fm_request *r, int peer, uint64_t addr, size_t n)
{
    int rc = fm_net_pull(fm_req_vci(r)->peer_net[peer], peer, (char *)r->rbuf + r->dt->true_lb,
                         addr, n);
    if (rc != FM_OK) {
        char why[160];
        snprintf(why, sizeof why, "fabmpi: copying %zu bytes from rank %d failed: %s", n, peer,
                 fm_status_msg(rc));
        fm_boot_abort(1, why);
    }
}

/* Pull when both sides are contiguous; otherwise the sender streams DATA
 * chunks that it packs straight into the transport and we unpack straight
 * out of it.  Measured here (4 MiB vector, bench in bench/ANALYSIS.md):
 * the iovec form of CMA costs ~350 ns per remote piece and ~30 ns per
 * local one (the kernel pins pages per piece), so it lost to the pipeline
 * at every block size from 8 B to 16 KiB, by 2-200x at small blocks.
 * Also streamed: buffers whose offsets put the kernel's copy in the
 * aliasing window (util/copy.h), where it runs at a quarter of its speed
 * (256 KiB ping-pong, receive buffer 16 bytes into a page: 89 us pulled,
 * 18-39 streamed, 20 with both buffers aligned): the pipeline's copies go
 * around it. */
static int pull_worthwhile(const struct fm_request *r, int peer, const fm_hdr_rndv *h,
                           uint64_t take)
{
    return (fm_req_vci(r)->peer_net[peer]->caps & FM_NET_CAP_PULL) &&
           !(h->h.flags & FM_HDRF_STREAM) && fm_dt_is_contig(r->dt) &&
           !fm_copy_in_window((uintptr_t)r->rbuf + (uintptr_t)r->dt->true_lb, h->addr, take);
}

/* Split copies pay off only for large messages, need push, and only while
 * the sender's core is otherwise idle: not while it is pulling messages of
 * ours (fm_rndv_out). */
static int split_worthwhile(const struct fm_vci *v, int peer, uint64_t take)
{
    return fm_param.SHM_SPLIT_MIN && take >= fm_param.SHM_SPLIT_MIN && !v->rndv_out[peer] &&
           fm_net_can_push(v->peer_net[peer]);
}

/* Where a split copy's back part (the sender's) starts. */
static uint64_t split_front(uint64_t take) { return (take / 2 + 4095) & ~(uint64_t)4095; }

/* Both halves of a split copy are in: release the sender and complete. */
static void split_finish(struct fm_request *r)
{
    fm_send_ctrl(fm_req_vci(r), r->peer_world, FM_PROTO_FIN, r->peer_req, 0, 0);
    fm_req_complete(r);
}

void fm_recv_matched(struct fm_request *r, int peer, const fm_hdr_rndv *h, const void *payload)
{
    uint64_t n = h->h.len, cap = r->bytes;
    int err = n > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    uint64_t take = n < cap ? n : cap;
    r->msg_bytes = n;
    r->peer_world = peer;
    fm_set_recv_status(r, h->h.src, h->h.tag, take, err);
    switch (h->h.proto) {
    case FM_PROTO_EAGER:
        copy_in(r, 0, payload, take);
        fm_req_complete(r);
        return;
    case FM_PROTO_EAGER_SYNC:
        copy_in(r, 0, payload, take);
        fm_send_ctrl(fm_req_vci(r), peer, FM_PROTO_ACK, h->sreq, 0, 0);
        fm_req_complete(r);
        return;
    case FM_PROTO_RTS:
        if (!pull_worthwhile(r, peer, h, take)) {
            /* Pipelined: ask the sender to stream `take` bytes to us. */
            r->offset = 0;
            r->limit = take;
            fm_send_ctrl(fm_req_vci(r), peer, FM_PROTO_CTS, h->sreq, (uintptr_t)r, take);
            if (take == 0)
                fm_req_complete(r);
            return;
        }
        if (split_worthwhile(fm_req_vci(r), peer, take)) {
            /* Both cores copy: the sender pushes the back part while we pull
             * the front; whoever finishes last completes (on_wdone). */
            uint64_t front = split_front(take);
            char *dst = (char *)r->rbuf + r->dt->true_lb;
            r->peer_req = h->sreq;
            fm_hdr_rndv sp;
            memset(&sp, 0, sizeof sp);
            sp.h.proto = FM_PROTO_SPLIT;
            sp.h.len = take - front;
            sp.sreq = h->sreq;
            sp.rreq = (uintptr_t)r;
            sp.addr = (uintptr_t)(dst + front);
            sp.offset = front;
            if (fm_send_or_park(fm_req_vci(r), peer, &sp, sizeof sp, NULL, 0, NULL) != FM_OK)
                fm_boot_abort(1, "fabmpi: cannot send a control message (out of memory)");
            pull_into(r, peer, h->addr, front);
            r->sent = 1; /* our part is in */
            if (r->acked)
                split_finish(r);
            return;
        }
        pull_into(r, peer, h->addr, take);
        fm_send_ctrl(fm_req_vci(r), peer, FM_PROTO_FIN, h->sreq, 0, 0);
        fm_req_complete(r);
        return;
    }
}

int fm_recv_request_new(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                        MPI_Comm comm, int coll, struct fm_request **out)
{
    struct fm_request *r = fm_req_alloc_on(fm_comm_vci(comm, coll), FM_REQ_RECV);
    if (!r)
        return FM_ERR_NOMEM;
    *out = r;
    r->comm = comm;
    comm->refcount++;
    if (src == MPI_PROC_NULL) {
        fm_set_recv_status(r, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS);
        r->done = 1;
        return FM_OK;
    }
    r->rbuf = buf;
    r->count = count;
    r->dt = dt;
    if (!(dt->flags & FM_DT_PREDEFINED))
        fm_dt_retain(dt);
    r->peer = src;
    r->tag = tag;
    r->bytes = (uint64_t)count * (uint64_t)dt->size;
    return FM_OK;
}

int fm_sw_irecv(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                int coll, struct fm_request **out)
{
    int rc = fm_recv_request_new(buf, count, dt, src, tag, comm, coll, out);
    struct fm_request *r = *out;
    if (rc != FM_OK || r->done)
        return rc;
    r->mq = coll ? comm->mq_coll : comm->mq;
    r->me.src = src;
    r->me.tag = tag;
    fm_match_entry *m = fm_match_post(r->mq, &r->me);
    if (m) {
        struct fm_message *u = MSG_OF(m);
        fm_recv_matched(r, u->peer, &u->h, u->data);
        fm_msg_free(u);
    }
    return FM_OK;
}

/* A whole eager message in the collective context's unexpected queue goes
 * straight into the buffer; the others (none there, a synchronous one that
 * wants its ACK, a rendezvous) take a request.  On a crowded node a
 * member often finds its message there: it was taken in while the member
 * waited (in the flat barrier, for one), and a request taken and freed
 * around it cost 200 of the 680 instructions of a non-root's 8 B
 * MPI_Scatterv (callgrind, 4 ranks). */
int fm_sw_coll_recv_now(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                        MPI_Comm comm, long long *got)
{
    fm_match_queue *q = comm->mq_coll;
    fm_match_entry *m = src >= 0 ? fm_match_peek(q, src, tag) : NULL;
    if (!m || MSG_OF(m)->h.h.proto != FM_PROTO_EAGER)
        return FM_ERR_AGAIN;
    struct fm_message *u = MSG_OF(m);
    fm_match_remove_unexpected(q, m);
    const uint64_t n = u->h.h.len, cap = (uint64_t)count * (uint64_t)dt->size;
    const uint64_t take = n < cap ? n : cap;
    copy_to(buf, count, dt, 0, u->data, take);
    fm_msg_free(u);
    FM_PV_INC_AT(&fm_comm_vci(comm, 1)->pv, pt2pt_coll_recv_arrived);
    *got = (long long)take;
    return n > cap ? FM_ERR_TRUNCATE : FM_OK;
}

/* Data chunk of a pipelined rendezvous. */
static void on_data(const fm_hdr_rndv *h, const void *payload)
{
    struct fm_request *r = (struct fm_request *)(uintptr_t)h->rreq;
    copy_in(r, h->offset, payload, h->h.len);
    r->offset += h->h.len;
    if (r->offset >= r->limit)
        fm_req_complete(r);
}

/* ---- control messages: one handler per protocol ------------------------ */

static void on_cts(int peer, const void *msg, size_t len)
{
    (void)len;
    const fm_hdr_rndv *hr = msg;
    struct fm_request *s = (struct fm_request *)(uintptr_t)hr->sreq;
    /* A send offered for pulling is streamed instead (the receiver's type,
     * or its buffer's offset: pull_worthwhile): nobody pulls from us, so
     * it no longer holds back split copies to this peer (split_worthwhile). */
    fm_rndv_out_done(s, peer);
    s->peer_req = hr->rreq;
    s->limit = hr->h.len;
    s->offset = 0;
    fm_stream_start(s);
}

static void on_data_msg(int peer, const void *msg, size_t len)
{
    (void)peer, (void)len;
    on_data(msg, (const char *)msg + sizeof(fm_hdr_rndv));
}

/* Receiver asks us (the sender) to push the back part ourselves. */
static void on_split(int peer, const void *msg, size_t len)
{
    (void)len;
    const fm_hdr_rndv *hr = msg;
    struct fm_request *s = (struct fm_request *)(uintptr_t)hr->sreq;
    struct fm_vci *v = fm_req_vci(s);
    int rc = fm_net_push(v->peer_net[peer], peer, hr->addr, (const char *)s->sbuf + hr->offset,
                         hr->h.len);
    if (rc != FM_OK)
        fm_boot_abort(1, "fabmpi: copying the second half of a large message failed");
    fm_send_ctrl(v, peer, FM_PROTO_WDONE, 0, hr->rreq, 0);
}

static void on_wdone(int peer, const void *msg, size_t len)
{
    (void)peer, (void)len;
    const fm_hdr_rndv *hr = msg;
    struct fm_request *r = (struct fm_request *)(uintptr_t)hr->rreq;
    r->acked = 1; /* the sender's part is in */
    uint64_t take = r->msg_bytes < r->bytes ? r->msg_bytes : r->bytes;
    uint64_t front = split_front(take);
    FM_PEER_WROTE((char *)r->rbuf + r->dt->true_lb + front, take - front);
    if (r->sent)
        split_finish(r);
}

static void on_fin(int peer, const void *msg, size_t len)
{
    (void)len;
    struct fm_request *s = (struct fm_request *)(uintptr_t)((const fm_hdr_rndv *)msg)->sreq;
    fm_rndv_out_done(s, peer);
    s->sent = 1;
    fm_req_complete(s);
}

static void on_ack(int peer, const void *msg, size_t len)
{
    (void)peer, (void)len;
    struct fm_request *s = (struct fm_request *)(uintptr_t)((const fm_hdr_rndv *)msg)->sreq;
    s->acked = 1;
    if (s->sent)
        fm_req_complete(s);
}

/* Every protocol that is not matched: the rendezvous and control messages
 * above, and those registered later (fm_deliver_register). */
static fm_net_deliver_fn *handlers[FM_PROTO_MAX] = {
    [FM_PROTO_CTS] = on_cts,     [FM_PROTO_DATA] = on_data_msg, [FM_PROTO_SPLIT] = on_split,
    [FM_PROTO_WDONE] = on_wdone, [FM_PROTO_FIN] = on_fin,       [FM_PROTO_ACK] = on_ack,
    [FM_PROTO_CANCEL] = fm_on_cancel, [FM_PROTO_CANCELLED] = fm_on_cancelled,
};

int fm_deliver_register(unsigned proto, fm_net_deliver_fn *handler)
{
    if (proto < FM_PROTO_HANDLER_FIRST || proto >= FM_PROTO_MAX)
        return FM_ERR_ARG;
    if (handlers[proto] && handlers[proto] != handler)
        return FM_ERR_ARG; /* taken */
    handlers[proto] = handler;
    return FM_OK;
}

static void dispatch(int peer, const void *msg, size_t len)
{
    unsigned proto = ((const fm_hdr *)msg)->proto;
    fm_net_deliver_fn *fn = proto < FM_PROTO_MAX ? handlers[proto] : NULL;
    if (fn)
        fn(peer, msg, len);
    else
        fm_error_msg("message with unknown protocol %u from rank %d dropped", proto, peer);
}

/* A message whose context has no matching queue: an id beyond any this
 * library hands out (a corrupt or foreign message: dropped, said), or no
 * memory for a new queue. */
static __attribute__((cold, noinline)) void no_queue(int peer, const fm_hdr *h)
{
    if (h->ctx >= FM_MAX_CONTEXTS) {
        fm_error_msg("message with context id %u (beyond %u) from rank %d dropped",
                     (unsigned)h->ctx, FM_MAX_CONTEXTS - 1, peer);
        return;
    }
    fm_boot_abort(1, "fabmpi: out of memory creating the matching queue of a communicator");
}

/* A message whose envelope does not fit its length (envelope.h): from a
 * corrupt or hostile peer; dropped, said. */
static __attribute__((cold, noinline)) void bad_envelope(int peer, const fm_hdr *h, size_t len)
{
    fm_error_msg("message of %zu bytes from rank %d with a corrupt envelope (protocol %u, "
                 "length field %llu) dropped",
                 len, peer, (unsigned)h->proto, (unsigned long long)h->len);
}

/* Every arriving message, on VCI v (its matching table and records). */
static inline __attribute__((always_inline)) void deliver_on(struct fm_vci *v, int peer,
                                                             const void *msg, size_t len)
{
    fm_envelope e;
    switch (fm_envelope_decode(msg, len, &e)) {
    case FM_ENV_MATCH:
        break;
    case FM_ENV_DISPATCH:
        dispatch(peer, msg, len);
        return;
    default:
        bad_envelope(peer, msg, len);
        return;
    }
    const fm_hdr *h = e.h;
    /* Matched straight from the transport's buffer when a receive waits;
     * only an unexpected message gets a record (and a copy). */
    fm_match_queue *q = fm_ctx_queue_fast(&v->ctx, h->ctx);
    if (__builtin_expect(!q, 0)) {
        no_queue(peer, h);
        return;
    }
    fm_match_entry *m = fm_match_take_posted(q, h->src, h->tag);
    if (m) {
        fm_recv_matched((struct fm_request *)m, peer, (const fm_hdr_rndv *)h, e.payload);
        return;
    }
    int eager = h->proto != FM_PROTO_RTS;
    struct fm_message *u = fm_msg_alloc(v, eager ? h->len : 0);
    if (!u)
        fm_boot_abort(1, "fabmpi: out of memory queueing an unexpected message");
    memcpy(&u->h, h, e.hlen);
    u->peer = peer;
    u->me.src = h->src;
    u->me.tag = h->tag;
    if (eager && h->len)
        fm_copy(u->data, e.payload, h->len);
    FM_PV_INC_AT(&v->pv, pt2pt_unexpected);
    fm_match_add_unexpected(q, &u->me);
    if (fm_event_wanted(FM_EV_pt2pt_unexpected)) {
        struct fm_ev_pt2pt_unexpected d = {h->src, h->tag, (long long)h->len};
        fm_event_raise(FM_EV_pt2pt_unexpected, h->ctx, &d);
    }
}

void fm_deliver(int peer, const void *msg, size_t len) { deliver_on(&fm_vci0, peer, msg, len); }

/* Lane i's messages.  A lane's rings and self queue carry only the
 * point-to-point contexts of its own communicators (senders pick the lane
 * by the same fm_vci_of_ctx) and the control messages of their requests
 * (whose VCI the handlers take from the request), so each lane's poll
 * hands them to a function that knows the lane: no context read and no
 * division by the number of lanes per message. */
static __attribute__((noinline)) void deliver_lane(struct fm_vci *v, int peer, const void *msg,
                                                   size_t len)
{
    deliver_on(v, peer, msg, len);
}

#define DELIVER_LANE(i)                                                     \
    static void deliver_lane_##i(int peer, const void *msg, size_t len)    \
    {                                                                       \
        deliver_lane(fm_vcis[i], peer, msg, len);                           \
    }
DELIVER_LANE(1) DELIVER_LANE(2) DELIVER_LANE(3) DELIVER_LANE(4) DELIVER_LANE(5)
DELIVER_LANE(6) DELIVER_LANE(7) DELIVER_LANE(8) DELIVER_LANE(9) DELIVER_LANE(10)
DELIVER_LANE(11) DELIVER_LANE(12) DELIVER_LANE(13) DELIVER_LANE(14) DELIVER_LANE(15)
_Static_assert(FM_VCI_MAX == 16, "a deliver function for every lane");

fm_net_deliver_fn *const fm_deliver_lanes[FM_VCI_MAX] = {
    NULL,              deliver_lane_1,  deliver_lane_2,  deliver_lane_3,
    deliver_lane_4,    deliver_lane_5,  deliver_lane_6,  deliver_lane_7,
    deliver_lane_8,    deliver_lane_9,  deliver_lane_10, deliver_lane_11,
    deliver_lane_12,   deliver_lane_13, deliver_lane_14, deliver_lane_15,
};
