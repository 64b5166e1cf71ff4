/* cs.c — the MPI_THREAD_MULTIPLE critical section (cs.h): the slow paths. */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/cs.h"
#include "core/vci.h"
#include "util/log.h"
#include "util/param.h"

int fm_cs_on;
atomic_int fm_cs_word;
struct fm_cs_slot *_Atomic fm_cs_bias;
__thread struct fm_cs_thread fm_cs_t __attribute__((tls_model("initial-exec")));
const void *fm_cs_streak_thread;
unsigned fm_cs_streak;

/* Slots of the threads that have owned the bias: never freed, so a revoker
 * may read the `in` of a thread that has exited (0: it left MPI first).
 * Threads past the last slot never own the bias. */
#define FM_CS_SLOTS 64
static struct fm_cs_slot slots[FM_CS_SLOTS];
static atomic_int nslots; /* taken under the word or a lane's (lanes.c) */
static int registered; /* membarrier registered */
static int can_bias;   /* registered, and no progress thread runs */

/* Threads waiting to take the lock, and how many times a waiting thread
 * got it: a yielding holder waits for the count to move, so the lock
 * really changes hands (a plain release-take would take it straight
 * back). */
static atomic_uint cs_waiters;
static atomic_ulong cs_handoffs;

static int try_take(void)
{
    int free_ = 0;
    return atomic_load_explicit(&fm_cs_word, memory_order_relaxed) == 0 &&
           atomic_compare_exchange_weak_explicit(&fm_cs_word, &free_, 1, memory_order_acquire,
                                                 memory_order_relaxed);
}

#define FM_CS_SPINS 64
#define FM_CS_YIELDS 2000

void fm_lock_wait_step(unsigned n)
{
    if (n < FM_CS_SPINS) {
        fm_cpu_relax();
    } else if (n < FM_CS_SPINS + FM_CS_YIELDS) {
        sched_yield();
    } else {
        struct timespec nap = {0, 20 * 1000};
        nanosleep(&nap, NULL);
    }
}

void fm_cs_take_slow(void)
{
    atomic_fetch_add_explicit(&cs_waiters, 1, memory_order_relaxed);
    for (unsigned n = 0; !try_take(); n++)
        fm_lock_wait_step(n);
    atomic_fetch_sub_explicit(&cs_waiters, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&cs_handoffs, 1, memory_order_relaxed);
}

int fm_cs_try_enter(void)
{
    if (!try_take())
        return 0;
    if (atomic_load_explicit(&fm_cs_bias, memory_order_relaxed) != NULL)
        fm_cs_revoke();
    /* The lanes after the revoke: an owner inside may be waiting for one. */
    if (fm_nlanes && !fm_lanes_try_all()) {
        atomic_store_explicit(&fm_cs_word, 0, memory_order_release);
        return 0;
    }
    fm_cs_t.depth = 1;
    return 1;
}

int fm_cs_try_word(void)
{
    if (!try_take())
        return 0;
    struct fm_cs_slot *owner = atomic_load_explicit(&fm_cs_bias, memory_order_relaxed);
    if (owner && owner != fm_cs_t.me) {
        atomic_store_explicit(&fm_cs_word, 0, memory_order_release);
        return 0;
    }
    return 1;
}

void fm_cs_give_try_word(void) { atomic_store_explicit(&fm_cs_word, 0, memory_order_release); }

/* Take / give back the lock at depth 1 (the waits' hand-offs): the same
 * paths as fm_cs_enter/exit. */
static void take(void)
{
    fm_cs_t.depth = 0;
    fm_cs_enter();
}

static void give(void)
{
    fm_cs_t.depth = 1;
    fm_cs_exit();
}

/* Give the calling thread (holding the word, or alone) a slot and the bias. */
struct fm_cs_slot *fm_cs_my_slot(void)
{
    if (!fm_cs_t.me) {
        int i = atomic_fetch_add_explicit(&nslots, 1, memory_order_relaxed);
        if (i >= FM_CS_SLOTS)
            return NULL;
        fm_cs_t.me = &slots[i];
    }
    return fm_cs_t.me;
}

int fm_cs_can_bias(void) { return can_bias; }

void fm_cs_fence_all(void) { syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0); }

static void bias_to_me(void)
{
    if (fm_cs_my_slot())
        atomic_store_explicit(&fm_cs_bias, fm_cs_t.me, memory_order_release);
}

void fm_cs_bias_to_caller(void)
{
#ifndef __SANITIZE_THREAD__ /* TSan cannot see membarrier's ordering */
    /* MEMBARRIER_CMD_PRIVATE_EXPEDITED needs registering (Linux 4.14). */
    if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0) {
        registered = can_bias = 1;
        bias_to_me();
        fm_log(1, "MPI_THREAD_MULTIPLE: the library lock is biased to this thread until "
                  "another calls MPI");
        return;
    }
    fm_log(1, "MPI_THREAD_MULTIPLE: membarrier(2) unavailable (%s): every call takes the "
              "library lock", strerror(errno));
#endif
}

void fm_cs_revoke(void)
{
    /* Called holding the word, which the owner does not take while biased. */
    struct fm_cs_slot *owner = atomic_load_explicit(&fm_cs_bias, memory_order_relaxed);
    if (!owner || owner == fm_cs_t.me)
        return;
    atomic_store_explicit(&fm_cs_bias, NULL, memory_order_relaxed);
    /* A full fence on every CPU running one of our threads: from here the
     * owner either is seen inside (in 1) or sees the bias gone at its next
     * entry. */
    syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
    /* An owner inside leaves at its return, or at its next empty poll in a
     * wait (fm_cs_yield: it takes the word from then on). */
    while (atomic_load_explicit(&owner->in, memory_order_acquire))
        sched_yield();
}

void fm_cs_bias_off(void)
{
    /* The bias in force, if any, goes at the new thread's first entry. */
    can_bias = 0;
}

void fm_cs_bias_again(void) { can_bias = registered; }

void fm_cs_rebias(void)
{
    /* This thread took the word FM_CS_REBIAS_AFTER times with nobody else
     * taking it in between (a worker thread doing all the communication
     * while main waits): its next calls go through the bias.  The call in
     * progress holds the word and gives it back as usual. */
    if (can_bias && !atomic_load_explicit(&fm_cs_bias, memory_order_relaxed))
        bias_to_me();
}

/* How long a yielding holder lets a waiter run before taking the lock
 * back (sched_yield rounds): bounded, so a waiter that went away does not
 * stall the holder. */
#define FM_CS_HANDOFF_ROUNDS 64

void fm_cs_yield(void)
{
    if (fm_cs_t.via_bias) {
        /* Revoked while this call waits: leave by the bias, take the word. */
        if (atomic_load_explicit(&fm_cs_bias, memory_order_relaxed) != fm_cs_t.me &&
            fm_cs_t.depth == 1 && !fm_progress_in_hooks) {
            give();
            take();
        }
        return;
    }
    if (fm_cs_t.depth != 1 || fm_progress_in_hooks ||
        atomic_load_explicit(&cs_waiters, memory_order_relaxed) == 0)
        return;
    unsigned long seen = atomic_load_explicit(&cs_handoffs, memory_order_relaxed);
    give();
    for (int i = 0; i < FM_CS_HANDOFF_ROUNDS &&
                    atomic_load_explicit(&cs_handoffs, memory_order_relaxed) == seen &&
                    atomic_load_explicit(&cs_waiters, memory_order_relaxed) != 0;
         i++)
        sched_yield();
    take();
}

/* What fm_cs_suspend gave up: nothing (0), the library lock at depth 1
 * (1), or the calling thread's lane (FM_CS_LANE). */
#define FM_CS_LANE 2u

unsigned fm_cs_suspend(void)
{
    if (fm_cs_t.lane) {
        fm_lane_suspend(fm_cs_t.lane);
        return FM_CS_LANE;
    }
    if (fm_cs_t.depth != 1 || fm_progress_in_hooks) /* held by an outer call, or a hook: keep it */
        return 0;
    give();
    return 1;
}

void fm_cs_resume(unsigned held)
{
    if (held == FM_CS_LANE) {
        fm_lane_resume(fm_cs_t.lane);
    } else if (held) {
        take();
        fm_cs_t.depth = held;
    }
}
