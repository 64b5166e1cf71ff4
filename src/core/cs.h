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

#define FM_HIDDEN __attribute__((visibility("hidden")))

/* Set once, before any second thread may call MPI (MPI_Init_thread), or
 * when a progress thread starts. */
extern int fm_cs_on FM_HIDDEN;

/* Progress hooks running on the lock holder's stack (core/progress.c):
 * while any are, a wait inside them keeps the lock. */
extern int fm_progress_in_hooks FM_HIDDEN;

/* Take / give back the lock (recursively); only while fm_cs_on. */
void fm_cs_enter(void) FM_HIDDEN;
void fm_cs_exit(void) FM_HIDDEN;
/* Inside a blocking wait: let a thread that wants the lock have it for a
 * while, then take it back.  No-op when nobody waits, or when the caller
 * holds the lock more than once (a callback's MPI call: the outer call's
 * state must not change under it), or inside a progress hook. */
void fm_cs_yield_slow(void) FM_HIDDEN;
/* Inside a wait that is about to sleep (nap, futex): give the lock up around
 * it, unless an outer call holds it too; returns what fm_cs_resume needs. */
unsigned fm_cs_suspend(void) FM_HIDDEN;
void fm_cs_resume(unsigned depth) FM_HIDDEN;

static inline void fm_cs_yield(void)
{
    if (__builtin_expect(fm_cs_on, 0))
        fm_cs_yield_slow();
}

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
    static __attribute__((noinline, cold)) int body##_locked params                \
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
