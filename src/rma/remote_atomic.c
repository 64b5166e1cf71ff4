/* remote_atomic.c — accumulates and compare-and-swap on network peers by
 * the transport's atomics (the fetching and compare forms of
 * net/net_rma.h): which basic types qualify, ordering between atomics to
 * one target, and issuing them in pieces the transport takes.  remote.c
 * holds the rest of the origin side. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "coll/op.h"
#include "core/world.h"
#include "dtype/dtype.h"
#include "pt2pt/pt2pt.h"
#include "rma/remote_int.h"
#include "rma/rma.h"
#include "util/param.h"
#include "util/status.h"
#include "util/pvar.h"

/* ---- accumulates by transport atomics ------------------------------------
 *
 * Safe only when nothing else updates the same memory: a transport atomic
 * and a C11 / stripe-locked update by a rank on the node are not atomic
 * with respect to each other, nor are a provider atomic and an active
 * message for another op of the same type.  So a window uses them only when
 * every rank reaches every other over the network, every rank registered its memory
 * and validated the same basic types (win_setup.c ANDs the masks), and then
 * for every accumulate on those types — all ops, every layout, the target's
 * own accesses to itself included (through its own endpoint). */
static uint64_t hw_mask; /* kinds whose every op the transport validates */
_Static_assert(FM_BK_COUNT <= 64, "windows keep sets of basic kinds in 64-bit masks");
static size_t hw_cnt[FM_BK_COUNT]; /* elements per atomic for that kind */
static int hw_probed;

/* A basic kind as the transport's atomic element type, or -1. */
static int kind_type(int k)
{
    switch (k) {
    case FM_BK_CHAR: /* reduced as signed char, whatever char is (op_kernels.c) */
    case FM_BK_SCHAR: case FM_BK_INT8: return FM_NET_AT_I8;
    case FM_BK_FINT1: return FM_NET_AT_I8;
    case FM_BK_UCHAR: case FM_BK_UINT8: case FM_BK_BYTE: case FM_BK_FCHARACTER: return FM_NET_AT_U8;
    case FM_BK_FINT2: return FM_NET_AT_I16;
    case FM_BK_FINT4: case FM_BK_FLOGICAL: return FM_NET_AT_I32;
    case FM_BK_FINT8: return FM_NET_AT_I64;
    case FM_BK_BOOL: return sizeof(_Bool) == 1 ? FM_NET_AT_U8 : -1;
    case FM_BK_SHORT: case FM_BK_INT16: return FM_NET_AT_I16;
    case FM_BK_USHORT: case FM_BK_UINT16: return FM_NET_AT_U16;
    case FM_BK_INT: case FM_BK_INT32: return FM_NET_AT_I32;
    case FM_BK_UINT: case FM_BK_UINT32: return FM_NET_AT_U32;
    case FM_BK_LONG: return sizeof(long) == 8 ? FM_NET_AT_I64 : FM_NET_AT_I32;
    case FM_BK_ULONG: return sizeof(long) == 8 ? FM_NET_AT_U64 : FM_NET_AT_U32;
    case FM_BK_LLONG: case FM_BK_INT64: return FM_NET_AT_I64;
    case FM_BK_ULLONG: case FM_BK_UINT64: return FM_NET_AT_U64;
    case FM_BK_WCHAR:
        return sizeof(wchar_t) == 4 ? (WCHAR_MIN < 0 ? FM_NET_AT_I32 : FM_NET_AT_U32) : -1;
    case FM_BK_FLOAT: return FM_NET_AT_FLOAT;
    case FM_BK_DOUBLE: return FM_NET_AT_DOUBLE;
    case FM_BK_LDOUBLE: return FM_NET_AT_LDOUBLE;
    case FM_BK_FCOMPLEX: return FM_NET_AT_FCOMPLEX;
    case FM_BK_DCOMPLEX: return FM_NET_AT_DCOMPLEX;
    case FM_BK_LDCOMPLEX: return FM_NET_AT_LDCOMPLEX;
    default: return -1; /* value-index pairs, 128-bit kinds: always active messages */
    }
}

static int aop_of(MPI_Op op)
{
    if (op == MPI_SUM) return FM_NET_AOP_SUM;
    if (op == MPI_PROD) return FM_NET_AOP_PROD;
    if (op == MPI_MAX) return FM_NET_AOP_MAX;
    if (op == MPI_MIN) return FM_NET_AOP_MIN;
    if (op == MPI_LAND) return FM_NET_AOP_LAND;
    if (op == MPI_LOR) return FM_NET_AOP_LOR;
    if (op == MPI_LXOR) return FM_NET_AOP_LXOR;
    if (op == MPI_BAND) return FM_NET_AOP_BAND;
    if (op == MPI_BOR) return FM_NET_AOP_BOR;
    if (op == MPI_BXOR) return FM_NET_AOP_BXOR;
    if (op == MPI_REPLACE) return FM_NET_AOP_WRITE;
    return FM_NET_AOP_READ; /* MPI_NO_OP */
}

/* A kind qualifies only if every op MPI defines on it, REPLACE, NO_OP
 * (all in the fetching form, the only one used) and, where allowed,
 * compare-and-swap are valid: one op falling back to active messages would break atomicity
 * with the others on the same location. */
static void hw_probe(fm_net *net)
{
    if (hw_probed)
        return;
    hw_probed = 1;
    const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND,
                          MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
    for (int k = 1; k < FM_BK_COUNT; k++) {
        int type = kind_type(k);
        MPI_Datatype dt = fm_rma_kind_dt(k);
        if (type < 0 || !dt)
            continue;
        size_t c = (size_t)-1, n;
#define NEED(form, aop)                                                           \
    do {                                                                          \
        if (!(n = fm_net_rma_atomic_count(net, form, type, aop)))                 \
            goto next;                                                            \
        c = n < c ? n : c;                                                        \
    } while (0)
        for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
            if (fm_op_check(ops[i], dt) == FM_OK)
                NEED(FM_NET_ATOMIC_FETCH, aop_of(ops[i]));
        NEED(FM_NET_ATOMIC_FETCH, FM_NET_AOP_WRITE);
        NEED(FM_NET_ATOMIC_FETCH, FM_NET_AOP_READ);
        if (fm_op_cas_check(dt) == FM_OK)
            NEED(FM_NET_ATOMIC_COMPARE, FM_NET_AOP_CSWAP);
#undef NEED
        hw_mask |= (uint64_t)1 << k;
        hw_cnt[k] = c;
    next:;
    }
}

uint64_t fm_rma_hw_kinds(int *why)
{
    if (fm_param.RMA_ATOMICS == FM_RMA_ATOMICS_AM) {
        *why = FM_RMA_HW_KNOB;
        return 0;
    }
    fm_net *net = fm_xfer_net();
    if (net && net->rma_distrust) {
        *why = FM_RMA_HW_QUIRK;
        return 0;
    }
    if (net)
        hw_probe(net);
    *why = hw_mask ? FM_RMA_HW_OK : FM_RMA_HW_PROVIDER;
    return hw_mask;
}

const char *fm_rma_hw_distrust_why(void)
{
    fm_net *net = fm_xfer_net();
    return net ? net->rma_distrust : NULL;
}

int fm_rma_hw_self(struct fm_win *w, const fm_region_net_card *card)
{
    fm_rma_peer *self = &w->peer[w->rank];
    if (!fm_region_reach(fm_world_rank, card))
        return FM_ERR_NET;
    self->world = fm_world_rank;
    self->key = card->key;
    self->raddr = card->raddr;
    return FM_OK;
}

/* Does an atomic that reads (rd) and/or writes (wr) the target have to
 * wait for those in flight to trank?  MPI orders accumulates from one
 * origin to one location as the accumulate_ordering hint says (default
 * all four: a fetch after a replace must see the replacement); a
 * transport completes atomics in any order unless it says it orders them
 * (FM_NET_RMA_ATOMICS_ORDERED; libfabric's shm orders only sends).
 * Counting per target rather than per location: waiting is only ever too
 * strict. */
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
    if (w->rm->net->rma_caps & FM_NET_RMA_ATOMICS_ORDERED)
        return;
    fm_wait_until(!hw_conflict(w, t, rd, wr));
}

/* Operations on ourselves complete before returning. */
static void hw_drain(struct fm_win *w, int trank)
{
    tgt *t = &w->rm->t[trank];
    fm_wait_until(!t->inflight);
}

static int hw_issue(struct fm_win *w, int trank, int kind, int rw, const void *buf, size_t count,
                    size_t esz, const void *cmp, void *res, uint64_t off, int type, int aop,
                    xgrp *g)
{
    fm_rma_peer *p = &w->peer[trank];
    xop *x = fm_rma_xop_new(w, trank, rw, g);
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
    x->x.kind = FM_XFER_ATOMIC + kind;
    x->x.buf = buf;
    x->x.cmp = cmp;
    x->x.res = res;
    x->x.count = count;
    x->x.raddr = p->raddr + off;
    x->x.type = type;
    x->x.aop = aop;
    int rc = fm_rma_xop_post(x);
    if (rc != FM_OK) {
        fm_rma_xop_drop(x);
        return rc;
    }
    tgt *t = &w->rm->t[trank];
    t->inflight++;
    t->reads += (rw & XOP_READS) != 0;
    t->writes += (rw & XOP_WRITES) != 0;
    return FM_OK;
}

int fm_rma_hw_acc(struct fm_win *w, const void *obuf, MPI_Count ocount, MPI_Datatype odt,
                  void *res, MPI_Count rcount, MPI_Datatype rdt, int trank, MPI_Aint tdisp,
                  MPI_Count tcount, MPI_Datatype tdt, MPI_Op op)
{
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    if (!bytes || (op == MPI_NO_OP && !res))
        return FM_OK;
    FM_PV_INC(rma_net_atomic);
    int k = tdt->basic;
    size_t esz = (size_t)fm_rma_kind_dt(k)->size, maxc = hw_cnt[k];
    int type = kind_type(k), aop = aop_of(op);
    /* Always the fetching form: libfabric 1.17's shm provider writes the
     * answer of a plain fi_atomic under FI_DELIVERY_COMPLETE back into the
     * origin buffer (found here: corrupted origin stacks, lost updates), so
     * plain accumulates fetch into scratch (inline in the op when small). */
    int kind = FM_NET_ATOMIC_FETCH;
    void *heap = NULL, *tmp = NULL;
    const unsigned char *data = NULL;
    if (op != MPI_NO_OP && !(data = fm_rma_packed(obuf, ocount, odt, bytes, &heap)))
        return FM_ERR_NOMEM;
    unsigned char *rbuf = NULL;
    if (res && fm_dt_is_contig(rdt))
        rbuf = (unsigned char *)res + rdt->true_lb;
    else if ((res || bytes > HW_INLINE) && !(rbuf = tmp = malloc(bytes))) {
        free(heap);
        return FM_ERR_NOMEM;
    }
    xgrp *g = fm_rma_grp_new(tmp, heap, res, res && tmp ? rcount : 0, res && tmp ? rdt : NULL);
    if ((tmp || heap) && !g) {
        free(tmp);
        free(heap);
        return FM_ERR_NOMEM;
    }
    int rw = (res ? XOP_READS : 0) | (op != MPI_NO_OP ? XOP_WRITES : 0);
    hw_order(w, trank, rw & XOP_READS, rw & XOP_WRITES);
    const fm_rma_peer *p = &w->peer[trank];
    const fm_dt_block one = {tdt->true_lb, (MPI_Aint)bytes, 1, 0};
    int contig = fm_dt_is_contig(tdt);
    const fm_dt_block *b = contig ? &one : tdt->blocks;
    int nb = contig ? 1 : tdt->nblocks;
    MPI_Count reps = contig ? 1 : tcount;
    uint64_t base = (uint64_t)(tdisp * p->disp_unit);
    size_t pos = 0;
    int rc = FM_OK;
    for (MPI_Count i = 0; i < reps && rc == FM_OK; i++)
        for (int j = 0; j < nb && rc == FM_OK; j++)
            for (MPI_Aint k = 0; k < b[j].count && rc == FM_OK; k++) {
                uint64_t off = base + (uint64_t)(i * tdt->extent + b[j].off + k * b[j].stride);
                size_t n = (size_t)b[j].len / esz;
                for (size_t e = 0; e < n && rc == FM_OK;) {
                    size_t c = n - e < maxc ? n - e : maxc;
                    /* NO_OP reads: buf is not read, any valid address does */
                    const void *src =
                        data ? (const void *)(data + pos) : (const void *)(rbuf + pos);
                    rc = hw_issue(w, trank, kind, rw, src, c, esz, NULL, rbuf ? rbuf + pos : NULL,
                                  off + e * esz, type, aop, g);
                    e += c;
                    pos += c * esz;
                }
            }
    fm_rma_grp_put(g, rc);
    if (trank == w->rank)
        hw_drain(w, trank);
    return rc;
}

int fm_rma_hw_cas(struct fm_win *w, const void *obuf, const void *cmp, void *res,
                  MPI_Datatype dt, int trank, MPI_Aint tdisp)
{
    hw_order(w, trank, 1, 1);
    FM_PV_INC(rma_net_atomic);
    uint64_t off = (uint64_t)(tdisp * w->peer[trank].disp_unit + dt->true_lb);
    int rc = hw_issue(w, trank, FM_NET_ATOMIC_COMPARE, XOP_READS | XOP_WRITES,
                      (const char *)obuf + dt->true_lb, 1, (size_t)dt->size,
                      (const char *)cmp + dt->true_lb, (char *)res + dt->true_lb, off,
                      kind_type(dt->basic), FM_NET_AOP_CSWAP, NULL);
    if (trank == w->rank)
        hw_drain(w, trank);
    return rc;
}
