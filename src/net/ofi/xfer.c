/* xfer.c — moving messages over the OFI endpoint: bounce and receive
 * buffers, send() (fi_inject or bounce + fi_send), poll() (batched CQ reads
 * until drained) and the finalize flush. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "boot/boot.h"
#include "boot/world.h"
#include "net/net.h"
#include "net/ofi/ofi.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"
#include "util/pvar.h"

/* The counters state s's work goes to: its instance's VCI block, which
 * core/transports.c sets right after init, before anything is sent. */
static inline struct fm_pv *pv_of(const fm_ofi_state *s) { return s->net->pv; }

static int post_rx(fm_ofi_state *s, fm_ofi_ctx *c, fm_ofi_buf *b)
{
    ssize_t rc = fi_recv(c->rx, b->data, s->buf_size, c->desc, FI_ADDR_UNSPEC, &b->ctx);
    if (rc == -FI_EAGAIN) {
        /* Retried from the next poll; the provider is short of room. */
        b->next = c->rx_repost;
        c->rx_repost = b;
        s->repost = 1;
        return FM_OK;
    }
    if (rc) {
        fm_error_msg("ofi: fi_recv failed: %s", fi_strerror((int)-rc));
        return FM_ERR_NET;
    }
    return FM_OK;
}

int fm_ofi_bufs_setup(fm_ofi_state *s, fm_ofi_ctx *c)
{
    size_t total = s->buf_size * (size_t)(s->ntx + s->nrx);
    if (posix_memalign((void **)&c->slab, 4096, total) != 0)
        c->slab = NULL;
    c->bufs = calloc((size_t)(s->ntx + s->nrx), sizeof *c->bufs);
    c->stage = malloc(s->inject_size + sizeof(fm_ofi_wire));
    c->sent = calloc((size_t)fm_world_size, sizeof *c->sent);
    if (!c->slab || !c->bufs || !c->stage || !c->sent) {
        fm_error_msg("ofi: cannot allocate %zu bytes of buffers (FABMPI_OFI_TX_BUFS=%d + FABMPI_OFI_RX_BUFS=%d "
                     "of FABMPI_OFI_BUF_SIZE=%zu bytes); lower one of them",
                     total, s->ntx, s->nrx, s->buf_size);
        return FM_ERR_NOMEM;
    }
    /* Registered once, so no send or receive pays for registration.  Only a
     * provider that wants local descriptors (FI_MR_LOCAL) needs it; failing
     * elsewhere is harmless. */
    int rc = fi_mr_reg(s->domain, c->slab, total, FI_SEND | FI_RECV, 0, 0, 0, &c->mr, NULL);
    if (rc == 0)
        c->desc = fi_mr_desc(c->mr);
    else if (s->info->domain_attr->mr_mode & FI_MR_LOCAL) {
        fm_error_msg("ofi: registering %zu bytes of buffers failed: %s", total, fi_strerror(-rc));
        return FM_ERR_NET;
    } else
        c->mr = NULL;
    for (int i = 0; i < s->ntx + s->nrx; i++) {
        fm_ofi_buf *b = &c->bufs[i];
        b->data = c->slab + (size_t)i * s->buf_size;
        b->owner = c;
        if (i < s->ntx) {
            b->kind = FM_OFI_OP_TX;
            b->next = c->tx_free;
            c->tx_free = b;
        } else {
            b->kind = FM_OFI_OP_RX;
            if ((rc = post_rx(s, c, b)) != FM_OK) {
                fm_error_msg("ofi: provider %s took %d of the FABMPI_OFI_RX_BUFS=%d receive buffers "
                             "(its receive queue holds %zu); lower FABMPI_OFI_RX_BUFS",
                             s->info->fabric_attr->prov_name, i - s->ntx, s->nrx, s->info->rx_attr->size);
                return rc;
            }
        }
    }
    return FM_OK;
}

void fm_ofi_bufs_teardown(fm_ofi_ctx *c)
{
    if (c->mr)
        fi_close(&c->mr->fid);
    c->mr = NULL;
    c->desc = NULL;
    free(c->slab);
    free(c->bufs);
    free(c->stage);
    free(c->sent);
    c->slab = c->stage = NULL;
    c->bufs = c->tx_free = c->rx_repost = NULL;
    c->sent = NULL;
    c->tx_busy = 0;
}

int fm_ofi_connect_at(fm_ofi_state *s, int peer)
{
    char name[512];
    size_t len = sizeof name;
    if (fm_boot_get(peer, s->addr_key, name, &len) != FM_OK || len == 0) {
        fm_error_msg("ofi: rank %d published no libfabric address (its OFI setup failed)", peer);
        return FM_ERR_NET;
    }
    int rc = fi_av_insert(s->av, name, 1, &s->addr[peer], 0, NULL);
    if (rc != 1) {
        fm_error_msg("ofi: inserting rank %d's address into the address vector failed: %s", peer,
                     rc < 0 ? fi_strerror(-rc) : "address not accepted");
        s->addr[peer] = FI_ADDR_NOTAVAIL;
        return FM_ERR_NET;
    }
    fm_log(2, "ofi: rank %d (%s) inserted into the address vector", peer, s->addr_key);
    return FM_OK;
}

/* Where a message goes: from context c to address a (a peer's context k,
 * whose bit in c->sent is bit). */
typedef struct fm_ofi_dst {
    fm_ofi_ctx *c;
    fi_addr_t a;
    uint32_t bit;
} fm_ofi_dst;

/* One wire message to world rank peer. */
static inline __attribute__((always_inline)) int send_wire(fm_ofi_state *s, const fm_ofi_dst *d,
                                                           int peer, uint32_t kind,
                                                           const void *hdr, size_t hlen,
                                                           const void *payload, size_t plen)
{
    fm_ofi_ctx *c = d->c;
    size_t total = sizeof(fm_ofi_wire) + hlen + plen;
    fm_ofi_wire w = {(uint32_t)fm_world_rank, kind};
    ssize_t rc;
    if (total <= s->inject_size) {
        char *m = c->stage;
        memcpy(m, &w, sizeof w);
        memcpy(m + sizeof w, hdr, hlen);
        if (plen)
            memcpy(m + sizeof w + hlen, payload, plen);
        rc = fi_inject(c->tx, m, total, d->a);
    } else {
        fm_ofi_buf *b = c->tx_free;
        if (!b)
            return FM_ERR_AGAIN; /* all bounce buffers in flight: parked */
        memcpy(b->data, &w, sizeof w);
        memcpy(b->data + sizeof w, hdr, hlen);
        if (plen)
            memcpy(b->data + sizeof w + hlen, payload, plen);
        rc = fi_send(c->tx, b->data, total, c->desc, d->a, &b->ctx);
        if (rc == 0) {
            c->tx_free = b->next;
            c->tx_busy++;
        }
    }
    if (rc == -FI_EAGAIN)
        return FM_ERR_AGAIN; /* e.g. the first send while a connection forms */
    if (rc) {
        fm_error_msg("ofi: send of %zu bytes to rank %d failed: %s", total, peer,
                     fi_strerror((int)-rc));
        return FM_ERR_NET;
    }
    c->sent[peer] |= d->bit;
    struct fm_pv *pv = pv_of(s);
    FM_PV_INC_AT(pv, ofi_sent);
    FM_PV_ADD_AT(pv, ofi_sent_bytes, total);
    return FM_OK;
}

/* A message to d (its address resolved): rendezvous by fi_read (rndv.c)
 * stamps an RTS with a key; a CTS answers a keyed RTS we will not pull,
 * and so does CANCELLED (dropped).  A lane's instance has no reads: its
 * rendezvous streams, so its messages go as they are.  Inlined twice: for
 * context 0, where d is constant, and for routed messages. */
static inline __attribute__((always_inline)) int send_msg(fm_ofi_state *s, const fm_ofi_dst *d,
                                                          int peer, const void *hdr, size_t hlen,
                                                          const void *payload, size_t plen)
{
    const fm_hdr *h = hdr;
    if (hlen != sizeof(fm_hdr_rndv) || s->lane ||
        (h->proto != FM_PROTO_RTS && h->proto != FM_PROTO_CTS && h->proto != FM_PROTO_CANCELLED))
        return send_wire(s, d, peer, FM_OFI_MSG_DATA, hdr, hlen, payload, plen);
    const fm_hdr_rndv *hr = hdr;
    if (h->proto != FM_PROTO_RTS) {
        fm_ofi_rndv_answered(peer, hr->sreq);
        return send_wire(s, d, peer, FM_OFI_MSG_DATA, hdr, hlen, payload, plen);
    }
    fm_hdr_rndv copy;
    uint32_t kind = FM_OFI_MSG_DATA;
    void *reg;
    hr = fm_ofi_rndv_stamp(peer, hr, &copy, &kind, &reg);
    int rc = send_wire(s, d, peer, kind, hr, hlen, payload, plen);
    if (reg)
        fm_ofi_rndv_sent(reg, rc == FM_OK);
    return rc;
}

/* Context 0 to peer's context 0, inserting its address on first use. */
static inline __attribute__((always_inline)) int dst0(fm_ofi_state *s, int peer, fm_ofi_dst *d)
{
    if (s->addr[peer] == FI_ADDR_NOTAVAIL) {
        int rc = fm_ofi_connect_at(s, peer);
        if (rc != FM_OK)
            return rc;
    }
    d->c = &s->c0;
    d->a = s->addr[peer];
    d->bit = 1;
    return FM_OK;
}

/* Grouping on: a message a communicator matches goes by its route (its
 * context here, the member's there); so does CANCEL, which must not
 * overtake the message it cancels.  Replies and active messages stay on
 * context 0: they are matched by request, not by order. */
static __attribute__((noinline)) int send_routed(int peer, const void *hdr, size_t hlen,
                                                 const void *payload, size_t plen)
{
    const fm_hdr *h = hdr;
    const fm_ofi_route *r = NULL;
    switch (h->proto) {
    case FM_PROTO_EAGER:
    case FM_PROTO_EAGER_SHORT:
    case FM_PROTO_EAGER_SYNC:
    case FM_PROTO_RTS:
    case FM_PROTO_CANCEL:
        r = fm_ofi.routes[h->ctx >> 1];
        break;
    default:
        break;
    }
    fm_ofi_dst d;
    int k = r ? r->ridx[peer] : 0;
    int rc = k == 0 ? dst0(&fm_ofi, peer, &d) : FM_OK;
    if (rc != FM_OK)
        return rc;
    if (r) {
        d.c = r->c;
        d.a = k ? fm_ofi_dest(k, peer, fm_world_size) : d.a;
        d.bit = 1u << k;
    }
    rc = send_msg(&fm_ofi, &d, peer, hdr, hlen, payload, plen);
    if (rc == FM_OK && d.c != &fm_ofi.c0)
        FM_PV_INC_AT(pv_of(&fm_ofi), ofi_grouped_sent);
    return rc;
}

int fm_ofi_send_at(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen,
                   fm_ofi_state *s)
{
    if (peer < 0 || peer >= fm_world_size || sizeof(fm_ofi_wire) + hlen + plen > s->buf_size)
        return FM_ERR_ARG;
    if (__builtin_expect(s->routes != NULL, 0))
        return send_routed(peer, hdr, hlen, payload, plen);
    fm_ofi_dst d;
    int rc = dst0(s, peer, &d);
    return rc != FM_OK ? rc : send_msg(s, &d, peer, hdr, hlen, payload, plen);
}

static void cq_error(fm_ofi_state *s)
{
    struct fi_cq_err_entry e;
    memset(&e, 0, sizeof e);
    if (fi_cq_readerr(s->c0.cq, &e, 0) != 1)
        return;
    fm_ofi_buf *b = e.op_context;
    if (b && b->kind == FM_OFI_OP_TAGGED && s->tagged_error) {
        s->tagged_error(&e);
        return;
    }
    if (b && b->kind == FM_OFI_OP_TX) {
        b->next = b->owner->tx_free;
        b->owner->tx_free = b;
        b->owner->tx_busy--;
    }
    if (e.err == FI_ECANCELED)
        return;
    if (s->up)
        fm_error_msg("ofi: %s completion failed: %s (provider: %s)",
                     b && b->kind == FM_OFI_OP_TX ? "send" : "receive", fi_strerror(e.err),
                     fi_cq_strerror(s->c0.cq, e.prov_errno, e.err_data, NULL, 0));
    if (b && b->kind == FM_OFI_OP_RX && s->up)
        post_rx(s, b->owner, b);
}

/* A received message whose prefix fm_ofi_wire_decode refused: from a
 * foreign or corrupt sender; dropped, said. */
static __attribute__((cold, noinline)) void bad_wire(const char *buf, size_t len)
{
    fm_ofi_wire w = {0, 0};
    memcpy(&w, buf, len < sizeof w ? len : sizeof w);
    fm_error_msg("ofi: received message of %zu bytes with a malformed prefix (sender %u of %d, "
                 "kind %u) dropped", len, w.src, fm_world_size, w.kind);
}

/* Receive buffers whose repost met -FI_EAGAIN, posted again. */
static __attribute__((noinline)) void repost(fm_ofi_state *s)
{
    s->repost = 0;
    for (int k = 0; k < s->nctx; k++) {
        fm_ofi_ctx *c = s->ctx[k];
        while (c->rx_repost) {
            fm_ofi_buf *b = c->rx_repost;
            c->rx_repost = b->next;
            post_rx(s, c, b); /* sets s->repost again if still no room */
            if (c->rx_repost == b)
                break;
        }
    }
}

int fm_ofi_poll_at(fm_ofi_state *s, void (*cb)(int, const void *, size_t))
{
    if (s->polling || !s->up)
        return 0;
    s->polling = 1;
    int n = 0;
    if (__builtin_expect(s->repost, 0))
        repost(s);
    for (;;) {
        ssize_t got = fi_cq_read(s->c0.cq, s->events, (size_t)s->nevents);
        if (got == -FI_EAGAIN)
            break;
        if (got == -FI_EAVAIL) {
            cq_error(s);
            continue;
        }
        if (got < 0) {
            fm_error_msg("ofi: fi_cq_read failed: %s", fi_strerror((int)-got));
            break;
        }
        for (ssize_t i = 0; i < got; i++) {
            fm_ofi_buf *b = s->events[i].op_context;
            if (b->kind == FM_OFI_OP_TAGGED) {
                s->tagged_event(&s->events[i]);
                n++;
                continue;
            }
            fm_ofi_ctx *c = b->owner;
            if (b->kind == FM_OFI_OP_TX) {
                b->next = c->tx_free;
                c->tx_free = b;
                c->tx_busy--;
                n++;
                continue;
            }
            fm_ofi_rx m;
            int what = cb ? fm_ofi_wire_decode(b->data, s->events[i].len, fm_world_size, &m)
                          : FM_OFI_RX_FLUSH;
            /* Keyed rendezvous travel on the main instance only (send_msg). */
            if (what == FM_OFI_RX_RTS_KEY && !s->lane) {
                fm_ofi_rndv_arrived(m.src, (fm_hdr_rndv *)(void *)m.msg);
            } else if (what == FM_OFI_RX_DELIVER && !s->lane && fm_ofi_rndv.nout &&
                       m.len >= sizeof(fm_hdr_rndv)) {
                /* FIN (pulled), CTS (will stream) or CANCELLED (dropped):
                 * close the key before the sender's request can complete. */
                const fm_hdr_rndv *hr = (const fm_hdr_rndv *)(void *)m.msg;
                if (hr->h.proto == FM_PROTO_FIN || hr->h.proto == FM_PROTO_CTS ||
                    hr->h.proto == FM_PROTO_CANCELLED)
                    fm_ofi_rndv_release(m.src, hr->sreq);
            }
            if (what <= FM_OFI_RX_RTS_KEY) {
                cb(m.src, m.msg, m.len);
                n++;
                FM_PV_ADD_AT(pv_of(s), ofi_grouped_received, c != &s->c0);
            } else if (__builtin_expect(what == FM_OFI_RX_BAD, 0)) {
                bad_wire(b->data, s->events[i].len);
            }
            post_rx(s, c, b);
        }
        /* A short batch emptied the queue: reading again would only ask
         * the provider to progress once more (a syscall on `net`), which
         * a message arriving now does not need before we act on this one. */
        if (got < s->nevents)
            break;
    }
    s->polling = 0;
    /* Our rendezvous registrations: the peers' fi_reads of them progress
     * only when we drive the RMA endpoint (manual progress). */
    if (cb && !s->lane && fm_ofi_rndv.nout)
        fm_ofi_rma_poll();
    return n;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int tx_busy(const fm_ofi_state *s)
{
    int busy = 0;
    for (int k = 0; k < s->nctx; k++)
        busy += s->ctx[k]->tx_busy;
    return busy;
}

/* fi_inject gives no completion: the provider may still hold the bytes.
 * One fi_send (with completion) to each remote context each context sent
 * to, behind those injects in send-after-send order, tells when they have
 * left; then the endpoints can close without cutting off a peer's last
 * messages. */
void fm_ofi_flush_at(fm_ofi_state *s)
{
    double deadline = now_s() + 5.0;
    fm_ofi_wire w = {(uint32_t)fm_world_rank, FM_OFI_MSG_FLUSH};
    for (int ci = 0; ci < s->nctx; ci++) {
        fm_ofi_ctx *c = s->ctx[ci];
        for (int p = 0; p < fm_world_size; p++) {
            for (uint32_t ks = c->sent[p]; ks; ks &= ks - 1) {
                int k = __builtin_ctz(ks);
                fi_addr_t a = k ? fm_ofi_dest(k, p, fm_world_size) : s->addr[p];
                for (;;) {
                    fm_ofi_buf *b = c->tx_free;
                    ssize_t rc = -FI_EAGAIN;
                    if (b) {
                        memcpy(b->data, &w, sizeof w);
                        rc = fi_send(c->tx, b->data, sizeof w, c->desc, a, &b->ctx);
                        if (rc == 0) {
                            c->tx_free = b->next;
                            c->tx_busy++;
                        }
                    }
                    if (rc != -FI_EAGAIN || now_s() > deadline)
                        break;
                    fm_ofi_poll_at(s, NULL);
                }
            }
        }
    }
    while (tx_busy(s) > 0 && now_s() < deadline)
        fm_ofi_poll_at(s, NULL);
    if (tx_busy(s) > 0)
        fm_warn("ofi: %d sends still in flight at finalize after 5 s", tx_busy(s));
}
