/* remote.c — window operations on peers reached over the network, origin
 * side: registration at setup, one-sided writes and reads through the
 * transport's one-sided contract (net/net_rma.h), what goes by active
 * messages instead (am.c), and per-target completion counting for flushes.
 *
 * Each network target has a count of active-message pieces not answered
 * yet and one of one-sided operations not yet completed.  A flush of that
 * target progresses until both are zero; nothing else waits, so a flush of
 * one target never waits for another's operations. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/progress.h"
#include "core/transports.h"
#include "core/world.h"
#include "dtype/dtype.h"
#include "core/comm.h"
#include "pt2pt/pt2pt.h"
#include "rma/remote_int.h"
#include "rma/rma.h"
#include "util/status.h"
#include "util/pvar.h"

static struct fm_win *served;  /* windows with network peers */
static int held;               /* of the one-sided transport (am/xfer.h), for them */
static int in_hook;

struct fm_win *fm_rma_served(void) { return served; }

/* Progress hook while a window has network peers: locks queued at our
 * windows (the one-sided completions are am/xfer.h's). */
static int hook(void)
{
    if (in_hook)
        return 0;
    in_hook = 1;
    for (struct fm_win *w = served; w; w = w->rm->next)
        fm_rma_am_serve(w);
    in_hook = 0;
    return 0;
}

void fm_rma_remote_prepare(struct fm_win *w, void *base, size_t len, fm_region_net_card *card)
{
    memset(card, 0, sizeof *card);
    if (!fm_xfer_net() || !len || w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return; /* dynamic windows: active messages (no key per attach to publish) */
    w->rm = calloc(1, sizeof *w->rm);
    if (!w->rm)
        return;
    fm_region_wrap(&w->rm->region, base, len);
    fm_region_register(&w->rm->region, card);
    if (!card->ok) {
        free(w->rm);
        w->rm = NULL;
        return;
    }
    w->rm->net = w->rm->region.net;
}

void fm_rma_remote_peer(struct fm_win *w, int i, const fm_region_net_card *card)
{
    fm_rma_peer *p = &w->peer[i];
    p->remote = 1;
    p->direct = 0;
    p->base = 0;
    p->world = w->comm->group->world[i];
    p->key = card->key;
    p->raddr = card->raddr;
    p->rma = fm_region_reach(p->world, card);
}

int fm_rma_remote_setup(struct fm_win *w)
{
    int any = 0;
    for (int i = 0; i < w->size; i++)
        any |= w->peer[i].remote;
    if (!any)
        return FM_OK;
    if (!w->rm && !(w->rm = calloc(1, sizeof *w->rm)))
        return FM_ERR_NOMEM;
    w->rm->t = calloc((size_t)w->size, sizeof *w->rm->t);
    if (!w->rm->t)
        return FM_ERR_NOMEM;
    int rc = fm_rma_am_init();
    if (rc != FM_OK)
        return rc;
    if (!w->rm->net)
        w->rm->net = fm_xfer_net();
    if (w->rm->net && !held) {
        if ((rc = fm_xfer_hold()) != FM_OK)
            return rc;
        held = 1;
    }
    w->rm->next = served;
    served = w;
    fm_progress_awake++; /* origins wait on our polls (lock grants, active messages) */
    return fm_progress_add(hook);
}

void fm_rma_remote_teardown(struct fm_win *w)
{
    struct fm_rma_remote *rm = w->rm;
    if (!rm)
        return;
    for (struct fm_win **pp = &served; *pp; pp = &(*pp)->rm->next)
        if (*pp == w) {
            *pp = rm->next;
            fm_progress_awake--;
            break;
        }
    if (!served) {
        fm_progress_remove(hook);
        if (held)
            fm_xfer_release();
        held = 0;
    }
    if (rm->t) {
        fm_rma_flush(w, -1);
        free(rm->t);
    }
    fm_region_deregister(&rm->region); /* the memory is the window's */
    free(rm);
    w->rm = NULL;
}

static int net_xfer(struct fm_win *w, int write, int trank, char *buf, size_t len, uint64_t off,
                    xgrp *g);

/* One look at target i during a flush (a failure goes to *rc): 1 once
 * nothing is outstanding and, where writes complete before they land, a
 * read ordered behind them has completed too. */
static int flush_done(struct fm_win *w, int i, int *rc, int *read_behind)
{
    int e;
    if (w->rm->t[i].am_out || w->rm->t[i].inflight)
        return 0;
    /* Writes whose completion does not mean "landed": a read of a byte
     * they wrote, ordered behind them, does. */
    if (!*read_behind && w->rm->t[i].wrote && (w->rm->net->rma_caps & FM_NET_RMA_FLUSH_BY_READ)) {
        static char sink;
        *read_behind = 1;
        e = net_xfer(w, 0, i, &sink, 1, w->rm->t[i].last_off, NULL);
        if (e == FM_OK)
            return 0;
        if (*rc == FM_OK)
            *rc = e;
    }
    w->rm->t[i].wrote = 0;
    return 1;
}

int fm_rma_flush(struct fm_win *w, int rank)
{
    if (!w->rm || !w->rm->t)
        return FM_OK;
    int lo = rank < 0 ? 0 : rank, hi = rank < 0 ? w->size : rank + 1, rc = FM_OK;
    for (int i = lo; i < hi; i++) {
        int read_behind = 0;
        if (w->peer[i].remote)
            fm_wait_until(flush_done(w, i, &rc, &read_behind));
    }
    if (rc == FM_OK && w->rm->err)
        rc = w->rm->err;
    w->rm->err = FM_OK;
    return rc;
}

const void *fm_rma_packed(const void *obuf, MPI_Count ocount, MPI_Datatype odt, size_t bytes,
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

xgrp *fm_rma_grp_new(void *tmp, void *heap, void *obuf, MPI_Count ocount, MPI_Datatype odt)
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

void fm_rma_grp_put(xgrp *g, int status)
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

static void xop_done(fm_net_rma_op *o, int status)
{
    xop *x = (xop *)(void *)o;
    if (status != FM_OK && x->w->rm->err == FM_OK)
        x->w->rm->err = status;
    tgt *t = &x->w->rm->t[x->trank];
    t->inflight--;
    t->reads -= (x->atomic & XOP_READS) != 0;
    t->writes -= (x->atomic & XOP_WRITES) != 0;
    fm_rma_grp_put(x->g, status);
    free(x);
}

xop *fm_rma_xop_new(struct fm_win *w, int trank, int atomic, xgrp *g)
{
    xop *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->x.op.done = xop_done;
    x->w = w;
    x->trank = trank;
    x->atomic = atomic;
    x->g = g;
    if (g)
        g->refs++;
    return x;
}

void fm_rma_xop_drop(xop *x)
{
    if (x->g)
        x->g->refs--;
    free(x);
}

int fm_rma_xop_post(xop *x)
{
    const fm_rma_peer *p = &x->w->peer[x->trank];
    x->x.world = p->world;
    x->x.key = p->key;
    return fm_xfer_post(&x->x);
}

/* One-sided write / read of a contiguous target run, in pieces the
 * transport takes; a piece it cannot take yet is parked (fm_rma_xop_post). */
static int net_xfer(struct fm_win *w, int write, int trank, char *buf, size_t len, uint64_t off,
                    xgrp *g)
{
    fm_rma_peer *p = &w->peer[trank];
    size_t max = w->rm->net->rma_max;
    size_t done = 0;
    do {
        size_t n = len - done < max ? len - done : max;
        xop *x = fm_rma_xop_new(w, trank, 0, g);
        if (!x)
            return FM_ERR_NOMEM;
        x->x.kind = write ? FM_XFER_WRITE : FM_XFER_READ;
        x->x.buf = buf + done;
        x->x.count = n;
        x->x.raddr = p->raddr + off + done;
        int rc = fm_rma_xop_post(x);
        if (rc != FM_OK) {
            fm_rma_xop_drop(x);
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
    const void *data = fm_rma_packed(obuf, ocount, odt, bytes, &heap);
    if (!data)
        return FM_ERR_NOMEM;
    if (rma_ok(w, trank, tdisp, tdt)) {
        uint64_t off = (uint64_t)(tdisp * w->peer[trank].disp_unit + tdt->true_lb);
        xgrp *g = fm_rma_grp_new(NULL, heap, NULL, 0, NULL);
        if (heap && !g) {
            free(heap);
            return FM_ERR_NOMEM;
        }
        FM_PV_INC(rma_net);
        int rc = net_xfer(w, 1, trank, (char *)(uintptr_t)data, bytes, off, g);
        fm_rma_grp_put(g, rc);
        return rc;
    }
    FM_PV_INC(rma_am);
    /* The target receives as many bytes as the shorter side has. */
    MPI_Count n = (MPI_Count)(bytes / (size_t)tdt->size);
    int rc = fm_rma_am_send(w, trank, &(fm_rma_am_req){.op = FM_RMA_AM_PUT, .tdisp = tdisp,
                                                       .tcount = n, .tdt = tdt, .data = data});
    free(heap);
    return rc;
}

int fm_rma_remote_get(struct fm_win *w, void *obuf, MPI_Count ocount, MPI_Datatype odt,
                      int trank, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype tdt)
{
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    if (!bytes)
        return FM_OK;
    if (rma_ok(w, trank, tdisp, tdt)) {
        FM_PV_INC(rma_net);
        uint64_t off = (uint64_t)(tdisp * w->peer[trank].disp_unit + tdt->true_lb);
        if (fm_dt_is_contig(odt) && (size_t)ocount * (size_t)odt->size >= bytes)
            return net_xfer(w, 0, trank, (char *)obuf + odt->true_lb, bytes, off, NULL);
        void *tmp = malloc(bytes);
        xgrp *g = tmp ? fm_rma_grp_new(tmp, NULL, obuf, ocount, odt) : NULL;
        if (!g) {
            free(tmp);
            return FM_ERR_NOMEM;
        }
        int rc = net_xfer(w, 0, trank, tmp, bytes, off, g);
        fm_rma_grp_put(g, rc); /* on failure: nothing unpacked */
        return rc;
    }
    FM_PV_INC(rma_am);
    return fm_rma_am_send(w, trank, &(fm_rma_am_req){.op = FM_RMA_AM_GET, .tdisp = tdisp,
                                                     .tcount = tcount, .tdt = tdt, .rbuf = obuf,
                                                     .rcount = ocount, .rdt = odt});
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
                 fm_dt_kind_is_pair(tdt->basic)))
        return FM_ERR_UNSUPPORTED;
    void *heap = NULL;
    const void *data = NULL;
    if (op != MPI_NO_OP && !(data = fm_rma_packed(obuf, ocount, odt, bytes, &heap)))
        return FM_ERR_NOMEM;
    FM_PV_INC(rma_am);
    int rc = fm_rma_am_send(
        w, trank,
        &(fm_rma_am_req){.op = FM_RMA_AM_ACC,
                         .aux = fm_rma_am_op_index(op) | (res ? FM_RMA_AM_FETCH : 0),
                         .tdisp = tdisp, .tcount = tcount, .tdt = tdt,
                         .data = data, .rbuf = res, .rcount = rcount, .rdt = res ? rdt : NULL});
    free(heap);
    return rc;
}

int fm_rma_remote_cas(struct fm_win *w, const void *obuf, const void *cmp, void *res,
                      MPI_Datatype dt, int trank, MPI_Aint tdisp)
{
    FM_PV_INC(rma_am);
    return fm_rma_am_send(w, trank,
                          &(fm_rma_am_req){.op = FM_RMA_AM_CAS, .tdisp = tdisp,
                                           .tcount = 1, .tdt = dt,
                                           .data = (const char *)obuf + dt->true_lb,
                                           .data2 = (const char *)cmp + dt->true_lb, .rbuf = res,
                                           .rcount = 1, .rdt = dt});
}

int fm_rma_remote_lock(struct fm_win *w, int exclusive, int rank)
{
    int rc = fm_rma_am_send(w, rank,
                            &(fm_rma_am_req){.op = FM_RMA_AM_LOCK, .aux = (uint32_t)exclusive});
    return rc != FM_OK ? rc : fm_rma_flush(w, rank); /* the answer is the grant */
}

int fm_rma_remote_unlock(struct fm_win *w, int exclusive, int rank)
{
    int rc = fm_rma_flush(w, rank);
    int r2 = fm_rma_am_send(w, rank,
                            &(fm_rma_am_req){.op = FM_RMA_AM_UNLOCK, .aux = (uint32_t)exclusive});
    /* Answered: the unlock is done at the target when this returns. */
    if (r2 == FM_OK)
        r2 = fm_rma_flush(w, rank);
    return rc != FM_OK ? rc : r2;
}

int fm_rma_remote_post(struct fm_win *w, int origin)
{
    return fm_rma_am_send(w, origin, &(fm_rma_am_req){.op = FM_RMA_AM_POST});
}

int fm_rma_remote_complete(struct fm_win *w, int target)
{
    /* The target's Win_wait returns on this message: everything before it
     * must have been applied there. */
    int rc = fm_rma_flush(w, target);
    int r2 = fm_rma_am_send(w, target, &(fm_rma_am_req){.op = FM_RMA_AM_COMPLETE});
    return rc != FM_OK ? rc : r2;
}
