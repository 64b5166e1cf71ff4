/* test_dtype_ref.h — the naive reference model test_dtype.c checks datatypes
 * against: one element is the list of its data byte offsets in type-map
 * order, built straight from the MPI definitions, with no merging or
 * flattening tricks.  Included once, by test_dtype.c. */
#ifndef TEST_DTYPE_REF_H
#define TEST_DTYPE_REF_H

#include <stdlib.h>

#include <mpi.h>

/* One element: the byte offsets of its data in type-map order; end[k] marks
 * the last byte of a basic element (for MPI_Get_elements). */
typedef struct ref {
    long n, cap;
    long *off;
    unsigned char *end;
    long lb, ext;
    int align, explicit_bounds;
} ref;

static ref *ref_new(void)
{
    ref *r = calloc(1, sizeof *r);
    r->align = 1;
    return r;
}

static void ref_free(ref *r)
{
    if (r) {
        free(r->off);
        free(r->end);
        free(r);
    }
}

static void ref_push(ref *r, long off, int end)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->off = realloc(r->off, sizeof(long) * (size_t)r->cap);
        r->end = realloc(r->end, (size_t)r->cap);
    }
    r->off[r->n] = off;
    r->end[r->n] = (unsigned char)end;
    r->n++;
}

static ref *ref_basic(long size, int align)
{
    ref *r = ref_new();
    for (long k = 0; k < size; k++)
        ref_push(r, k, k == size - 1);
    r->ext = size;
    r->align = align;
    return r;
}

/* The general constructor: bl[i] copies of child[i] starting at byte
 * disp[i]; bounds by MPI's rule (min lb, max ub over the copies). */
static ref *ref_struct(int count, const int *bl, const long *disp, ref *const *child, int pad)
{
    ref *r = ref_new();
    int have = 0;
    long lb = 0, ub = 0;
    for (int i = 0; i < count; i++) {
        const ref *c = child[i];
        if (c->align > r->align)
            r->align = c->align;
        r->explicit_bounds |= c->explicit_bounds;
        for (int j = 0; j < bl[i]; j++) {
            long at = disp[i] + (long)j * c->ext;
            for (long k = 0; k < c->n; k++)
                ref_push(r, at + c->off[k], c->end[k]);
            long l = at + c->lb, u = at + c->lb + c->ext;
            lb = have && lb < l ? lb : l;
            ub = have && ub > u ? ub : u;
            have = 1;
        }
    }
    r->lb = have ? lb : 0;
    r->ext = have ? ub - lb : 0;
    if (pad && !r->explicit_bounds && r->ext % r->align)
        r->ext += r->align - r->ext % r->align;
    return r;
}

static ref *ref_hindexed(int count, const int *bl, const long *disp, ref *c)
{
    ref **ch = malloc(sizeof(ref *) * (size_t)(count ? count : 1));
    for (int i = 0; i < count; i++)
        ch[i] = c;
    ref *r = ref_struct(count, bl, disp, ch, 0);
    free(ch);
    return r;
}

static ref *ref_resized(ref *c, long lb, long ext)
{
    int one = 1;
    long zero = 0;
    ref *r = ref_struct(1, &one, &zero, &c, 0);
    r->lb = lb;
    r->ext = ext;
    r->explicit_bounds = 1;
    return r;
}

/* Subarray: walk every index of the subarray in C (or Fortran) order. */
static ref *ref_subarray(int nd, const int *sz, const int *sub, const int *st, int fortran,
                         ref *c)
{
    ref *r = ref_new();
    int idx[8] = {0};
    long total = 1;
    for (int d = 0; d < nd; d++)
        total *= sub[d];
    for (long e = 0; e < total; e++) {
        long lin = 0; /* linear index in the full array */
        for (int q = 0; q < nd; q++) {
            int d = fortran ? nd - 1 - q : q; /* slowest first */
            lin = lin * sz[d] + st[d] + idx[d];
        }
        for (long k = 0; k < c->n; k++)
            ref_push(r, lin * c->ext + c->off[k], c->end[k]);
        for (int q = nd - 1; q >= 0; q--) { /* advance, fastest first */
            int d = fortran ? nd - 1 - q : q;
            if (++idx[d] < sub[d])
                break;
            idx[d] = 0;
        }
    }
    long full = c->ext;
    for (int d = 0; d < nd; d++)
        full *= sz[d];
    r->lb = 0;
    r->ext = full;
    r->align = c->align;
    r->explicit_bounds = 1;
    return r;
}

/* Reference pack of count elements at base. */
static void ref_pack(const ref *r, const unsigned char *base, int count, unsigned char *out)
{
    long k = 0;
    for (int i = 0; i < count; i++)
        for (long b = 0; b < r->n; b++)
            out[k++] = base[(long)i * r->ext + r->off[b]];
}

static void ref_unpack(const ref *r, unsigned char *base, int count, const unsigned char *in)
{
    long k = 0;
    for (int i = 0; i < count; i++)
        for (long b = 0; b < r->n; b++)
            base[(long)i * r->ext + r->off[b]] = in[k++];
}

static MPI_Count ref_elements(const ref *r, long bytes)
{
    if (r->n == 0)
        return 0;
    long within = bytes % r->n;
    if (within && !r->end[within - 1])
        return MPI_UNDEFINED;
    MPI_Count per = 0, part = 0;
    for (long b = 0; b < r->n; b++) {
        per += r->end[b];
        if (b < within)
            part += r->end[b];
    }
    return (bytes / r->n) * per + part;
}

/* Byte range [lo, hi) count elements touch, to size a test buffer. */
static void ref_span(const ref *r, int count, long *lo, long *hi)
{
    *lo = 0;
    *hi = 1;
    for (int i = 0; i < count; i++)
        for (long b = 0; b < r->n; b++) {
            long a = (long)i * r->ext + r->off[b];
            if (a < *lo)
                *lo = a;
            if (a + 1 > *hi)
                *hi = a + 1;
        }
}

#endif
