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
#include "util/log.h"
#include "util/param.h"

int fm_cs_on;
atomic_int fm_cs_word;
atomic_int fm_cs_biased;
atomic_int fm_cs_owner_in;
__thread unsigned fm_cs_depth __attribute__((tls_model("initial-exec")));
__thread unsigned char fm_cs_owner __attribute__((tls_model("initial-exec")));
__thread unsigned char fm_cs_via_bias __attribute__((tls_model("initial-exec")));
static pthread_mutex_t revoking = PTHREAD_MUTEX_INITIALIZER;

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

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#endif
}

/* Waits are short (holders give the lock up whenever they wait for the
 * network), so a waiter spins a little, then yields its core, and only a
 * waiter kept out for long (thousands of yields: threads far outnumber
 * cores) naps. */
#define FM_CS_SPINS 64
#define FM_CS_YIELDS 2000

void fm_cs_take_slow(void)
{
    atomic_fetch_add_explicit(&cs_waiters, 1, memory_order_relaxed);
    for (unsigned n = 0; !try_take(); n++) {
        if (n < FM_CS_SPINS) {
            cpu_relax();
        } else if (n < FM_CS_SPINS + FM_CS_YIELDS) {
            sched_yield();
        } else {
            struct timespec nap = {0, 20 * 1000};
            nanosleep(&nap, NULL);
        }
    }
    atomic_fetch_sub_explicit(&cs_waiters, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&cs_handoffs, 1, memory_order_relaxed);
}

/* Take / give back the lock at depth 1 (the waits' hand-offs): the same
 * paths as fm_cs_enter/exit. */
static void take(void)
{
    fm_cs_depth = 0;
    fm_cs_enter();
}

static void give(void)
{
    fm_cs_depth = 1;
    fm_cs_exit();
}

void fm_cs_bias_to_caller(void)
{
#ifndef __SANITIZE_THREAD__ /* TSan cannot see membarrier's ordering */
    /* MEMBARRIER_CMD_PRIVATE_EXPEDITED needs registering (Linux 4.14). */
    if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0) {
        fm_cs_owner = 1;
        atomic_store(&fm_cs_biased, 1);
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
    /* Called holding the word; the owner never touches it while biased. */
    pthread_mutex_lock(&revoking);
    if (atomic_load_explicit(&fm_cs_biased, memory_order_relaxed)) {
        atomic_store_explicit(&fm_cs_biased, 0, memory_order_relaxed);
        /* A full fence on every CPU running one of our threads: from here
         * the owner either is seen inside (owner_in 1) or sees the bias
         * gone at its next entry. */
        syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
        /* An owner inside leaves at its return, or at its next empty poll
         * in a wait (fm_cs_yield_slow: it takes the word from then on). */
        while (atomic_load_explicit(&fm_cs_owner_in, memory_order_acquire))
            sched_yield();
    }
    pthread_mutex_unlock(&revoking);
}

/* How long a yielding holder lets a waiter run before taking the lock
 * back (sched_yield rounds): bounded, so a waiter that went away does not
 * stall the holder. */
#define FM_CS_HANDOFF_ROUNDS 64

void fm_cs_yield_slow(void)
{
    if (fm_cs_via_bias) {
        /* Revoked while this call waits: leave by the bias, take the word. */
        if (!atomic_load_explicit(&fm_cs_biased, memory_order_relaxed) && fm_cs_depth == 1 &&
            !fm_progress_in_hooks) {
            give();
            take();
        }
        return;
    }
    if (fm_cs_depth != 1 || fm_progress_in_hooks ||
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

unsigned fm_cs_suspend(void)
{
    if (fm_cs_depth != 1 || fm_progress_in_hooks) /* held by an outer call, or a hook: keep it */
        return 0;
    give();
    return 1;
}

void fm_cs_resume(unsigned depth)
{
    if (depth) {
        take();
        fm_cs_depth = depth;
    }
}
