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

/* ---- the piece walk --------------------------------------------------- */

/* Subarray rows: each row is subsizes[fastest dim] consecutive elements;
 * rows come in type-map order (the odometer's fastest digit is the
 * second-fastest array dimension). */
static int run(fm_dt_piece_fn *fn, void *ctx, MPI_Aint disp, MPI_Count count, MPI_Datatype t)
{
    fm_dt_piece p = {disp, count, t, 1, 0};
    return fn(ctx, &p);
}

static int subarray_pieces(const int *ints, MPI_Datatype old, fm_dt_piece_fn *fn, void *ctx)
{
    int nd = ints[0];
    const int *sizes = ints + 1, *subs = ints + 1 + nd, *starts = ints + 1 + 2 * nd;
    int fortran = ints[1 + 3 * nd] == MPI_ORDER_FORTRAN;
    MPI_Aint *stride = malloc(sizeof(MPI_Aint) * (size_t)nd);
    int *idx = calloc((size_t)nd, sizeof(int));
    int *dim = malloc(sizeof(int) * (size_t)nd);
    int rc = 0;
    if (!stride || !idx || !dim) {
        rc = FM_ERR_NOMEM;
        goto out_free;
    }
    /* dim[k]: the array dimension that is k-th fastest in memory. */
    for (int k = 0; k < nd; k++) {
        dim[k] = fortran ? k : nd - 1 - k;
        if (subs[dim[k]] == 0)
            goto out_free; /* empty subarray: no pieces */
        stride[k] = old->extent;
        if (k > 0 && __builtin_mul_overflow(stride[k - 1], (MPI_Aint)sizes[dim[k - 1]], &stride[k])) {
            rc = FM_ERR_ARG;
            goto out_free;
        }
    }
    for (;;) {
        MPI_Aint disp, d;
        rc = __builtin_mul_overflow((MPI_Aint)starts[dim[0]], stride[0], &disp);
        for (int k = 1; k < nd && !rc; k++)
            rc = __builtin_mul_overflow((MPI_Aint)starts[dim[k]] + idx[k], stride[k], &d) ||
                 __builtin_add_overflow(disp, d, &disp);
        if (rc) {
            rc = FM_ERR_ARG;
            break;
        }
        rc = run(fn, ctx, disp, subs[dim[0]], old);
        if (rc)
            break;
        int k = 1;
        while (k < nd && ++idx[k] == subs[dim[k]])
            idx[k++] = 0;
        if (k >= nd)
            break;
    }
out_free:
    free(dim);
    free(idx);
    free(stride);
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

static void darray_dim_init(struct darray_dim *d, int gsize, int distrib, int darg, int psize,
                            int r)
{
    if (distrib == MPI_DISTRIBUTE_NONE) {
        darg = gsize;
        psize = 1;
        r = 0;
    } else if (darg == MPI_DISTRIBUTE_DFLT_DARG) {
        darg = distrib == MPI_DISTRIBUTE_BLOCK ? (int)(((MPI_Aint)gsize + psize - 1) / psize) : 1;
    }
    MPI_Aint total = ((MPI_Aint)gsize + darg - 1) / darg; /* blocks of the whole dimension */
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

static int darray_pieces(const int *ints, MPI_Datatype old, fm_dt_piece_fn *fn, void *ctx)
{
    int size = ints[0], rank = ints[1], nd = ints[2];
    const int *gsizes = ints + 3, *distribs = ints + 3 + nd, *dargs = ints + 3 + 2 * nd,
              *psizes = ints + 3 + 3 * nd;
    int fortran = ints[3 + 4 * nd] == MPI_ORDER_FORTRAN;
    struct darray_dim *dim = calloc((size_t)nd, sizeof *dim); /* fastest first */
    if (!dim)
        return FM_ERR_NOMEM;
    /* Process grid coordinates: row-major in rank whatever the order. */
    int rc = 0, t_rank = rank, t_size = size;
    for (int i = 0; i < nd; i++) {
        t_size /= psizes[i];
        int r = t_rank / t_size, k = fortran ? i : nd - 1 - i;
        t_rank %= t_size;
        darray_dim_init(&dim[k], gsizes[i], distribs[i], dargs[i], psizes[i], r);
        if (dim[k].nblocks == 0)
            goto out; /* this process holds nothing */
    }
    for (int k = 0; k < nd; k++) {
        int below = fortran ? k - 1 : nd - k; /* array dimension one faster than k */
        dim[k].stride = old->extent;
        if (k > 0 && __builtin_mul_overflow(dim[k - 1].stride, (MPI_Aint)gsizes[below],
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
    const int *in = c->ints;
    const MPI_Aint *a = c->aints;
    MPI_Datatype t = c->ntypes ? c->types[0] : MPI_DATATYPE_NULL; /* struct may have none */
    MPI_Aint ext = t ? t->extent : 0;
    int n = c->nints ? in[0] : 0, rc = 0;
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
        vec.count = in[1];
        if (dt->combiner == MPI_COMBINER_HVECTOR)
            vec.rep_stride = a[0];
        else if (disp_mul(in[2], ext, &vec.rep_stride))
            return FM_ERR_ARG;
        return fn(ctx, &vec);
    case MPI_COMBINER_INDEXED:
        for (int i = 0; i < n && !rc; i++)
            rc = disp_mul(in[1 + n + i], ext, &d) ? FM_ERR_ARG : run(fn, ctx, d, in[1 + i], t);
        return rc;
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < n && !rc; i++)
            rc = run(fn, ctx, a[i], in[1 + i], t);
        return rc;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int i = 0; i < n && !rc; i++)
            rc = disp_mul(in[2 + i], ext, &d) ? FM_ERR_ARG : run(fn, ctx, d, in[1], t);
        return rc;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < n && !rc; i++)
            rc = run(fn, ctx, a[i], in[1], t);
        return rc;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < n && !rc; i++)
            rc = run(fn, ctx, a[i], in[1 + i], c->types[i]);
        return rc;
    case MPI_COMBINER_SUBARRAY: return subarray_pieces(in, t, fn, ctx);
    case MPI_COMBINER_DARRAY: return darray_pieces(in, t, fn, ctx);
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
                                            const MPI_Aint *aints, int ntypes,
                                            const MPI_Datatype *types)
{
    /* One allocation; the 8-byte arrays first so each stays aligned. */
    size_t sz = sizeof(struct fm_dt_contents) + sizeof(MPI_Aint) * (size_t)naints +
                sizeof(MPI_Datatype) * (size_t)ntypes + sizeof(int) * (size_t)nints;
    struct fm_dt_contents *c = malloc(sz);
    if (!c)
        return NULL;
    c->nints = nints;
    c->naints = naints;
    c->ntypes = ntypes;
    c->aints = (MPI_Aint *)(c + 1);
    c->types = (MPI_Datatype *)(c->aints + naints);
    c->ints = (int *)(c->types + ntypes);
    if (naints)
        memcpy(c->aints, aints, sizeof(MPI_Aint) * (size_t)naints);
    if (ntypes)
        memcpy(c->types, types, sizeof(MPI_Datatype) * (size_t)ntypes);
    if (nints)
        memcpy(c->ints, ints, sizeof(int) * (size_t)nints);
    return c;
}

int fm_dt_create(int combiner, int nints, const int *ints, int naints, const MPI_Aint *aints,
                 int ntypes, const MPI_Datatype *types, MPI_Datatype *newtype)
{
    struct fm_datatype *dt = fm_handle_get(&dt_pool);
    struct fm_dt_contents *c = contents_copy(nints, ints, naints, aints, ntypes, types);
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
        dt->lb = aints[0];
        dt->extent = aints[1];
        dt->flags |= FM_DT_EXPLICIT_BOUNDS;
        break;
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY: {
        /* Both span the whole array: lb 0, extent the old extent times
         * every array size (the sizes follow ndims for a subarray, and
         * for a darray size, rank and ndims). */
        int nd = combiner == MPI_COMBINER_SUBARRAY ? ints[0] : ints[2];
        const int *sizes = combiner == MPI_COMBINER_SUBARRAY ? ints + 1 : ints + 3;
        MPI_Aint full = types[0]->extent;
        for (int i = 0; i < nd && !rc; i++)
            if (__builtin_mul_overflow(full, (MPI_Aint)sizes[i], &full))
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
