/* sync.c — fence, passive-target locks, PSCW, the acc lock word.
 *
 * Operations complete before they return, so closing an epoch only has to
 * order memory (a seq_cst fence) and tell the peers.  The words live in the
 * peers' control blocks, so nothing here needs the target to make progress.
 * Waits poll the transports too (a lock holder may be waiting for a message
 * from us) and back off the way blocking receives do. */
#include <sched.h>

#include "coll/coll.h"
#include "pt2pt/pt2pt.h"
#include "rma/rma.h"
#include "util/status.h"

/* Spins on a stripe before yielding: it is held for one operation only,
 * so a waiter yields only when the holder is descheduled. */
#define ACC_SPINS 256

uint32_t fm_rma_stripes(const fm_rma_peer *p, uintptr_t lo, uintptr_t hi)
{
    /* Offsets from the peer's base are the same for every origin (and for
     * the target serving an active message), whatever its mapping. */
    uintptr_t a = (lo - p->base) >> FM_RMA_STRIPE_SHIFT;
    uintptr_t b = (hi - 1 - p->base) >> FM_RMA_STRIPE_SHIFT;
    if (hi <= lo)
        b = a;
    if (b - a >= FM_RMA_STRIPES - 1)
        return (uint32_t)((1ull << FM_RMA_STRIPES) - 1);
    uint32_t m = 0;
    for (uintptr_t k = a; k <= b; k++)
        m |= 1u << (k & (FM_RMA_STRIPES - 1));
    return m;
}

void fm_rma_acc_lock(fm_rma_ctl *c, uint32_t mask)
{
    for (int k = 0; mask; k++, mask >>= 1) {
        if (!(mask & 1))
            continue;
        _Atomic uint32_t *w = &c->acc[k].w;
        unsigned spins = 0;
        while (atomic_load_explicit(w, memory_order_relaxed) ||
               atomic_exchange_explicit(w, 1, memory_order_acquire))
            if (++spins >= ACC_SPINS)
                sched_yield();
    }
}

void fm_rma_acc_unlock(fm_rma_ctl *c, uint32_t mask)
{
    for (int k = 0; mask; k++, mask >>= 1)
        if (mask & 1)
            atomic_store_explicit(&c->acc[k].w, 0, memory_order_release);
}

int fm_rma_fence(struct fm_win *w)
{
    /* OFI targets: our operations applied there before anyone leaves. */
    int rc = fm_rma_flush(w, -1);
    atomic_thread_fence(memory_order_seq_cst);
    int r2 = fm_coll_barrier(w->comm);
    rc = rc != FM_OK ? rc : r2;
    atomic_thread_fence(memory_order_seq_cst);
    return rc;
}

int fm_rma_try_lock(fm_rma_ctl *c, int exclusive)
{
    if (exclusive) {
        int64_t z = 0;
        return atomic_compare_exchange_strong(&c->lock, &z, FM_RMA_LOCK_EXCL);
    }
    if (!(atomic_fetch_add(&c->lock, 1) & FM_RMA_LOCK_EXCL))
        return 1;
    atomic_fetch_sub(&c->lock, 1); /* an exclusive holder is in: back out */
    return 0;
}

void fm_rma_lock(struct fm_win *w, int exclusive, int rank)
{
    if (w->peer[rank].remote) {
        fm_rma_remote_lock(w, exclusive, rank);
        return;
    }
    fm_rma_ctl *c = w->peer[rank].ctl;
    fm_wait_until(fm_rma_try_lock(c, exclusive));
}

void fm_rma_unlock(struct fm_win *w, int exclusive, int rank)
{
    if (w->peer[rank].remote) {
        fm_rma_remote_unlock(w, exclusive, rank);
        return;
    }
    /* seq_cst read-modify-write: our stores are visible before the release */
    atomic_fetch_sub(&w->peer[rank].ctl->lock, exclusive ? FM_RMA_LOCK_EXCL : 1);
}

void fm_rma_post(struct fm_win *w, const int *origins, int n)
{
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < n; i++) {
        if (w->peer[origins[i]].remote)
            fm_rma_remote_post(w, origins[i]);
        else
            atomic_fetch_add(&w->peer[origins[i]].ctl->posted[w->rank], 1);
    }
    w->nexpose = n;
}

void fm_rma_start(struct fm_win *w, const int *targets, int n)
{
    fm_rma_ctl *me = w->peer[w->rank].ctl;
    for (int i = 0; i < n; i++) {
        int t = targets[i];
        fm_wait_until(atomic_load_explicit(&me->posted[t], memory_order_acquire) !=
                      w->post_seen[t]);
        w->post_seen[t]++;
    }
}

void fm_rma_complete(struct fm_win *w)
{
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < w->naccess; i++) {
        if (w->peer[w->access[i]].remote)
            fm_rma_remote_complete(w, w->access[i]);
        else
            atomic_fetch_add(&w->peer[w->access[i]].ctl->completes, 1);
    }
    w->naccess = -1;
}

int fm_rma_test(struct fm_win *w)
{
    if (w->rm)
        fm_progress(); /* OFI origins' completions arrive as messages */
    fm_rma_ctl *me = w->peer[w->rank].ctl;
    uint32_t got = atomic_load_explicit(&me->completes, memory_order_acquire) - w->complete_seen;
    if (got < (uint32_t)w->nexpose)
        return 0;
    /* Origins complete only after we posted and we post again only after
     * this, so every completion counted here belongs to this epoch. */
    w->complete_seen += (uint32_t)w->nexpose;
    w->nexpose = -1;
    atomic_thread_fence(memory_order_seq_cst);
    return 1;
}

void fm_rma_wait(struct fm_win *w)
{
    fm_wait_until(fm_rma_test(w));
}
