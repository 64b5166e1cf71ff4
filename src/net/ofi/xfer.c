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

static int post_rx(fm_ofi_buf *b)
{
    ssize_t rc = fi_recv(fm_ofi.ep, b->data, fm_ofi.buf_size, fm_ofi.desc, FI_ADDR_UNSPEC, &b->ctx);
    if (rc == -FI_EAGAIN) {
        /* Retried from the next poll; the provider is short of room. */
        b->next = fm_ofi.rx_repost;
        fm_ofi.rx_repost = b;
        return FM_OK;
    }
    if (rc) {
        fm_error_msg("ofi: fi_recv failed: %s", fi_strerror((int)-rc));
        return FM_ERR_NET;
    }
    return FM_OK;
}

int fm_ofi_bufs_setup(void)
{
    fm_ofi_state *s = &fm_ofi;
    s->ntx = (int)fm_param.OFI_TX_BUFS;
    s->nrx = (int)fm_param.OFI_RX_BUFS;
    s->buf_size = (fm_param.OFI_BUF_SIZE + 63) & ~(size_t)63;
    size_t prov_max = s->info->ep_attr->max_msg_size;
    if (prov_max && s->buf_size > prov_max)
        s->buf_size = prov_max & ~(size_t)63;
    size_t total = s->buf_size * (size_t)(s->ntx + s->nrx);
    s->nevents = (int)fm_param.OFI_PROGRESS_EVENT_CNT;
    if (posix_memalign((void **)&s->slab, 4096, total) != 0)
        s->slab = NULL;
    s->bufs = calloc((size_t)(s->ntx + s->nrx), sizeof *s->bufs);
    s->stage = malloc(s->inject_size + sizeof(fm_ofi_wire));
    s->events = calloc((size_t)s->nevents, sizeof *s->events);
    if (!s->slab || !s->bufs || !s->stage || !s->events) {
        fm_error_msg("ofi: cannot allocate %zu bytes of buffers (FABMPI_OFI_TX_BUFS=%d + FABMPI_OFI_RX_BUFS=%d "
                     "of FABMPI_OFI_BUF_SIZE=%zu bytes); lower one of them",
                     total, s->ntx, s->nrx, s->buf_size);
        return FM_ERR_NOMEM;
    }
    /* Registered once, so no send or receive pays for registration.  Only a
     * provider that wants local descriptors (FI_MR_LOCAL) needs it; failing
     * elsewhere is harmless. */
    int rc = fi_mr_reg(s->domain, s->slab, total, FI_SEND | FI_RECV, 0, 0, 0, &s->mr, NULL);
    if (rc == 0)
        s->desc = fi_mr_desc(s->mr);
    else if (s->info->domain_attr->mr_mode & FI_MR_LOCAL) {
        fm_error_msg("ofi: registering %zu bytes of buffers failed: %s", total, fi_strerror(-rc));
        return FM_ERR_NET;
    } else
        s->mr = NULL;
    for (int i = 0; i < s->ntx + s->nrx; i++) {
        fm_ofi_buf *b = &s->bufs[i];
        b->data = s->slab + (size_t)i * s->buf_size;
        if (i < s->ntx) {
            b->kind = FM_OFI_OP_TX;
            b->next = s->tx_free;
            s->tx_free = b;
        } else {
            b->kind = FM_OFI_OP_RX;
            if ((rc = post_rx(b)) != FM_OK) {
                fm_error_msg("ofi: provider %s took %d of the FABMPI_OFI_RX_BUFS=%d receive buffers "
                             "(its receive queue holds %zu); lower FABMPI_OFI_RX_BUFS",
                             s->info->fabric_attr->prov_name, i - s->ntx, s->nrx, s->info->rx_attr->size);
                return rc;
            }
        }
    }
    return FM_OK;
}

void fm_ofi_bufs_teardown(void)
{
    fm_ofi_state *s = &fm_ofi;
    if (s->mr)
        fi_close(&s->mr->fid);
    s->mr = NULL;
    s->desc = NULL;
    free(s->slab);
    free(s->bufs);
    free(s->stage);
    free(s->events);
    s->slab = s->stage = NULL;
    s->bufs = s->tx_free = s->rx_repost = NULL;
    s->events = NULL;
    s->tx_busy = 0;
}

int fm_ofi_connect(int peer)
{
    fm_ofi_state *s = &fm_ofi;
    char name[512];
    size_t len = sizeof name;
    if (fm_boot_get(peer, "fm.ofi.addr", name, &len) != FM_OK || len == 0) {
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
    fm_log(2, "ofi: rank %d inserted into the address vector", peer);
    return FM_OK;
}

static int send_wire(int peer, uint32_t kind, const void *hdr, size_t hlen, const void *payload,
                     size_t plen)
{
    fm_ofi_state *s = &fm_ofi;
    size_t total = sizeof(fm_ofi_wire) + hlen + plen;
    if (s->addr[peer] == FI_ADDR_NOTAVAIL) {
        int rc = fm_ofi_connect(peer);
        if (rc != FM_OK)
            return rc;
    }
    fm_ofi_wire w = {(uint32_t)fm_world_rank, kind};
    ssize_t rc;
    if (total <= s->inject_size) {
        char *m = s->stage;
        memcpy(m, &w, sizeof w);
        memcpy(m + sizeof w, hdr, hlen);
        if (plen)
            memcpy(m + sizeof w + hlen, payload, plen);
        rc = fi_inject(s->ep, m, total, s->addr[peer]);
    } else {
        fm_ofi_buf *b = s->tx_free;
        if (!b)
            return FM_ERR_AGAIN; /* all bounce buffers in flight: parked */
        memcpy(b->data, &w, sizeof w);
        memcpy(b->data + sizeof w, hdr, hlen);
        if (plen)
            memcpy(b->data + sizeof w + hlen, payload, plen);
        rc = fi_send(s->ep, b->data, total, s->desc, s->addr[peer], &b->ctx);
        if (rc == 0) {
            s->tx_free = b->next;
            s->tx_busy++;
        }
    }
    if (rc == -FI_EAGAIN)
        return FM_ERR_AGAIN; /* e.g. the first send while a connection forms */
    if (rc) {
        fm_error_msg("ofi: send of %zu bytes to rank %d failed: %s", total, peer,
                     fi_strerror((int)-rc));
        return FM_ERR_NET;
    }
    s->sent[peer] = 1;
    FM_PV_INC(ofi_sent);
    FM_PV_ADD(ofi_sent_bytes, total);
    return FM_OK;
}

int fm_ofi_send(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen)
{
    fm_ofi_state *s = &fm_ofi;
    if (peer < 0 || peer >= fm_world_size || sizeof(fm_ofi_wire) + hlen + plen > s->buf_size)
        return FM_ERR_ARG;
    const fm_hdr *h = hdr;
    if (hlen != sizeof(fm_hdr_rndv) ||
        (h->proto != FM_PROTO_RTS && h->proto != FM_PROTO_CTS && h->proto != FM_PROTO_CANCELLED))
        return send_wire(peer, FM_OFI_MSG_DATA, hdr, hlen, payload, plen);
    /* Rendezvous by fi_read (rndv.c): an RTS carries a key; a CTS answers
     * a keyed RTS we will not pull, and so does CANCELLED (dropped). */
    const fm_hdr_rndv *hr = hdr;
    if (h->proto != FM_PROTO_RTS) {
        fm_ofi_rndv_answered(peer, hr->sreq);
        return send_wire(peer, FM_OFI_MSG_DATA, hdr, hlen, payload, plen);
    }
    fm_hdr_rndv copy;
    uint32_t kind = FM_OFI_MSG_DATA;
    void *reg;
    hr = fm_ofi_rndv_stamp(peer, hr, &copy, &kind, &reg);
    int rc = send_wire(peer, kind, hr, hlen, payload, plen);
    if (reg)
        fm_ofi_rndv_sent(reg, rc == FM_OK);
    return rc;
}

static void cq_error(void)
{
    struct fi_cq_err_entry e;
    memset(&e, 0, sizeof e);
    if (fi_cq_readerr(fm_ofi.cq, &e, 0) != 1)
        return;
    fm_ofi_buf *b = e.op_context;
    if (b && b->kind == FM_OFI_OP_TAGGED && fm_ofi.tagged_error) {
        fm_ofi.tagged_error(&e);
        return;
    }
    if (b && b->kind == FM_OFI_OP_TX) {
        b->next = fm_ofi.tx_free;
        fm_ofi.tx_free = b;
        fm_ofi.tx_busy--;
    }
    if (e.err == FI_ECANCELED)
        return;
    if (fm_ofi.up)
        fm_error_msg("ofi: %s completion failed: %s (provider: %s)",
                     b && b->kind == FM_OFI_OP_TX ? "send" : "receive", fi_strerror(e.err),
                     fi_cq_strerror(fm_ofi.cq, e.prov_errno, e.err_data, NULL, 0));
    if (b && b->kind == FM_OFI_OP_RX && fm_ofi.up)
        post_rx(b);
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

int fm_ofi_poll(void (*cb)(int, const void *, size_t))
{
    fm_ofi_state *s = &fm_ofi;
    if (s->polling || !s->up)
        return 0;
    s->polling = 1;
    int n = 0;
    while (s->rx_repost) {
        fm_ofi_buf *b = s->rx_repost;
        s->rx_repost = b->next;
        post_rx(b);
        if (s->rx_repost == b) /* still no room */
            break;
    }
    for (;;) {
        ssize_t got = fi_cq_read(s->cq, s->events, (size_t)s->nevents);
        if (got == -FI_EAGAIN)
            break;
        if (got == -FI_EAVAIL) {
            cq_error();
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
            if (b->kind == FM_OFI_OP_TX) {
                b->next = s->tx_free;
                s->tx_free = b;
                s->tx_busy--;
                n++;
                continue;
            }
            fm_ofi_rx m;
            int what = cb ? fm_ofi_wire_decode(b->data, s->events[i].len, fm_world_size, &m)
                          : FM_OFI_RX_FLUSH;
            if (what == FM_OFI_RX_RTS_KEY) {
                fm_ofi_rndv_arrived(m.src, (fm_hdr_rndv *)(void *)m.msg);
            } else if (what == FM_OFI_RX_DELIVER && fm_ofi_rndv.nout && m.len >= sizeof(fm_hdr_rndv)) {
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
            } else if (__builtin_expect(what == FM_OFI_RX_BAD, 0)) {
                bad_wire(b->data, s->events[i].len);
            }
            post_rx(b);
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
    if (cb && fm_ofi_rndv.nout)
        fm_ofi_rma_poll();
    return n;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* fi_inject gives no completion: the provider may still hold the bytes.
 * One fi_send (with completion) to each peer we sent to, behind those
 * injects in send-after-send order, tells when they have left; then the
 * endpoint can close without cutting off a peer's last messages. */
void fm_ofi_flush(void)
{
    fm_ofi_state *s = &fm_ofi;
    double deadline = now_s() + 5.0;
    fm_ofi_wire w = {(uint32_t)fm_world_rank, FM_OFI_MSG_FLUSH};
    for (int p = 0; p < fm_world_size; p++) {
        if (!s->sent[p])
            continue;
        for (;;) {
            fm_ofi_buf *b = s->tx_free;
            ssize_t rc = -FI_EAGAIN;
            if (b) {
                memcpy(b->data, &w, sizeof w);
                rc = fi_send(s->ep, b->data, sizeof w, s->desc, s->addr[p], &b->ctx);
                if (rc == 0) {
                    s->tx_free = b->next;
                    s->tx_busy++;
                }
            }
            if (rc != -FI_EAGAIN || now_s() > deadline)
                break;
            fm_ofi_poll(NULL);
        }
    }
    while (s->tx_busy > 0 && now_s() < deadline)
        fm_ofi_poll(NULL);
    if (s->tx_busy > 0)
        fm_warn("ofi: %d sends still in flight at finalize after 5 s", s->tx_busy);
}
