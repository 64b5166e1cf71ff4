/* match.c — the tag-matching engine: per-source bins, a wildcard list of
 * ANY_SOURCE receives and an arrival-ordered list of unexpected messages.
 *
 * Layout of one queue:
 *   bins[src].posted  receives naming `src`, in post order (next/prev)
 *   bins[src].unexp   messages from `src`, in arrival order (next/prev)
 *   wild              ANY_SOURCE receives, in post order (next/prev)
 *   arrival list      every unexpected message, in arrival order (anext/aprev)
 *
 * Every list is in increasing `seq`, so an arrival takes the head-most match
 * of its bin and stops scanning the wildcard list as soon as it passes that
 * match's seq: the earliest-posted receive wins with no merge cost.
 *
 * Overflow: the bin array grows by doubling up to FM_MATCH_MAX_BINS.  A
 * source beyond that (or whose bin could not be allocated) still matches
 * correctly, only more slowly: its posted receives wait in the wildcard list
 * (which is filtered by source anyway) and its unexpected messages sit only
 * in the arrival list, which posts for such sources then search.  So the
 * engine never fails an operation and never allocates except to grow bins. */
#include "match/match.h"

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 4 Mi sources, 128 MiB of bins at most: beyond any real communicator, and
 * a bound on what a corrupt source rank can make us allocate. */
#define FM_MATCH_MAX_BINS ((size_t)1 << 22)
#define FM_MATCH_MIN_BINS ((size_t)64)

struct fm_match_list {
    fm_match_entry *head, *tail;
};

struct fm_match_bin {
    struct fm_match_list posted, unexp;
};

struct fm_match_queue {
    fm_match_entry *ahead, *atail;   /* unexpected messages, arrival order (first:
                                        fm_match_any_unexpected reads it inline) */
    struct fm_match_bin *bins;
    size_t nbins;
    struct fm_match_list wild;       /* ANY_SOURCE receives (+ overflowed specific ones) */
    uint64_t next_seq;
    size_t nposted, nunexp;
    size_t posted_hwm, unexp_hwm;    /* the most each has held (MPI_T) */
    size_t unbinned;                 /* unexpected messages only in the arrival list */
    int32_t unbinned_min_src;        /* lowest source among them (INT32_MAX if none) */
};

_Static_assert(offsetof(struct fm_match_queue, ahead) == 0, "match.h: fm_match_any_unexpected");

/* ---- list primitives (bins and wildcard list use next/prev) ---- */

static inline void list_append(struct fm_match_list *l, fm_match_entry *e)
{
    e->next = NULL;
    e->prev = l->tail;
    if (l->tail)
        l->tail->next = e;
    else
        l->head = e;
    l->tail = e;
}

static inline void list_unlink(struct fm_match_list *l, fm_match_entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        l->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        l->tail = e->prev;
    e->next = e->prev = NULL;
}

static inline void arrival_append(fm_match_queue *q, fm_match_entry *e)
{
    e->anext = NULL;
    e->aprev = q->atail;
    if (q->atail)
        q->atail->anext = e;
    else
        q->ahead = e;
    q->atail = e;
}

static inline void arrival_unlink(fm_match_queue *q, fm_match_entry *e)
{
    if (e->aprev)
        e->aprev->anext = e->anext;
    else
        q->ahead = e->anext;
    if (e->anext)
        e->anext->aprev = e->aprev;
    else
        q->atail = e->aprev;
    e->anext = e->aprev = NULL;
}

static inline int tag_ok(int32_t want, int32_t have)
{
    return want == have || want == MPI_ANY_TAG;
}

static inline int src_ok(int32_t want, int32_t have)
{
    return want == have || want == MPI_ANY_SOURCE;
}

/* ---- bins ---- */

/* The bin of `src` if it exists; never allocates (search paths). */
static inline struct fm_match_bin *bin_find(const fm_match_queue *q, int32_t src)
{
    return (size_t)src < q->nbins ? &q->bins[src] : NULL;
}

/* The bin of `src`, growing the array by doubling; NULL when `src` is past
 * the cap or memory ran out (the caller then takes the overflow path). */
static struct fm_match_bin *bin_get(fm_match_queue *q, int32_t src)
{
    size_t want = (size_t)src;
    if (want < q->nbins)
        return &q->bins[want];
    if (want >= FM_MATCH_MAX_BINS)
        return NULL;
    size_t n = q->nbins ? q->nbins : FM_MATCH_MIN_BINS;
    while (n <= want)
        n *= 2;
    if (n > FM_MATCH_MAX_BINS)
        n = FM_MATCH_MAX_BINS;
    /* Lists hold no pointers into the array, so moving it is safe. */
    struct fm_match_bin *b = realloc(q->bins, n * sizeof *b);
    if (!b)
        return NULL;
    memset(b + q->nbins, 0, (n - q->nbins) * sizeof *b);
    q->bins = b;
    q->nbins = n;
    return &b[want];
}

/* Markers for entries on the overflow path.  A posted receive with a
 * specific source that waits in the wildcard list has anext == itself
 * (posted entries do not otherwise use anext); an unexpected message
 * without a bin has next == prev == itself. */
static inline int posted_in_wild(const fm_match_entry *r)
{
    return r->src == MPI_ANY_SOURCE || r->anext == r;
}

static inline int unexp_unbinned(const fm_match_entry *m)
{
    return m->next == m;
}

/* Must posts for `src` search the arrival list instead of its bin? */
static inline int src_may_be_unbinned(const fm_match_queue *q, int32_t src)
{
    return q->unbinned && src >= q->unbinned_min_src;
}

/* ---- queue ---- */

fm_match_queue *fm_match_queue_create(void)
{
    fm_match_queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->unbinned_min_src = INT32_MAX;
    return q;
}

void fm_match_queue_destroy(fm_match_queue *q)
{
    if (!q)
        return;
    free(q->bins);
    free(q);
}

size_t fm_match_posted_count(const fm_match_queue *q)
{
    return q->nposted;
}

size_t fm_match_unexpected_count(const fm_match_queue *q)
{
    return q->nunexp;
}

size_t fm_match_posted_hwm(const fm_match_queue *q)
{
    return q->posted_hwm;
}

size_t fm_match_unexpected_hwm(const fm_match_queue *q)
{
    return q->unexp_hwm;
}

/* ---- unexpected side ---- */

static void unexp_remove(fm_match_queue *q, fm_match_entry *m)
{
    if (unexp_unbinned(m)) {
        m->next = m->prev = NULL;
        if (--q->unbinned == 0)
            q->unbinned_min_src = INT32_MAX;
    } else {
        list_unlink(&q->bins[m->src].unexp, m);
    }
    arrival_unlink(q, m);
    m->queued = 0;
    q->nunexp--;
}

/* Earliest unexpected message matching (src, tag), left queued. */
static fm_match_entry *unexp_find(const fm_match_queue *q, int32_t src, int32_t tag)
{
    fm_match_entry *m;
    if (src == MPI_ANY_SOURCE || src_may_be_unbinned(q, src)) {
        for (m = q->ahead; m; m = m->anext)
            if (src_ok(src, m->src) && tag_ok(tag, m->tag))
                return m;
        return NULL;
    }
    const struct fm_match_bin *b = bin_find(q, src);
    if (!b)
        return NULL;
    for (m = b->unexp.head; m; m = m->next)
        if (tag_ok(tag, m->tag))
            return m;
    return NULL;
}

fm_match_entry *fm_match_peek(fm_match_queue *q, int src, int tag)
{
    return unexp_find(q, src, tag);
}

fm_match_entry *fm_match_unexpected_next(const fm_match_queue *q, const fm_match_entry *after)
{
    return after ? after->anext : q->ahead;
}

void fm_match_remove_unexpected(fm_match_queue *q, fm_match_entry *msg)
{
    if (msg->queued)
        unexp_remove(q, msg);
}

/* ---- posted side ---- */

fm_match_entry *fm_match_post(fm_match_queue *q, fm_match_entry *recv)
{
    if (q->nunexp) {
        fm_match_entry *m = unexp_find(q, recv->src, recv->tag);
        if (m) {
            unexp_remove(q, m);
            recv->queued = 0;
            return m;
        }
    }
    recv->seq = q->next_seq++;
    recv->anext = recv->aprev = NULL;
    struct fm_match_bin *b = recv->src == MPI_ANY_SOURCE ? NULL : bin_get(q, recv->src);
    if (b) {
        list_append(&b->posted, recv);
    } else {
        list_append(&q->wild, recv);
        if (recv->src != MPI_ANY_SOURCE)
            recv->anext = recv; /* overflow marker, see posted_in_wild() */
    }
    recv->queued = 1;
    /* A conditional move, not a branch: the high-water mark MPI_T reads. */
    const size_t n = ++q->nposted;
    q->posted_hwm = n > q->posted_hwm ? n : q->posted_hwm;
    return NULL;
}

static void posted_remove(fm_match_queue *q, fm_match_entry *r)
{
    if (posted_in_wild(r)) {
        list_unlink(&q->wild, r);
        r->anext = NULL;
    } else {
        list_unlink(&q->bins[r->src].posted, r);
    }
    r->queued = 0;
    q->nposted--;
}

fm_match_entry *fm_match_take_posted(fm_match_queue *q, int32_t src, int32_t tag)
{
    fm_match_entry *best = NULL, *r;
    struct fm_match_bin *b = bin_find(q, src);

    if (b)
        for (r = b->posted.head; r; r = r->next)
            if (tag_ok(r->tag, tag)) {
                best = r;
                break;
            }
    /* One branch skips the wildcard list in the common case.  Both lists
     * are in seq order, so stop once past the bin's candidate. */
    if (q->wild.head) {
        const uint64_t limit = best ? best->seq : UINT64_MAX;
        for (r = q->wild.head; r && r->seq < limit; r = r->next)
            if (src_ok(r->src, src) && tag_ok(r->tag, tag)) {
                best = r;
                break;
            }
    }
    if (best)
        posted_remove(q, best);
    return best;
}

void fm_match_add_unexpected(fm_match_queue *q, fm_match_entry *msg)
{
    const int32_t src = msg->src;
    struct fm_match_bin *b = bin_get(q, src);
    msg->seq = q->next_seq++;
    if (b) {
        list_append(&b->unexp, msg);
    } else {
        msg->next = msg->prev = msg; /* overflow marker, see unexp_unbinned() */
        if (q->unbinned++ == 0 || src < q->unbinned_min_src)
            q->unbinned_min_src = src;
    }
    arrival_append(q, msg);
    msg->queued = 1;
    const size_t n = ++q->nunexp;
    q->unexp_hwm = n > q->unexp_hwm ? n : q->unexp_hwm;
}

fm_match_entry *fm_match_arrive(fm_match_queue *q, fm_match_entry *msg)
{
    fm_match_entry *best = fm_match_take_posted(q, msg->src, msg->tag);
    if (best) {
        msg->queued = 0;
        return best;
    }
    fm_match_add_unexpected(q, msg);
    return NULL;
}

int fm_match_cancel(fm_match_queue *q, fm_match_entry *recv)
{
    if (!recv->queued)
        return 0;
    posted_remove(q, recv);
    return 1;
}
