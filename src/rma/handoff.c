/* handoff.c — small accumulates on Win_create and dynamic windows of this
 * node, applied by the target while it polls.
 *
 * Such window memory is private to the target, so an origin's accumulate
 * (or compare-and-swap) by CMA is a read and a write system call under the
 * stripe locks, about 1.7 us each here. A target inside any MPI call polls
 * its rings every few hundred nanoseconds: sent there as an active message
 * and applied by fm_rma_acc_at (the same stripe locks, so handed-off and
 * CMA updates stay atomic with each other), the operation comes back sooner
 * than one of those calls. A target that is computing must not hold its
 * origins up (passive target progresses without it, rma.h), so the origin
 * takes an operation back when the target has not picked it up in time:
 *
 *   claim word: the origin's control block, slot of the target (fm_rma_claims)
 *     seq<<2 | POSTED     written by the origin before it sends
 *     seq<<2 | TAKEN      compare-and-swapped by the target, which then
 *                         applies and replies
 *     seq<<2 | WITHDRAWN  compare-and-swapped by the origin after
 *                         FABMPI_RMA_HANDOFF_WAIT; it then uses CMA
 *
 * One side wins, so the operation is applied exactly once. A request the
 * target finds withdrawn is dropped; seq is unique per origin process, so a
 * stale request never matches a later window's word. After a withdrawal the
 * origin does not hand off to that target for a while, 4 waits after the
 * first and twice as long after each one in a row (up to QUIET_MAX), so a
 * target computing for long costs one wait per QUIET_MAX, not one per
 * operation, while one that was only late (descheduled for a moment) gets
 * operations again soon. One handoff at a time per target: another thread's
 * operation meanwhile (MPI_THREAD_MULTIPLE) takes CMA. The origin waits for
 * the answer, so the operation is complete on return, as by CMA. While a
 * window hands off, fm_progress_awake is raised: a target napping
 * in a long wait would make every handoff to it time out. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "am/am.h"
#include "core/comm.h"
#include "core/progress.h"
#include "dtype/dtype.h"
#include "rma/rma.h"
#include "util/param.h"
#include "util/pvar.h"
#include "util/status.h"
#include "util/copy.h"

enum { POSTED = 1, TAKEN = 2, WITHDRAWN = 3 };
#define QUIET_MAX_SECONDS 0.1

/* Request arguments; the answer carries A_PEND alone. */
enum { A_WIN, A_ORIGIN, A_SEQ, A_ADDR, A_COUNT, A_WHAT, A_PEND, A_N };
/* A_WHAT: kind | op index << 8 | FETCH, or kind | CAS (A_COUNT 1; the
 * payload is the new value then the compare value). */
#define WHAT_FETCH 0x10000u
#define WHAT_CAS 0x20000u

struct fm_rma_handoff {
    struct fm_win *next;            /* windows that take handoffs here */
    size_t max;                     /* bytes an origin hands off at most */
    struct ho_peer {
        int busy;                   /* a handoff to it is waiting */
        unsigned misses;            /* withdrawals in a row */
        unsigned long long quiet;   /* no handoff to it before this tick */
    } *peer;                        /* [size] */
};

/* An operation handed off, on the origin's stack until answered or taken back. */
typedef struct pending {
    volatile int done;
    int withdrawn;
    unsigned char *rpk;
    size_t bytes;
    unsigned long long deadline;
    _Atomic uint64_t *claim;
    uint64_t seq;
} pending;

static struct fm_win *windows;
static uint64_t last_seq;
static unsigned long long wait_ticks, quiet_max_ticks;
static unsigned char *ans_buf; /* fetched bytes, answered */

static struct fm_win *window_of(uint64_t ctx)
{
    for (struct fm_win *w = windows; w; w = w->ho->next)
        if (w->comm->ctx == ctx)
            return w;
    return NULL;
}

/* ---- target side ---- */

static void on_handoff(fab_am_token_t tok, void *buf, size_t nbytes, const fab_am_arg_t *a,
                       unsigned nargs)
{
    struct fm_win *w = nargs == A_N ? window_of(a[A_WIN]) : NULL;
    if (!w || a[A_ORIGIN] >= (fab_am_arg_t)w->size)
        return; /* nobody here to apply it: the origin takes it back */
    uint64_t want = a[A_SEQ] << 2 | POSTED;
    _Atomic uint64_t *claim = &fm_rma_claims(w->peer[a[A_ORIGIN]].ctl, w->size)[w->rank];
    if (!atomic_compare_exchange_strong(claim, &want, a[A_SEQ] << 2 | TAKEN))
        return; /* taken back: the origin did it by CMA */
    MPI_Datatype dt = fm_rma_kind_dt((int)(a[A_WHAT] & 0xff));
    MPI_Op op = fm_rma_am_op((uint32_t)(a[A_WHAT] >> 8 & 0xff));
    int fetch = (a[A_WHAT] & (WHAT_FETCH | WHAT_CAS)) != 0, ok;
    size_t bytes = dt ? (size_t)a[A_COUNT] * (size_t)dt->size : 0;
    if (a[A_WHAT] & WHAT_CAS) {
        if ((ok = dt && a[A_COUNT] == 1 && nbytes == 2 * bytes))
            fm_rma_cas_at(w, (uintptr_t)a[A_ADDR], buf, (const char *)buf + bytes, ans_buf, bytes);
    } else if ((ok = dt && op && bytes <= fm_am_max_medium() &&
                     (op == MPI_NO_OP || nbytes == bytes))) {
        fm_rma_acc_at(w, (uintptr_t)a[A_ADDR], op == MPI_NO_OP ? NULL : buf,
                      fetch ? ans_buf : NULL, (MPI_Count)a[A_COUNT], dt, op);
    }
    fab_am_arg_t r[2] = {a[A_PEND], (fab_am_arg_t)ok};
    fm_am_internal_reply(ok && fetch ? FM_AM_MEDIUM : FM_AM_SHORT, tok, FM_AM_H_WIN_HANDBACK,
                         ans_buf, ok && fetch ? bytes : 0, NULL, 2, r);
}

/* ---- origin side ---- */

static void on_handback(fab_am_token_t tok, void *buf, size_t nbytes, const fab_am_arg_t *a,
                        unsigned nargs)
{
    (void)tok;
    if (nargs != 2)
        return;
    pending *pd = (pending *)(uintptr_t)a[0];
    if (!a[1])
        pd->withdrawn = 1; /* the target could not apply it (cannot happen between
                              processes of one build): do it by CMA */
    else if (pd->rpk && nbytes == pd->bytes)
        fm_copy(pd->rpk, buf, nbytes);
    pd->done = 1;
}

/* Past the deadline: take the operation back, unless the target has it
 * (then its answer is on the way: wait for that, without a deadline). */
static int taken_back(pending *pd)
{
    if (fm_pv_ticks() < pd->deadline)
        return 0;
    uint64_t want = pd->seq << 2 | POSTED;
    if (atomic_compare_exchange_strong(pd->claim, &want, pd->seq << 2 | WITHDRAWN)) {
        pd->withdrawn = 1;
        return 1;
    }
    pd->deadline = ULLONG_MAX;
    return 0;
}

/* Hand an operation to target trank: a[A_ADDR], a[A_COUNT] and a[A_WHAT]
 * filled in; payload [pay, pay + plen); an answer of rbytes into rpk. */
static int hand_off(struct fm_win *w, int trank, fab_am_arg_t *a, const void *pay, size_t plen,
                    void *rpk, size_t rbytes)
{
    struct ho_peer *hp = &w->ho->peer[trank];
    unsigned long long now = fm_pv_ticks();
    if (hp->busy || now < hp->quiet)
        return FM_ERR_AGAIN;
    pending pd = {.rpk = rpk, .bytes = rbytes, .seq = ++last_seq,
                  .claim = &fm_rma_claims(w->peer[w->rank].ctl, w->size)[trank]};
    atomic_store_explicit(pd.claim, pd.seq << 2 | POSTED, memory_order_release);
    a[A_WIN] = w->comm->ctx;
    a[A_ORIGIN] = (fab_am_arg_t)w->rank;
    a[A_SEQ] = pd.seq;
    a[A_PEND] = (fab_am_arg_t)(uintptr_t)&pd;
    if (fm_am_internal_request(FM_AM_MEDIUM, w->comm->group->world[trank], FM_AM_H_WIN_HANDOFF,
                               pay, plen, NULL, FAB_FLAG_IMMEDIATE, A_N, a) != FAB_OK)
        return FM_ERR_AGAIN; /* no credit or no room now: nothing was sent */
    hp->busy = 1;
    pd.deadline = now + wait_ticks;
    fm_wait_until(pd.done || taken_back(&pd));
    hp->busy = 0;
    if (pd.withdrawn) {
        unsigned long long quiet = wait_ticks << (hp->misses < 20 ? hp->misses + 2 : 22);
        hp->quiet = fm_pv_ticks() + (quiet < quiet_max_ticks ? quiet : quiet_max_ticks);
        hp->misses++;
        FM_PV_INC(rma_handoff_withdrawn);
        return FM_ERR_AGAIN;
    }
    hp->misses = 0;
    FM_PV_INC(rma_handoff);
    return FM_OK;
}

int fm_rma_handoff_acc(struct fm_win *w, int trank, uintptr_t t, const unsigned char *org,
                       unsigned char *rpk, MPI_Count tcount, MPI_Datatype tdt, MPI_Op op)
{
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    if (!w->ho || bytes > w->ho->max || fm_rma_kind_dt(tdt->basic) != tdt)
        return FM_ERR_AGAIN;
    fab_am_arg_t a[A_N];
    a[A_ADDR] = t;
    a[A_COUNT] = (fab_am_arg_t)tcount;
    a[A_WHAT] = (fab_am_arg_t)tdt->basic | fm_rma_am_op_index(op) << 8 | (rpk ? WHAT_FETCH : 0);
    int send = op != MPI_NO_OP;
    return hand_off(w, trank, a, send ? org : NULL, send ? bytes : 0, rpk, rpk ? bytes : 0);
}

int fm_rma_handoff_cas(struct fm_win *w, int trank, uintptr_t t, const void *val,
                       const void *cmp, void *old, MPI_Datatype dt)
{
    size_t n = (size_t)dt->size;
    unsigned char two[32];
    if (!w->ho || n > sizeof two / 2 || fm_rma_kind_dt(dt->basic) != dt)
        return FM_ERR_AGAIN;
    memcpy(two, val, n);
    memcpy(two + n, cmp, n);
    fab_am_arg_t a[A_N];
    a[A_ADDR] = t;
    a[A_COUNT] = 1;
    a[A_WHAT] = (fab_am_arg_t)dt->basic | WHAT_CAS;
    return hand_off(w, trank, a, two, 2 * n, old, n);
}

/* ---- set-up ---- */

int fm_rma_handoff_setup(struct fm_win *w)
{
    if ((w->flavor != MPI_WIN_FLAVOR_CREATE && w->flavor != MPI_WIN_FLAVOR_DYNAMIC) ||
        !fm_param.RMA_HANDOFF || !fm_am_up())
        return FM_OK;
    int any = 0;
    for (int i = 0; i < w->size; i++)
        any |= !w->peer[i].direct && !w->peer[i].remote;
    if (!any)
        return FM_OK;
    size_t medium = fm_am_max_medium();
    if (!ans_buf) {
        if (!(ans_buf = malloc(medium)))
            return FM_ERR_NOMEM;
        double tick = fm_pv_tick_seconds();
        wait_ticks = (unsigned long long)(fm_param.RMA_HANDOFF_WAIT * 1e-6 / tick);
        quiet_max_ticks = (unsigned long long)(QUIET_MAX_SECONDS / tick);
        fm_am_internal_register(FM_AM_H_WIN_HANDOFF, on_handoff);
        fm_am_internal_register(FM_AM_H_WIN_HANDBACK, on_handback);
    }
    struct fm_rma_handoff *ho = calloc(1, sizeof *ho);
    if (!ho || !(ho->peer = calloc((size_t)w->size, sizeof *ho->peer))) {
        free(ho);
        return FM_ERR_NOMEM;
    }
    ho->max = fm_param.RMA_HANDOFF < medium ? fm_param.RMA_HANDOFF : medium;
    ho->next = windows;
    windows = w;
    w->ho = ho;
    fm_progress_awake++;
    return FM_OK;
}

void fm_rma_handoff_teardown(struct fm_win *w)
{
    if (!w->ho)
        return;
    for (struct fm_win **pp = &windows; *pp; pp = &(*pp)->ho->next)
        if (*pp == w) {
            *pp = w->ho->next;
            break;
        }
    fm_progress_awake--;
    free(w->ho->peer);
    free(w->ho);
    w->ho = NULL;
}
