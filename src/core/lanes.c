/* lanes.c — the VCIs beyond fm_vci0 ("lanes", core/vci.h): their storage,
 * their locks, and how a thread moves between a lane's lock and the
 * library lock. */
#include <sched.h>
#include <stdatomic.h>

#include "core/cs.h"
#include "core/vci.h"
#include "util/pvar.h"

_Static_assert(FM_VCI_MAX <= FM_CS_LANES, "a lane without a bias flag in struct fm_cs_slot");

struct fm_vci *fm_vcis[FM_VCI_MAX] = {&fm_vci0};
int fm_nlanes;

/* Lanes live as long as the process: their requests' addresses travel in
 * headers as cookies, like fm_vci0's. */
static struct fm_vci lane_store[FM_VCI_MAX];

struct fm_vci *fm_lane_vci(int i)
{
    struct fm_vci *v = &lane_store[i];
    v->index = i;
    v->dtail = &v->dhead;
    fm_vcis[i] = v;
    return v;
}

void fm_lanes_opened(int n) { fm_nlanes = n; }

/* ---- the lock word ---------------------------------------------------------
 * As the library lock's (cs.c), waiters back off by fm_lock_wait_step. */
#define LANE_HANDOFF_ROUNDS 64

static int try_word(struct fm_lane_lock *l)
{
    int free_ = 0;
    return atomic_load_explicit(&l->word, memory_order_relaxed) == 0 &&
           atomic_compare_exchange_weak_explicit(&l->word, &free_, 1, memory_order_acquire,
                                                 memory_order_relaxed);
}

static void take_word(struct fm_lane_lock *l)
{
    int free_ = 0;
    if (atomic_compare_exchange_strong_explicit(&l->word, &free_, 1, memory_order_acquire,
                                                memory_order_relaxed))
        return;
    atomic_fetch_add_explicit(&l->waiters, 1, memory_order_relaxed);
    for (unsigned n = 0; !try_word(l); n++)
        fm_lock_wait_step(n);
    atomic_fetch_sub_explicit(&l->waiters, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&l->handoffs, 1, memory_order_relaxed);
}

static void give_word(struct fm_lane_lock *l)
{
    atomic_store_explicit(&l->word, 0, memory_order_release);
}

/* Give the word to a waiter for a while (bounded: a waiter that went away
 * does not stall us), then take it back. */
static void hand_over(struct fm_lane_lock *l)
{
    unsigned long seen = atomic_load_explicit(&l->handoffs, memory_order_relaxed);
    give_word(l);
    for (int i = 0; i < LANE_HANDOFF_ROUNDS &&
                    atomic_load_explicit(&l->handoffs, memory_order_relaxed) == seen &&
                    atomic_load_explicit(&l->waiters, memory_order_relaxed) != 0;
         i++)
        sched_yield();
    take_word(l);
}

static int has_waiters(struct fm_lane_lock *l)
{
    return atomic_load_explicit(&l->waiters, memory_order_relaxed) != 0;
}

/* ---- the bias ---------------------------------------------------------------
 * A thread doing all of a lane's calls (one thread per communicator, the
 * reason lanes exist) would otherwise pay a compare-and-swap per call,
 * which drains the store buffer after the ring stores: at one thread on
 * its own communicator, 16.1 Mmsg/s against 23.7 for the biased library
 * lock (bench/RESULTS.md, "VCIs").  Dekker's pairing as in cs.c: the owner
 * stores lane_in then loads the bias; a revoker stores the bias, fences
 * every CPU (membarrier), then reads lane_in. */

static atomic_int *in_flag(struct fm_cs_slot *s, const struct fm_vci *v)
{
    return &s->lane_in[v->index];
}

/* Holding the word: revoke the bias of another thread.  Returns the thread
 * that may still be inside the lane by a bias: the one just revoked, or one
 * revoked earlier that no holder of the word has seen out yet (`leaving`:
 * once the bias is gone nothing else remembers it, and a later holder that
 * took "no bias" for "nobody inside" would run beside it). */
static struct fm_cs_slot *revoke(struct fm_vci *v)
{
    struct fm_cs_slot *owner = atomic_load_explicit(&v->lock.bias, memory_order_relaxed);
    if (owner && owner != fm_cs_t.me) {
        v->lock.streak_thread = NULL; /* the owner earns it again: 1000 in a row */
        atomic_store_explicit(&v->lock.bias, NULL, memory_order_relaxed);
        fm_cs_fence_all();
        v->lock.leaving = owner;
    }
    return v->lock.leaving;
}

/* Holding the word: no other thread inside by a bias, waiting until it is
 * out (it never waits for a lock itself, and leaves at its next empty
 * poll: fm_lane_yield). */
static void revoke_wait(struct fm_vci *v)
{
    struct fm_cs_slot *owner = revoke(v);
    if (!owner)
        return;
    while (atomic_load_explicit(in_flag(owner, v), memory_order_acquire))
        sched_yield();
    v->lock.leaving = NULL;
}

/* The same without waiting: 0 when the owner is inside (its bias is gone
 * all the same, and it stays `leaving` until seen out). */
static int revoke_now(struct fm_vci *v)
{
    struct fm_cs_slot *owner = revoke(v);
    if (!owner)
        return 1;
    if (atomic_load_explicit(in_flag(owner, v), memory_order_acquire))
        return 0;
    v->lock.leaving = NULL;
    return 1;
}

/* After taking the word for a call on the lane: the bias goes, or comes
 * to this thread after FM_CS_REBIAS_AFTER takes in a row. */
static void took_word(struct fm_vci *v)
{
    struct fm_lane_lock *l = &v->lock;
    if (atomic_load_explicit(&l->bias, memory_order_relaxed) || l->leaving)
        revoke_wait(v);
    if (l->streak_thread != &fm_cs_t) {
        l->streak_thread = &fm_cs_t;
        l->streak = 0;
    } else if (++l->streak == FM_CS_REBIAS_AFTER && fm_cs_can_bias() && fm_cs_my_slot()) {
        atomic_store_explicit(&l->bias, fm_cs_t.me, memory_order_release);
    }
}

/* Leave a call entered through the bias. */
static void leave_bias(struct fm_vci *v)
{
    fm_cs_t.lane_via_bias = 0;
    atomic_signal_fence(memory_order_seq_cst);
    atomic_store_explicit(in_flag(fm_cs_t.me, v), 0, memory_order_release);
}

void fm_lane_enter_word(struct fm_vci *v)
{
    take_word(&v->lock);
    took_word(v);
    fm_cs_t.lane = v;
}

void fm_lane_exit_word(struct fm_vci *v) { give_word(&v->lock); }

void fm_lane_yield(struct fm_vci *v)
{
    if (fm_cs_t.lane_via_bias) {
        /* Revoked while this call waits: leave by the bias, take the word. */
        if (atomic_load_explicit(&v->lock.bias, memory_order_relaxed) != fm_cs_t.me) {
            leave_bias(v);
            take_word(&v->lock);
            took_word(v);
        }
        return;
    }
    if (has_waiters(&v->lock)) {
        hand_over(&v->lock);
        took_word(v);
    }
}

void fm_lane_suspend(struct fm_vci *v)
{
    if (fm_cs_t.lane_via_bias)
        leave_bias(v);
    else
        give_word(&v->lock);
}

void fm_lane_resume(struct fm_vci *v)
{
    take_word(&v->lock);
    took_word(v);
}

/* In index order: the one order every thread takes more than one in. */
void fm_lanes_take_all(void)
{
    for (int i = 1; i <= fm_nlanes; i++) {
        take_word(&fm_vcis[i]->lock);
        revoke_wait(fm_vcis[i]);
        fm_vcis[i]->lock.streak_thread = NULL; /* not in a row any more */
    }
}

void fm_lanes_give_all(void)
{
    for (int i = fm_nlanes; i >= 1; i--)
        give_word(&fm_vcis[i]->lock);
}

/* The word of lane v now, and no other thread inside it by its bias. */
static int try_lane(struct fm_vci *v)
{
    if (!try_word(&v->lock))
        return 0;
    if (revoke_now(v)) {
        v->lock.streak_thread = NULL;
        return 1;
    }
    give_word(&v->lock);
    return 0;
}

int fm_lanes_try_all(void)
{
    for (int i = 1; i <= fm_nlanes; i++)
        if (!try_lane(fm_vcis[i])) {
            while (--i >= 1)
                give_word(&fm_vcis[i]->lock);
            return 0;
        }
    return 1;
}

void fm_lanes_yield_all(void)
{
    for (int i = 1; i <= fm_nlanes; i++)
        if (has_waiters(&fm_vcis[i]->lock)) {
            hand_over(&fm_vcis[i]->lock);
            revoke_wait(fm_vcis[i]);
        }
}

struct fm_vci *fm_lane_escape(void)
{
    struct fm_vci *lane = fm_cs_t.lane;
    if (!lane)
        return NULL;
    fm_lane_exit(lane);
    fm_cs_enter();
    return lane;
}

void fm_lane_back(struct fm_vci *lane)
{
    if (!lane)
        return;
    fm_cs_exit();
    fm_lane_enter(lane);
}

/* From a wait on lane `mine`: the library lock and every other lane, if
 * all are free right now (never waiting: this thread holds `mine`, which a
 * thread holding the library lock may be waiting for).  Not while another
 * thread owns the library lock's bias: it may be inside a call without the
 * word, and revoking the bias would wait for it. */
int fm_lanes_try_everything(struct fm_vci *mine)
{
    if (!fm_cs_try_word())
        return 0;
    for (int i = 1; i <= fm_nlanes; i++) {
        if (i == mine->index || try_lane(fm_vcis[i]))
            continue;
        while (--i >= 1)
            if (i != mine->index)
                give_word(&fm_vcis[i]->lock);
        fm_cs_give_try_word();
        return 0;
    }
    return 1;
}

void fm_lanes_give_everything(struct fm_vci *mine)
{
    for (int i = fm_nlanes; i >= 1; i--)
        if (i != mine->index)
            give_word(&fm_vcis[i]->lock);
    fm_cs_give_try_word();
}
