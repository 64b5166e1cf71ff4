/* flatten.c — commit: turn a derived type into its list of contiguous
 * blocks for one element (type-map order, adjacent blocks merged) plus the
 * packed offset of every list entry, which pack/unpack binary-search to
 * start anywhere in the packed stream.
 *
 * The list is built with runs (count equal blocks at a stride: a vector
 * piece is one entry however long it is), then expanded to single blocks
 * when that takes at most FM_DT_EXPAND_MAX of them — the form the common
 * pack loop is written for.  Longer types keep their runs (FM_DT_RUNS). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "dtype/internal.h"
#include "util/status.h"

struct fm_blist {
    fm_dt_block *b;
    size_t n, cap;
};

static int blist_push(struct fm_blist *l, fm_dt_block blk)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        if (l->n >= INT_MAX)
            return FM_ERR_ARG; /* nblocks is an int */
        fm_dt_block *nb = realloc(l->b, cap * sizeof *nb);
        if (!nb)
            return FM_ERR_NOMEM;
        l->b = nb;
        l->cap = cap;
    }
    l->b[l->n++] = blk;
    return 0;
}

/* a + b for offsets inside the type being flattened.  Every data offset it
 * ends at lies within the true bounds fm_dt_create checked, but the origin
 * of a nested piece on the way there need not (a piece far out whose data
 * sits far back): modular arithmetic reaches the right final offset
 * without a signed overflow on the way. */
static inline MPI_Aint off_add(MPI_Aint a, MPI_Aint b)
{
    return (MPI_Aint)((uint64_t)a + (uint64_t)b);
}

/* k * stride, by the same modular arithmetic. */
static inline MPI_Aint off_mul(MPI_Count k, MPI_Aint stride)
{
    return (MPI_Aint)((uint64_t)k * (uint64_t)stride);
}

/* Append `count` blocks of len bytes, the first at off, stride apart. */
static int blist_add(struct fm_blist *l, MPI_Aint off, MPI_Aint len, MPI_Aint count,
                     MPI_Aint stride)
{
    if (len == 0 || count == 0)
        return 0;
    if (count > 1 && stride == len) {
        len *= count; /* touching blocks are one block */
        count = 1;
    }
    /* Runs are only formed where every k * stride of them fits an MPI_Aint
     * (pack and the one-sided code compute off + k * stride directly). */
    fm_dt_block *last = l->n ? &l->b[l->n - 1] : NULL;
    MPI_Aint end, d, step, next;
    if (last && count == 1 && last->count == 1) {
        if (!__builtin_add_overflow(last->off, last->len, &end) && end == off) {
            last->len += len; /* continues the previous block */
            return 0;
        }
        if (last->len == len && !__builtin_sub_overflow(off, last->off, &d)) {
            last->count = 2; /* two equal blocks start a run */
            last->stride = d;
            return 0;
        }
    } else if (last && count == 1 && last->len == len &&
               !__builtin_mul_overflow(last->count, last->stride, &step) &&
               !__builtin_add_overflow(last->off, step, &next) && next == off) {
        last->count++; /* the run goes on */
        return 0;
    }
    return blist_push(l, (fm_dt_block){off, len, count, count > 1 ? stride : 0});
}

struct fm_emit {
    struct fm_blist *l;
    MPI_Aint base;
};

static int emit(struct fm_blist *l, MPI_Datatype t, MPI_Aint base);

static int emit_piece(void *ctx, const fm_dt_piece *pc)
{
    struct fm_emit *e = ctx;
    MPI_Datatype child = pc->child;
    MPI_Aint at = off_add(e->base, pc->disp), ext = child->extent;
    if (child->size == 0 || pc->count == 0)
        return 0;
    /* A child that is one block makes each run of `count` of them one
     * block (when it fills its extent) or one run, and the `reps` runs of
     * a vector one run of those: no per-element loop for the common
     * vector-of-basic case, nor for a vector of 10^9 blocks. */
    if (child->blocks && child->nblocks == 1 && child->blocks[0].count == 1) {
        MPI_Aint off = child->blocks[0].off, len = child->blocks[0].len;
        if (len == ext || pc->count == 1) {
            MPI_Aint bytes = len == ext ? (MPI_Aint)pc->count * ext : len;
            return blist_add(e->l, off_add(at, off), bytes, (MPI_Aint)pc->reps, pc->rep_stride);
        }
        for (MPI_Count r = 0; r < pc->reps; r++) {
            int rc = blist_add(e->l, off_add(off_add(at, off_mul(r, pc->rep_stride)), off), len,
                               (MPI_Aint)pc->count, ext);
            if (rc)
                return rc;
        }
        return 0;
    }
    for (MPI_Count r = 0; r < pc->reps; r++)
        for (MPI_Count i = 0; i < pc->count; i++) {
            int rc = emit(e->l, child,
                          off_add(off_add(at, off_mul(r, pc->rep_stride)), off_mul(i, ext)));
            if (rc)
                return rc;
        }
    return 0;
}

/* Append the blocks of one element of t placed at base.  Flattened types
 * (predefined, committed) copy their list; others walk their pieces
 * without caching anything in t, so committing never mutates a type the
 * user did not commit. */
static int emit(struct fm_blist *l, MPI_Datatype t, MPI_Aint base)
{
    if (t->blocks) {
        for (int i = 0; i < t->nblocks; i++) {
            const fm_dt_block *b = &t->blocks[i];
            int rc = blist_add(l, off_add(base, b->off), b->len, b->count, b->stride);
            if (rc)
                return rc;
        }
        return 0;
    }
    struct fm_emit e = {l, base};
    return fm_dt_for_each_piece(t, emit_piece, &e);
}

/* Replace the runs of *l by single blocks if there are at most `max` of
 * them (then none has count > 1).  Returns 1 if it did, 0 if the runs
 * stay, or a negative status. */
static int expand(struct fm_blist *l, size_t max)
{
    int runs = 0;
    for (size_t i = 0; i < l->n; i++)
        runs |= l->b[i].count > 1;
    if (!runs)
        return 1;
    size_t total = 0;
    for (size_t i = 0; i < l->n; i++) {
        total += (size_t)l->b[i].count;
        if (total > max)
            return 0;
    }
    struct fm_blist x = {0};
    for (size_t i = 0; i < l->n; i++) {
        const fm_dt_block *b = &l->b[i];
        for (MPI_Aint k = 0; k < b->count; k++) {
            /* single blocks only: adjacent ones merge, no runs form */
            fm_dt_block one = {b->off + k * b->stride, b->len, 1, 0};
            if (x.n && x.b[x.n - 1].off + x.b[x.n - 1].len == one.off) {
                x.b[x.n - 1].len += one.len;
                continue;
            }
            int rc = blist_push(&x, one);
            if (rc) {
                free(x.b);
                return rc;
            }
        }
    }
    free(l->b);
    *l = x;
    return 1;
}

int fm_dt_commit(MPI_Datatype dt)
{
    if (dt->flags & FM_DT_COMMITTED)
        return FM_OK;
    struct fm_blist l = {0};
    int rc = emit(&l, dt, 0);
    int expanded = rc ? rc : expand(&l, FM_DT_EXPAND_MAX);
    if (expanded < 0) {
        free(l.b);
        return expanded;
    }
    if (l.n <= 1) {
        dt->one_block = l.n ? l.b[0] : (fm_dt_block){0, 0, 1, 0};
        dt->blocks = &dt->one_block;
        dt->pos = NULL;
        free(l.b);
    } else {
        /* Blocks and their packed offsets in one allocation. */
        fm_dt_block *b = malloc(l.n * sizeof *b + (l.n + 1) * sizeof(MPI_Aint));
        if (!b) {
            free(l.b);
            return FM_ERR_NOMEM;
        }
        memcpy(b, l.b, l.n * sizeof *b);
        free(l.b);
        MPI_Aint *pos = (MPI_Aint *)(b + l.n);
        pos[0] = 0;
        for (size_t i = 0; i < l.n; i++)
            pos[i + 1] = pos[i] + b[i].count * b[i].len;
        dt->blocks = b;
        dt->pos = pos;
    }
    dt->nblocks = (int)l.n;
    if (!expanded)
        dt->flags |= FM_DT_RUNS;
    if (dt->size == 0 || (l.n == 1 && dt->blocks[0].count == 1 &&
                          dt->blocks[0].len == dt->size && dt->extent == dt->size))
        dt->flags |= FM_DT_CONTIG;
    dt->flags |= FM_DT_COMMITTED;
    return FM_OK;
}
