/* am.c — active messages for windows, target side: requests from OFI
 * origins applied to this rank's own window memory with the code a local
 * origin uses (so accumulates from both stay atomic with each other), and
 * the answers that complete them at the origin.
 *
 * Served from the OFI progress hook, i.e. whenever this rank makes progress
 * in any MPI call; a target busy outside MPI delays its origins. */
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "pt2pt/pt2pt.h"
#include "rma/rma.h"
#include "util/log.h"
#include "util/status.h"

/* Answers still being sent (their buffers), and locks not yet grantable. */
typedef struct answer {
    struct fm_request *r;
    void *buf;
    struct answer *next;
} answer;

typedef struct waiter {
    struct fm_win *w;
    int origin, exclusive, tag;
    struct waiter *next;
} waiter;

static answer *answers;
static waiter *waiters;

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

static void answer_send(struct fm_win *w, int origin, int tag, void *buf, size_t len)
{
    if (!tag) {
        free(buf);
        return;
    }
    answer *a = malloc(sizeof *a);
    struct fm_request *r = NULL;
    int rc = a ? fm_isend(buf, (MPI_Count)len, MPI_BYTE, origin, tag, w->comm, 0, FM_SEND_STD, &r)
               : FM_ERR_NOMEM;
    if (rc != FM_OK) {
        /* The origin would wait for ever: say why before it hangs. */
        fm_error_msg("window: cannot answer rank %d: %s", origin, fm_status_msg(rc));
        free(a);
        free(buf);
        return;
    }
    *a = (answer){r, buf, answers};
    answers = a;
}

/* Visit the target regions of h at t: fn(ctx, address, bytes) in type-map
 * order. */
typedef void region_fn(void *ctx, unsigned char *p, size_t len);
static void regions(const fm_rma_am_hdr *h, const fm_dt_block *b, uintptr_t t, region_fn *fn,
                    void *ctx)
{
    if (!h->nblocks) {
        fn(ctx, (unsigned char *)t + h->true_lb, (size_t)(h->tcount * h->size));
        return;
    }
    for (int64_t i = 0; i < h->tcount; i++)
        for (int k = 0; k < h->nblocks; k++)
            for (MPI_Aint j = 0; j < b[k].count; j++)
                fn(ctx, (unsigned char *)t + i * h->extent + b[k].off + j * b[k].stride,
                   (size_t)b[k].len);
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
    memcpy(p, s->data + s->pos, len);
    s->pos += len;
}

static void get_fn(void *c, unsigned char *p, size_t len)
{
    stream *s = c;
    memcpy(s->data + s->pos, p, len);
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

static void grant_locks(struct fm_win *w)
{
    for (waiter **pp = &waiters; *pp;) {
        waiter *q = *pp;
        if (q->w != w || !fm_rma_try_lock(w->peer[w->rank].ctl, q->exclusive)) {
            pp = &q->next;
            continue;
        }
        *pp = q->next;
        answer_send(w, q->origin, q->tag, NULL, 0);
        free(q);
    }
}

static void handle(struct fm_win *w, int src, unsigned char *m, size_t len)
{
    fm_rma_am_hdr h;
    if (len < sizeof h)
        return;
    memcpy(&h, m, sizeof h);
    const fm_dt_block *b = (const fm_dt_block *)(m + sizeof h);
    unsigned char *data = m + sizeof h + (size_t)h.nblocks * sizeof(fm_dt_block);
    fm_rma_ctl *me = w->peer[w->rank].ctl;
    uintptr_t t = fm_rma_target(w, w->rank, (MPI_Aint)h.tdisp);
    size_t bytes = (size_t)(h.tcount * h.size);
    MPI_Datatype pdt = h.predef ? fm_rma_kind_dt(h.kind) : NULL;
    switch (h.op) {
    case FM_RMA_AM_PUT:
        if (pdt)
            fm_dt_unpack((void *)t, (MPI_Count)h.tcount, pdt, 0, data, (size_t)h.bytes);
        else
            regions(&h, b, t, put_fn, &(stream){.data = data});
        answer_send(w, src, h.reply_tag, NULL, 0);
        return;
    case FM_RMA_AM_GET: {
        unsigned char *out = malloc(bytes ? bytes : 1);
        if (out && pdt)
            fm_dt_pack((void *)t, (MPI_Count)h.tcount, pdt, 0, out, bytes);
        else if (out)
            regions(&h, b, t, get_fn, &(stream){.data = out});
        answer_send(w, src, h.reply_tag, out, out ? bytes : 0);
        return;
    }
    case FM_RMA_AM_ACC: {
        MPI_Op op = fm_rma_am_op(h.aux & 0xff);
        MPI_Datatype edt = fm_rma_kind_dt(h.kind);
        unsigned char *res = malloc(bytes ? bytes : 1);
        if (!op || !edt || !res) {
            free(res);
            answer_send(w, src, h.reply_tag, NULL, 0);
            return;
        }
        const unsigned char *org = h.bytes ? data : NULL;
        if (pdt)
            fm_rma_acc_at(w, t, org, res, (MPI_Count)h.tcount, pdt, op);
        else
            regions(&h, b, t, acc_fn,
                    &(stream){.w = w, .data = (unsigned char *)org, .res = res, .edt = edt, .op = op});
        /* The fetched values go back only to Get_accumulate / Fetch_and_op;
         * the origin posted a receive of the size it wants. */
        answer_send(w, src, h.reply_tag, res, h.aux & FM_RMA_AM_FETCH ? bytes : 0);
        return;
    }
    case FM_RMA_AM_CAS: {
        MPI_Datatype dt = fm_rma_kind_dt(h.kind);
        size_t n = dt ? (size_t)dt->size : 0;
        unsigned char *old = malloc(n ? n : 1);
        if (dt && old && (size_t)h.bytes == 2 * n)
            fm_rma_cas(w, data, data + n, old, dt, w->rank, (MPI_Aint)h.tdisp);
        answer_send(w, src, h.reply_tag, old, n);
        return;
    }
    case FM_RMA_AM_LOCK: {
        waiter *q = malloc(sizeof *q);
        if (!q)
            return;
        *q = (waiter){w, src, (int)h.aux, h.reply_tag, NULL};
        waiter **pp = &waiters; /* FIFO: granted in arrival order */
        while (*pp)
            pp = &(*pp)->next;
        *pp = q;
        grant_locks(w);
        return;
    }
    case FM_RMA_AM_UNLOCK:
        atomic_fetch_sub(&me->lock, h.aux ? FM_RMA_LOCK_EXCL : 1);
        answer_send(w, src, h.reply_tag, NULL, 0);
        grant_locks(w);
        return;
    case FM_RMA_AM_POST:
        atomic_fetch_add(&me->posted[src], 1);
        return;
    case FM_RMA_AM_COMPLETE:
        atomic_fetch_add(&me->completes, 1);
        return;
    default:
        fm_warn("window: unknown active message %u from rank %d", h.op, src);
    }
}

static void reap_answers(int all)
{
    for (answer **pp = &answers; *pp;) {
        answer *a = *pp;
        if (!all && !a->r->done) {
            pp = &a->next;
            continue;
        }
        *pp = a->next;
        fm_wait(a->r, NULL);
        free(a->buf);
        free(a);
    }
}

void fm_rma_am_serve(struct fm_win *w)
{
    if (!w) {
        reap_answers(1);
        return;
    }
    reap_answers(0);
    if (waiters)
        grant_locks(w);
    for (;;) {
        int found = 0;
        MPI_Status st;
        struct fm_message *msg = NULL;
        if (fm_iprobe(MPI_ANY_SOURCE, FM_RMA_TAG_REQ, w->comm, &found, &st, &msg) != FM_OK ||
            !found)
            return;
        size_t len = (size_t)st.fm_count;
        unsigned char *m = malloc(len ? len : 1);
        struct fm_request *r = NULL;
        if (!m || fm_imrecv(m, (MPI_Count)len, MPI_BYTE, msg, &r) != FM_OK) {
            fm_error_msg("window: out of memory receiving a request from rank %d", st.MPI_SOURCE);
            free(m);
            return;
        }
        /* Rendezvous-sized requests need both sides' progress: that goes
         * on inside this wait (only this hook is not re-entered). */
        if (fm_wait(r, NULL) == FM_OK)
            handle(w, st.MPI_SOURCE, m, len);
        free(m);
    }
}
