/* flat.c — small allreduce, reduce, bcast, allgather(v), alltoall and barrier
 * among members that map each other's segments (the shm backend): every
 * member publishes its contribution in its OWN segment, raises its own
 * flag, then reads every other member's and reduces them all itself, in
 * rank order (allgather: copies each into its place in the receive buffer;
 * alltoall: copies its own block out of each; reduce: only the root reads,
 * the others leave once published; bcast: only the root publishes).
 *
 * One round of flags instead of log2(p) rounds of sends (recursive
 * doubling, dissemination).  That matters most when ranks outnumber cores:
 * a round can only finish once every process it waits for has been
 * scheduled, so fewer rounds means fewer trips through the scheduler.  The
 * price is p reads per member, so select.c uses it for small messages and
 * small communicators only.
 *
 * Every member folds the same bytes in the same order
 * (c0 op (c1 op (... op c[p-1]))), so all get bitwise identical results,
 * non-commutative ops included.
 *
 * Pushed (c->flat_push: two members on a node with a core each, where
 * select.c runs every small Allreduce flat, and the nonblocking and
 * persistent Barrier): each member publishes into the OTHER's lane instead
 * and reads its own, as the pair does (fm_crma_pair): writing into the
 * reader's memory beats reading from the writer's there (blocking 8 B
 * allreduce, 2 bound ranks, 3 alternated runs: pulled flat 0.47-0.50 us,
 * the pair 0.36-0.41; pushed flat beat the pair again: select.c).
 * What follows holds with "the lane a member reads" for "its own lane"
 * (so only the other member's reading is checked).  Scheduled pushed
 * calls of more than FM_CRMA_PUSH_PAIR_ABOVE bytes take no lane: they run
 * the blocking pair's steps (fm_crma_pair_*, reduce.c) in the ring regions.
 *
 * Lanes: each member publishes in its own segment's flat lanes, which no
 * other algorithm touches (the ring regions and flag sets the others use
 * are freed by their owner's `done` word alone, which says nothing about
 * members still reading the owner's bytes).  Flat calls alternate between
 * two lanes.  Publishing call k on a lane overwrites call k - 2 there, so
 * it may happen only once every member, this one included, has read call
 * k - 2: each member says so in the lane's `read` word.  When calls k - 1
 * and k - 2 were both blocking there is nothing to look at (a member in
 * call k has finished k - 1, so every member has published k - 1, which
 * each did only after returning from k - 2), so the blocking collectives
 * pay for the check only after a scheduled (nonblocking or persistent)
 * flat call, whose reading may still be going on.  Every member makes the
 * same flat calls in the same order, blocking or scheduled alike (MPI's
 * collective ordering), so all agree which calls those were.  The flag
 * holds the call's seq, which only grows, so "flag >= seq" means
 * "published for this call". */
#include "coll/rma/cache.h"

#include <stdlib.h>
#include <string.h>

#include "coll/coll_call.h"
#include "coll/coll_util.h"
#include "coll/op.h"
#include "coll/sched.h"
#include "core/comm.h"
#include "dtype/dtype.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"
#include "util/copy.h"

/* An allgather's receive side: member p's block of rcounts[p] (or rcount)
 * elements of rdt lands at displs[p] (or p * rcount) elements into rbuf. */
typedef struct flat_gather {
    void *rbuf;
    fm_iarr rcounts, displs; /* none: the fixed-count form */
    MPI_Count rcount;
    MPI_Datatype rdt;
    int in_place;            /* our own block is in rbuf already */
} flat_gather;

/* An alltoall's receive side: the block for us sits at our rank's place
 * in every member's lane; member p's lands at p * rcount elements. */
typedef struct flat_a2a {
    void *rbuf;
    MPI_Count rcount;
    MPI_Datatype rdt;
    size_t block;            /* bytes of each block */
} flat_a2a;

/* One flat call in progress: its arguments and where it stands.  A
 * schedule keeps one for its whole life and restarts it at each MPI_Start. */
typedef struct flat_call {
    fm_crma *c;
    const void *sbuf;
    void *rbuf;
    MPI_Count count;
    MPI_Datatype dt;
    MPI_Op op;       /* MPI_OP_NULL: barrier, or allgather when g is set */
    const flat_gather *g; /* allgather: where the blocks go (sbuf, count, dt: ours) */
    const flat_a2a *a;    /* alltoall: the same (sbuf, count, dt: our whole send buffer) */
    size_t bytes;
    uint64_t seq;    /* this call's number */
    uint64_t prev;   /* the last call on its lane before it */
    int lane;        /* 0 or 1: calls alternate */
    size_t flag;     /* offset of its lane's flag */
    int check;       /* the lane may still be read: look at every `read` word */
    int push;        /* two members: publish into the other's lane (c->flat_push) */
    int next;        /* the first member not yet seen published or done reading;
                        -1 between a schedule's runs: its next start takes a number */
    int published;   /* scheduled: past the publishing */
    MPI_Comm comm;   /* chosen at each start (c NULL at recording): its cache or not */
    int nalt;        /* steps of the two-sided alternative after the flat ones */
    int pair;        /* scheduled and pushed: run as the blocking pair does (p) */
    int choose;      /* recorded before the cache was there: each start chooses */
    fm_op_plan plan; /* scheduled: the op resolved at recording (else k NULL) */
    fm_crma_pair_call p;
} flat_call;


/* Take the next call number and lane (at the call, or at MPI_Start). */
static inline __attribute__((always_inline)) void flat_begin(flat_call *f, int scheduled)
{
    fm_crma *c = f->c;
    f->next = 0;
    f->published = 0;
    f->push = c->flat_push;
    f->pair = scheduled && f->push && f->op != MPI_OP_NULL && f->bytes > FM_CRMA_PUSH_PAIR_ABOVE;
    if (f->pair) { /* f->p holds the arguments since the recording */
        fm_crma_pair_begin(c, &f->p);
        f->seq = f->p.seq;
        return;
    }
    f->lane = (int)(c->flat_calls++ % FM_CRMA_FLAT_LANES);
    f->seq = ++c->seq;
    f->prev = c->flat_prev[f->lane];
    c->flat_prev[f->lane] = f->seq;
    f->flag = FM_CRMA_OFF_FLAT(f->lane);
    f->check = (c->flat_nb & 3) != 0;
    c->flat_nb = (c->flat_nb << 1 | (unsigned)scheduled) & 3;
}

static uint64_t *known_read(fm_crma *c, int member)
{
    return c->known_read + (size_t)member * FM_CRMA_FLAT_LANES;
}

/* The bytes of a call published in the lane whose flag is w. */
static unsigned char *lane_data(fm_crma_lane_flag *w, size_t bytes)
{
    return bytes <= FM_CRMA_LANE_INLINE ? w->inl : (unsigned char *)w + offsetof(fm_crma_flat, data);
}

/* 1 once `member` has finished reading call `prev` on the lane, which
 * publishing there would overwrite.  Known, in a run of calls one after
 * the other, from the `read` words it put in the flag line of its last
 * call (learn); only when that is not enough do we fetch its `read` line:
 * one cache line fewer on every scheduled call (persistent 8 B allreduce
 * at 2 members, pushed: 0.48-0.52 us fetching it, 0.29-0.32 not). */
static int has_read(fm_crma *c, int member, int lane, uint64_t prev)
{
    uint64_t *k = known_read(c, member) + lane;
    if (*k < prev)
        *k = fm_crma_peek(c, member, FM_CRMA_OFF_FLAT(lane) + offsetof(fm_crma_flat, read));
    return *k >= prev;
}

/* Note the `read` words a member published with a call we have seen. */
static void learn(fm_crma *c, int member, const fm_crma_lane_flag *w)
{
    uint64_t *k = known_read(c, member);
    for (int l = 0; l < FM_CRMA_FLAT_LANES; l++)
        if (w->read[l] > k[l])
            k[l] = w->read[l];
}

/* 1 once nobody still reads the lane: then our contribution goes in, into
 * our own lane or, pushed, into the other member's. */
static inline __attribute__((always_inline)) int flat_publish(flat_call *f)
{
    fm_crma *c = f->c;
    int to = c->rank;
    if (f->push) { /* the other member: the only one that reads what we write */
        to = 1 - c->rank;
        if (f->check && !has_read(c, to, f->lane, f->prev))
            return 0;
    } else if (f->check) { /* ourselves too: our own read of call k - 2 may still be pending */
        for (; f->next < c->size; f->next++)
            if (!has_read(c, f->next, f->lane, f->prev))
                return 0;
    }
    fm_crma_lane_flag *w = fm_crma_mapped(c, to, f->flag);
    if (f->bytes) {
        const void *mine = f->sbuf == MPI_IN_PLACE ? f->rbuf : f->sbuf;
        /* A contiguous dt's bytes start true_lb into the buffer, copied
         * inline (fm_dt_pack's own fast path is a call away); only an
         * allgather's dt may be another layout of the same signature. */
        if (fm_dt_is_contig(f->dt))
            fm_copy_short(lane_data(w, f->bytes), (const char *)mine + f->dt->true_lb, f->bytes);
        else
            fm_dt_pack(mine, f->count, f->dt, 0, lane_data(w, f->bytes), f->bytes);
    }
    w->bytes = f->bytes; /* the stamp (cache.h): readers compare it with their own count */
    memcpy(w->read, known_read(c, c->rank), sizeof w->read);
    atomic_store_explicit(&w->v, f->seq, memory_order_release);
    f->next = 0;
    return 1;
}

/* 1 once every member has published this call (pushed: into our lane). */
static inline __attribute__((always_inline)) int flat_all_in(flat_call *f)
{
    fm_crma *c = f->c;
    if (f->push) { /* one other member, and it wrote into our own lane */
        const fm_crma_lane_flag *w = (const fm_crma_lane_flag *)(const void *)(c->self + f->flag);
        if (atomic_load_explicit(&w->v, memory_order_acquire) < f->seq)
            return 0;
        learn(c, 1 - c->rank, w);
        return 1;
    }
    for (; f->next < c->size; f->next++) {
        if (f->next == c->rank)
            continue;
        const fm_crma_lane_flag *w = fm_crma_mapped(c, f->next, f->flag);
        if (atomic_load_explicit(&w->v, memory_order_acquire) < f->seq)
            return 0;
        learn(c, f->next, w);
    }
    return 1;
}

/* A member whose count differs from ours: the same outcome as the
 * two-sided allreduce (coll/coll_call.h), and no reading past its bytes. */
static int stamp_rc(const fm_crma_lane_flag *w, size_t bytes)
{
    return w->bytes == bytes ? FM_OK : w->bytes > bytes ? FM_ERR_TRUNCATE : FM_ERR_COLL_PEER;
}

/* Pulled: fold every member's lane into rbuf, c0 op (c1 op (... op c[p-1])). */
static int fold_all(flat_call *f)
{
    fm_crma *c = f->c;
    int rc = FM_OK;
    for (int p = 0; p < c->size; p++) {
        int r = stamp_rc(fm_crma_mapped(c, p, f->flag), f->bytes);
        if (r != FM_OK && rc != FM_ERR_TRUNCATE)
            rc = r;
    }
    /* dt is contiguous (select.c): packed bytes are its typed layout,
     * and a typed view of them starts true_lb before the first byte. */
    const int last = c->size - 1;
    if (rc == FM_OK)
        fm_copy((char *)f->rbuf + f->dt->true_lb, lane_data(fm_crma_mapped(c, last, f->flag), f->bytes),
               f->bytes);
    for (int p = last - 1; p >= 0 && rc == FM_OK; p--) {
        const char *in = (const char *)lane_data(fm_crma_mapped(c, p, f->flag), f->bytes) - f->dt->true_lb;
        rc = fm_op_plan_apply(f->plan, f->dt->true_lb, f->op, in, f->rbuf, f->count, f->dt); /* rbuf = c[p] op rbuf */
    }
    return rc;
}

/* Allgather: every member's block out of its lane into rbuf.  Each
 * block's stamp is checked against the count we expect from it. */
static int gather_all(flat_call *f)
{
    fm_crma *c = f->c;
    const flat_gather *g = f->g;
    const MPI_Datatype rdt = g->rdt;
    int rc = FM_OK;
    for (int p = 0; p < c->size; p++) {
        const MPI_Count n = fm_iarr_null(g->rcounts) ? g->rcount : fm_iarr_at(g->rcounts, p);
        const size_t bytes = (size_t)n * (size_t)rdt->size;
        const fm_crma_lane_flag *w = fm_crma_mapped(c, p, f->flag);
        const int r = stamp_rc(w, bytes);
        if (r != FM_OK) {
            if (rc != FM_ERR_TRUNCATE)
                rc = r;
            continue;
        }
        if ((p == c->rank && g->in_place) || bytes == 0)
            continue;
        const MPI_Aint at = fm_iarr_null(g->displs) ? (MPI_Aint)p * g->rcount : fm_iarr_at(g->displs, p);
        /* (a contiguous rdt is one fm_copy inside fm_dt_unpack) */
        fm_dt_unpack(fm_coll_at(g->rbuf, at, rdt), n, rdt, 0,
                     lane_data((fm_crma_lane_flag *)(uintptr_t)w, bytes), bytes);
    }
    return rc;
}

/* Alltoall: our block out of every member's lane (ours included) into
 * rbuf.  Every lane holds size blocks: its stamp is the same total. */
static int scatter_all(flat_call *f)
{
    fm_crma *c = f->c;
    const flat_a2a *a = f->a;
    int rc = FM_OK;
    for (int p = 0; p < c->size; p++) {
        fm_crma_lane_flag *w = fm_crma_mapped(c, p, f->flag);
        const int r = stamp_rc(w, f->bytes);
        if (r != FM_OK) {
            if (rc != FM_ERR_TRUNCATE)
                rc = r;
            continue;
        }
        if (a->block)
            fm_dt_unpack(fm_coll_at(a->rbuf, (MPI_Aint)p * a->rcount, a->rdt), a->rcount, a->rdt,
                         0, lane_data(w, f->bytes) + (size_t)c->rank * a->block, a->block);
    }
    return rc;
}

/* Pushed: the other member's vector is in our lane; member 0's operand on
 * the left, so both compute the same bytes (as fm_crma_pair). */
static inline __attribute__((always_inline)) int fold_pushed(flat_call *f)
{
    fm_crma *c = f->c;
    fm_crma_lane_flag *w = (fm_crma_lane_flag *)(void *)(c->self + f->flag);
    int rc = stamp_rc(w, f->bytes);
    if (rc != FM_OK)
        return rc;
    const ptrdiff_t lb = f->dt->true_lb;
    char *theirs = (char *)lane_data(w, f->bytes) - lb;
    const char *mine = f->sbuf == MPI_IN_PLACE ? f->rbuf : f->sbuf;
    if (c->rank == 0) { /* theirs = mine op theirs, in our lane, then out */
        rc = fm_op_plan_apply(f->plan, lb, f->op, mine, theirs, f->count, f->dt);
        if (rc == FM_OK)
            fm_copy_short((char *)f->rbuf + lb, theirs + lb, f->bytes);
        return rc;
    }
    if (mine != f->rbuf)
        fm_copy_short((char *)f->rbuf + lb, mine + lb, f->bytes);
    rc = fm_op_plan_apply(f->plan, lb, f->op, theirs, f->rbuf, f->count, f->dt); /* rbuf = theirs op mine */
    /* Only read here: the other's next write into these lines is cheaper
     * with them written here last (cache.h, fm_crma_claim). */
    if (f->bytes > FM_CRMA_LANE_INLINE)
        fm_crma_claim(c, f->flag + offsetof(fm_crma_flat, data), f->bytes);
    return rc;
}

/* Tell the others we are done reading the lane. */
static inline __attribute__((always_inline)) void flat_read(flat_call *f)
{
    fm_crma *c = f->c;
    fm_crma_word *read = (fm_crma_word *)(void *)(c->self + f->flag + offsetof(fm_crma_flat, read));
    known_read(c, c->rank)[f->lane] = f->seq;
    atomic_store_explicit(&read->v, f->seq, memory_order_release);
}

/* Fold (allreduce), then say we are done reading.  Returns the call's
 * outcome. */
static inline __attribute__((always_inline)) int flat_end(flat_call *f)
{
    int rc = f->a   ? scatter_all(f)
             : f->g ? gather_all(f)
             : f->op == MPI_OP_NULL ? FM_OK
             : f->push ? fold_pushed(f)
                       : fold_all(f);
    flat_read(f);
    return rc;
}

static int flat_blocking(flat_call *f)
{
    flat_begin(f, 0);
    fm_wait_until(flat_publish(f));
    fm_wait_until(flat_all_in(f));
    int rc = flat_end(f);
    fm_crma_finish(f->c, f->seq);
    return rc;
}

/* Member 0 leaves first: the others also wait until it has seen everyone
 * in.  Flat runs only where ranks outnumber cores, and there a member waits
 * in the next call for whoever it needs to be scheduled; rank 0 is the root
 * of most calls that follow a barrier (OMB times a Bcast, Scatter, ... from
 * rank 0 after each).  Leaving in any order, the other 3 of 4 ranks waited
 * 5-17 us in osu_bcast's Bcast for rank 0 to get a core (7.8 us average
 * against Open MPI's 1.6); leaving after it, they find the data there (0.25
 * to 1.2 us; osu_scatter 3.8 -> 0.33, osu_scatterv 4.0 -> 0.35).  A barrier
 * plus Bcast takes as long as before (bench/bcast_after_barrier.c, wall
 * time per iteration, medians of 5: 16.4 and 15.5 us); osu_barrier alone
 * 9.0 -> 11.9 us at 4 ranks (Open MPI 13.2). */
int fm_crma_barrier_flat(fm_crma *c)
{
    flat_call f = {.c = c, .op = MPI_OP_NULL, .dt = MPI_BYTE};
    flat_begin(&f, 0);
    fm_wait_until(flat_publish(&f));
    fm_wait_until(flat_all_in(&f));
    int rc = flat_end(&f);
    if (c->rank != 0) {
        const size_t read = f.flag + offsetof(fm_crma_flat, read);
        fm_wait_until(fm_crma_peek(c, 0, read) >= f.seq);
        /* Member 0 left first, and on a crowded node what it sent since
         * (a rooted call's message, usually) is there by the time this
         * member runs again: take it in now, so that the call it belongs
         * to finds it matched.  osu_scatterv at 4 ranks, 1-256 B, 5
         * alternated rounds, medians: 0.29-0.37 -> 0.17-0.23 us (Open MPI
         * 0.14-0.17, whose non-roots take it in while they wait in the
         * barrier); osu_scatter 0.28-0.40 -> 0.16-0.21.  The poll costs
         * about 150 instructions a barrier (callgrind, rank 1 of 4: 643 ->
         * 799 a call, waiting included) where a crowded node's barrier
         * takes 10-20 us. */
        fm_progress();
    }
    fm_crma_finish(c, f.seq);
    return rc;
}

int fm_crma_allreduce_flat(fm_crma *c, const void *sbuf, void *rbuf, MPI_Count count,
                           MPI_Datatype dt, MPI_Op op)
{
    flat_call f = {.c = c, .sbuf = sbuf, .rbuf = rbuf, .count = count, .dt = dt, .op = op,
                   .bytes = (size_t)count * (size_t)dt->size};
    return flat_blocking(&f);
}

/* Reduce, pulled only (crowded nodes, select.c): every member publishes,
 * the root alone waits for everyone and folds; the others leave at once.
 * Such a call ends without its members having seen each other, so the two
 * calls after it check every `read` word before publishing, as after a
 * scheduled call: a member may run one call ahead, not two.  osu_reduce at
 * 4 ranks on the 2 cores, 3 alternated rounds, medians, 1 B-1 KiB: 5.7-6.4
 * us with the binary tree, 3.1-4.1 flat (Open MPI 6.0-14.7). */
int fm_crma_reduce_flat(fm_crma *c, const void *sbuf, void *rbuf, MPI_Count count,
                        MPI_Datatype dt, MPI_Op op, int root)
{
    flat_call f = {.c = c, .sbuf = sbuf, .rbuf = rbuf, .count = count, .dt = dt, .op = op,
                   .bytes = (size_t)count * (size_t)dt->size};
    flat_begin(&f, 1); /* as a scheduled call: read after it has returned */
    fm_wait_until(flat_publish(&f));
    int rc = FM_OK;
    if (c->rank == root) {
        fm_wait_until(flat_all_in(&f));
        rc = flat_end(&f);
    } else {
        flat_read(&f); /* nothing of the others' to read */
    }
    fm_crma_finish(c, f.seq);
    return rc;
}

/* Bcast, pulled only (crowded nodes, select.c): the root publishes, the
 * others copy out of its lane; nobody waits for anyone but the root, so,
 * as after a reduce, the two calls after it check every `read` word. */
int fm_crma_bcast_flat(fm_crma *c, void *buf, MPI_Count count, MPI_Datatype dt, int root)
{
    flat_call f = {.c = c, .sbuf = buf, .count = count, .dt = dt, .op = MPI_OP_NULL,
                   .bytes = (size_t)count * (size_t)dt->size};
    flat_begin(&f, 1);
    int rc = FM_OK;
    if (c->rank == root) {
        fm_wait_until(flat_publish(&f));
    } else {
        fm_crma_lane_flag *w = fm_crma_mapped(c, root, f.flag);
        fm_wait_until(atomic_load_explicit(&w->v, memory_order_acquire) >= f.seq);
        learn(c, root, w);
        rc = stamp_rc(w, f.bytes);
        if (rc == FM_OK && f.bytes)
            fm_dt_unpack(buf, count, dt, 0, lane_data(w, f.bytes), f.bytes);
    }
    flat_read(&f);
    fm_crma_finish(c, f.seq);
    return rc;
}

/* Pulled only: select.c takes it on crowded nodes, where nothing pushes. */
int fm_crma_allgather_flat(fm_crma *c, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                           void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Count rcount,
                           MPI_Datatype rdt)
{
    flat_gather g = {.rbuf = rbuf, .rcounts = rcounts, .displs = displs, .rcount = rcount,
                     .rdt = rdt, .in_place = sbuf == MPI_IN_PLACE};
    if (g.in_place) { /* ours is in rbuf, where everyone else's goes */
        scount = fm_iarr_null(rcounts) ? rcount : fm_iarr_at(rcounts, c->rank);
        sbuf = fm_coll_at(rbuf, fm_iarr_null(displs) ? (MPI_Aint)c->rank * rcount
                                                     : fm_iarr_at(displs, c->rank), rdt);
        sdt = rdt;
    }
    flat_call f = {.c = c, .sbuf = sbuf, .rbuf = rbuf, .count = scount, .dt = sdt,
                   .op = MPI_OP_NULL, .g = &g, .bytes = (size_t)scount * (size_t)sdt->size};
    return flat_blocking(&f);
}

/* Pulled only, as allgather: every member publishes its whole send buffer
 * (size blocks) in its lane, then copies its own block out of each. */
int fm_crma_alltoall_flat(fm_crma *c, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                          void *rbuf, MPI_Count rcount, MPI_Datatype rdt)
{
    const flat_a2a a = {.rbuf = rbuf, .rcount = rcount, .rdt = rdt,
                        .block = (size_t)rcount * (size_t)rdt->size};
    if (sbuf == MPI_IN_PLACE) { /* published before anything lands in rbuf */
        sbuf = rbuf;
        scount = rcount;
        sdt = rdt;
    }
    flat_call f = {.c = c, .sbuf = sbuf, .rbuf = rbuf, .count = scount * c->size, .dt = sdt,
                   .op = MPI_OP_NULL, .a = &a,
                   .bytes = (size_t)scount * (size_t)c->size * (size_t)sdt->size};
    return flat_blocking(&f);
}

/* ---- as a schedule step -------------------------------------------------- */

/* Flat when the communicator's cache is there by now, else on to the
 * two-sided steps recorded after the flat one.  Every member sees the same
 * (blocking collectives set the cache up, in the same order everywhere). */
static int step_choose(fm_coll_call *cc, void *arg)
{
    (void)cc;
    flat_call *f = arg;
    fm_crma *c = f->comm->coll_rma;
    f->c = c && !c->disabled ? c : NULL;
    return f->c ? 1 : 2;
}

/* The whole call, resumed where it stopped: 1 once it ended (its outcome
 * in *rc), 0 while it waits for the other members. */
static int flat_run(flat_call *f, int *rc)
{
    if (f->next < 0) /* the first poll of this start: it runs within the call */
        flat_begin(f, 1);
    if (!f->published) {
        if (!(f->pair ? fm_crma_pair_publish(f->c, &f->p) : flat_publish(f)))
            return 0;
        f->published = 1;
    }
    if (f->pair) {
        if (!fm_crma_test(f->c, fm_crma_pair_flag(f->c, &f->p), f->seq))
            return 0;
        *rc = fm_crma_pair_end(f->c, &f->p); /* it finishes the call */
    } else {
        if (!flat_all_in(f))
            return 0;
        *rc = flat_end(f);
        fm_crma_finish(f->c, f->seq);
    }
    f->next = -1; /* the next start takes a new number */
    return 1;
}

/* The whole call as one step, polled until it ends: one step to record
 * and play rather than three saves an MPI_Iallreduce of 8 B about 200 of
 * its 1,500 instructions. */
static int step_flat(fm_coll_call *cc, void *arg)
{
    flat_call *f = arg;
    int rc = FM_OK;
    if (!flat_run(f, &rc))
        return 0;
    fm_cc_fail(cc, rc);
    return 1 + f->nalt;
}

/* The schedule's direct form (sched.h, fm_sched_set_direct): the flat
 * call run by the start itself (MPI_Start, or the nonblocking call) and
 * looked at by MPI_Wait, or -1 where each start chooses and the cache is
 * not there. */
static int flat_direct(void *arg, int *rc)
{
    flat_call *f = arg;
    if (f->choose) {
        fm_crma *c = f->comm->coll_rma;
        if (!c || c->disabled)
            return -1;
        f->c = c;
    }
    return flat_run(f, rc);
}

void *fm_crma_record_flat(fm_coll_call *cc, fm_crma *c, const void *sbuf, void *rbuf,
                          MPI_Count count, MPI_Datatype dt, MPI_Op op)
{
    flat_call *f = fm_sched_alloc(cc, sizeof *f);
    if (!f) {
        fm_cc_fail(cc, FM_ERR_NOMEM);
        return NULL;
    }
    *f = (flat_call){.c = c, .sbuf = sbuf, .rbuf = rbuf, .count = count, .dt = dt, .op = op,
                     .bytes = op == MPI_OP_NULL ? 0 : (size_t)count * (size_t)dt->size,
                     .next = -1, .comm = cc->comm, .choose = !c};
    if (op != MPI_OP_NULL)
        f->plan = fm_op_plan_for(op, count, dt);
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    f->p = (fm_crma_pair_call){.out = mine, .out_count = count, .mine = mine, .count = count,
                               .rbuf = rbuf, .dt = dt, .op = op};
    fm_sched_set_direct(cc, flat_direct, f);
    if (!c)
        fm_sched_add_poll(cc, step_choose, f, NULL, NULL);
    fm_sched_add_poll(cc, step_flat, f, dt, op == MPI_OP_NULL ? NULL : op);
    return f;
}

void fm_crma_record_flat_alt_end(fm_coll_call *cc, void *flat, int first_alt)
{
    if (flat)
        ((flat_call *)flat)->nalt = fm_sched_steps(cc) - first_alt;
}
