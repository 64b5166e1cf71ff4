/* vci.h — a virtual communication interface: the mutable communication
 * state that one thread making progress owns (transport instances, the
 * context-id → matching-queue table, request pool, progress hooks and
 * deferred operations, parked sends, unexpected-message records, and the
 * lock that guards them).
 *
 * fm_vci0 carries every collective context, one-sided and active-message
 * traffic, and holds the state that is not per VCI; its lock is the
 * library lock (core/cs.h).  Without lanes it carries point-to-point too.
 * With FABMPI_VCIS=n > 1, n - 1 more VCIs ("lanes") carry the
 * point-to-point traffic of every communicator (MPI_COMM_WORLD and
 * MPI_COMM_SELF included), chosen by context id (fm_vci_of_ctx: the same
 * on every member, so the sender's and the receiver's lanes pair up), each
 * with its own shared-memory rings, OFI endpoint (net/ofi/lanes.c), self
 * queue, matching table, request pool, parked sends and counters, and its
 * own lock.  At MPI_THREAD_MULTIPLE the hottest calls on such a
 * communicator's traffic take only its lane's lock; every other call takes
 * the library lock and, while lanes exist, every lane's lock after it (so
 * it may touch anything).  A thread holding a lane's lock touches only
 * that lane's state and never blocks on another lock: errors, and the
 * destruction of a communicator or datatype reached from a lane, leave the
 * lane first (fm_lane_escape). */
#ifndef FM_CORE_VCI_H
#define FM_CORE_VCI_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/cs.h"
#include "core/progress.h"
#include "match/ctx_table.h"
#include "net/net.h"
#include "util/pvar.h"

struct fm_request;
struct fm_message;
struct fm_pending;
struct fm_sched;

#define FM_VCI_MAX_HOOKS 8
/* Most VCIs (FABMPI_VCIS), fm_vci0 included. */
#define FM_VCI_MAX FM_NET_LANES_MAX

/* A lane's lock: a word taken by compare-and-swap, the count of threads
 * waiting for it so a holder that waits on the network can hand it over
 * (fm_lane_yield), and a bias as the library lock's (core/cs.h): the
 * thread that took the word FM_CS_REBIAS_AFTER times in a row enters by a
 * plain store to its slot's lane_in[index] (lanes.c). */
struct fm_cs_slot;
struct fm_lane_lock {
    atomic_int word;
    atomic_uint waiters;
    atomic_ulong handoffs;
    struct fm_cs_slot *_Atomic bias;
    /* Under the word: the owner of a bias revoked without waiting
     * (lanes.c: revoke_now), until a holder of the word has seen it out. */
    struct fm_cs_slot *leaving;
    const void *streak_thread; /* under the word */
    unsigned streak;
};

/* pt2pt/recv.c's size classes of unexpected payloads: 256 B to 1 MiB. */
#define FM_UNEXP_CLASSES 13

struct fm_vci {
    int index;          /* in fm_vcis[] (0: fm_vci0) */
    /* The transport reaching each world rank from this VCI (fm_vci0's is
     * fm_peer_net), and its rendezvous sends each peer still pulls (the
     * split-copy test, pt2pt/internal.h). */
    fm_net **peer_net;
    unsigned *rndv_out;
    /* The counters of its traffic (util/pvar.h), bumped where V is at
     * hand as one add at a fixed offset; MPI_T sums fm_pv and every VCI's. */
    struct fm_pv pv;
    /* core/transports.c: the transports this VCI polls, and where their
     * messages go (fm_deliver).  Polled first by every fm_progress(). */
    fm_net *nets[4];
    int nnets;
    fm_net_deliver_fn *deliver;
    /* pt2pt/pending.c: drains parked sends; fm_progress() calls it while
     * pend_nactive says some peer has any (a load and a branch otherwise). */
    int (*pend_drain)(struct fm_vci *v);
    /* match/ctx_table.h: the matching queues of its communicators' contexts
     * (fm_deliver looks them up; communicators keep pointers). */
    fm_ctx_table ctx;
    /* core/request.c: requests ready for reuse (chunks are never freed:
     * request addresses travel in headers as cookies). */
    struct fm_request *req_free;
    /* core/progress.c: poll hooks, and operations a transport refused
     * (FM_ERR_AGAIN) waiting in order for their retry. */
    fm_progress_hook *hooks[FM_VCI_MAX_HOOKS];
    int nhooks;
    int ndeferred;
    fm_deferred *dhead, **dtail;
    /* pt2pt/recv.c: unexpected-message records ready for reuse, and
     * payload buffers by size class (FM_UNEXP_CLASSES), unexp_cached
     * bytes of them. */
    struct fm_message *msg_free;
    void *unexp_buf[FM_UNEXP_CLASSES];
    size_t unexp_cached;
    /* pt2pt/pending.c: sends parked per world rank (FIFO), the peers that
     * have any, and entries ready for reuse. */
    struct fm_pending **pend_head, **pend_tail, *pend_free;
    int *pend_active, pend_nactive;
    /* coll/sched.c: collective schedules waiting for their requests (a
     * progress hook runs while there are any). */
    struct fm_sched *sched_running;
    struct fm_sched *sched_spare; /* finished ones kept for reuse, nsched_spare of them */
    int nsched_spare;
    /* A lane's lock (fm_vci0 uses the library lock, core/cs.h), and its
     * empty polls since its waiter last looked after the other VCIs. */
    struct fm_lane_lock lock;
    unsigned idle;
};

/* Hidden: reached at a known offset, not through the GOT. */
extern struct fm_vci fm_vci0 __attribute__((visibility("hidden")));
/* Every VCI by index ([0] = &fm_vci0), and how many lanes exist beyond
 * fm_vci0 (0 unless FABMPI_VCIS > 1 took effect; set at MPI_Init). */
extern struct fm_vci *fm_vcis[FM_VCI_MAX] __attribute__((visibility("hidden")));
extern int fm_nlanes __attribute__((visibility("hidden")));

/* The VCI of index i (a request's `vci`).  Index 0 by a branch, not by
 * fm_vcis[i]: the predicted branch lets a request's pool be reached without
 * waiting for the load of i, which the table lookup puts on every
 * message's critical path (8 B msgrate, fast state: 26.4 -> 27.0 Mmsg/s;
 * bench/RESULTS.md, "VCIs, continued"). */
static inline struct fm_vci *fm_vci_at(unsigned i)
{
    return __builtin_expect(i == 0, 1) ? &fm_vci0 : fm_vcis[i];
}

/* The VCI whose matching table holds context ctx: collective contexts
 * (odd) stay on fm_vci0; point-to-point contexts (even) are spread over
 * the lanes by id.  The first communicators made (ids 4, 6, ...) take
 * lanes 1, 2, ... in turn, and MPI_COMM_WORLD's and MPI_COMM_SELF's (0
 * and 2) the last two, so a thread on MPI_COMM_WORLD takes one lane's
 * lock, not the library lock and every lane's. */
static inline struct fm_vci *fm_vci_of_ctx(uint32_t ctx)
{
    if (__builtin_expect(!fm_nlanes, 1) || (ctx & 1))
        return &fm_vci0;
    unsigned n = (unsigned)fm_nlanes;
    return fm_vcis[1 + ((ctx >> 1) + 2 * n - 2) % n];
}

/* ---- lane locks (core/lanes.c) ---------------------------------------------
 * Taken only at MPI_THREAD_MULTIPLE (or with a progress thread).  The
 * calling thread's lane, while it holds only that lane's lock, is
 * fm_cs_t.lane (core/cs.h). */
void fm_lane_enter_word(struct fm_vci *v) __attribute__((visibility("hidden")));
void fm_lane_exit_word(struct fm_vci *v) __attribute__((visibility("hidden")));
/* Inline, by the bias when this thread owns it (lanes.c). */
static inline void fm_lane_enter(struct fm_vci *v)
{
    struct fm_cs_slot *me = fm_cs_t.me;
    if (me) {
        atomic_store_explicit(&me->lane_in[v->index], 1, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst);
        if (__builtin_expect(atomic_load_explicit(&v->lock.bias, memory_order_relaxed) == me, 1)) {
            fm_cs_t.lane_via_bias = 1;
            fm_cs_t.lane = v;
            return;
        }
        atomic_store_explicit(&me->lane_in[v->index], 0, memory_order_release);
    }
    fm_lane_enter_word(v);
}

static inline void fm_lane_exit(struct fm_vci *v)
{
    fm_cs_t.lane = NULL;
    if (fm_cs_t.lane_via_bias) {
        fm_cs_t.lane_via_bias = 0;
        atomic_signal_fence(memory_order_seq_cst);
        atomic_store_explicit(&fm_cs_t.me->lane_in[v->index], 0, memory_order_release);
    } else {
        fm_lane_exit_word(v);
    }
}
/* Inside a blocking wait on lane v: let a thread that wants the lane have
 * it for a while (no-op when nobody waits). */
void fm_lane_yield(struct fm_vci *v) __attribute__((visibility("hidden")));
/* Around a nap or sleep in a wait on lane v (fm_cs_suspend/resume). */
void fm_lane_suspend(struct fm_vci *v) __attribute__((visibility("hidden")));
void fm_lane_resume(struct fm_vci *v) __attribute__((visibility("hidden")));
/* Every lane's lock, in index order, for the holder of the library lock;
 * and back (fm_cs_enter/exit).  try_all takes all or none, at once. */
void fm_lanes_take_all(void) __attribute__((visibility("hidden")));
void fm_lanes_give_all(void) __attribute__((visibility("hidden")));
int fm_lanes_try_all(void) __attribute__((visibility("hidden")));
/* From a wait on lane `mine`: the library lock and every other lane, or
 * nothing (1 / 0), so the wait can progress what nobody else polls; and
 * their release. */
int fm_lanes_try_everything(struct fm_vci *mine) __attribute__((visibility("hidden")));
void fm_lanes_give_everything(struct fm_vci *mine) __attribute__((visibility("hidden")));
/* Lane i's storage (set up for use), and how many the transports opened
 * (fm_nlanes; 0 at teardown). */
struct fm_vci *fm_lane_vci(int i) __attribute__((visibility("hidden")));
void fm_lanes_opened(int n) __attribute__((visibility("hidden")));
/* Waits holding the library lock let lane waiters in too. */
void fm_lanes_yield_all(void) __attribute__((visibility("hidden")));
/* A call running on a lane that must touch process-wide state (raise an
 * error, destroy a communicator or datatype) leaves its lane around it:
 * escape gives the lane up and takes the library lock (and so every lane,
 * this one included); back gives that up and takes the lane again.
 * Returns/takes the lane left, NULL when not on one (then both no-ops). */
struct fm_vci *fm_lane_escape(void) __attribute__((visibility("hidden")));
void fm_lane_back(struct fm_vci *lane) __attribute__((visibility("hidden")));

#endif
