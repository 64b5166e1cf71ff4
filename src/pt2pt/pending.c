/* pending.c — messages a transport could not take yet (FM_ERR_AGAIN), parked
 * per peer in FIFO order so later messages never overtake them, and
 * pipelined-rendezvous senders streaming DATA chunks.  Progress drains both;
 * nothing here spins. */
#include <stdlib.h>
#include <string.h>

#include "pt2pt/internal.h"
#include "util/log.h"
#include "util/status.h"

struct fm_pending {
    struct fm_pending *next;
    struct fm_request *req; /* told through fm_on_sent; stream owner */
    int stream;             /* 1: push DATA chunks of req until req->limit */
    size_t hlen, plen;
    const void *payload;
    fm_hdr_rndv hdr;
};

static struct fm_pending **head, **tail; /* per world rank */
static int *active;                      /* peers with parked messages */
static int nactive;
static struct fm_pending *free_entries;

int fm_pending_setup(int world_size)
{
    head = calloc((size_t)world_size, sizeof *head);
    tail = calloc((size_t)world_size, sizeof *tail);
    active = calloc((size_t)world_size, sizeof *active);
    return head && tail && active ? FM_OK : FM_ERR_NOMEM;
}

void fm_pending_teardown(void)
{
    while (free_entries) {
        struct fm_pending *e = free_entries;
        free_entries = e->next;
        free(e);
    }
    free(head);
    free(tail);
    free(active);
    head = tail = NULL;
    active = NULL;
    nactive = 0;
}

static struct fm_pending *entry_new(int peer)
{
    struct fm_pending *e = free_entries;
    if (e)
        free_entries = e->next;
    else if (!(e = malloc(sizeof *e)))
        return NULL;
    memset(e, 0, sizeof *e);
    if (!head[peer])
        active[nactive++] = peer;
    if (tail[peer])
        tail[peer]->next = e;
    else
        head[peer] = e;
    tail[peer] = e;
    return e;
}

int fm_send_or_park(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen,
                    struct fm_request *req)
{
    if (!head[peer]) {
        int rc = fm_peer_net[peer]->send(peer, hdr, hlen, payload, plen);
        if (rc == FM_OK) {
            if (req)
                fm_on_sent(req, hdr);
            return FM_OK;
        }
        if (rc != FM_ERR_AGAIN)
            return rc;
    }
    struct fm_pending *e = entry_new(peer);
    if (!e)
        return FM_ERR_NOMEM;
    memcpy(&e->hdr, hdr, hlen);
    e->hlen = hlen;
    e->payload = payload;
    e->plen = plen;
    e->req = req;
    return FM_OK;
}

void fm_stream_start(struct fm_request *sreq)
{
    struct fm_pending *e = entry_new(sreq->peer_world);
    if (!e) {
        fm_error_msg("out of memory queueing a rendezvous transfer");
        abort();
    }
    e->stream = 1;
    e->req = sreq;
}

/* Push DATA chunks of a pipelined send; 1 when the whole message has gone. */
static int stream_push(int peer, struct fm_request *r)
{
    fm_net_ops *net = fm_peer_net[peer];
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
            rc = net->send_fill(peer, &h, sizeof h, fm_pack_fill, &src, n);
        } else {
            rc = net->send(peer, &h, sizeof h, (const char *)r->sbuf + r->offset, n);
        }
        if (rc == FM_ERR_AGAIN)
            return 0;
        if (rc != FM_OK) {
            fm_error_msg("rendezvous data to rank %d failed: %s", peer, fm_status_msg(rc));
            abort();
        }
        r->offset += n;
    }
    r->sent = 1;
    fm_req_complete(r);
    return 1;
}

int fm_pending_drain(void)
{
    int moved = 0;
    for (int i = 0; i < nactive;) {
        int peer = active[i];
        struct fm_pending *e;
        while ((e = head[peer])) {
            if (e->stream) {
                if (!stream_push(peer, e->req))
                    break;
            } else {
                int rc = fm_peer_net[peer]->send(peer, &e->hdr, e->hlen, e->payload, e->plen);
                if (rc == FM_ERR_AGAIN)
                    break;
                if (rc != FM_OK) {
                    fm_error_msg("send to rank %d failed: %s", peer, fm_status_msg(rc));
                    abort();
                }
                if (e->req)
                    fm_on_sent(e->req, &e->hdr);
            }
            moved++;
            head[peer] = e->next;
            if (!head[peer])
                tail[peer] = NULL;
            e->next = free_entries;
            free_entries = e;
        }
        if (!head[peer])
            active[i] = active[--nactive];
        else
            i++;
    }
    return moved;
}

int fm_pending_any(void) { return nactive; }

int fm_pending_to(int peer) { return head[peer] != NULL; }
