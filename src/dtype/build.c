/* build.c — derived datatypes: construction from MPI constructor arguments,
 * the piece walk every other part of src/dtype is written against, and
 * reference counting.
 *
 * A derived type keeps its constructor arguments (the MPI_Type_get_contents
 * layout) and nothing else structural until commit; its scalar properties
 * (size, bounds, basic kind) are computed here at construction because MPI
 * lets uncommitted types be queried and nested. */
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "dtype/internal.h"
#include "util/status.h"
#include "util/handle_pool.h"

void fm_dt_retain(MPI_Datatype dt)
{
    if (dt->flags & FM_DT_PREDEFINED)
        return;
    /* Atomic: requests on several threads may hold the same type. */
    __atomic_add_fetch(&dt->refcount, 1, __ATOMIC_RELAXED);
}

void fm_dt_release(MPI_Datatype dt)
{
    if (dt->flags & FM_DT_PREDEFINED)
        return;
    if (__atomic_sub_fetch(&dt->refcount, 1, __ATOMIC_ACQ_REL) == 0)
        fm_dt_destroy(dt);
}

/* Derived datatypes behind user handles (handle_pool.h). */
static fm_handle_pool dt_pool = FM_HANDLE_POOL(struct fm_datatype);

void fm_dt_destroy(MPI_Datatype dt)
{
    struct fm_dt_contents *c = dt->contents;
    if (dt->blocks != &dt->one_block)
        free(dt->blocks); /* pos lives in the same allocation */
    if (c)
        for (int i = 0; i < c->ntypes; i++)
            fm_dt_release(c->types[i]);
    free(c);
    fm_handle_put(&dt_pool, dt); /* a stale handle now fails fm_dt_valid */
}

/* ---- constructor arguments ------------------------------------------- */

/* The numbers a constructor was given, as one sequence: the int calls'
 * integers then addresses (MPI_Type_get_contents' arrays), or a
 * large-count constructor's (MPI_Type_vector_c) large counts, which MPI-4.0
 * lays out in that same order.  Subarray and darray keep some plain
 * integers in either form: their readers are below. */
static inline MPI_Count arg(const struct fm_dt_contents *c, MPI_Count k)
{
    if (c->ncounts)
        return c->counts[k];
    return k < c->nints ? c->ints[k] : c->aints[k - c->nints];
}

/* Subarray: ndims, sizes, subsizes, starts, order.  The large form keeps
 * ndims and order as integers and the 3 * ndims numbers as large counts.
 * which: 0 sizes, 1 subsizes, 2 starts. */
static inline MPI_Count sub_arg(const struct fm_dt_contents *c, int which, int i)
{
    int nd = c->ints[0];
    return c->ncounts ? c->counts[which * nd + i] : c->ints[1 + which * nd + i];
}
static inline int sub_order(const struct fm_dt_contents *c)
{
    return c->ints[c->ncounts ? 1 : 1 + 3 * c->ints[0]];
}

/* Darray: size, rank, ndims, gsizes, distribs, dargs, psizes, order.  The
 * large form keeps gsizes as large counts and the rest, in that order, as
 * integers.  darray_ints: where distribs starts (dargs, psizes and order
 * follow, ndims apart). */
static inline MPI_Count darray_gsize(const struct fm_dt_contents *c, int i)
{
    return c->ncounts ? c->counts[i] : c->ints[3 + i];
}
static inline const int *darray_ints(const struct fm_dt_contents *c)
{
    return c->ints + 3 + (c->ncounts ? 0 : c->ints[2]);
}

/* The array extent a subarray or darray spans: the old extent times every
 * array size; 1 when that leaves the MPI_Aint range. */
static int grid_extent(const struct fm_dt_contents *c, int combiner, MPI_Aint old_extent,
                       MPI_Aint *full)
{
    int nd = combiner == MPI_COMBINER_SUBARRAY ? c->ints[0] : c->ints[2];
    *full = old_extent;
    for (int i = 0; i < nd; i++) {
        MPI_Count n = combiner == MPI_COMBINER_SUBARRAY ? sub_arg(c, 0, i) : darray_gsize(c, i);
        if (__builtin_mul_overflow(*full, (MPI_Aint)n, full))
            return 1;
    }
    return 0;
}

/* ---- the piece walk --------------------------------------------------- */

/* Subarray rows: each row is subsizes[fastest dim] consecutive elements;
 * rows come in type-map order (the odometer's fastest digit is the
 * second-fastest array dimension). */
static int run(fm_dt_piece_fn *fn, void *ctx, MPI_Aint disp, MPI_Count count, MPI_Datatype t)
{
    fm_dt_piece p = {disp, count, t, 1, 0};
    return fn(ctx, &p);
}

static int subarray_pieces(const struct fm_dt_contents *c, MPI_Datatype old, fm_dt_piece_fn *fn,
                           void *ctx)
{
    int nd = c->ints[0];
    int fortran = sub_order(c) == MPI_ORDER_FORTRAN;
    /* Per k-th fastest dimension: its array size, subsize, start, stride
     * in bytes and the odometer's digit. */
    MPI_Aint *v = malloc(sizeof(MPI_Aint) * 5 * (size_t)nd);
    int rc = 0;
    if (!v)
        return FM_ERR_NOMEM;
    MPI_Aint *size = v, *sub = v + nd, *start = v + 2 * nd, *stride = v + 3 * nd,
             *idx = v + 4 * nd;
    for (int k = 0; k < nd; k++) {
        int d = fortran ? k : nd - 1 - k; /* the array dimension k-th fastest in memory */
        size[k] = sub_arg(c, 0, d);
        sub[k] = sub_arg(c, 1, d);
        start[k] = sub_arg(c, 2, d);
        idx[k] = 0;
        if (sub[k] == 0)
            goto out_free; /* empty subarray: no pieces */
        stride[k] = old->extent;
        if (k > 0 && __builtin_mul_overflow(stride[k - 1], size[k - 1], &stride[k])) {
            rc = FM_ERR_ARG;
            goto out_free;
        }
    }
    for (;;) {
        MPI_Aint disp, d;
        rc = __builtin_mul_overflow(start[0], stride[0], &disp);
        for (int k = 1; k < nd && !rc; k++)
            rc = __builtin_mul_overflow(start[k] + idx[k], stride[k], &d) ||
                 __builtin_add_overflow(disp, d, &disp);
        if (rc) {
            rc = FM_ERR_ARG;
            break;
        }
        rc = run(fn, ctx, disp, sub[0], old);
        if (rc)
            break;
        int k = 1;
        while (k < nd && ++idx[k] == sub[k])
            idx[k++] = 0;
        if (k >= nd)
            break;
    }
out_free:
    free(v);
    return rc;
}

/* Distributed arrays (MPI_Type_create_darray).  Each dimension is the
 * standard's cyclic(darg) over psize processes (a block distribution is
 * cyclic with one block per process, none is one block of the whole
 * dimension): this process, at grid coordinate r, holds blocks r,
 * r + psize, ... of darg elements, the last one possibly short.  Pieces
 * come in type-map order, which for a darray is the order in memory: an
 * odometer over the held indices of every dimension but the fastest, and
 * for each, the fastest dimension's blocks as one run of equal blocks
 * (plus the short one). */
struct darray_dim {
    MPI_Aint darg, stride;    /* block length; bytes per index step */
    MPI_Aint first, step;     /* first held block's first index; between blocks */
    MPI_Aint nblocks, last;   /* blocks held; length of the last one */
    MPI_Aint b, j;            /* odometer: block, index within it */
};

static void darray_dim_init(struct darray_dim *d, MPI_Aint gsize, int distrib, int darg_arg,
                            int psize, int r)
{
    MPI_Aint darg = darg_arg;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        darg = gsize;
        psize = 1;
        r = 0;
    } else if (darg == MPI_DISTRIBUTE_DFLT_DARG) {
        darg = distrib == MPI_DISTRIBUTE_BLOCK ? (gsize + psize - 1) / psize : 1;
    }
    MPI_Aint total = (gsize + darg - 1) / darg; /* blocks of the whole dimension */
    d->darg = darg;
    d->first = (MPI_Aint)r * darg;
    d->step = (MPI_Aint)psize * darg;
    d->nblocks = total / psize + (r < total % psize);
    d->last = 0;
    if (d->nblocks > 0) {
        MPI_Aint start = d->first + (d->nblocks - 1) * d->step;
        d->last = gsize - start < darg ? gsize - start : darg;
    }
    d->b = d->j = 0;
}

static int darray_pieces(const struct fm_dt_contents *c, MPI_Datatype old, fm_dt_piece_fn *fn,
                         void *ctx)
{
    int size = c->ints[0], rank = c->ints[1], nd = c->ints[2];
    const int *distribs = darray_ints(c), *dargs = distribs + nd, *psizes = distribs + 2 * nd;
    int fortran = distribs[3 * nd] == MPI_ORDER_FORTRAN;
    struct darray_dim *dim = calloc((size_t)nd, sizeof *dim); /* fastest first */
    if (!dim)
        return FM_ERR_NOMEM;
    /* Process grid coordinates: row-major in rank whatever the order. */
    int rc = 0, t_rank = rank, t_size = size;
    for (int i = 0; i < nd; i++) {
        t_size /= psizes[i];
        int r = t_rank / t_size, k = fortran ? i : nd - 1 - i;
        t_rank %= t_size;
        darray_dim_init(&dim[k], darray_gsize(c, i), distribs[i], dargs[i], psizes[i], r);
        if (dim[k].nblocks == 0)
            goto out; /* this process holds nothing */
    }
    for (int k = 0; k < nd; k++) {
        int below = fortran ? k - 1 : nd - k; /* array dimension one faster than k */
        dim[k].stride = old->extent;
        if (k > 0 && __builtin_mul_overflow(dim[k - 1].stride, (MPI_Aint)darray_gsize(c, below),
                                            &dim[k].stride)) {
            rc = FM_ERR_ARG;
            goto out;
        }
    }
    struct darray_dim *d0 = &dim[0];
    for (;;) {
        MPI_Aint base = 0, off, idx;
        for (int k = 1; k < nd && !rc; k++) {
            idx = dim[k].first + dim[k].b * dim[k].step + dim[k].j;
            rc = __builtin_mul_overflow(idx, dim[k].stride, &off) ||
                 __builtin_add_overflow(base, off, &base);
        }
        MPI_Aint full = d0->nblocks - (d0->last < d0->darg), disp, last_disp, rep_stride;
        if (rc || __builtin_mul_overflow(d0->first, d0->stride, &disp) ||
            __builtin_add_overflow(base, disp, &disp) ||
            __builtin_mul_overflow(d0->step, d0->stride, &rep_stride) ||
            __builtin_mul_overflow(d0->nblocks - 1, rep_stride, &last_disp) ||
            __builtin_add_overflow(disp, last_disp, &last_disp)) {
            rc = FM_ERR_ARG;
            break;
        }
        if (full > 0) {
            fm_dt_piece p = {disp, d0->darg, old, full, rep_stride};
            rc = fn(ctx, &p);
        }
        if (!rc && full < d0->nblocks)
            rc = run(fn, ctx, last_disp, d0->last, old);
        if (rc)
            break;
        int k = 1; /* next held index of the outer dimensions */
        for (; k < nd; k++) {
            struct darray_dim *d = &dim[k];
            if (++d->j < (d->b == d->nblocks - 1 ? d->last : d->darg))
                break;
            d->j = 0;
            if (++d->b < d->nblocks)
                break;
            d->b = 0;
        }
        if (k >= nd)
            break;
    }
out:
    free(dim);
    return rc;
}

/* a * b as a displacement; 1 when it does not fit an MPI_Aint (the type
 * is then refused: FM_ERR_ARG). */
static inline int disp_mul(MPI_Aint a, MPI_Aint b, MPI_Aint *out)
{
    return __builtin_mul_overflow(a, b, out);
}

int fm_dt_for_each_piece(MPI_Datatype dt, fm_dt_piece_fn *fn, void *ctx)
{
    const struct fm_dt_contents *c = dt->contents;
    if (!c)
        return 0;
    MPI_Datatype t = c->ntypes ? c->types[0] : MPI_DATATYPE_NULL; /* struct may have none */
    MPI_Aint ext = t ? t->extent : 0;
    int rc = 0;
    MPI_Count n = c->nints || c->ncounts ? arg(c, 0) : 0;
    fm_dt_piece vec = {0, 0, t, n, 0};
    MPI_Aint d;
    switch (dt->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: return run(fn, ctx, 0, 1, t);
    case MPI_COMBINER_CONTIGUOUS: return run(fn, ctx, 0, n, t);
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        if (n == 0)
            return 0;
        vec.count = arg(c, 1);
        if (dt->combiner == MPI_COMBINER_HVECTOR)
            vec.rep_stride = arg(c, 2);
        else if (disp_mul(arg(c, 2), ext, &vec.rep_stride))
            return FM_ERR_ARG;
        return fn(ctx, &vec);
    case MPI_COMBINER_INDEXED:
        for (MPI_Count i = 0; i < n && !rc; i++)
            rc = disp_mul(arg(c, 1 + n + i), ext, &d) ? FM_ERR_ARG
                                                       : run(fn, ctx, d, arg(c, 1 + i), t);
        return rc;
    case MPI_COMBINER_HINDEXED:
        for (MPI_Count i = 0; i < n && !rc; i++)
            rc = run(fn, ctx, arg(c, 1 + n + i), arg(c, 1 + i), t);
        return rc;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (MPI_Count i = 0; i < n && !rc; i++)
            rc = disp_mul(arg(c, 2 + i), ext, &d) ? FM_ERR_ARG : run(fn, ctx, d, arg(c, 1), t);
        return rc;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (MPI_Count i = 0; i < n && !rc; i++)
            rc = run(fn, ctx, arg(c, 2 + i), arg(c, 1), t);
        return rc;
    case MPI_COMBINER_STRUCT:
        for (MPI_Count i = 0; i < n && !rc; i++)
            rc = run(fn, ctx, arg(c, 1 + n + i), arg(c, 1 + i), c->types[i]);
        return rc;
    case MPI_COMBINER_SUBARRAY: return subarray_pieces(c, t, fn, ctx);
    case MPI_COMBINER_DARRAY: return darray_pieces(c, t, fn, ctx);
    default: return FM_ERR_INTERN;
    }
}

/* ---- scalar properties -------------------------------------------------- */

struct fm_dt_meta {
    MPI_Count size, nbasic, nelem, inner_count;
    MPI_Aint lb, ub, tlb, tub;
    int have_bounds, have_data, align, explicit_bounds, kind_state; /* 0 unset 1 set 2 mixed */
    enum fm_basic_kind basic;
    MPI_Count basic_size;
};

static inline MPI_Aint min_aint(MPI_Aint a, MPI_Aint b) { return a < b ? a : b; }
static inline MPI_Aint max_aint(MPI_Aint a, MPI_Aint b) { return a > b ? a : b; }

/* Lowest and highest of lo and hi shifted by 0 .. (reps-1)*stride. */
/* Stretch [lo, hi) over `reps` copies `stride` apart; 1 when that leaves
 * the MPI_Aint range. */
static int widen(MPI_Aint *lo, MPI_Aint *hi, MPI_Count reps, MPI_Aint stride)
{
    MPI_Aint shift, l, h;
    if (__builtin_mul_overflow((MPI_Aint)(reps - 1), stride, &shift) ||
        __builtin_add_overflow(*lo, shift, &l) || __builtin_add_overflow(*hi, shift, &h))
        return 1;
    *lo = min_aint(*lo, l);
    *hi = max_aint(*hi, h);
    return 0;
}

static int meta_piece(void *ctx, const fm_dt_piece *pc)
{
    struct fm_dt_meta *m = ctx;
    MPI_Datatype t = pc->child;
    MPI_Aint disp = pc->disp;
    MPI_Count count, bytes, nb, ne;
    if (t->align > m->align)
        m->align = t->align;
    if (t->flags & FM_DT_EXPLICIT_BOUNDS)
        m->explicit_bounds = 1;
    if (pc->count == 0)
        return 0; /* no data and, per MPI, no effect on the bounds */
    if (__builtin_mul_overflow(pc->count, pc->reps, &count) ||
        __builtin_mul_overflow(count, t->size, &bytes) ||
        __builtin_add_overflow(m->size, bytes, &m->size) ||
        __builtin_mul_overflow(count, t->nbasic, &nb) ||
        __builtin_add_overflow(m->nbasic, nb, &m->nbasic) ||
        __builtin_mul_overflow(count, t->nelem, &ne) ||
        __builtin_add_overflow(m->nelem, ne, &m->nelem))
        return FM_ERR_ARG;
    m->inner_count += count;
    if (m->kind_state == 0 && t->basic != FM_BK_NONE) {
        m->basic = t->basic;
        m->basic_size = t->basic_size;
        m->kind_state = 1;
    } else if (t->basic == FM_BK_NONE || t->basic != m->basic) {
        m->kind_state = 2;
    }
    /* Element i of a run sits at disp + i*extent; the run's bounds come
     * from its first and last element (extent may be negative), and the
     * piece's from its first and last run.  Bounds beyond an MPI_Aint
     * refuse the type; once they fit, so does every displacement inside
     * them (flatten, pack). */
    MPI_Aint span, first, last, lo, hi;
    if (__builtin_mul_overflow((MPI_Aint)(pc->count - 1), t->extent, &span) ||
        __builtin_add_overflow(disp, t->lb, &first) || __builtin_add_overflow(first, span, &last) ||
        __builtin_add_overflow(max_aint(first, last), t->extent, &hi))
        return FM_ERR_ARG;
    lo = min_aint(first, last);
    if (widen(&lo, &hi, pc->reps, pc->rep_stride))
        return FM_ERR_ARG;
    m->lb = m->have_bounds ? min_aint(m->lb, lo) : lo;
    m->ub = m->have_bounds ? max_aint(m->ub, hi) : hi;
    m->have_bounds = 1;
    if (t->size > 0) {
        if (__builtin_add_overflow(disp, t->true_lb, &first) ||
            __builtin_add_overflow(first, span, &last) ||
            __builtin_add_overflow(max_aint(first, last), t->true_extent, &hi))
            return FM_ERR_ARG;
        lo = min_aint(first, last);
        if (widen(&lo, &hi, pc->reps, pc->rep_stride))
            return FM_ERR_ARG;
        m->tlb = m->have_data ? min_aint(m->tlb, lo) : lo;
        m->tub = m->have_data ? max_aint(m->tub, hi) : hi;
        m->have_data = 1;
    }
    return 0;
}

static struct fm_dt_contents *contents_copy(int nints, const int *ints, int naints,
                                            const MPI_Aint *aints, int ncounts,
                                            const MPI_Count *counts, int ntypes,
                                            const MPI_Datatype *types)
{
    /* One allocation; the 8-byte arrays first so each stays aligned. */
    size_t sz = sizeof(struct fm_dt_contents) + sizeof(MPI_Aint) * (size_t)naints +
                sizeof(MPI_Count) * (size_t)ncounts + sizeof(MPI_Datatype) * (size_t)ntypes +
                sizeof(int) * (size_t)nints;
    struct fm_dt_contents *c = malloc(sz);
    if (!c)
        return NULL;
    c->nints = nints;
    c->naints = naints;
    c->ncounts = ncounts;
    c->ntypes = ntypes;
    c->aints = (MPI_Aint *)(c + 1);
    c->counts = (MPI_Count *)(c->aints + naints);
    c->types = (MPI_Datatype *)(c->counts + ncounts);
    c->ints = (int *)(c->types + ntypes);
    if (naints)
        memcpy(c->aints, aints, sizeof(MPI_Aint) * (size_t)naints);
    if (ncounts)
        memcpy(c->counts, counts, sizeof(MPI_Count) * (size_t)ncounts);
    if (ntypes)
        memcpy(c->types, types, sizeof(MPI_Datatype) * (size_t)ntypes);
    if (nints)
        memcpy(c->ints, ints, sizeof(int) * (size_t)nints);
    return c;
}

static int create(int combiner, struct fm_dt_contents *c, MPI_Datatype *newtype);

int fm_dt_create(int combiner, int nints, const int *ints, int naints, const MPI_Aint *aints,
                 int ntypes, const MPI_Datatype *types, MPI_Datatype *newtype)
{
    return create(combiner, contents_copy(nints, ints, naints, aints, 0, NULL, ntypes, types),
                  newtype);
}

int fm_dt_create_c(int combiner, int nints, const int *ints, int ncounts, const MPI_Count *counts,
                   int ntypes, const MPI_Datatype *types, MPI_Datatype *newtype)
{
    return create(combiner, contents_copy(nints, ints, 0, NULL, ncounts, counts, ntypes, types),
                  newtype);
}

/* Both forms: c is the constructor's arguments (NULL: out of memory),
 * owned by the new type or freed here. */
static int create(int combiner, struct fm_dt_contents *c, MPI_Datatype *newtype)
{
    struct fm_datatype *dt = fm_handle_get(&dt_pool);
    const int ntypes = c ? c->ntypes : 0;
    MPI_Datatype *types = c ? c->types : NULL;
    if (!dt || !c) {
        if (dt)
            fm_handle_put(&dt_pool, dt);
        free(c);
        return FM_ERR_NOMEM;
    }
    dt->magic = FM_MAGIC_DTYPE;
    dt->refcount = 1;
    dt->combiner = combiner;
    dt->contents = c;

    struct fm_dt_meta m = {.align = 1};
    int rc = fm_dt_for_each_piece(dt, meta_piece, &m);
    MPI_Aint extent = 0, true_extent = 0;
    if (!rc && ((m.have_bounds && __builtin_sub_overflow(m.ub, m.lb, &extent)) ||
                (m.have_data && __builtin_sub_overflow(m.tub, m.tlb, &true_extent))))
        rc = FM_ERR_ARG;
    if (rc) {
        free(c);
        fm_handle_put(&dt_pool, dt);
        return rc;
    }
    for (int i = 0; i < ntypes; i++)
        fm_dt_retain(types[i]);

    dt->size = m.size;
    dt->lb = m.have_bounds ? m.lb : 0;
    dt->extent = extent;
    dt->true_lb = m.have_data ? m.tlb : 0;
    dt->true_extent = true_extent;
    dt->align = m.align;
    dt->nbasic = m.nbasic;
    dt->nelem = m.nelem;
    if (m.kind_state == 1) {
        dt->basic = m.basic;
        dt->basic_size = m.basic_size;
    } else if (m.kind_state == 0 && ntypes == 1) {
        dt->basic = types[0]->basic; /* empty, but reductions of 0 elements still check kinds */
        dt->basic_size = types[0]->basic_size;
    }
    if (ntypes == 1) {
        dt->inner = types[0];
        dt->inner_count = m.inner_count;
    }
    if (m.explicit_bounds)
        dt->flags |= FM_DT_EXPLICIT_BOUNDS;

    switch (combiner) {
    case MPI_COMBINER_STRUCT:
        /* Like C, pad the extent to the strictest member alignment, so an
         * array of structs described this way lines up with the C array. */
        if (!m.explicit_bounds && dt->align > 1 && dt->extent > 0 && dt->extent % dt->align &&
            __builtin_add_overflow(dt->extent, dt->align - dt->extent % dt->align, &dt->extent))
            rc = FM_ERR_ARG;
        break;
    case MPI_COMBINER_RESIZED:
        dt->lb = arg(c, 0);
        dt->extent = arg(c, 1);
        dt->flags |= FM_DT_EXPLICIT_BOUNDS;
        break;
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY: {
        /* Both span the whole array: lb 0, extent the old extent times
         * every array size (grid_extent). */
        MPI_Aint full;
        if (grid_extent(c, combiner, types[0]->extent, &full))
            rc = FM_ERR_ARG;
        dt->lb = 0;
        dt->extent = full;
        dt->flags |= FM_DT_EXPLICIT_BOUNDS;
        break;
    }
    default: break;
    }

    /* A duplicate of a committed type is committed (MPI_Type_dup). */
    if (!rc && combiner == MPI_COMBINER_DUP && (types[0]->flags & FM_DT_COMMITTED))
        rc = fm_dt_commit(dt);
    if (rc) {
        fm_dt_destroy(dt);
        return rc;
    }
    *newtype = dt;
    return FM_OK;
}
