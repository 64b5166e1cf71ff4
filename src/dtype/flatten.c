/* flatten.c — commit: turn a derived type into its list of contiguous
 * blocks for one element (type-map order, adjacent blocks merged) plus the
 * packed offset of every block, which pack/unpack binary-search to start
 * anywhere in the packed stream. */
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

static int blist_add(struct fm_blist *l, MPI_Aint off, MPI_Aint len)
{
    if (len == 0)
        return 0;
    if (l->n && l->b[l->n - 1].off + l->b[l->n - 1].len == off) {
        l->b[l->n - 1].len += len; /* continues the previous block */
        return 0;
    }
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
    l->b[l->n].off = off;
    l->b[l->n].len = len;
    l->n++;
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

struct fm_emit {
    struct fm_blist *l;
    MPI_Aint base;
};

static int emit(struct fm_blist *l, MPI_Datatype t, MPI_Aint base);

static int emit_piece(void *ctx, MPI_Aint disp, MPI_Count count, MPI_Datatype child)
{
    struct fm_emit *e = ctx;
    MPI_Aint at = off_add(e->base, disp);
    if (child->size == 0)
        return 0;
    /* A child that is one block filling its extent makes the whole run one
     * block: skip the per-element loop (the common vector-of-basic case). */
    if (child->blocks && child->nblocks == 1 && child->blocks[0].len == child->extent)
        return blist_add(e->l, off_add(at, child->blocks[0].off), (MPI_Aint)count * child->extent);
    for (MPI_Count i = 0; i < count; i++) {
        int rc = emit(e->l, child, off_add(at, (MPI_Aint)((uint64_t)i * (uint64_t)child->extent)));
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
            int rc = blist_add(l, off_add(base, t->blocks[i].off), t->blocks[i].len);
            if (rc)
                return rc;
        }
        return 0;
    }
    struct fm_emit e = {l, base};
    return fm_dt_for_each_piece(t, emit_piece, &e);
}

int fm_dt_commit(MPI_Datatype dt)
{
    if (dt->flags & FM_DT_COMMITTED)
        return FM_OK;
    struct fm_blist l = {0};
    int rc = emit(&l, dt, 0);
    if (rc) {
        free(l.b);
        return rc;
    }
    if (l.n <= 1) {
        dt->one_block = l.n ? l.b[0] : (fm_dt_block){0, 0};
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
            pos[i + 1] = pos[i] + b[i].len;
        dt->blocks = b;
        dt->pos = pos;
    }
    dt->nblocks = (int)l.n;
    if (dt->size == 0 || (l.n == 1 && dt->blocks[0].len == dt->size && dt->extent == dt->size))
        dt->flags |= FM_DT_CONTIG;
    dt->flags |= FM_DT_COMMITTED;
    return FM_OK;
}
