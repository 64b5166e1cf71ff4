/* am.c — windows' active messages, both sides, on the library's
 * active-message layer (src/am; internal handlers FM_AM_H_WIN_*): what a
 * network peer cannot do by one-sided writes and reads — derived target
 * layouts, accumulates without provider atomics, compare-and-swap, dynamic
 * windows, locks, and PSCW's post and complete.
 *
 * An operation goes as pieces, Medium requests of at most
 * fab_am_max_medium() bytes: a header, the target layout's blocks, and a
 * slice [off, off + len) of the packed stream (data for put and accumulate;
 * nothing for get).  The target applies each piece as it arrives, with the
 * code a local origin uses (so accumulates from both stay atomic with each
 * other), and replies with the bytes it fetched, if any; the origin unpacks
 * those at the slice's place in its stream.  Messages between two ranks
 * arrive in order, so accumulates keep theirs.  A target layout with too
 * many blocks to leave room for data goes run by run.
 *
 * A lock the target cannot grant at once waits in a queue there; its grant
 * goes later, from progress, as a request of its own (handlers only reply).
 * Credits bound what is in flight to a target; handlers run in any
 * progress of the target, a busy one delays its origins. */
#include <stdlib.h>
#include <string.h>

#include "am/am.h"
#include "core/comm.h"
#include "core/progress.h"
#include "core/world.h"
#include "dtype/dtype.h"
#include "rma/remote_int.h"
#include "rma/rma.h"
#include "util/log.h"
#include "util/status.h"
#include "util/copy.h"

/* Wire header of a piece; fm_dt_block[nblocks] and the data follow. */
typedef struct piece_hdr {
    uint32_t op, aux;
    uint32_t win;      /* the target's window: context id of its communicator */
    int32_t origin;    /* the origin's rank in the window */
    int32_t kind;      /* acc, cas: enum fm_basic_kind of the target elements */
    int32_t nblocks;   /* 0: contiguous bytes at true_lb (or tcount of a predefined kind) */
    int32_t predef;    /* 1: the layout is tcount of the predefined type of kind */
    int32_t twice;     /* cas: the data is two slices (value, compare) */
    int64_t tdisp, shift; /* target address: that of tdisp, plus shift bytes */
    int64_t tcount, extent, true_lb, size; /* the target layout */
    int64_t off, len;  /* this piece: the layout's packed bytes [off, off + len) */
} piece_hdr;

/* Arguments of a piece and of its answer. */
enum { A_OP, A_POS, A_STATUS, A_N };

/* An answered operation at its origin: pieces not yet answered. */
typedef struct amop {
    struct fm_win *w;
    int trank, refs;
    void *rbuf;
    MPI_Count rcount;
    MPI_Datatype rdt; /* retained while pieces are out */
} amop;

/* Locks asked for and not grantable yet, granted in arrival order. */
typedef struct waiter {
    struct fm_win *w;
    int world, exclusive;
    fab_am_arg_t op;
    struct waiter *next;
} waiter;

static waiter *waiters;
static unsigned char *out_buf, *ans_buf; /* a piece being built; an answer */

static const MPI_Op *op_table(int *n)
{
    static MPI_Op ops[14];
    if (!ops[0]) {
        MPI_Op all[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR, MPI_LXOR,
                        MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
        memcpy(ops, all, sizeof ops);
    }
    *n = 14;
    return ops;
}
MPI_Op fm_rma_am_op(uint32_t index)
{
    int n;
    const MPI_Op *ops = op_table(&n);
    return index < (uint32_t)n ? ops[index] : NULL;
}

uint32_t fm_rma_am_op_index(MPI_Op op)
{
    int n;
    const MPI_Op *ops = op_table(&n);
    for (int i = 0; i < n; i++)
        if (ops[i] == op)
            return (uint32_t)i;
    return (uint32_t)n;
}

MPI_Datatype fm_rma_kind_dt(int kind)
{
    switch (kind) {
    case FM_BK_CHAR: return MPI_CHAR;
    case FM_BK_SCHAR: return MPI_SIGNED_CHAR;
    case FM_BK_UCHAR: return MPI_UNSIGNED_CHAR;
    case FM_BK_SHORT: return MPI_SHORT;
    case FM_BK_USHORT: return MPI_UNSIGNED_SHORT;
    case FM_BK_INT: return MPI_INT;
    case FM_BK_UINT: return MPI_UNSIGNED;
    case FM_BK_LONG: return MPI_LONG;
    case FM_BK_ULONG: return MPI_UNSIGNED_LONG;
    case FM_BK_LLONG: return MPI_LONG_LONG;
    case FM_BK_ULLONG: return MPI_UNSIGNED_LONG_LONG;
    case FM_BK_INT8: return MPI_INT8_T;
    case FM_BK_INT16: return MPI_INT16_T;
    case FM_BK_INT32: return MPI_INT32_T;
    case FM_BK_INT64: return MPI_INT64_T;
    case FM_BK_UINT8: return MPI_UINT8_T;
    case FM_BK_UINT16: return MPI_UINT16_T;
    case FM_BK_UINT32: return MPI_UINT32_T;
    case FM_BK_UINT64: return MPI_UINT64_T;
    case FM_BK_FLOAT: return MPI_FLOAT;
    case FM_BK_DOUBLE: return MPI_DOUBLE;
    case FM_BK_LDOUBLE: return MPI_LONG_DOUBLE;
    case FM_BK_WCHAR: return MPI_WCHAR;
    case FM_BK_BOOL: return MPI_C_BOOL;
    case FM_BK_FCOMPLEX: return MPI_C_FLOAT_COMPLEX;
    case FM_BK_DCOMPLEX: return MPI_C_DOUBLE_COMPLEX;
    case FM_BK_LDCOMPLEX: return MPI_C_LONG_DOUBLE_COMPLEX;
    case FM_BK_BYTE: return MPI_BYTE;
    case FM_BK_FLOAT_INT: return MPI_FLOAT_INT;
    case FM_BK_DOUBLE_INT: return MPI_DOUBLE_INT;
    case FM_BK_LONG_INT: return MPI_LONG_INT;
    case FM_BK_2INT: return MPI_2INT;
    case FM_BK_SHORT_INT: return MPI_SHORT_INT;
    case FM_BK_LDOUBLE_INT: return MPI_LONG_DOUBLE_INT;
    case FM_BK_FCHARACTER: return MPI_CHARACTER;
    case FM_BK_FLOGICAL: return MPI_LOGICAL;
    case FM_BK_FINT1: return MPI_INTEGER1;
    case FM_BK_FINT2: return MPI_INTEGER2;
    case FM_BK_FINT4: return MPI_INTEGER4;
    case FM_BK_FINT8: return MPI_INTEGER8;
#ifdef MPI_INTEGER16
    case FM_BK_FINT16: return MPI_INTEGER16;
#endif
#ifdef MPI_REAL16
    case FM_BK_FLOAT128: return MPI_REAL16;
    case FM_BK_F128COMPLEX: return MPI_COMPLEX32;
#endif
    case FM_BK_2REAL: return MPI_2REAL;
    case FM_BK_2DOUBLE: return MPI_2DOUBLE_PRECISION;
    default: return NULL;
    }
}

/* ---- target side ---- */

static struct fm_win *window_of(uint32_t id)
{
    for (struct fm_win *w = fm_rma_served(); w; w = w->rm->next)
        if (w->comm->ctx == id)
            return w;
    return NULL;
}

/* Visit the layout's packed bytes [off, off + len) at t: fn(ctx, address,
 * bytes) in type-map order. */
typedef void region_fn(void *ctx, unsigned char *p, size_t len);
static void regions(const piece_hdr *h, const fm_dt_block *b, uintptr_t t, region_fn *fn,
                    void *ctx)
{
    size_t skip = (size_t)h->off, left = (size_t)h->len;
    int64_t first = h->size ? h->off / h->size : 0; /* whole instances skipped */
    skip -= (size_t)(first * h->size);
    for (int64_t i = first; i < h->tcount && left; i++)
        for (int k = 0; k < h->nblocks && left; k++)
            for (MPI_Aint j = 0; j < b[k].count && left; j++) {
                size_t n = (size_t)b[k].len;
                if (skip >= n) {
                    skip -= n;
                    continue;
                }
                unsigned char *p = (unsigned char *)t + i * h->extent + b[k].off + j * b[k].stride;
                size_t take = n - skip < left ? n - skip : left;
                fn(ctx, p + skip, take);
                skip = 0;
                left -= take;
            }
}

typedef struct stream {
    struct fm_win *w;
    unsigned char *data; /* packed bytes in / out */
    unsigned char *res;  /* acc: old values out, or NULL */
    size_t pos;
    MPI_Datatype edt;
    MPI_Op op;
} stream;

static void put_fn(void *c, unsigned char *p, size_t len)
{
    stream *s = c;
    fm_copy(p, s->data + s->pos, len);
    s->pos += len;
}

static void get_fn(void *c, unsigned char *p, size_t len)
{
    stream *s = c;
    fm_copy(s->data + s->pos, p, len);
    s->pos += len;
}

static void acc_fn(void *c, unsigned char *p, size_t len)
{
    stream *s = c;
    MPI_Count n = (MPI_Count)(len / (size_t)s->edt->size);
    fm_rma_acc_at(s->w, (uintptr_t)p, s->data ? s->data + s->pos : NULL,
                  s->res ? s->res + s->pos : NULL, n, s->edt, s->op);
    s->pos += len;
}

/* Apply fn to the piece's bytes at t: by the blocks, or one run. */
static void apply(const piece_hdr *h, const fm_dt_block *b, uintptr_t t, region_fn *fn,
                  stream *s)
{
    if (h->nblocks)
        regions(h, b, t, fn, s);
    else
        fn(s, (unsigned char *)t + h->true_lb + h->off, (size_t)h->len);
}

static int try_grant(struct fm_win *w, int exclusive)
{
    for (waiter *q = waiters; q; q = q->next) /* first come, first served */
        if (q->w == w)
            return 0;
    return fm_rma_try_lock(w->peer[w->rank].ctl, exclusive);
}

static void on_request(fab_am_token_t tok, void *buf, size_t nbytes, const fab_am_arg_t *a,
                       unsigned nargs)
{
    piece_hdr h;
    int answered = nargs == A_N && a[A_OP];
    int status = FM_OK;
    size_t out = 0;
    if (nbytes < sizeof h) {
        fm_warn("window: a short active message (%zu bytes) from rank %d", nbytes,
                fab_am_token_rank(tok));
        return;
    }
    memcpy(&h, buf, sizeof h);
    const fm_dt_block *b = (const fm_dt_block *)((char *)buf + sizeof h);
    unsigned char *data = (unsigned char *)buf + sizeof h + (size_t)h.nblocks * sizeof *b;
    struct fm_win *w = window_of(h.win);
    if (!w) {
        fm_error_msg("window: rank %d addressed a window this rank does not have (id %u)",
                     fab_am_token_rank(tok), h.win);
        status = FM_ERR_ARG;
        goto answer;
    }
    fm_rma_ctl *me = w->peer[w->rank].ctl;
    uintptr_t t = fm_rma_target(w, w->rank, (MPI_Aint)h.tdisp) + (uintptr_t)h.shift;
    /* A predefined layout may have gaps (the pair types): by its map. */
    MPI_Datatype pdt = h.predef ? fm_rma_kind_dt(h.kind) : NULL;
    switch (h.op) {
    case FM_RMA_AM_PUT:
        if (pdt)
            fm_dt_unpack((void *)t, (MPI_Count)h.tcount, pdt, (size_t)h.off, data, (size_t)h.len);
        else
            apply(&h, b, t, put_fn, &(stream){.data = data});
        break;
    case FM_RMA_AM_GET:
        if (pdt)
            fm_dt_pack((void *)t, (MPI_Count)h.tcount, pdt, (size_t)h.off, ans_buf, (size_t)h.len);
        else
            apply(&h, b, t, get_fn, &(stream){.data = ans_buf});
        out = (size_t)h.len;
        break;
    case FM_RMA_AM_ACC: {
        MPI_Op op = fm_rma_am_op(h.aux & 0xff);
        MPI_Datatype edt = fm_rma_kind_dt(h.kind);
        if (!op || !edt) {
            status = FM_ERR_ARG;
            break;
        }
        int fetch = (h.aux & FM_RMA_AM_FETCH) != 0;
        stream s = {.w = w, .data = op != MPI_NO_OP ? data : NULL, .res = fetch ? ans_buf : NULL,
                    .edt = edt, .op = op};
        if (pdt) /* whole elements, gaps and all */
            fm_rma_acc_at(w, t + (uintptr_t)(h.off / h.size * h.extent), s.data, s.res,
                          (MPI_Count)(h.len / h.size), pdt, op);
        else
            apply(&h, b, t, acc_fn, &s);
        out = fetch ? (size_t)h.len : 0;
        break;
    }
    case FM_RMA_AM_CAS: {
        MPI_Datatype dt = fm_rma_kind_dt(h.kind);
        if (!dt || h.len != (int64_t)dt->size) {
            status = FM_ERR_ARG;
            break;
        }
        fm_rma_cas(w, data, data + h.len, ans_buf, dt, w->rank, (MPI_Aint)h.tdisp);
        out = (size_t)h.len;
        break;
    }
    case FM_RMA_AM_LOCK: {
        if (try_grant(w, (int)h.aux))
            break; /* granted: the reply says so */
        waiter *q = malloc(sizeof *q), **pp = &waiters;
        if (!q) {
            status = FM_ERR_NOMEM;
            break;
        }
        *q = (waiter){w, fab_am_token_rank(tok), (int)h.aux, a[A_OP], NULL};
        while (*pp)
            pp = &(*pp)->next;
        *pp = q;
        return; /* no reply: the grant comes later (fm_rma_am_serve) */
    }
    case FM_RMA_AM_UNLOCK:
        atomic_fetch_sub(&me->lock, h.aux ? FM_RMA_LOCK_EXCL : 1);
        break; /* waiters: at the next progress */
    case FM_RMA_AM_POST:
        atomic_fetch_add(&me->posted[h.origin], 1);
        break;
    case FM_RMA_AM_COMPLETE:
        atomic_fetch_add(&me->completes, 1);
        break;
    default:
        fm_warn("window: unknown active message %u from rank %d", h.op, fab_am_token_rank(tok));
        status = FM_ERR_ARG;
    }
answer:
    if (!answered)
        return;
    fab_am_arg_t r[A_N] = {a[A_OP], a[A_POS], (fab_am_arg_t)(int64_t)status};
    fm_am_internal_reply(out && status == FM_OK ? FM_AM_MEDIUM : FM_AM_SHORT, tok, FM_AM_H_WIN_ANS,
                         ans_buf, status == FM_OK ? out : 0, NULL, A_N, r);
}

void fm_rma_am_serve(struct fm_win *w)
{
    for (waiter **pp = &waiters; *pp;) {
        waiter *q = *pp;
        if (q->w != w) {
            pp = &q->next;
            continue;
        }
        fm_rma_ctl *me = w->peer[w->rank].ctl;
        if (!fm_rma_try_lock(me, q->exclusive))
            return; /* the first waiter of w holds the others back */
        fab_am_arg_t r[A_N] = {q->op, 0, FM_OK};
        if (fm_am_internal_request(FM_AM_SHORT, q->world, FM_AM_H_WIN_ANS, NULL, 0, NULL,
                                   FAB_FLAG_IMMEDIATE, A_N, r) != FAB_OK) {
            /* No credit now: give the lock back and grant at a later turn. */
            atomic_fetch_sub(&me->lock, q->exclusive ? FM_RMA_LOCK_EXCL : 1);
            return;
        }
        *pp = q->next;
        free(q);
    }
}

/* ---- origin side ---- */

/* Drop one reference to o; the last frees it. */
static void amop_drop(amop *o)
{
    if (--o->refs)
        return;
    if (o->rdt)
        fm_dt_release(o->rdt);
    free(o);
}

/* The answer to a piece (a reply), or a lock's late grant (a request). */
static void on_answer(fab_am_token_t tok, void *buf, size_t nbytes, const fab_am_arg_t *a,
                      unsigned nargs)
{
    (void)tok;
    if (nargs != A_N)
        return;
    amop *o = (amop *)(uintptr_t)a[A_OP];
    int status = (int)(int64_t)a[A_STATUS];
    if (nbytes && o->rbuf)
        fm_dt_unpack(o->rbuf, o->rcount, o->rdt, (size_t)a[A_POS], buf, nbytes);
    struct fm_rma_remote *rm = o->w->rm;
    if (status != FM_OK && rm->err == FM_OK)
        rm->err = status;
    rm->t[o->trank].am_out--;
    amop_drop(o);
}

int fm_rma_am_init(void)
{
    size_t m = fm_am_max_medium();
    if (!m)
        return FM_ERR_INTERN; /* the layer is set up in MPI_Init, before any window */
    if (!out_buf && !(out_buf = malloc(m)))
        return FM_ERR_NOMEM;
    if (!ans_buf && !(ans_buf = malloc(m)))
        return FM_ERR_NOMEM;
    fm_am_internal_register(FM_AM_H_WIN_REQ, on_request);
    fm_am_internal_register(FM_AM_H_WIN_ANS, on_answer);
    return FM_OK;
}

/* One try at one piece: the layout in h (off, len set), its blocks, and
 * the stream's bytes [pos, pos + len) of data (and of data2).  o: answered,
 * or NULL.  Built in out_buf each try and sent without waiting, so no
 * other thread's piece can overwrite it while this one waits for a credit. */
static int try_piece(struct fm_win *w, int trank, const piece_hdr *h, const fm_dt_block *b,
                     const fm_rma_am_req *q, size_t pos, amop *o)
{
    size_t blen = (size_t)h->nblocks * sizeof *b, len = (size_t)h->len;
    unsigned char *m = out_buf;
    memcpy(m, h, sizeof *h);
    if (blen)
        memcpy(m + sizeof *h, b, blen);
    size_t n = sizeof *h + blen;
    if (q->data) {
        fm_copy(m + n, (const char *)q->data + pos, len);
        n += len;
    }
    if (q->data2) {
        fm_copy(m + n, (const char *)q->data2 + pos, len);
        n += len;
    }
    fab_am_arg_t a[A_N] = {(fab_am_arg_t)(uintptr_t)o, pos, 0};
    return fm_am_internal_request(FM_AM_MEDIUM, w->peer[trank].world, FM_AM_H_WIN_REQ, m, n,
                                  NULL, FAB_FLAG_IMMEDIATE, A_N, a);
}

static int send_piece(struct fm_win *w, int trank, const piece_hdr *h, const fm_dt_block *b,
                      const fm_rma_am_req *q, size_t pos, amop *o)
{
    if (o) { /* before the send: its answer may run inside a later wait */
        o->refs++;
        w->rm->t[trank].am_out++;
    }
    int rc;
    fm_wait_until((rc = try_piece(w, trank, h, b, q, pos, o)) != FAB_WOULD_BLOCK);
    if (rc == FAB_OK)
        return FM_OK;
    if (o) {
        o->refs--;
        w->rm->t[trank].am_out--;
    }
    return rc == FAB_ERR_RESOURCE ? FM_ERR_NOMEM : FM_ERR_NET;
}

/* Pieces covering the layout's bytes [0, total), which are the stream's
 * [pos, pos + total): each at most `most` bytes, a multiple of `unit`. */
static int send_pieces(struct fm_win *w, int trank, piece_hdr *h, const fm_dt_block *b,
                       const fm_rma_am_req *q, size_t pos, size_t total, size_t most,
                       size_t unit, amop *o)
{
    most -= most % unit;
    size_t off = 0;
    do {
        size_t len = total - off < most ? total - off : most;
        h->off = (int64_t)off;
        h->len = (int64_t)len;
        int rc = send_piece(w, trank, h, b, q, pos + off, o);
        if (rc != FM_OK)
            return rc;
        off += len;
    } while (off < total);
    return FM_OK;
}

int fm_rma_am_send(struct fm_win *w, int trank, const fm_rma_am_req *q)
{
    MPI_Datatype tdt = q->tdt;
    piece_hdr h = {.op = (uint32_t)q->op, .aux = q->aux, .win = w->comm->ctx,
                   .origin = w->rank, .tdisp = q->tdisp,
                   .tcount = q->tcount, .twice = q->data2 != NULL};
    const fm_dt_block *b = NULL;
    if (tdt) {
        h.kind = tdt->basic;
        h.extent = tdt->extent;
        h.true_lb = tdt->true_lb;
        h.size = (int64_t)tdt->size;
        h.predef = (tdt->flags & FM_DT_PREDEFINED) != 0;
        if (!fm_dt_is_contig(tdt) && !h.predef) {
            h.nblocks = (int32_t)tdt->nblocks;
            b = tdt->blocks;
        }
    }
    amop *o = NULL;
    if (q->op != FM_RMA_AM_POST && q->op != FM_RMA_AM_COMPLETE) {
        if (!(o = malloc(sizeof *o)))
            return FM_ERR_NOMEM;
        *o = (amop){w, trank, 1, q->rbuf, q->rcount, q->rdt};
        if (o->rdt)
            fm_dt_retain(o->rdt);
    }
    /* A piece's bytes: its data (twice for cas), or what it fetches. */
    size_t total = (size_t)(h.tcount * h.size), medium = fm_am_max_medium();
    /* Pieces end on element boundaries where the target applies whole
     * elements: accumulates, and predefined layouts (pair types have gaps). */
    size_t unit = q->op == FM_RMA_AM_ACC || q->op == FM_RMA_AM_CAS ? (size_t)fm_rma_kind_dt(h.kind)->size
                  : h.predef                                       ? (size_t)h.size
                                                                   : 1;
    size_t room = medium - sizeof h - (size_t)h.nblocks * sizeof *b;
    int rc;
    if (!h.nblocks || sizeof h + (size_t)h.nblocks * sizeof *b <= medium / 2) {
        rc = send_pieces(w, trank, &h, b, q, 0, total, h.twice ? room / 2 : room, unit, o);
    } else {
        /* Too many blocks to send with the data: run by run, each a
         * contiguous layout at its own shift. */
        piece_hdr r = h;
        r.nblocks = 0;
        r.predef = 0;
        r.true_lb = 0;
        r.tcount = 1;
        room = medium - sizeof h;
        size_t pos = 0;
        rc = FM_OK;
        for (int64_t i = 0; i < h.tcount && rc == FM_OK; i++)
            for (int k = 0; k < h.nblocks && rc == FM_OK; k++)
                for (MPI_Aint j = 0; j < b[k].count && rc == FM_OK; j++) {
                    r.shift = i * h.extent + b[k].off + j * b[k].stride;
                    r.size = b[k].len;
                    rc = send_pieces(w, trank, &r, NULL, q, pos, (size_t)b[k].len, room, unit, o);
                    pos += (size_t)b[k].len;
                }
    }
    if (o) /* the issuing reference: the last if answered already, or nothing went */
        amop_drop(o);
    return rc;
}
