/* cs.h — the critical section that makes MPI_THREAD_MULTIPLE safe.
 *
 * At MPI_THREAD_MULTIPLE (and while a progress thread runs) every MPI entry
 * point that touches library state holds one process-wide lock for the
 * length of the call: FM_API_LOCK() as its first statement takes it and a
 * cleanup handler gives it back on every return path.  A call that blocks
 * gives the lock up while it waits (fm_wait_until -> fm_cs_yield), so other
 * threads' calls run and progress meanwhile.  The lock is recursive by a
 * per-thread depth: a user callback run inside a call (error handler,
 * attribute copy/delete, reduction, generalized-request query) may call MPI.
 *
 * Below MPI_THREAD_MULTIPLE fm_cs_on stays 0: an entry point pays a load and
 * a predictable branch, and the waits nothing.  The lock is the first step
 * of the threads work: one VCI, one lock (docs/ARCHITECTURE.md, "Threads"). */
#ifndef FM_CORE_CS_H
#define FM_CORE_CS_H

#include <stdatomic.h>
#include <stddef.h>

#define FM_HIDDEN __attribute__((visibility("hidden")))

/* One spin of a busy wait: tells the core (and its sibling hyperthread)
 * this thread is waiting. */
static inline void fm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#endif
}

/* Set once, before any second thread may call MPI (MPI_Init_thread), or
 * when a progress thread starts. */
extern int fm_cs_on FM_HIDDEN;
/* MPI_Init_thread(MPI_THREAD_MULTIPLE): the calling thread owns the lock
 * biased (below) if the kernel has membarrier(2); without it, never. */
void fm_cs_bias_to_caller(void) FM_HIDDEN;
/* A progress thread started: it takes the lock all the time, so the bias
 * would only be revoked (a membarrier each time) and won back: none. */
void fm_cs_bias_off(void) FM_HIDDEN;
/* It stopped: a thread may win the bias again (FM_CS_REBIAS_AFTER). */
void fm_cs_bias_again(void) FM_HIDDEN;

/* Progress hooks running on the lock holder's stack (core/progress.c):
 * while any are, a wait inside them keeps the lock. */
extern int fm_progress_in_hooks FM_HIDDEN;

/* The lock word (0 free, 1 held) and how many times this thread holds it.
 * Taking it costs a compare-and-swap, which on x86 also drains the store
 * buffer: after a poll that wrote to a ring line the other process reads,
 * that wait cost a single-threaded 8-byte message rate 40%.  So the lock is
 * "biased" to one thread at a time (fm_cs_bias: its slot): the thread that
 * asked for MPI_THREAD_MULTIPLE, later any thread that took the word
 * FM_CS_REBIAS_AFTER times in a row.  The bias owner enters by a plain store
 * to its slot's `in` and a load of fm_cs_bias, no atomic read-modify-write.
 * Another thread that takes the word revokes the bias (cs.c: a store, a
 * membarrier(2) that fences the owner's CPU, then it waits until the owner
 * is out). */
#define FM_CS_LANES 16 /* lanes (core/vci.h) whose locks can be biased too */
struct fm_cs_slot {
    atomic_int in; /* the bias owner is inside a call */
    atomic_int lane_in[FM_CS_LANES]; /* the same for each lane (lanes.c) */
    char pad[128 - (1 + FM_CS_LANES) * sizeof(atomic_int)];
};
extern atomic_int fm_cs_word FM_HIDDEN;
extern struct fm_cs_slot *_Atomic fm_cs_bias FM_HIDDEN;
/* This thread's side of the lock, in one thread-local object: in a shared
 * library each thread-local variable's offset is one more load from the
 * GOT, and three of them cost every call at MPI_THREAD_MULTIPLE that many
 * loads on the way in and again on the way out. */
struct fm_vci;
struct fm_cs_thread {
    unsigned depth;           /* how many times this thread holds the lock */
    unsigned char via_bias;   /* its current call entered through the bias */
    unsigned char lane_via_bias; /* the same for its lane's lock (lanes.c) */
    struct fm_cs_slot *me;    /* its slot (NULL until it first could own the bias) */
    struct fm_vci *lane;      /* the lane whose lock alone it holds (core/vci.h), or NULL */
};
extern __thread struct fm_cs_thread fm_cs_t __attribute__((tls_model("initial-exec"))) FM_HIDDEN;
/* Who took the word last, and how many times in a row (under the word). */
extern const void *fm_cs_streak_thread FM_HIDDEN;
extern unsigned fm_cs_streak FM_HIDDEN;
#define FM_CS_REBIAS_AFTER 1000
/* For the lanes' biased locks (lanes.c): this thread's slot (allocated on
 * first use; NULL when all are taken), whether a lock may be biased now
 * (membarrier registered, no progress thread), and the fence on every CPU
 * running one of the process's threads. */
struct fm_cs_slot *fm_cs_my_slot(void) FM_HIDDEN;
int fm_cs_can_bias(void) FM_HIDDEN;
void fm_cs_fence_all(void) FM_HIDDEN;
/* Step n (from 0) of a thread waiting for a lock word, the library lock's
 * or a lane's: waits are short (holders give their lock up whenever they
 * wait for the network), so it spins a little, then yields its core, and
 * naps only when kept out for long (threads far outnumber cores). */
void fm_lock_wait_step(unsigned n) FM_HIDDEN;
/* cs.c: the word is taken by another thread; the bias must go; or move to
 * the caller. */
void fm_cs_take_slow(void) FM_HIDDEN;
void fm_cs_revoke(void) FM_HIDDEN;
void fm_cs_rebias(void) FM_HIDDEN;

/* Lanes beyond fm_vci0 (core/vci.h): while there are any, the holder of
 * the library lock holds every lane's lock too, taken after it. */
extern int fm_nlanes FM_HIDDEN;
void fm_lanes_take_all(void) FM_HIDDEN;
void fm_lanes_give_all(void) FM_HIDDEN;

/* The library lock's word and bias (without the lanes). */
static inline void fm_cs_take_word(void)
{
    struct fm_cs_slot *me = fm_cs_t.me;
    if (me) {
        atomic_store_explicit(&me->in, 1, memory_order_relaxed);
        /* Dekker's order against the revoker, whose membarrier is the
         * fence this side leaves out. */
        atomic_signal_fence(memory_order_seq_cst);
        if (__builtin_expect(atomic_load_explicit(&fm_cs_bias, memory_order_relaxed) == me, 1)) {
            fm_cs_t.via_bias = 1;
            return;
        }
        atomic_store_explicit(&me->in, 0, memory_order_release);
    }
    int free_ = 0;
    if (!atomic_compare_exchange_strong_explicit(&fm_cs_word, &free_, 1, memory_order_acquire,
                                                 memory_order_relaxed))
        fm_cs_take_slow();
    if (__builtin_expect(atomic_load_explicit(&fm_cs_bias, memory_order_relaxed) != NULL, 0))
        fm_cs_revoke();
    if (fm_cs_streak_thread != &fm_cs_t.depth) {
        fm_cs_streak_thread = &fm_cs_t.depth;
        fm_cs_streak = 0;
    } else if (__builtin_expect(++fm_cs_streak == FM_CS_REBIAS_AFTER, 0)) {
        fm_cs_rebias();
    }
}

static inline void fm_cs_give_word(void)
{
    if (fm_cs_t.via_bias) {
        fm_cs_t.via_bias = 0;
        atomic_signal_fence(memory_order_seq_cst);
        atomic_store_explicit(&fm_cs_t.me->in, 0, memory_order_release);
    } else {
        atomic_store_explicit(&fm_cs_word, 0, memory_order_release);
    }
}

/* Take / give back the lock (recursively); only while fm_cs_on. */
static inline void fm_cs_enter(void)
{
    if (fm_cs_t.depth++ != 0)
        return;
    fm_cs_take_word();
    if (__builtin_expect(fm_nlanes, 0))
        fm_lanes_take_all();
}

static inline void fm_cs_exit(void)
{
    if (--fm_cs_t.depth != 0)
        return;
    if (__builtin_expect(fm_nlanes, 0))
        fm_lanes_give_all();
    fm_cs_give_word();
}

/* The word alone, if free and no other thread owns the bias (which could
 * be inside a call without it); for a thread on a lane (lanes.c), which
 * must never wait.  And its release. */
int fm_cs_try_word(void) FM_HIDDEN;
void fm_cs_give_try_word(void) FM_HIDDEN;

/* The progress thread's entry: the lock if it is free, else 0 at once.  It
 * never queues for it, so an application thread waiting inside a call is
 * never asked to hand the lock over to it (on a busy core each hand-over
 * is a context switch); it polls when the application is computing, or
 * napping in a long wait. */
int fm_cs_try_enter(void) FM_HIDDEN;

/* Inside a blocking wait: let a thread that wants the lock have it for a
 * while, then take it back.  No-op when nobody waits, or when the caller
 * holds the lock more than once (a callback's MPI call: the outer call's
 * state must not change under it), or inside a progress hook. */
void fm_cs_yield(void) FM_HIDDEN;
/* Inside a wait that is about to sleep (nap, futex): give the lock up around
 * it, unless an outer call holds it too; returns what fm_cs_resume needs. */
unsigned fm_cs_suspend(void) FM_HIDDEN;
void fm_cs_resume(unsigned depth) FM_HIDDEN;


static inline int fm_cs_guard_enter(void)
{
    if (__builtin_expect(fm_cs_on, 0)) {
        fm_cs_enter();
        return 1;
    }
    return 0;
}

static inline void fm_cs_guard_exit(int *held)
{
    if (__builtin_expect(*held, 0))
        fm_cs_exit();
}

/* First statement of an entry point: held until the function returns. */
#define FM_API_LOCK()                                                               \
    int fm_cs_held_ __attribute__((cleanup(fm_cs_guard_exit), unused)) =            \
        fm_cs_guard_enter()

/* The hottest entry points (MPI_Send, Isend, Recv, Irecv) instead keep
 * their body in an always-inline function, define its locked twin with
 * FM_API_LOCKED_TWIN(body, (params), (args)) and end with
 * FM_API_TWIN(body, args...): below MPI_THREAD_MULTIPLE the body runs
 * straight (a load and a branch; no stack frame for a held flag, and its
 * tail calls stay jumps, which a cleanup handler forbids), else the twin
 * runs it between fm_cs_enter and fm_cs_exit. */
#define FM_API_LOCKED_TWIN(body, params, args)                                     \
    static __attribute__((noinline)) int body##_locked params                      \
    {                                                                              \
        fm_cs_enter();                                                             \
        int fm_cs_rc_ = body args;                                                 \
        fm_cs_exit();                                                              \
        return fm_cs_rc_;                                                          \
    }
#define FM_API_TWIN(body, ...)                                                     \
    do {                                                                           \
        if (__builtin_expect(fm_cs_on, 0))                                         \
            return body##_locked(__VA_ARGS__);                                     \
        return body(__VA_ARGS__);                                                  \
    } while (0)

#endif
