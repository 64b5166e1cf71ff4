/* pending.c — messages a transport could not take yet (FM_ERR_AGAIN), parked
 * per peer in FIFO order so later messages never overtake them, and
 * pipelined-rendezvous senders streaming DATA chunks.  Progress drains both;
 * nothing here spins. */
#include <stdlib.h>
#include <string.h>

#include "core/progress.h"
#include "core/vci.h"
#include "pt2pt/internal.h"
#include "util/event.h"
#include "util/log.h"
#include "util/status.h"
#include "util/pvar.h"
#include "util/copy.h"

struct fm_pending {
    struct fm_pending *next;
    struct fm_request *req; /* told through fm_on_sent; stream owner */
    int stream;             /* 1: push DATA chunks of req until req->limit */
    char *own;              /* fm_send_or_park_copy: hdr and payload, copied */
    size_t hlen, plen;
    const void *payload;
    fm_hdr_rndv hdr;
};

/* The queues live in each VCI (core/vci.h); the active-message layer's
 * sends (fm_send_or_park_copy, fm_send_now, fm_send_or_wait) travel on
 * fm_vci0. */
int fm_pending_setup(struct fm_vci *V, int world_size)
{
    V->pend_head = calloc((size_t)world_size, sizeof *V->pend_head);
    V->pend_tail = calloc((size_t)world_size, sizeof *V->pend_tail);
    V->pend_active = calloc((size_t)world_size, sizeof *V->pend_active);
    return V->pend_head && V->pend_tail && V->pend_active ? FM_OK : FM_ERR_NOMEM;
}

void fm_pending_teardown(struct fm_vci *V)
{
    while (V->pend_free) {
        struct fm_pending *e = V->pend_free;
        V->pend_free = e->next;
        free(e);
    }
    free(V->pend_head);
    free(V->pend_tail);
    free(V->pend_active);
    V->pend_head = V->pend_tail = NULL;
    V->pend_active = NULL;
    V->pend_nactive = 0;
}

static struct fm_pending *entry_new(struct fm_vci *V, int peer)
{
    struct fm_pending *e = V->pend_free;
    if (e)
        V->pend_free = e->next;
    else if (!(e = malloc(sizeof *e)))
        return NULL;
    memset(e, 0, sizeof *e);
    if (!V->pend_head[peer])
        V->pend_active[V->pend_nactive++] = peer;
    if (V->pend_tail[peer])
        V->pend_tail[peer]->next = e;
    else
        V->pend_head[peer] = e;
    V->pend_tail[peer] = e;
    return e;
}

int fm_send_or_park(struct fm_vci *V, int peer, const void *hdr, size_t hlen, const void *payload,
                    size_t plen, struct fm_request *req)
{
    if (!V->pend_head[peer]) {
        int rc = fm_net_send(V->peer_net[peer], peer, hdr, hlen, payload, plen);
        if (rc == FM_OK) {
            if (req)
                fm_on_sent(req, hdr);
            return FM_OK;
        }
        if (rc != FM_ERR_AGAIN)
            return rc;
    }
    struct fm_pending *e = entry_new(V, peer);
    if (!e)
        return FM_ERR_NOMEM;
    memcpy(&e->hdr, hdr, hlen);
    e->hlen = hlen;
    e->payload = payload;
    e->plen = plen;
    e->req = req;
    if (fm_event_wanted(FM_EV_pt2pt_send_parked)) {
        struct fm_ev_pt2pt_send_parked d = {peer, (long long)plen};
        fm_event_raise(FM_EV_pt2pt_send_parked, 0, &d);
    }
    return FM_OK;
}

int fm_send_park_copy(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen)
{
    struct fm_vci *V = &fm_vci0;
    char *own = malloc(hlen + plen);
    if (!own)
        return FM_ERR_NOMEM;
    struct fm_pending *e = entry_new(V, peer);
    if (!e) {
        free(own);
        return FM_ERR_NOMEM;
    }
    memcpy(own, hdr, hlen);
    if (plen)
        fm_copy(own + hlen, payload, plen);
    e->own = own;
    e->hlen = hlen;
    e->payload = own + hlen;
    e->plen = plen;
    if (fm_event_wanted(FM_EV_pt2pt_send_parked)) {
        struct fm_ev_pt2pt_send_parked d = {peer, (long long)plen};
        fm_event_raise(FM_EV_pt2pt_send_parked, 0, &d);
    }
    return FM_OK;
}

int fm_send_now(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen)
{
    struct fm_vci *V = &fm_vci0;
    if (V->pend_head[peer])
        return FM_ERR_AGAIN;
    return fm_net_send(V->peer_net[peer], peer, hdr, hlen, payload, plen);
}

int fm_send_wait(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen)
{
    struct fm_vci *V = &fm_vci0;
    int rc = FM_ERR_AGAIN;
    fm_wait_until(!V->pend_head[peer] &&
                  (rc = fm_net_send(V->peer_net[peer], peer, hdr, hlen, payload, plen)) !=
                      FM_ERR_AGAIN);
    return rc;
}

void fm_stream_start(struct fm_request *sreq)
{
    struct fm_pending *e = entry_new(fm_req_vci(sreq), sreq->peer_world);
    if (!e) {
        fm_error_msg("out of memory queueing a rendezvous transfer");
        abort();
    }
    e->stream = 1;
    e->req = sreq;
}

/* Push DATA chunks of a pipelined send; 1 when the whole message has gone. */
static int stream_push(struct fm_vci *V, int peer, struct fm_request *r)
{
    fm_net *net = V->peer_net[peer];
    size_t chunk = fm_param.SHM_PIPELINE_CHUNK;
    if (chunk > net->max_msg - sizeof(fm_hdr_rndv))
        chunk = net->max_msg - sizeof(fm_hdr_rndv);
    fm_hdr_rndv h;
    memset(&h, 0, sizeof h);
    h.h.proto = FM_PROTO_DATA;
    h.rreq = r->peer_req;
    while (r->offset < r->limit) {
        size_t n = r->limit - r->offset < chunk ? (size_t)(r->limit - r->offset) : chunk;
        h.offset = r->offset;
        h.h.len = n;
        int rc;
        if (r->flags & FM_REQF_PACK) {
            struct fm_pack_src src = {r->sbuf, r->count, r->dt, r->offset};
            rc = fm_net_send_fill(net, peer, &h, sizeof h, fm_pack_fill, &src, n);
        } else {
            rc = fm_net_send(net, peer, &h, sizeof h, (const char *)r->sbuf + r->offset, n);
        }
        if (rc == FM_ERR_AGAIN)
            return 0;
        if (rc != FM_OK) {
            fm_error_msg("rendezvous data to rank %d failed: %s", peer, fm_status_msg(rc));
            abort();
        }
        r->offset += n;
        FM_PV_INC_AT(&V->pv, pt2pt_stream_chunks);
        FM_PV_ADD_AT(&V->pv, pt2pt_stream_bytes, n);
    }
    r->sent = 1;
    fm_req_complete(r);
    return 1;
}

int fm_pending_drain(struct fm_vci *V)
{
    int moved = 0;
    for (int i = 0; i < V->pend_nactive;) {
        int peer = V->pend_active[i];
        struct fm_pending *e;
        while ((e = V->pend_head[peer])) {
            if (e->stream) {
                if (!stream_push(V, peer, e->req))
                    break;
            } else {
                const void *hdr = e->own ? (const void *)e->own : &e->hdr;
                int rc = fm_net_send(V->peer_net[peer], peer, hdr, e->hlen, e->payload, e->plen);
                if (rc == FM_ERR_AGAIN)
                    break;
                if (rc != FM_OK) {
                    fm_error_msg("send to rank %d failed: %s", peer, fm_status_msg(rc));
                    abort();
                }
                if (e->req)
                    fm_on_sent(e->req, &e->hdr);
                if (e->own) {
                    free(e->own);
                    e->own = NULL;
                }
            }
            moved++;
            V->pend_head[peer] = e->next;
            if (!V->pend_head[peer])
                V->pend_tail[peer] = NULL;
            e->next = V->pend_free;
            V->pend_free = e;
        }
        if (!V->pend_head[peer])
            V->pend_active[i] = V->pend_active[--V->pend_nactive];
        else
            i++;
    }
    return moved;
}

int fm_pending_any(void)
{
    for (int i = 0; i <= fm_nlanes; i++)
        if (fm_vcis[i]->pend_nactive)
            return 1;
    return 0;
}

int fm_pending_withdraw(struct fm_vci *V, int peer, const struct fm_request *req)
{
    struct fm_pending *prev = NULL, *e = V->pend_head[peer];
    while (e && (e->stream || e->req != req)) {
        prev = e;
        e = e->next;
    }
    if (!e)
        return 0;
    if (prev)
        prev->next = e->next;
    else
        V->pend_head[peer] = e->next;
    if (V->pend_tail[peer] == e)
        V->pend_tail[peer] = prev;
    e->next = V->pend_free;
    V->pend_free = e;
    if (!V->pend_head[peer])
        for (int i = 0; i < V->pend_nactive; i++)
            if (V->pend_active[i] == peer) {
                V->pend_active[i] = V->pend_active[--V->pend_nactive];
                break;
            }
    return 1;
}

