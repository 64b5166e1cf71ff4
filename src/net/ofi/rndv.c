/* rndv.c — rendezvous by fi_read for the software-matching engine.
 *
 * The point-to-point layer sends an RTS naming its buffer and, on
 * FM_NET_CAP_PULL, the receiver calls pull() and then sends FIN.  Over OFI
 * the buffer must be registered and its key must reach the receiver, so the
 * transport does that itself, below the protocol:
 *
 *  - send() of an RTS registers [addr, addr+len) on the RMA endpoint
 *    (rma.c) and puts the wire message in kind FM_OFI_MSG_RTS_KEY with
 *    addr = the remote address (the buffer, or 0 for offset-addressed
 *    providers) and rreq = the key (rreq is unused in an RTS).  When the
 *    registration fails, or reads are off, the RTS goes out flagged
 *    FM_HDRF_STREAM so the receiver answers CTS and the sender streams.
 *  - poll() of a keyed RTS stores (raddr, key, peer, sreq) in a record and
 *    replaces addr by the record's address before delivery, so pull() gets
 *    an exact handle even when the RTS waits in the unexpected queue and
 *    two RTS name the same buffer.
 *  - pull() reads in chunks of the provider's largest RMA operation, a few
 *    in flight, and blocks driving only the RMA endpoint's CQ: the
 *    messaging CQ is not read, so delivery is not re-entered.  The peer's
 *    RMA endpoint is served by its own progress (below), so two ranks
 *    pulling from each other both advance.
 *  - the sender closes the registration when FIN (pulled) or CTS (the
 *    receiver chose to stream, e.g. into a non-contiguous buffer) arrives
 *    for that sreq; while any registration is open, poll() also drives the
 *    RMA endpoint's CQ, which providers with manual progress (shm, net,
 *    tcp;ofi_rxm) need to serve the peer's reads.
 *
 * The RMA endpoint is opened at init (not on first use) so its address can
 * travel with the messaging one in the bootstrap, under "fm.ofi.rma". */
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "boot/world.h"
#include "net/net.h"
#include "net/ofi/ofi.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"
#include "util/pvar.h"

/* An open registration of a sent RTS, until FIN or CTS. */
typedef struct out_reg {
    struct out_reg *next;
    int peer;
    uint64_t sreq;
    struct fid_mr *mr;
} out_reg;

/* A keyed RTS that arrived here, until pulled (or answered by CTS). */
typedef struct in_key {
    struct in_key *prev, *next;
    int peer;
    uint64_t sreq, raddr, key;
} in_key;

fm_ofi_rndv_state fm_ofi_rndv;

static out_reg *outs;
static in_key *ins;
static unsigned char *inserted; /* per world rank: its RMA address is in the AV */

int fm_ofi_rndv_init(void)
{
    char name[512];
    size_t len = 0;
    fm_ofi_rndv.on = 0;
    if (fm_param.OFI_RNDV == FM_OFI_RNDV_READ && fm_ofi_rma_open() == FM_OK) {
        len = fm_ofi_rma_name(name, sizeof name);
        inserted = calloc((size_t)fm_world_size, 1);
        if (len && inserted)
            fm_ofi_rndv.on = 1;
        else
            len = 0;
    }
    /* Every rank publishes (empty: no reads here) before the same fence. */
    fm_boot_put("fm.ofi.rma", name, len);
    return fm_ofi_rndv.on;
}

void fm_ofi_rndv_teardown(void)
{
    while (outs) {
        out_reg *o = outs;
        outs = o->next;
        fm_ofi_rma_dereg(o->mr);
        free(o);
    }
    while (ins) {
        in_key *k = ins;
        ins = k->next;
        free(k);
    }
    free(inserted);
    inserted = NULL;
    fm_ofi_rndv.nout = 0;
    fm_ofi_rndv.on = 0;
}

const fm_hdr_rndv *fm_ofi_rndv_stamp(int peer, const fm_hdr_rndv *h, fm_hdr_rndv *copy,
                                     uint32_t *kind, void **reg)
{
    *reg = NULL;
    if (h->h.flags & FM_HDRF_STREAM)
        return h; /* the sender streams anyway */
    *copy = *h;
    out_reg *o = NULL;
    uint64_t key, raddr;
    struct fid_mr *mr;
    if (fm_ofi_rndv.on && h->h.len && (o = malloc(sizeof *o)) &&
        fm_ofi_rma_reg((void *)(uintptr_t)h->addr, h->h.len, &mr, &key, &raddr) == FM_OK) {
        o->peer = peer;
        o->sreq = h->sreq;
        o->mr = mr;
        copy->addr = raddr;
        copy->rreq = key;
        *kind = FM_OFI_MSG_RTS_KEY;
        *reg = o;
        return copy;
    }
    free(o);
    /* No key: the receiver must not pull a bare address over OFI. */
    copy->h.flags |= FM_HDRF_STREAM;
    return copy;
}

void fm_ofi_rndv_sent(void *reg, int ok)
{
    out_reg *o = reg;
    if (!ok) {
        fm_ofi_rma_dereg(o->mr);
        free(o);
        return;
    }
    o->next = outs;
    outs = o;
    fm_ofi_rndv.nout++;
}

void fm_ofi_rndv_release(int peer, uint64_t sreq)
{
    for (out_reg **pp = &outs; *pp; pp = &(*pp)->next) {
        out_reg *o = *pp;
        if (o->peer == peer && o->sreq == sreq) {
            *pp = o->next;
            fm_ofi_rma_dereg(o->mr);
            free(o);
            fm_ofi_rndv.nout--;
            return;
        }
    }
}

static void unlink_in(in_key *k)
{
    if (k->prev)
        k->prev->next = k->next;
    else
        ins = k->next;
    if (k->next)
        k->next->prev = k->prev;
}

void fm_ofi_rndv_arrived(int peer, fm_hdr_rndv *h)
{
    in_key *k = malloc(sizeof *k);
    if (!k) {
        fm_error_msg("ofi: out of memory receiving a rendezvous key from rank %d", peer);
        abort();
    }
    k->peer = peer;
    k->sreq = h->sreq;
    k->raddr = h->addr;
    k->key = h->rreq;
    k->prev = NULL;
    k->next = ins;
    if (ins)
        ins->prev = k;
    ins = k;
    h->addr = (uint64_t)(uintptr_t)k;
    h->rreq = 0;
}

void fm_ofi_rndv_answered(int peer, uint64_t sreq)
{
    for (in_key *k = ins; k; k = k->next)
        if (k->peer == peer && k->sreq == sreq) {
            unlink_in(k);
            free(k);
            return;
        }
}

typedef struct pull_state {
    int inflight, err;
} pull_state;

typedef struct pull_op {
    fm_ofi_rma_op op; /* first: the completion names it */
    pull_state *st;
} pull_op;

static void pull_done(fm_ofi_rma_op *op, int status)
{
    pull_op *p = (pull_op *)op;
    p->st->inflight--;
    if (status != FM_OK)
        p->st->err = status;
    p->st = NULL;
}

static int connect_rma(int peer)
{
    if (inserted[peer])
        return FM_OK;
    char name[512];
    size_t len = sizeof name;
    if (fm_boot_get(peer, "fm.ofi.rma", name, &len) != FM_OK || !len ||
        fm_ofi_rma_insert(peer, name, len) != FM_OK) {
        fm_error_msg("ofi: rank %d's RMA endpoint is unknown or cannot be inserted", peer);
        return FM_ERR_NET;
    }
    inserted[peer] = 1;
    return FM_OK;
}

/* Reads in flight per pull: enough to keep a TCP stream busy, few enough
 * not to crowd the RMA CQ that windows share. */
enum { PULL_DEPTH = 8 };

int fm_ofi_rndv_pull(int peer, void *local, uint64_t handle, size_t len)
{
    in_key *k = (in_key *)(uintptr_t)handle;
    unlink_in(k);
    uint64_t raddr = k->raddr, key = k->key;
    free(k);
    if (!len)
        return FM_OK;
    FM_PV_INC(ofi_rndv_reads);
    FM_PV_ADD(ofi_rndv_read_bytes, len);
    int rc = connect_rma(peer);
    if (rc != FM_OK)
        return rc;
    size_t chunk = fm_ofi_rma_max();
    pull_state st = {0, FM_OK};
    pull_op ops[PULL_DEPTH];
    memset(ops, 0, sizeof ops);
    size_t off = 0;
    while (off < len || st.inflight) {
        for (int i = 0; i < PULL_DEPTH && off < len && st.err == FM_OK; i++) {
            if (ops[i].st)
                continue;
            size_t n = len - off < chunk ? len - off : chunk;
            ops[i].op.done = pull_done;
            ops[i].st = &st;
            rc = fm_ofi_rma_xfer(0, peer, (char *)local + off, n, raddr + off, key, &ops[i].op);
            if (rc == FM_ERR_AGAIN) {
                ops[i].st = NULL;
                break;
            }
            if (rc != FM_OK) {
                ops[i].st = NULL;
                st.err = rc;
                break;
            }
            st.inflight++;
            off += n;
        }
        if (st.err != FM_OK && !st.inflight)
            return st.err;
        fm_ofi_rma_poll();
    }
    return st.err;
}
