/* hang.h — what each thread is blocked in, for mpiexec's hang report.
 *
 * Blocking MPI entry points open a scope with FM_HANG_SCOPE(call, peer, tag,
 * comm name, count); it costs a few relaxed stores and a read of the coarse
 * clock (vDSO, no syscall), and the record is cleared when the scope ends,
 * whatever path returns.  Nested scopes (an MPI call made inside another)
 * keep the outermost record.  fm_hang_snapshot() may be called from a
 * signal handler: it only reads.
 *
 * Records live in a fixed pool, never freed, so a handler never touches
 * memory of a thread that has exited. */
#ifndef FM_BOOT_HANG_H
#define FM_BOOT_HANG_H

#include <limits.h>
#include <stdatomic.h>
#include <time.h>

#define FM_HANG_NONE INT_MIN /* peer or tag the call does not have */

struct fm_hang_rec {
    _Atomic(const char *) call; /* NULL: not in a blocking MPI call */
    _Atomic(const char *) comm; /* the communicator's name ("" if unnamed) */
    atomic_int peer, tag;       /* rank in comm, or FM_HANG_NONE */
    atomic_long count;          /* element count, or -1 */
    atomic_long t0_ms;          /* CLOCK_MONOTONIC_COARSE at entry */
    int depth;                  /* owner thread only */
};

/* Initial-exec, as core/cs.h's fm_cs_t: a blocking call's record is
 * one %fs-relative load away, not a __tls_get_addr call. */
extern _Thread_local struct fm_hang_rec *fm_hang_self
    __attribute__((tls_model("initial-exec"), visibility("hidden")));
/* Give this thread a record from the pool (first blocking call only). */
struct fm_hang_rec *fm_hang_claim(void);

static inline long fm_hang_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static inline struct fm_hang_rec *fm_hang_enter(const char *call, int peer, int tag, const char *comm,
                                                long count)
{
    struct fm_hang_rec *h = fm_hang_self ? fm_hang_self : fm_hang_claim();
    if (h->depth++ == 0) {
        atomic_store_explicit(&h->peer, peer, memory_order_relaxed);
        atomic_store_explicit(&h->tag, tag, memory_order_relaxed);
        atomic_store_explicit(&h->comm, comm ? comm : "", memory_order_relaxed);
        atomic_store_explicit(&h->count, count, memory_order_relaxed);
        atomic_store_explicit(&h->t0_ms, fm_hang_now_ms(), memory_order_relaxed);
        /* published last: a reader that sees the call sees its arguments */
        atomic_store_explicit(&h->call, call, memory_order_release);
    }
    return h;
}

static inline void fm_hang_leave(struct fm_hang_rec **h)
{
    if (--(*h)->depth == 0)
        atomic_store_explicit(&(*h)->call, NULL, memory_order_relaxed);
}

/* Record the call for the rest of the enclosing block (GCC/Clang cleanup). */
#define FM_HANG_SCOPE(call, peer, tag, comm, count)                                   \
    struct fm_hang_rec *fm_hang_scope_ __attribute__((cleanup(fm_hang_leave), unused)) = \
        fm_hang_enter(call, peer, tag, comm, (long)(count))

/* A copy of one record, for reporting. */
struct fm_hang_snap {
    int active;  /* threads now in a blocking call; 0: the rest is empty */
    char call[32];
    char comm[64];
    int peer, tag;
    long count;
    long ms;     /* how long the longest-blocked thread has been in it */
};

/* Async-signal-safe: fill `s` from the thread blocked the longest. */
void fm_hang_snapshot(struct fm_hang_snap *s);

#endif
