/* remote.c — window operations on peers reached over OFI, origin side:
 * registration at setup, fi_write/fi_read, active-message requests, and
 * per-target completion counting for flushes.
 *
 * Each OFI target has a list of point-to-point requests still in flight
 * (request sends and the receives of their answers) and a count of
 * fi_write/fi_read not yet completed.  A flush of that target progresses
 * until both are empty; nothing else waits, so a flush of one target never
 * waits for another's operations. */
#include <stdlib.h>
#include <string.h>

#include "coll/op.h"
#include "core/world.h"
#include "dtype/dtype.h"
#include "mpi/comm.h"
#include "pt2pt/pt2pt.h"
#include "rma/rma.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"
#ifdef FM_HAVE_OFI
#include "net/ofi/ofi.h"
#endif

typedef struct pend {
    struct fm_request *r;
    void *buf; /* freed when r completes */
} pend;

typedef struct tgt {
    pend *v;
    int n, cap;
    long inflight; /* fi_write / fi_read / fi_*atomic not yet completed */
    long reads;    /* of which atomics whose old values the caller wants */
    long writes;   /* of which atomics changing the target (ordering: hw_order) */
    int wrote;     /* fi_write since the last flush (fm_ofi_rma_flush_by_read) */
    uint64_t last_off; /* where the last one wrote */
} tgt;

struct fm_rma_remote {
    tgt *t;                    /* [size] */
    int next_tag;              /* replies: 2 .. 2^30 */
    int err;                   /* first failure of an fi operation */
    void *mr;                  /* our registration (struct fid_mr *) */
    struct fm_win *next;       /* windows served by the progress hook */
};

static struct fm_win *served;  /* windows with OFI peers */
static int in_hook;

#ifdef FM_HAVE_OFI
static void hook(void)
{
    if (in_hook)
        return;
    in_hook = 1;
    fm_ofi_rma_poll();
    for (struct fm_win *w = served; w; w = w->rm->next)
        fm_rma_am_serve(w);
    in_hook = 0;
}
#endif

void fm_rma_remote_prepare(struct fm_win *w, void *base, size_t len, uint64_t *key,
                           uint64_t *raddr, char *ep, int32_t *eplen, int32_t *ok)
{
    *ok = 0;
    *eplen = 0;
#ifdef FM_HAVE_OFI
    if (fm_ofi_rma_open() != FM_OK)
        return;
    *eplen = (int32_t)fm_ofi_rma_name(ep, FM_RMA_EP_NAME);
    if (!*eplen || !len || w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return; /* dynamic windows: active messages (no key per attach to publish) */
    struct fid_mr *mr;
    if (fm_ofi_rma_reg(base, len, &mr, key, raddr) != FM_OK)
        return;
    w->rm = calloc(1, sizeof *w->rm);
    if (!w->rm) {
        fm_ofi_rma_dereg(mr);
        return;
    }
    w->rm->mr = mr;
    *ok = 1;
#else
    (void)w, (void)base, (void)len, (void)key, (void)raddr, (void)ep;
#endif
}

void fm_rma_remote_peer(struct fm_win *w, int i, int ok, uint64_t key, uint64_t raddr,
                        const char *ep, int eplen)
{
    fm_rma_peer *p = &w->peer[i];
    p->ofi = 1;
    p->direct = 0;
    p->base = 0;
    p->world = w->comm->group->world[i];
    p->key = key;
    p->raddr = raddr;
    p->rma = 0;
#ifdef FM_HAVE_OFI
    p->rma = ok && eplen > 0 && fm_ofi_rma_insert(p->world, ep, (size_t)eplen) == FM_OK;
#else
    (void)ok, (void)ep, (void)eplen;
#endif
}

int fm_rma_remote_setup(struct fm_win *w)
{
    int any = 0;
    for (int i = 0; i < w->size; i++)
        any |= w->peer[i].ofi;
    if (!any)
        return FM_OK;
    if (!w->rm && !(w->rm = calloc(1, sizeof *w->rm)))
        return FM_ERR_NOMEM;
    w->rm->t = calloc((size_t)w->size, sizeof *w->rm->t);
    if (!w->rm->t)
        return FM_ERR_NOMEM;
    w->rm->next_tag = 2;
    w->rm->next = served;
    served = w;
#ifdef FM_HAVE_OFI
    fm_ofi_rma_hook = hook;
#endif
    return FM_OK;
}

void fm_rma_remote_teardown(struct fm_win *w)
{
    struct fm_rma_remote *rm = w->rm;
    if (!rm)
        return;
    for (struct fm_win **pp = &served; *pp; pp = &(*pp)->rm->next)
        if (*pp == w) {
            *pp = rm->next;
            break;
        }
    if (rm->t) {
        fm_rma_flush(w, -1);
        for (int i = 0; i < w->size; i++)
            free(rm->t[i].v);
        free(rm->t);
    }
    fm_rma_am_serve(NULL); /* NULL: release w's answers still in flight */
#ifdef FM_HAVE_OFI
    fm_ofi_rma_dereg(rm->mr);
#endif
    free(rm);
    w->rm = NULL;
}

static int push(struct fm_win *w, int trank, struct fm_request *r, void *buf)
{
    tgt *t = &w->rm->t[trank];
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        pend *v = realloc(t->v, (size_t)cap * sizeof *v);
        if (!v)
            return FM_ERR_NOMEM;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = (pend){r, buf};
    return FM_OK;
}

/* Release completed requests of target trank; returns the first error. */
static int reap(struct fm_win *w, int trank)
{
    tgt *t = &w->rm->t[trank];
    int rc = FM_OK, k = 0;
    for (int i = 0; i < t->n; i++) {
        if (!t->v[i].r->done) {
            t->v[k++] = t->v[i];
            continue;
        }
        int e = fm_wait(t->v[i].r, NULL);
        free(t->v[i].buf);
        if (rc == FM_OK)
            rc = e;
    }
    t->n = k;
    return rc;
}

#ifdef FM_HAVE_OFI
struct xgrp;
static int fi_xfer(struct fm_win *w, int write, int trank, char *buf, size_t len, uint64_t off,
                   struct xgrp *g);
#endif

int fm_rma_flush(struct fm_win *w, int rank)
{
    if (!w->rm || !w->rm->t)
        return FM_OK;
    int lo = rank < 0 ? 0 : rank, hi = rank < 0 ? w->size : rank + 1, rc = FM_OK;
    for (int i = lo; i < hi; i++) {
        if (!w->peer[i].ofi)
            continue;
        unsigned spins = 0;
        for (int read_behind = 0;;) {
            int e = reap(w, i);
            if (rc == FM_OK)
                rc = e;
            if (!w->rm->t[i].n && !w->rm->t[i].inflight) {
#ifdef FM_HAVE_OFI
                /* Writes whose completion does not mean "landed": a read
                 * of a byte they wrote, ordered behind them, does. */
                if (!read_behind && w->rm->t[i].wrote && fm_ofi_rma_flush_by_read()) {
                    static char sink;
                    read_behind = 1;
                    e = fi_xfer(w, 0, i, &sink, 1, w->rm->t[i].last_off, NULL);
                    if (e == FM_OK)
                        continue;
                    if (rc == FM_OK)
                        rc = e;
                }
#endif
                w->rm->t[i].wrote = 0;
                break;
            }
            if (!fm_progress())
                fm_progress_backoff(&spins);
        }
    }
    if (rc == FM_OK && w->rm->err)
        rc = w->rm->err;
    w->rm->err = FM_OK;
    return rc;
}

/* One request to trank: header, the target datatype's blocks unless it is
 * contiguous, then `bytes` of data.  With an answer expected its receive
 * is posted first, into (rbuf, rcount, rdt). */
static int am_send(struct fm_win *w, int trank, fm_rma_am_hdr *h, MPI_Datatype tdt,
                   const void *data, size_t bytes, const void *data2, size_t bytes2, int answer,
                   void *rbuf, MPI_Count rcount, MPI_Datatype rdt)
{
    int rc;
    h->nblocks = 0;
    if (tdt) {
        h->extent = tdt->extent;
        h->true_lb = tdt->true_lb;
        h->size = (int64_t)tdt->size;
        h->predef = (tdt->flags & FM_DT_PREDEFINED) != 0;
        if (!fm_dt_is_contig(tdt) && !h->predef)
            h->nblocks = tdt->nblocks;
    }
    h->bytes = (int64_t)(bytes + bytes2);
    h->reply_tag = 0;
    if (answer) {
        h->reply_tag = w->rm->next_tag;
        w->rm->next_tag = w->rm->next_tag >= (1 << 30) ? 2 : w->rm->next_tag + 1;
        struct fm_request *rr;
        rc = fm_irecv(rbuf, rcount, rdt ? rdt : MPI_BYTE, trank, h->reply_tag, w->comm, 0, &rr);
        if (rc != FM_OK)
            return rc;
        if ((rc = push(w, trank, rr, NULL)) != FM_OK)
            return rc;
    }
    size_t blen = (size_t)h->nblocks * sizeof(fm_dt_block);
    size_t total = sizeof *h + blen + bytes + bytes2;
    char *m = malloc(total);
    if (!m)
        return FM_ERR_NOMEM;
    memcpy(m, h, sizeof *h);
    if (blen)
        memcpy(m + sizeof *h, tdt->blocks, blen);
    if (bytes)
        memcpy(m + sizeof *h + blen, data, bytes);
    if (bytes2)
        memcpy(m + sizeof *h + blen + bytes, data2, bytes2);
    struct fm_request *sr;
    rc = fm_isend(m, (MPI_Count)total, MPI_BYTE, trank, FM_RMA_TAG_REQ, w->comm, 0, FM_SEND_STD,
                  &sr);
    if (rc != FM_OK) {
        free(m);
        return rc;
    }
    return push(w, trank, sr, m);
}

/* Origin data as one packed stream: the buffer itself when contiguous,
 * else *heap (caller frees). */
static const void *packed(const void *obuf, MPI_Count ocount, MPI_Datatype odt, size_t bytes,
                          void **heap)
{
    *heap = NULL;
    if (fm_dt_is_contig(odt))
        return (const char *)obuf + odt->true_lb;
    if (!(*heap = malloc(bytes ? bytes : 1)))
        return NULL;
    fm_dt_pack(obuf, ocount, odt, 0, *heap, bytes);
    return *heap;
}

#ifdef FM_HAVE_OFI
/* Buffers shared by the pieces of one operation: freed, and a fetched
 * stream unpacked into the user's layout, when the last piece completed
 * (pieces complete in any order). */
typedef struct xgrp {
    int refs;               /* pieces in flight + 1 while issuing */
    int status;
    void *tmp;              /* bounce buffer of the fetched / read stream, or NULL */
    void *heap;             /* packed origin, or NULL */
    void *obuf;             /* unpack tmp here at the end (odt != NULL) */
    MPI_Count ocount;
    MPI_Datatype odt;
} xgrp;

typedef struct xop {
    fm_ofi_rma_op op;
    struct fm_win *w;
    int trank;
    int atomic;    /* XOP_READS | XOP_WRITES, 0 for fi_write / fi_read */
    xgrp *g;
    /* Small atomic operands travel from here, so the caller's buffers are
     * free on return (providers may read them only when they run the op). */
    _Alignas(16) unsigned char inl[3][32];
} xop;
#define HW_INLINE 32
enum { XOP_READS = 1, XOP_WRITES = 2 };

static xgrp *grp_new(void *tmp, void *heap, void *obuf, MPI_Count ocount, MPI_Datatype odt)
{
    if (!tmp && !heap)
        return NULL;
    xgrp *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    *g = (xgrp){1, FM_OK, tmp, heap, obuf, ocount, odt};
    if (odt)
        fm_dt_retain(odt);
    return g;
}

static void grp_put(xgrp *g, int status)
{
    if (!g)
        return;
    if (status != FM_OK && g->status == FM_OK)
        g->status = status;
    if (--g->refs)
        return;
    if (g->odt) {
        if (g->status == FM_OK)
            fm_dt_unpack(g->obuf, g->ocount, g->odt, 0, g->tmp,
                         (size_t)g->ocount * (size_t)g->odt->size);
        fm_dt_release(g->odt);
    }
    free(g->tmp);
    free(g->heap);
    free(g);
}

static void xop_done(fm_ofi_rma_op *o, int status)
{
    xop *x = (xop *)o;
    if (status != FM_OK && x->w->rm->err == FM_OK)
        x->w->rm->err = status;
    tgt *t = &x->w->rm->t[x->trank];
    t->inflight--;
    t->reads -= (x->atomic & XOP_READS) != 0;
    t->writes -= (x->atomic & XOP_WRITES) != 0;
    grp_put(x->g, status);
    free(x);
}

static xop *xop_new(struct fm_win *w, int trank, int atomic, xgrp *g)
{
    xop *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->op.done = xop_done;
    x->w = w;
    x->trank = trank;
    x->atomic = atomic;
    x->g = g;
    if (g)
        g->refs++;
    return x;
}

/* fi_write / fi_read of a contiguous target run, in pieces the provider
 * takes; -FI_EAGAIN is retried after progress (which drains the CQ). */
static int fi_xfer(struct fm_win *w, int write, int trank, char *buf, size_t len, uint64_t off,
                   struct xgrp *g)
{
    fm_rma_peer *p = &w->peer[trank];
    size_t max = fm_ofi_rma_max();
    size_t done = 0;
    do {
        size_t n = len - done < max ? len - done : max;
        xop *x = xop_new(w, trank, 0, g);
        if (!x)
            return FM_ERR_NOMEM;
        unsigned spins = 0;
        int rc;
        while ((rc = fm_ofi_rma_xfer(write, p->world, buf + done, n, p->raddr + off + done, p->key,
                                     &x->op)) == FM_ERR_AGAIN)
            if (!fm_progress())
                fm_progress_backoff(&spins);
        if (rc != FM_OK) {
            if (g)
                g->refs--;
            free(x);
            return rc;
        }
        w->rm->t[trank].inflight++;
        if (write) {
            w->rm->t[trank].wrote = 1;
            w->rm->t[trank].last_off = off + done;
        }
        done += n;
    } while (done < len);
    return FM_OK;
}
#endif

static int rma_ok(struct fm_win *w, int trank, MPI_Aint tdisp, MPI_Datatype tdt)
{
    const fm_rma_peer *p = &w->peer[trank];
    return p->rma && fm_dt_is_contig(tdt) && tdisp * p->disp_unit + tdt->true_lb >= 0;
}

int fm_rma_remote_put(struct fm_win *w, const void *obuf, MPI_Count ocount, MPI_Datatype odt,
                      int trank, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype tdt)
{
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    size_t ob = (size_t)ocount * (size_t)odt->size;
    if (ob < bytes)
        bytes = ob;
    if (!bytes)
        return FM_OK;
    void *heap;
    const void *data = packed(obuf, ocount, odt, bytes, &heap);
    if (!data)
        return FM_ERR_NOMEM;
#ifdef FM_HAVE_OFI
    if (rma_ok(w, trank, tdisp, tdt)) {
        uint64_t off = (uint64_t)(tdisp * w->peer[trank].disp_unit + tdt->true_lb);
        xgrp *g = grp_new(NULL, heap, NULL, 0, NULL);
        if (heap && !g) {
            free(heap);
            return FM_ERR_NOMEM;
        }
        int rc = fi_xfer(w, 1, trank, (char *)(uintptr_t)data, bytes, off, g);
        grp_put(g, rc);
        return rc;
    }
#endif
    fm_rma_am_hdr h = {.op = FM_RMA_AM_PUT, .tdisp = tdisp, .tcount = tcount};
    int rc = am_send(w, trank, &h, tdt, data, bytes, NULL, 0, 1, NULL, 0, NULL);
    free(heap);
    return rc;
}

int fm_rma_remote_get(struct fm_win *w, void *obuf, MPI_Count ocount, MPI_Datatype odt,
                      int trank, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype tdt)
{
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    if (!bytes)
        return FM_OK;
#ifdef FM_HAVE_OFI
    if (rma_ok(w, trank, tdisp, tdt)) {
        uint64_t off = (uint64_t)(tdisp * w->peer[trank].disp_unit + tdt->true_lb);
        if (fm_dt_is_contig(odt) && (size_t)ocount * (size_t)odt->size >= bytes)
            return fi_xfer(w, 0, trank, (char *)obuf + odt->true_lb, bytes, off, NULL);
        void *tmp = malloc(bytes);
        xgrp *g = tmp ? grp_new(tmp, NULL, obuf, ocount, odt) : NULL;
        if (!g) {
            free(tmp);
            return FM_ERR_NOMEM;
        }
        int rc = fi_xfer(w, 0, trank, tmp, bytes, off, g);
        grp_put(g, rc); /* on failure: nothing unpacked */
        return rc;
    }
#endif
    fm_rma_am_hdr h = {.op = FM_RMA_AM_GET, .tdisp = tdisp, .tcount = tcount};
    return am_send(w, trank, &h, tdt, NULL, 0, NULL, 0, 1, obuf, ocount, odt);
}

int fm_rma_remote_acc(struct fm_win *w, const void *obuf, MPI_Count ocount, MPI_Datatype odt,
                      void *res, MPI_Count rcount, MPI_Datatype rdt, int trank, MPI_Aint tdisp,
                      MPI_Count tcount, MPI_Datatype tdt, MPI_Op op)
{
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    if (!bytes)
        return FM_OK;
    MPI_Datatype edt = fm_rma_kind_dt(tdt->basic);
    /* The target rebuilds a derived target type from its blocks, element by
     * element of its basic kind: pairs split across blocks cannot be. */
    if (!edt || (!(tdt->flags & FM_DT_PREDEFINED) && !fm_dt_is_contig(tdt) &&
                 tdt->basic >= FM_BK_FLOAT_INT))
        return FM_ERR_UNSUPPORTED;
    void *heap = NULL;
    const void *data = NULL;
    if (op != MPI_NO_OP && !(data = packed(obuf, ocount, odt, bytes, &heap)))
        return FM_ERR_NOMEM;
    fm_rma_am_hdr h = {.op = FM_RMA_AM_ACC, .aux = fm_rma_am_op_index(op) | (res ? FM_RMA_AM_FETCH : 0), .kind = tdt->basic,
                       .tdisp = tdisp, .tcount = tcount};
    /* Always answered: an accumulate is complete only once applied. */
    int rc = am_send(w, trank, &h, tdt, data, op != MPI_NO_OP ? bytes : 0, NULL, 0, 1, res,
                     res ? rcount : 0, res ? rdt : NULL);
    free(heap);
    return rc;
}

int fm_rma_remote_cas(struct fm_win *w, const void *obuf, const void *cmp, void *res,
                      MPI_Datatype dt, int trank, MPI_Aint tdisp)
{
    size_t n = (size_t)dt->size;
    fm_rma_am_hdr h = {.op = FM_RMA_AM_CAS, .kind = dt->basic, .tdisp = tdisp, .tcount = 1};
    return am_send(w, trank, &h, dt, (const char *)obuf + dt->true_lb, n,
                   (const char *)cmp + dt->true_lb, n, 1, res, 1, dt);
}

int fm_rma_remote_lock(struct fm_win *w, int exclusive, int rank)
{
    fm_rma_am_hdr h = {.op = FM_RMA_AM_LOCK, .aux = (uint32_t)exclusive};
    int rc = am_send(w, rank, &h, NULL, NULL, 0, NULL, 0, 1, NULL, 0, NULL);
    return rc != FM_OK ? rc : fm_rma_flush(w, rank); /* the answer is the grant */
}

int fm_rma_remote_unlock(struct fm_win *w, int exclusive, int rank)
{
    int rc = fm_rma_flush(w, rank);
    fm_rma_am_hdr h = {.op = FM_RMA_AM_UNLOCK, .aux = (uint32_t)exclusive};
    int r2 = am_send(w, rank, &h, NULL, NULL, 0, NULL, 0, 1, NULL, 0, NULL);
    /* Answered, so no request of ours is left behind at the target when
     * the window is freed (a stale one could match a later window). */
    if (r2 == FM_OK)
        r2 = fm_rma_flush(w, rank);
    return rc != FM_OK ? rc : r2;
}

int fm_rma_remote_post(struct fm_win *w, int origin)
{
    fm_rma_am_hdr h = {.op = FM_RMA_AM_POST};
    return am_send(w, origin, &h, NULL, NULL, 0, NULL, 0, 0, NULL, 0, NULL);
}

int fm_rma_remote_complete(struct fm_win *w, int target)
{
    /* The target's Win_wait returns on this message: everything before it
     * must have been applied there. */
    int rc = fm_rma_flush(w, target);
    fm_rma_am_hdr h = {.op = FM_RMA_AM_COMPLETE};
    int r2 = am_send(w, target, &h, NULL, NULL, 0, NULL, 0, 0, NULL, 0, NULL);
    return rc != FM_OK ? rc : r2;
}

/* ---- accumulates by provider atomics -------------------------------------
 *
 * Safe only when nothing else updates the same memory: a provider atomic
 * and a C11 / stripe-locked update by a rank on the node are not atomic
 * with respect to each other, nor are a provider atomic and an active
 * message for another op of the same type.  So a window uses them only when
 * every rank reaches every other over OFI, every rank registered its memory
 * and validated the same basic types (win_setup.c ANDs the masks), and then
 * for every accumulate on those types — all ops, every layout, the target's
 * own accesses to itself included (through its own endpoint). */
#ifdef FM_HAVE_OFI
#include <limits.h>
#include <wchar.h>

static uint64_t hw_mask; /* kinds whose every op the provider validates */
static size_t hw_cnt[FM_BK_COUNT]; /* elements per atomic for that kind */
static int hw_probed;

static int kind_fi(int k)
{
    switch (k) {
    case FM_BK_CHAR: return CHAR_MIN < 0 ? FI_INT8 : FI_UINT8;
    case FM_BK_SCHAR: case FM_BK_INT8: return FI_INT8;
    case FM_BK_UCHAR: case FM_BK_UINT8: case FM_BK_BYTE: return FI_UINT8;
    case FM_BK_BOOL: return sizeof(_Bool) == 1 ? FI_UINT8 : -1;
    case FM_BK_SHORT: case FM_BK_INT16: return FI_INT16;
    case FM_BK_USHORT: case FM_BK_UINT16: return FI_UINT16;
    case FM_BK_INT: case FM_BK_INT32: return FI_INT32;
    case FM_BK_UINT: case FM_BK_UINT32: return FI_UINT32;
    case FM_BK_LONG: return sizeof(long) == 8 ? FI_INT64 : FI_INT32;
    case FM_BK_ULONG: return sizeof(long) == 8 ? FI_UINT64 : FI_UINT32;
    case FM_BK_LLONG: case FM_BK_INT64: return FI_INT64;
    case FM_BK_ULLONG: case FM_BK_UINT64: return FI_UINT64;
    case FM_BK_WCHAR: return sizeof(wchar_t) == 4 ? (WCHAR_MIN < 0 ? FI_INT32 : FI_UINT32) : -1;
    case FM_BK_FLOAT: return FI_FLOAT;
    case FM_BK_DOUBLE: return FI_DOUBLE;
    case FM_BK_LDOUBLE: return FI_LONG_DOUBLE;
    case FM_BK_FCOMPLEX: return FI_FLOAT_COMPLEX;
    case FM_BK_DCOMPLEX: return FI_DOUBLE_COMPLEX;
    case FM_BK_LDCOMPLEX: return FI_LONG_DOUBLE_COMPLEX;
    default: return -1; /* value-index pairs: always active messages */
    }
}

/* MPI_Compare_and_swap's types (the API layer's check). */
static int cas_kind(int k, MPI_Datatype dt)
{
    return k != FM_BK_FLOAT && k != FM_BK_DOUBLE && k != FM_BK_LDOUBLE &&
           (k < FM_BK_FCOMPLEX || k == FM_BK_BYTE) && dt->size <= 8;
}

static enum fi_op fi_op_of(MPI_Op op)
{
    if (op == MPI_SUM) return FI_SUM;
    if (op == MPI_PROD) return FI_PROD;
    if (op == MPI_MAX) return FI_MAX;
    if (op == MPI_MIN) return FI_MIN;
    if (op == MPI_LAND) return FI_LAND;
    if (op == MPI_LOR) return FI_LOR;
    if (op == MPI_LXOR) return FI_LXOR;
    if (op == MPI_BAND) return FI_BAND;
    if (op == MPI_BOR) return FI_BOR;
    if (op == MPI_BXOR) return FI_BXOR;
    if (op == MPI_REPLACE) return FI_ATOMIC_WRITE;
    return FI_ATOMIC_READ; /* MPI_NO_OP */
}

/* A kind qualifies only if every op MPI defines on it, REPLACE, NO_OP
 * (all in the fetching form, the only one used) and, where allowed,
 * compare-and-swap are valid: one op falling back to active messages would break atomicity
 * with the others on the same location. */
static void hw_probe(void)
{
    if (hw_probed)
        return;
    hw_probed = 1;
    const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND,
                          MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
    for (int k = 1; k < FM_BK_COUNT; k++) {
        int f = kind_fi(k);
        MPI_Datatype dt = fm_rma_kind_dt(k);
        if (f < 0 || !dt)
            continue;
        size_t c = (size_t)-1, n;
        enum fi_datatype fdt = (enum fi_datatype)f;
#define NEED(kind, fop)                                                           \
    do {                                                                          \
        if (!(n = fm_ofi_rma_atomic_count(kind, fdt, fop)))                       \
            goto next;                                                            \
        c = n < c ? n : c;                                                        \
    } while (0)
        for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
            if (fm_op_check(ops[i], dt) == FM_OK)
                NEED(FM_OFI_ATOMIC_FETCH, fi_op_of(ops[i]));
        NEED(FM_OFI_ATOMIC_FETCH, FI_ATOMIC_WRITE);
        NEED(FM_OFI_ATOMIC_FETCH, FI_ATOMIC_READ);
        if (cas_kind(k, dt))
            NEED(FM_OFI_ATOMIC_COMPARE, FI_CSWAP);
#undef NEED
        hw_mask |= (uint64_t)1 << k;
        hw_cnt[k] = c;
    next:;
    }
}
#endif

uint64_t fm_rma_hw_kinds(int *why)
{
#ifdef FM_HAVE_OFI
    if (fm_param.RMA_ATOMICS == FM_RMA_ATOMICS_AM) {
        *why = FM_RMA_HW_KNOB;
        return 0;
    }
    hw_probe();
    *why = hw_mask ? FM_RMA_HW_OK : FM_RMA_HW_PROVIDER;
    return hw_mask;
#else
    *why = FM_RMA_HW_PROVIDER;
    return 0;
#endif
}

int fm_rma_hw_self(struct fm_win *w, uint64_t key, uint64_t raddr)
{
#ifdef FM_HAVE_OFI
    fm_rma_peer *self = &w->peer[w->rank];
    char ep[FM_RMA_EP_NAME];
    size_t len = fm_ofi_rma_name(ep, sizeof ep);
    if (!len || fm_ofi_rma_insert(fm_world_rank, ep, len) != FM_OK)
        return FM_ERR_NET;
    self->world = fm_world_rank;
    self->key = key;
    self->raddr = raddr;
    return FM_OK;
#else
    (void)w, (void)key, (void)raddr;
    return FM_ERR_UNSUPPORTED;
#endif
}

#ifdef FM_HAVE_OFI
/* Does an atomic that reads (rd) and/or writes (wr) the target have to
 * wait for those in flight to trank?  MPI orders accumulates from one
 * origin to one location as the accumulate_ordering hint says (default
 * all four: a fetch after a replace must see the replacement); libfabric
 * completes atomics in any order unless the provider orders atomic after
 * atomic (shm orders only sends).  Counting per target rather than per
 * location: waiting is only ever too strict. */
static int hw_conflict(const struct fm_win *w, const tgt *t, int rd, int wr)
{
    unsigned o = w->acc_order;
    int after_rd = t->reads > 0, after_wr = t->writes > 0;
    return (rd && ((o & FM_RMA_ORDER_RAR && after_rd) || (o & FM_RMA_ORDER_RAW && after_wr))) ||
           (wr && ((o & FM_RMA_ORDER_WAR && after_rd) || (o & FM_RMA_ORDER_WAW && after_wr)));
}

static void hw_order(struct fm_win *w, int trank, int rd, int wr)
{
    tgt *t = &w->rm->t[trank];
    if (fm_ofi_rma_atomic_ordered())
        return;
    unsigned spins = 0;
    while (hw_conflict(w, t, rd, wr))
        if (!fm_progress())
            fm_progress_backoff(&spins);
}

/* Operations on ourselves complete before returning. */
static void hw_drain(struct fm_win *w, int trank)
{
    tgt *t = &w->rm->t[trank];
    unsigned spins = 0;
    while (t->inflight)
        if (!fm_progress())
            fm_progress_backoff(&spins);
}

static int hw_issue(struct fm_win *w, int trank, int kind, int rw, const void *buf, size_t count,
                    size_t esz, const void *cmp, void *res, uint64_t off, enum fi_datatype fdt,
                    enum fi_op fop, xgrp *g)
{
    fm_rma_peer *p = &w->peer[trank];
    xop *x = xop_new(w, trank, rw, g);
    if (!x)
        return FM_ERR_NOMEM;
    size_t len = count * esz;
    if (len <= HW_INLINE) {
        if (buf)
            buf = memcpy(x->inl[0], buf, len);
        if (cmp)
            cmp = memcpy(x->inl[1], cmp, len);
        if (!res) /* results nobody wants (see fm_rma_hw_acc) */
            res = x->inl[2];
    }
    unsigned spins = 0;
    int rc;
    while ((rc = fm_ofi_rma_atomic(kind, p->world, buf, count, cmp, res, p->raddr + off, p->key,
                                   fdt, fop, &x->op)) == FM_ERR_AGAIN)
        if (!fm_progress())
            fm_progress_backoff(&spins);
    if (rc != FM_OK) {
        if (g)
            g->refs--;
        free(x);
        return rc;
    }
    tgt *t = &w->rm->t[trank];
    t->inflight++;
    t->reads += (rw & XOP_READS) != 0;
    t->writes += (rw & XOP_WRITES) != 0;
    return FM_OK;
}
#endif

int fm_rma_hw_acc(struct fm_win *w, const void *obuf, MPI_Count ocount, MPI_Datatype odt,
                  void *res, MPI_Count rcount, MPI_Datatype rdt, int trank, MPI_Aint tdisp,
                  MPI_Count tcount, MPI_Datatype tdt, MPI_Op op)
{
#ifdef FM_HAVE_OFI
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    if (!bytes || (op == MPI_NO_OP && !res))
        return FM_OK;
    int k = tdt->basic;
    size_t esz = (size_t)fm_rma_kind_dt(k)->size, maxc = hw_cnt[k];
    enum fi_datatype fdt = (enum fi_datatype)kind_fi(k);
    enum fi_op fop = fi_op_of(op);
    /* Always the fetching form: libfabric 1.17's shm provider writes the
     * answer of a plain fi_atomic under FI_DELIVERY_COMPLETE back into the
     * origin buffer (found here: corrupted origin stacks, lost updates), so
     * plain accumulates fetch into scratch (inline in the op when small). */
    int kind = FM_OFI_ATOMIC_FETCH;
    void *heap = NULL, *tmp = NULL;
    const unsigned char *data = NULL;
    if (op != MPI_NO_OP && !(data = packed(obuf, ocount, odt, bytes, &heap)))
        return FM_ERR_NOMEM;
    unsigned char *rbuf = NULL;
    if (res && fm_dt_is_contig(rdt))
        rbuf = (unsigned char *)res + rdt->true_lb;
    else if ((res || bytes > HW_INLINE) && !(rbuf = tmp = malloc(bytes))) {
        free(heap);
        return FM_ERR_NOMEM;
    }
    xgrp *g = grp_new(tmp, heap, res, res && tmp ? rcount : 0, res && tmp ? rdt : NULL);
    if ((tmp || heap) && !g) {
        free(tmp);
        free(heap);
        return FM_ERR_NOMEM;
    }
    int rw = (res ? XOP_READS : 0) | (op != MPI_NO_OP ? XOP_WRITES : 0);
    hw_order(w, trank, rw & XOP_READS, rw & XOP_WRITES);
    const fm_rma_peer *p = &w->peer[trank];
    const fm_dt_block one = {tdt->true_lb, (MPI_Aint)bytes};
    int contig = fm_dt_is_contig(tdt);
    const fm_dt_block *b = contig ? &one : tdt->blocks;
    int nb = contig ? 1 : tdt->nblocks;
    MPI_Count reps = contig ? 1 : tcount;
    uint64_t base = (uint64_t)(tdisp * p->disp_unit);
    size_t pos = 0;
    int rc = FM_OK;
    for (MPI_Count i = 0; i < reps && rc == FM_OK; i++)
        for (int j = 0; j < nb && rc == FM_OK; j++) {
            uint64_t off = base + (uint64_t)(i * tdt->extent + b[j].off);
            size_t n = (size_t)b[j].len / esz;
            for (size_t e = 0; e < n && rc == FM_OK;) {
                size_t c = n - e < maxc ? n - e : maxc;
                /* NO_OP reads: buf is not read, any valid address does */
                const void *src = data ? (const void *)(data + pos) : (const void *)(rbuf + pos);
                rc = hw_issue(w, trank, kind, rw, src, c, esz, NULL, rbuf ? rbuf + pos : NULL,
                              off + e * esz, fdt, fop, g);
                e += c;
                pos += c * esz;
            }
        }
    grp_put(g, rc);
    if (trank == w->rank)
        hw_drain(w, trank);
    return rc;
#else
    (void)w, (void)obuf, (void)ocount, (void)odt, (void)res, (void)rcount, (void)rdt, (void)trank,
        (void)tdisp, (void)tcount, (void)tdt, (void)op;
    return FM_ERR_UNSUPPORTED;
#endif
}

int fm_rma_hw_cas(struct fm_win *w, const void *obuf, const void *cmp, void *res,
                  MPI_Datatype dt, int trank, MPI_Aint tdisp)
{
#ifdef FM_HAVE_OFI
    hw_order(w, trank, 1, 1);
    uint64_t off = (uint64_t)(tdisp * w->peer[trank].disp_unit + dt->true_lb);
    int rc = hw_issue(w, trank, FM_OFI_ATOMIC_COMPARE, XOP_READS | XOP_WRITES,
                      (const char *)obuf + dt->true_lb, 1, (size_t)dt->size,
                      (const char *)cmp + dt->true_lb, (char *)res + dt->true_lb, off,
                      (enum fi_datatype)kind_fi(dt->basic), FI_CSWAP, NULL);
    if (trank == w->rank)
        hw_drain(w, trank);
    return rc;
#else
    (void)w, (void)obuf, (void)cmp, (void)res, (void)dt, (void)trank, (void)tdisp;
    return FM_ERR_UNSUPPORTED;
#endif
}
