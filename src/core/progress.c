/* progress.c — poll hooks, deferred operations and the back-off of
 * blocking waits (progress.h). */
#include <sched.h>
#include <time.h>

#include "boot/world.h"
#include "core/cs.h"
#include "core/task.h"
#include "core/progress.h"
#include "core/request.h"
#include "core/vci.h"
#include "util/param.h"
#include "util/status.h"
#include "util/pvar.h"

/* Transports, parked sends, the OFI engine, one-sided completions and the
 * collectives' RMA endpoint: a handful per VCI. */
struct fm_vci fm_vci0 = {.dtail = &fm_vci0.dhead};

static struct fm_vci *const V = &fm_vci0;

int fm_progress_add(fm_progress_hook *hook)
{
    for (int i = 0; i < V->nhooks; i++)
        if (V->hooks[i] == hook)
            return FM_OK;
    if (V->nhooks == FM_VCI_MAX_HOOKS)
        return FM_ERR_NOMEM;
    V->hooks[V->nhooks++] = hook;
    return FM_OK;
}

void fm_progress_remove(fm_progress_hook *hook)
{
    for (int i = 0; i < V->nhooks; i++)
        if (V->hooks[i] == hook) {
            for (int j = i + 1; j < V->nhooks; j++)
                V->hooks[j - 1] = V->hooks[j];
            V->hooks[--V->nhooks] = NULL;
            return;
        }
}

void fm_defer(fm_deferred *d)
{
    d->next = NULL;
    *V->dtail = d;
    V->dtail = &d->next;
    V->ndeferred++;
}

int fm_deferred_count(void) { return V->ndeferred; }

/* Retry parked operations in order until one is refused again. */
static __attribute__((noinline)) int run_deferred(struct fm_vci *v)
{
    int n = 0;
    while (v->dhead) {
        fm_deferred *d = v->dhead;
        /* Unlink first: retry() may park other operations, or free d. */
        v->dhead = d->next;
        if (!v->dhead)
            v->dtail = &v->dhead;
        v->ndeferred--;
        if (d->retry(d) == FM_ERR_AGAIN) {
            /* Back at the head, ahead of anything retry() parked. */
            d->next = v->dhead;
            v->dhead = d;
            if (!d->next)
                v->dtail = &d->next;
            v->ndeferred++;
            break;
        }
        n++;
    }
    return n;
}

int fm_progress_in_hooks;

/* A hook may wait (a window's teardown flushing, a reply that needs room):
 * while one runs, waits keep the lock (fm_cs_yield), or another thread
 * could free what the hook is walking. */
static __attribute__((noinline)) int run_hooks(struct fm_vci *v)
{
    int n = 0;
    fm_progress_in_hooks++;
    for (int i = 0; i < v->nhooks; i++)
        n += v->hooks[i]();
    fm_progress_in_hooks--;
    return n;
}

/* The message path's poll: each transport, then parked sends when there
 * are any, then the hooks (none in a plain two-sided program; the lanes'
 * poll when there are lanes). */
int fm_progress(void)
{
    struct fm_vci *v = V;
    int n = 0;
    FM_PV_INC(progress_polls);
    for (int i = 0; i < v->nnets; i++)
        n += fm_net_poll(v->nets[i], v->deliver);
    if (v->pend_nactive)
        n += v->pend_drain(v);
    if (v->nhooks)
        n += run_hooks(v);
    if (v->dhead)
        n += run_deferred(v);
    return n;
}

/* A lane's poll: its transports and parked sends (it has no hooks and
 * defers nothing). */
static int progress_lane(struct fm_vci *v)
{
    int n = 0;
    FM_PV_INC_AT(&v->pv, progress_polls);
    for (int i = 0; i < v->nnets; i++)
        n += fm_net_poll(v->nets[i], v->deliver);
    FM_PV_ADD_AT(&v->pv, vci_lane_messages, n);
    if (v->pend_nactive)
        n += v->pend_drain(v);
    return n;
}

int fm_progress_lanes_hook(void)
{
    int n = 0;
    for (int i = 1; i <= fm_nlanes; i++)
        n += progress_lane(fm_vcis[i]);
    return n;
}

/* Empty polls of a wait on a lane between its looks at the other VCIs. */
#define FM_LANE_ATTEND_EVERY 256

/* A poll by a thread on lane `mine`: the lane, and every
 * FM_LANE_ATTEND_EVERY empty polls everything else too when it can take it
 * all at once (so traffic nobody else is polling for still moves while it
 * waits). */
static int progress_on_lane(struct fm_vci *mine)
{
    int n = progress_lane(mine);
    if (n || ++mine->idle < FM_LANE_ATTEND_EVERY || !fm_lanes_try_everything(mine))
        return n;
    mine->idle = 0;
    /* Held twice: a wait inside keeps it all rather than hand it over
     * (fm_cs_yield), since this thread's lane call is still running. */
    fm_cs_t.lane = NULL;
    fm_cs_t.depth = 2;
    n = fm_progress(); /* fm_vci0, then every lane (fm_progress_lanes_hook) */
    fm_cs_t.depth = 0;
    fm_cs_t.lane = mine;
    fm_lanes_give_everything(mine);
    return n;
}

int fm_progress_request(const struct fm_request *r)
{
    if (r->vci && fm_cs_t.lane)
        return progress_on_lane(fm_cs_t.lane);
    return fm_progress();
}

void fm_request_wait_lane(struct fm_request *r)
{
    struct fm_vci *mine = fm_cs_t.lane;
    if (!mine) { /* the library lock, or no lock at all: every VCI */
        fm_wait_until(r->done);
        return;
    }
    unsigned spins = 0;
    unsigned long long t0 = fm_pv_ticks();
    do {
        if (!progress_on_lane(mine))
            fm_progress_backoff(&spins);
        else
            spins = 0; /* as fm_wait_until: a poll that handled something */
    } while (!r->done);
    FM_PV_INC_AT(&mine->pv, progress_waits);
    FM_PV_ADD_AT(&mine->pv, progress_wait_time, fm_pv_ticks() - t0);
}

/* Empty polls after which a waiter that is yielding starts to nap: a rank
 * idle this long (a few milliseconds of yields) is waiting for something
 * slow, and its yields cost the ranks doing work on the same core. */
#define FM_NAP_AFTER 5000

int fm_progress_awake;

void fm_progress_backoff(unsigned *spins)
{
    if (__builtin_expect(fm_cs_on, 0)) {
        /* Other threads may be waiting to call in: let them. */
        if (fm_cs_t.lane)
            fm_lane_yield(fm_cs_t.lane);
        else
            fm_cs_yield();
        if (fm_nlanes && fm_cs_t.depth == 1 && !fm_progress_in_hooks)
            fm_lanes_yield_all();
        /* And at the task level, other tasks of this thread. */
        if (fm_task_level)
            fm_task_yield();
    }
    /* Spinning: a pause keeps the waiter from pulling the ring line the
     * sender is writing back and forth (each poll of a line under write
     * costs the sender a coherence round trip). */
    if (fm_param.YIELD == FM_YIELD_NEVER) {
        fm_cpu_relax();
        return;
    }
    unsigned n = ++*spins;
    if (!fm_oversubscribed && n <= (unsigned)fm_param.SPIN_COUNT) {
        fm_cpu_relax();
        return;
    }
    if (n > (unsigned)fm_param.SPIN_COUNT + FM_NAP_AFTER && !fm_progress_awake) {
        struct timespec nap = {0, 50 * 1000}; /* 50 us: wake-up cost stays small */
        unsigned held = fm_cs_suspend();
        nanosleep(&nap, NULL);
        fm_cs_resume(held);
        *spins = (unsigned)fm_param.SPIN_COUNT + FM_NAP_AFTER; /* no wrap-around */
    } else {
        sched_yield();
    }
}
