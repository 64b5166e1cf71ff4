/* recv.c — posting receives and delivering matched messages into them. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "dtype/dtype.h"
#include "mpi/comm.h"
#include "pt2pt/internal.h"
#include "pt2pt/pt2pt.h"
#include "util/log.h"
#include "util/status.h"

#define MSG_OF(entry) ((struct fm_message *)((char *)(entry) - offsetof(struct fm_message, me)))

static struct fm_message *msg_free_list;

struct fm_message *fm_msg_alloc(size_t payload)
{
    struct fm_message *m = msg_free_list;
    if (m)
        msg_free_list = m->next_free;
    else if (!(m = malloc(sizeof *m)))
        return NULL;
    m->magic = FM_MAGIC_MSG;
    m->data = NULL;
    if (payload > FM_UNEXP_INLINE) {
        if (!(m->data = malloc(payload))) {
            m->next_free = msg_free_list;
            msg_free_list = m;
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
        free(m->data);
    m->data = NULL;
    m->magic = 0;
    m->next_free = msg_free_list;
    msg_free_list = m;
}

/* Copy len bytes at packed offset `off` of the message into r's buffer. */
static void copy_in(struct fm_request *r, uint64_t off, const void *data, size_t len)
{
    if (!len)
        return;
    if (fm_dt_is_contig(r->dt))
        memcpy((char *)r->rbuf + r->dt->true_lb + off, data, len);
    else
        fm_dt_unpack(r->rbuf, r->count, r->dt, off, data, len);
}

static void send_ctrl(int peer, int proto, uint64_t sreq, uint64_t rreq, uint64_t len)
{
    fm_hdr_rndv h;
    memset(&h, 0, sizeof h);
    h.h.proto = (uint8_t)proto;
    h.h.len = len;
    h.sreq = sreq;
    h.rreq = rreq;
    int rc = fm_send_or_park(peer, &h, sizeof h, NULL, 0, NULL);
    if (rc != FM_OK)
        fm_boot_abort(1, "fabmpi: cannot send a control message (out of memory)");
}

/* Single-copy pull of a rendezvous message straight into the user buffer. */
static void pull_into(struct fm_request *r, int peer, uint64_t addr, size_t n)
{
    fm_net_ops *net = fm_peer_net[peer];
    int rc;
    if (fm_dt_is_contig(r->dt)) {
        rc = net->pull(peer, (char *)r->rbuf + r->dt->true_lb, addr, n);
    } else {
        void *tmp = malloc(n);
        if (!tmp)
            fm_boot_abort(1, "fabmpi: out of memory receiving a rendezvous message");
        rc = net->pull(peer, tmp, addr, n);
        if (rc == FM_OK)
            fm_dt_unpack(r->rbuf, r->count, r->dt, 0, tmp, n);
        free(tmp);
    }
    if (rc != FM_OK) {
        char why[160];
        snprintf(why, sizeof why, "fabmpi: copying %zu bytes from rank %d failed: %s", n, peer,
                 fm_status_msg(rc));
        fm_boot_abort(1, why);
    }
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
        send_ctrl(peer, FM_PROTO_ACK, h->sreq, 0, 0);
        fm_req_complete(r);
        return;
    case FM_PROTO_RTS:
        if (fm_peer_net[peer]->caps & FM_NET_CAP_PULL) {
            pull_into(r, peer, h->addr, take);
            send_ctrl(peer, FM_PROTO_FIN, h->sreq, 0, 0);
            fm_req_complete(r);
            return;
        }
        /* Pipelined: ask the sender to stream `take` bytes to us. */
        r->offset = 0;
        r->limit = take;
        send_ctrl(peer, FM_PROTO_CTS, h->sreq, (uintptr_t)r, take);
        if (take == 0)
            fm_req_complete(r);
        return;
    }
}

int fm_irecv(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
             int coll, struct fm_request **out)
{
    struct fm_request *r = fm_req_alloc(FM_REQ_RECV);
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

/* Data chunk of a pipelined rendezvous. */
static void on_data(const fm_hdr_rndv *h, const void *payload)
{
    struct fm_request *r = (struct fm_request *)(uintptr_t)h->rreq;
    copy_in(r, h->offset, payload, h->h.len);
    r->offset += h->h.len;
    if (r->offset >= r->limit)
        fm_req_complete(r);
}

void fm_deliver(int peer, const void *msg, size_t len)
{
    const fm_hdr *h = msg;
    const fm_hdr_rndv *hr = msg;
    const void *payload;
    size_t hlen;
    (void)len;
    switch (h->proto) {
    case FM_PROTO_EAGER:
        hlen = sizeof(fm_hdr);
        break;
    case FM_PROTO_EAGER_SYNC:
    case FM_PROTO_RTS:
        hlen = sizeof(fm_hdr_rndv);
        break;
    case FM_PROTO_CTS: {
        struct fm_request *s = (struct fm_request *)(uintptr_t)hr->sreq;
        s->peer_req = hr->rreq;
        s->limit = hr->h.len;
        s->offset = 0;
        fm_stream_start(s);
        return;
    }
    case FM_PROTO_DATA:
        on_data(hr, (const char *)msg + sizeof(fm_hdr_rndv));
        return;
    case FM_PROTO_FIN: {
        struct fm_request *s = (struct fm_request *)(uintptr_t)hr->sreq;
        s->sent = 1;
        fm_req_complete(s);
        return;
    }
    case FM_PROTO_ACK: {
        struct fm_request *s = (struct fm_request *)(uintptr_t)hr->sreq;
        s->acked = 1;
        if (s->sent)
            fm_req_complete(s);
        return;
    }
    default:
        fm_error_msg("message with unknown protocol %u from rank %d dropped", h->proto, peer);
        return;
    }
    payload = (const char *)msg + hlen;

    /* Matched straight from the transport's buffer when a receive waits;
     * only an unexpected message gets a record (and a copy). */
    fm_match_queue *q = fm_ctx_queue(h->ctx);
    fm_match_entry *m = fm_match_take_posted(q, h->src, h->tag);
    if (m) {
        fm_recv_matched((struct fm_request *)m, peer, (const fm_hdr_rndv *)msg, payload);
        return;
    }
    int eager = h->proto != FM_PROTO_RTS;
    struct fm_message *u = fm_msg_alloc(eager ? h->len : 0);
    if (!u)
        fm_boot_abort(1, "fabmpi: out of memory queueing an unexpected message");
    memcpy(&u->h, msg, hlen);
    u->peer = peer;
    u->me.src = h->src;
    u->me.tag = h->tag;
    if (eager && h->len)
        memcpy(u->data, payload, h->len);
    fm_match_add_unexpected(q, &u->me);
}
