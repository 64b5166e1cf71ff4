/* reduce.c — reduce as a binary tree of one-sided writes: each child writes
 * its partial result into one of two slots (halves) of its parent's data
 * area and raises that slot's flag; the parent combines and passes on.
 *
 * Commutative ops: a heap-shaped tree over ranks relative to the root
 * (children 2v+1, 2v+2), balanced for every root, children combined in
 * whatever order they arrive.
 * Non-commutative ops: an in-order tree over the real ranks whose root is
 * the reduce's root — a member's left subtree holds exactly the lower ranks
 * of its range and its right subtree the higher ones, so the member computes
 * left op mine op right and the root ends with the rank-ordered result
 * without an extra hop.  fm_op_apply computes inout = in op inout, so the
 * right operand is always the one overwritten.
 *
 * A vector larger than FM_CRMA_REDUCE_PIECE runs as consecutive reduces of
 * pieces of it, a call number and region each (reduce_pieces): a child
 * writes the next piece while its parent folds the last, where one whole
 * vector made the parent wait for all of it before folding, and the cache
 * needs room for a few pieces, not for the vector.
 *
 * Also the pair: two members (allreduce, reduce_scatter) cross once each
 * way through the same slots, each writes, both fold (exchange.c does the
 * same for alltoall). */
#include "coll/rma/cache.h"

#include <stdlib.h>

#include "coll/coll_util.h"
#include "coll/op.h"
#include "dtype/dtype.h"
#include "pt2pt/pt2pt.h"
#include "util/pvar.h"
#include "util/status.h"

typedef struct tree {
    int parent, slot;  /* parent's rank and our slot in its data area; -1 at the root */
    int child[2];      /* child writing slot j, or -1 */
} tree;

static void heap_tree(int size, int rank, int root, tree *t)
{
    int vr = (rank - root + size) % size;
    t->parent = vr ? ((vr - 1) / 2 + root) % size : -1;
    t->slot = vr ? (vr - 1) % 2 : -1;
    for (int j = 0; j < 2; j++) {
        int cv = 2 * vr + 1 + j;
        t->child[j] = cv < size ? (cv + root) % size : -1;
    }
}

/* Walk from the root down to us: each node's subtree covers [lo, hi) and
 * its children sit in the middle of [lo, node) and [node+1, hi). */
static void inorder_tree(int size, int rank, int root, tree *t)
{
    int lo = 0, hi = size, node = root;
    t->parent = t->slot = -1;
    while (node != rank) {
        t->parent = node;
        if (rank < node) {
            hi = node;
            t->slot = 0;
        } else {
            lo = node + 1;
            t->slot = 1;
        }
        node = lo + (hi - lo) / 2;
    }
    t->child[0] = lo < rank ? lo + (rank - lo) / 2 : -1;
    t->child[1] = rank + 1 < hi ? rank + 1 + (hi - rank - 1) / 2 : -1;
}

/* Slot j's contents as a writable (count, dt) buffer: the slot itself when
 * dt is contiguous (packed bytes are the typed layout), else unpacked into
 * a scratch buffer (*raw to free). */
static void *slot_view(fm_crma *c, const fm_crma_region *r, int j, MPI_Count count,
                       MPI_Datatype dt, size_t bytes, void **raw)
{
    unsigned char *s = c->self + fm_crma_slot_off(r, j);
    if (fm_dt_is_contig(dt))
        return s - dt->true_lb;
    void *v = fm_coll_tmp_alloc(count, dt, raw);
    if (v)
        fm_dt_unpack(v, count, dt, 0, s, bytes);
    return v;
}

/* The pending child (bit j of `pending`) whose partial result has
 * arrived and may be folded in now, or -1.  Non-commutative: the right
 * child first (mine op right can be computed into its slot), then left. */
static int next_child(const fm_crma *c, int lane, int pending, int commute, uint64_t seq)
{
    for (int j = 0; j < 2; j++) {
        if (!(pending & (1 << j)) || (!commute && j == 0 && (pending & 2)))
            continue;
        if (fm_crma_test(c, FM_CRMA_OFF_SLOT(lane, j), seq))
            return j;
    }
    return -1;
}

/* One reduce of (count, dt), a whole vector or one piece of one: its
 * flags are stamped with the whole call's `total` bytes, so members that
 * passed different counts see it at the first piece, whatever its size.
 * err: an earlier piece failed; then this one waits for no child (one with
 * a different count may never send it) and passes the error up. */
static inline __attribute__((always_inline)) int
reduce_one(fm_crma *c, const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
           MPI_Op op, int root, size_t total, int err)
{
    const size_t bytes = (size_t)count * (size_t)dt->size;
    const uint64_t seq = ++c->seq;
    const int rank = c->rank;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    tree t;
    if (op->commute)
        heap_tree(c->size, rank, root, &t);
    else
        inorder_tree(c->size, rank, root, &t);

    /* Two slots of `bytes` each: a region of twice that, rounded per slot. */
    const fm_crma_region r =
        fm_crma_take(c, seq, 2 * ((bytes + 63) / 64 * 64), bytes <= FM_CRMA_INLINE);
    int rc = err, pending = 0;
    for (int j = 0; j < 2; j++)
        if (t.child[j] >= 0 && err == FM_OK)
            pending |= 1 << j;

    const uint64_t stamp = fm_crma_call_stamp(total, &r);
    const void *cur = mine; /* partial result so far */
    void *curw = NULL;      /* the same, once it lives in writable memory */
    void *raw[3] = {NULL, NULL, NULL};
    /* Every child is waited for even after an error in this call (not
     * after one in an earlier piece: err), and the parent always gets its
     * flag (stamped as an error then: cache.h), so no member is left
     * waiting. */
    while (pending) {
        int j;
        fm_wait_until((j = next_child(c, r.lane, pending, op->commute, seq)) >= 0);
        pending &= ~(1 << j);
        if (rc == FM_OK)
            rc = fm_crma_check_stamp(c, FM_CRMA_OFF_SLOT(r.lane, j), stamp);
        if (rc != FM_OK)
            continue;
        void *v = slot_view(c, &r, j, count, dt, bytes, &raw[j]);
        if (!v) {
            rc = FM_ERR_NOMEM;
            continue;
        }
        if (!curw && (op->commute || j == 1)) {
            rc = fm_op_apply(op, cur, v, count, dt); /* v = mine op child */
            curw = v;
        } else {
            if (!curw) { /* left op mine, mine read-only: copy it first */
                curw = t.parent < 0 ? rbuf : fm_coll_tmp_alloc(count, dt, &raw[2]);
                if (!curw) {
                    rc = FM_ERR_NOMEM;
                    continue;
                }
                if (curw != mine)
                    rc = fm_dt_copy(mine, count, dt, curw, count, dt);
            }
            if (rc == FM_OK)
                rc = fm_op_apply(op, v, curw, count, dt); /* child op partial */
        }
        cur = curw;
        /* The fold may have only read the slot (its result went elsewhere,
         * or dt is not contiguous): the child's next write into it is then
         * cheaper with the slot's lines written here (cache.h). */
        if (!r.inl && v != curw)
            fm_crma_claim(c, fm_crma_slot_off(&r, j), bytes);
    }

    if (t.parent < 0) {
        if (rc == FM_OK && cur != rbuf)
            rc = fm_dt_copy(cur, count, dt, rbuf, count, dt);
    } else {
        fm_crma_wait_peer(c, t.parent, r.after);
        if (rc == FM_OK)
            rc = fm_crma_write(c, t.parent, fm_crma_slot_off(&r, t.slot), cur, count, dt);
        int src = fm_crma_signal_stamped(c, t.parent, FM_CRMA_OFF_SLOT(r.lane, t.slot), seq,
                                         rc == FM_OK ? stamp : FM_CRMA_STAMP_ERR);
        if (rc == FM_OK)
            rc = src;
    }
    fm_crma_finish(c, seq);
    for (int i = 0; i < 3; i++)
        fm_coll_tmp_free(raw[i]);
    return rc;
}

static __attribute__((noinline)) int reduce_pieces(fm_crma *c, const void *sbuf, void *rbuf,
                                                   MPI_Count count, MPI_Datatype dt, MPI_Op op,
                                                   int root, MPI_Count per)
{
    /* rbuf is significant at the root, and at every member under
     * MPI_IN_PLACE (allreduce's reduce step); elsewhere it may be NULL. */
    const int own_rbuf = c->rank == root || sbuf == MPI_IN_PLACE;
    const size_t total = (size_t)count * (size_t)dt->size;
    int rc = FM_OK;
    FM_PV_INC(coll_reduce_pieces);
    /* Every piece runs, after an error too (without waiting for children
     * then): a member's later pieces free the regions its children write
     * theirs into. */
    for (MPI_Count i = 0; i < count; i += per) {
        const MPI_Count n = count - i < per ? count - i : per;
        const void *s = sbuf == MPI_IN_PLACE ? sbuf : fm_coll_at(sbuf, (MPI_Aint)i, dt);
        void *r = own_rbuf ? fm_coll_at(rbuf, (MPI_Aint)i, dt) : rbuf;
        int prc = reduce_one(c, s, r, n, dt, op, root, total, rc);
        if (rc == FM_OK)
            rc = prc;
    }
    return rc;
}

int fm_crma_reduce(fm_crma *c, const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                   MPI_Op op, int root)
{
    const size_t bytes = (size_t)count * (size_t)dt->size;
    if (__builtin_expect(bytes > c->reduce_piece, 0) && (size_t)dt->size <= c->reduce_piece)
        return reduce_pieces(c, sbuf, rbuf, count, dt, op, root,
                             (MPI_Count)(c->reduce_piece / (size_t)dt->size));
    return reduce_one(c, sbuf, rbuf, count, dt, op, root, bytes, FM_OK);
}

/* The steps inlined into the blocking pair (one function, as fast as it
 * was before it had steps), and out of line for flat.c. */
#define PAIR_STEP static inline __attribute__((always_inline))

PAIR_STEP void pair_begin(fm_crma *c, fm_crma_pair_call *p)
{
    p->seq = ++c->seq;
    const size_t out_bytes = (size_t)p->out_count * (size_t)p->dt->size;
    const size_t bytes = (size_t)p->count * (size_t)p->dt->size;
    /* Both members take a slot of the larger of the two blocks. */
    const size_t most = out_bytes > bytes ? out_bytes : bytes;
    p->r = fm_crma_take(c, p->seq, 2 * ((most + 63) / 64 * 64), most <= FM_CRMA_INLINE);
}

PAIR_STEP int pair_publish(fm_crma *c, fm_crma_pair_call *p)
{
    const int peer = 1 - c->rank;
    if (!fm_crma_peer_done(c, peer, p->r.after))
        return 0; /* its slot still holds a call it has not finished */
    const size_t out_bytes = (size_t)p->out_count * (size_t)p->dt->size;
    int rc = fm_crma_write(c, peer, fm_crma_slot_off(&p->r, c->rank), p->out, p->out_count, p->dt);
    int src = fm_crma_signal_stamped(c, peer, FM_CRMA_OFF_SLOT(p->r.lane, c->rank), p->seq,
                                     rc == FM_OK ? fm_crma_call_stamp(out_bytes, &p->r)
                                                 : FM_CRMA_STAMP_ERR);
    p->rc = rc == FM_OK ? src : rc;
    return 1;
}

PAIR_STEP int pair_end(fm_crma *c, fm_crma_pair_call *p)
{
    const int rank = c->rank, peer = 1 - rank;
    const MPI_Count count = p->count;
    const MPI_Datatype dt = p->dt;
    const size_t bytes = (size_t)count * (size_t)dt->size;
    void *raw = NULL;
    int rc = p->rc;
    if (rc == FM_OK)
        rc = fm_crma_check_stamp(c, FM_CRMA_OFF_SLOT(p->r.lane, peer),
                                 fm_crma_call_stamp(bytes, &p->r));
    void *theirs = rc == FM_OK ? slot_view(c, &p->r, peer, count, dt, bytes, &raw) : NULL;
    if (rc == FM_OK && !theirs)
        rc = FM_ERR_NOMEM;
    if (rc == FM_OK && rank == 0) {
        /* theirs = mine op theirs, in the slot (or its scratch copy) */
        rc = fm_op_apply(p->op, p->mine, theirs, count, dt);
        if (rc == FM_OK)
            rc = fm_dt_copy(theirs, count, dt, p->rbuf, count, dt);
    } else if (rc == FM_OK) {
        /* rbuf = theirs op mine */
        if (p->mine != p->rbuf)
            rc = fm_dt_copy(p->mine, count, dt, p->rbuf, count, dt);
        if (rc == FM_OK)
            rc = fm_op_apply(p->op, theirs, p->rbuf, count, dt);
        if (!p->r.inl)
            fm_crma_claim(c, fm_crma_slot_off(&p->r, peer), bytes);
    }
    fm_crma_finish(c, p->seq);
    fm_coll_tmp_free(raw);
    return rc;
}

int fm_crma_pair(fm_crma *c, const void *out, MPI_Count out_count, const void *mine,
                 MPI_Count count, void *rbuf, MPI_Datatype dt, MPI_Op op)
{
    fm_crma_pair_call p = {.out = out, .out_count = out_count, .mine = mine, .count = count,
                           .rbuf = rbuf, .dt = dt, .op = op};
    pair_begin(c, &p);
    fm_wait_until(pair_publish(c, &p));
    fm_crma_wait(c, fm_crma_pair_flag(c, &p), p.seq);
    return pair_end(c, &p);
}

void fm_crma_pair_begin(fm_crma *c, fm_crma_pair_call *p) { pair_begin(c, p); }
int fm_crma_pair_publish(fm_crma *c, fm_crma_pair_call *p) { return pair_publish(c, p); }
int fm_crma_pair_end(fm_crma *c, fm_crma_pair_call *p) { return pair_end(c, p); }
