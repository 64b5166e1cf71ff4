/* progress.h — the one owner of progress and of waiting.
 *
 * fm_progress() polls the VCI's transports (core/vci.h), drains parked
 * sends when there are any, runs every registered poll hook once (the
 * provider-matching engine, one-sided completions and active messages),
 * then the deferred operations: work a transport refused with FM_ERR_AGAIN,
 * parked here instead of being retried in a loop inside an MPI call.  Every blocking wait is fm_wait_until(cond):
 * poll, and on an empty poll back off (spin with a pause, then yield, then
 * nap, as the node's load asks).
 *
 * This is where later waiting strategies plug in: a blocked task's
 * crt_wait/crt_signal, a futex sleep, a progress thread calling
 * fm_progress(), and collective schedules as hooks or deferred work. */
#ifndef FM_CORE_PROGRESS_H
#define FM_CORE_PROGRESS_H

#include "core/cs.h"
#include "util/pvar.h"

/* A poll hook: handles what has arrived or completed; returns how many
 * events it handled (0: nothing to do).  A hook may call fm_progress()
 * only if it guards itself against being re-entered. */
typedef int fm_progress_hook(void);

/* Add a hook (idempotent); hooks run in the order added.  FM_OK, or
 * FM_ERR_NOMEM when the table is full. */
int fm_progress_add(fm_progress_hook *hook);
/* Remove a hook (no-op if absent). */
void fm_progress_remove(fm_progress_hook *hook);

/* An operation a transport could not take yet.  retry() posts it again:
 * FM_ERR_AGAIN keeps it parked (and everything parked after it, so
 * operations leave in the order they were parked); any other status ends
 * its stay and the operation owns the outcome. */
typedef struct fm_deferred {
    struct fm_deferred *next;
    int (*retry)(struct fm_deferred *d);
} fm_deferred;

/* Park d at the tail of the deferred queue; fm_progress() retries it. */
void fm_defer(fm_deferred *d);
/* Operations parked and not yet taken (for waits that need them gone). */
int fm_deferred_count(void);

/* Run every hook once, then retry parked operations; returns the events
 * handled (0: an empty poll). */
int fm_progress(void);

/* The progress thread (FABMPI_PROGRESS_THREAD, progress_thread.c): start
 * turns the library lock on (core/cs.h); stop joins the thread, and turns
 * the lock off again unless keep_lock (MPI_THREAD_MULTIPLE still needs it). */
int fm_progress_thread_start(void);
void fm_progress_thread_stop(int keep_lock);

/* The blocking-wait back-off: call once per empty poll; *spins starts at 0. */
void fm_progress_backoff(unsigned *spins);
/* > 0 while other ranks may wait on this one's polls without it waiting on
 * them (it is the target of windows over the network, or has active-message
 * handlers): a long wait then keeps polling instead of napping, since each
 * nap delays an origin's every request. */
extern int fm_progress_awake;

/* Lanes (core/vci.h).  fm_progress() polls fm_vci0, and every lane
 * through this hook (added while there are lanes): for a thread holding
 * the library lock, or any thread below MPI_THREAD_MULTIPLE.  A thread
 * holding a lane's lock alone must poll only that lane: a wait for one of
 * its requests goes through fm_request_wait_lane, one poll for it through
 * fm_progress_request (fm_progress() otherwise). */
int fm_progress_lanes_hook(void);
struct fm_request;
void fm_request_wait_lane(struct fm_request *r);
int fm_progress_request(const struct fm_request *r);

/* Progress until cond holds: the only blocking loop.  cond is evaluated
 * before every poll.  A poll that handled something starts the back-off
 * over: a waiter serving other ranks (their active messages, handed-off
 * accumulates, lock requests) is not idle, and yielding between their
 * requests would add a system call to each.  A wait that polls is
 * counted and timed (MPI_T's progress_waits, progress_wait_time); one
 * already satisfied costs nothing more.  At MPI_THREAD_MULTIPLE the
 * back-off lets other threads' calls in after each empty poll
 * (fm_cs_yield; it gives the lock up around its naps), so cond may also
 * become true by another thread. */
#define fm_wait_until(cond)                                                  \
    do {                                                                     \
        if (!(cond)) {                                                       \
            unsigned fm_spins_ = 0;                                          \
            unsigned long long fm_t0_ = fm_pv_ticks();                       \
            do {                                                             \
                if (!fm_progress())                                          \
                    fm_progress_backoff(&fm_spins_);                         \
                else                                                         \
                    fm_spins_ = 0;                                           \
            } while (!(cond));                                               \
            FM_PV_INC(progress_waits);                                       \
            FM_PV_ADD(progress_wait_time, fm_pv_ticks() - fm_t0_);           \
        }                                                                    \
    } while (0)

#endif
