/* fuzz_dtype.c — derived datatypes built from arbitrary constructor
 * sequences through the MPI calls (argument checks, src/mpi/type_*.c), then
 * committed (flattening, src/dtype/flatten.c) and used (pack/unpack,
 * element counts).
 *
 * Input: a program of one-byte opcodes over a stack of at most 8 types
 * (predefined pushes; constructors take the top, struct the top 1-3).
 * Counts and blocklengths are small (0..8, or -1 to reach the argument
 * checks); displacements, strides, bounds and subarray sizes are small or,
 * after an escape byte, any 32/64-bit value, so the layout arithmetic must
 * refuse what overflows instead of wrapping (UBSan traps a signed wrap).
 *
 * Checked on every committed type: the blocks add up to the size and lie
 * within the true bounds.  While every value stays small, the type is also
 * compared with the naive reference of tests/unit/test_dtype_ref.h (a list
 * of byte offsets): size, bounds, pack and unpack byte for byte, element
 * counts.  Otherwise, when its span is small: unpack(pack(x)) packs to the
 * same bytes, whole and in pieces. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "../unit/test_dtype_ref.h"
#include "core/comm.h"
#include "dtype/dtype.h"
#include "fuzz_input.h"
#include "mpi/api.h"

#define STACK 8
#define MAX_BLOCKS (1L << 12) /* flattened blocks we let a type reach */
#define MAX_REF (1L << 10)    /* data bytes of a type we model */
#define MAX_SPAN (1L << 14)   /* bytes of test buffer */

typedef struct ent {
    MPI_Datatype dt;
    ref *r;      /* NULL: not modelled (large values, or too big) */
    long blocks; /* upper bound of its flattened blocks */
    long bytes;  /* upper bound of its data bytes */
} ent;

static ent st[STACK];
static int nst;
static int big; /* the current constructor saw a large value */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fm_dt_init();
    /* Errors return instead of ending the process, as after MPI_Init with
     * MPI_ERRORS_RETURN; the type calls need nothing else from init. */
    fm_mpi_state = 1;
    fab_comm_world.errh = &fab_errors_return;
    return 0;
}

/* ---- values ------------------------------------------------------------- */

static int count_of(fz_in *in)
{
    uint8_t b = fz_u8(in);
    return b == 0xff ? -1 : b % 9;
}

static long disp_of(fz_in *in, int wide)
{
    uint8_t b = fz_u8(in);
    if (b < 0xf0)
        return (long)(b % 96) - 32;
    big = 1;
    return wide ? (long)fz_u64(in) : (long)(int32_t)fz_u32(in);
}

/* ---- the stack ---------------------------------------------------------- */

static void ent_free(ent *e)
{
    if (!(e->dt->flags & FM_DT_PREDEFINED) && MPI_Type_free(&e->dt) != MPI_SUCCESS)
        abort();
    ref_free(e->r);
}

static void push(MPI_Datatype dt, ref *r, long blocks, long bytes)
{
    if (nst == STACK) { /* forget the oldest; its users hold their own references */
        ent_free(&st[0]);
        memmove(st, st + 1, sizeof st[0] * (STACK - 1));
        nst--;
    }
    st[nst++] = (ent){dt, r, blocks, bytes};
}

static void push_predefined(unsigned which)
{
    typedef struct { double v; int i; } di_t;
    typedef struct { short v; int i; } si_t;
    static const struct { MPI_Datatype dt; int size, align; } basic[] = {
        {MPI_CHAR, 1, 1}, {MPI_BYTE, 1, 1}, {MPI_SHORT, sizeof(short), _Alignof(short)},
        {MPI_INT, sizeof(int), _Alignof(int)}, {MPI_DOUBLE, sizeof(double), _Alignof(double)},
        {MPI_INT64_T, 8, _Alignof(int64_t)},
    };
    enum { NBASIC = sizeof basic / sizeof basic[0] };
    which %= NBASIC + 2;
    if (which < NBASIC) {
        push(basic[which].dt, ref_basic(basic[which].size, basic[which].align), 1, basic[which].size);
        return;
    }
    /* A pair type: value then int, laid out as the C struct. */
    int dbl = which == NBASIC;
    ref *ch[2] = {dbl ? ref_basic(8, _Alignof(double)) : ref_basic(2, _Alignof(short)),
                  ref_basic(4, _Alignof(int))};
    int bl[2] = {1, 1};
    long d[2] = {0, dbl ? (long)offsetof(di_t, i) : (long)offsetof(si_t, i)};
    ref *r = ref_struct(2, bl, d, ch, 1);
    ref_free(ch[0]);
    ref_free(ch[1]);
    push(dbl ? MPI_DOUBLE_INT : MPI_SHORT_INT, r, 2, r->n);
}

/* Bound the flattened size before building: `copies` copies of children
 * whose bounds are given. */
static int too_big(long copies, long blocks, long bytes)
{
    return copies > 0 && (blocks > MAX_BLOCKS / copies || bytes > MAX_BLOCKS * 16 / copies);
}

/* ---- checks ------------------------------------------------------------- */

static void check_blocks(MPI_Datatype dt)
{
    MPI_Aint sum = 0;
    for (int b = 0; b < dt->nblocks; b++) {
        const fm_dt_block *k = &dt->blocks[b];
        if (k->len <= 0 || k->off < dt->true_lb || k->off - dt->true_lb > dt->true_extent - k->len)
            abort();
        sum += k->len;
    }
    if (sum != dt->size || dt->true_extent < 0)
        abort();
}

/* The buffer address whose byte `lo` is mem[0]: through uintptr_t, since
 * with large displacements it lies far outside any object. */
static unsigned char *base_of(unsigned char *mem, long lo)
{
    return (unsigned char *)((uintptr_t)mem - (uintptr_t)lo);
}

/* Byte range [lo, hi) `count` elements touch, from the library's bounds;
 * 0 when it is too large (or overflows) to test with a buffer. */
static int lib_span(MPI_Datatype dt, int count, long *lo, long *hi)
{
    long step, first = dt->true_lb, last;
    if (dt->size == 0)
        return 0;
    if (__builtin_mul_overflow((long)(count - 1), (long)dt->extent, &step) ||
        __builtin_add_overflow(first, step < 0 ? step : 0, lo) ||
        __builtin_add_overflow(first, (long)dt->true_extent, &last) ||
        __builtin_add_overflow(last, step > 0 ? step : 0, hi))
        return 0;
    long span;
    return !__builtin_sub_overflow(*hi, *lo, &span) && span <= MAX_SPAN;
}

static void check_with_ref(MPI_Datatype dt, const ref *r, int count)
{
    if (dt->size != r->n || dt->lb != r->lb || dt->extent != r->ext)
        abort();
    if (r->n) {
        long tlo = r->off[0], thi = r->off[0] + 1;
        for (long b = 0; b < r->n; b++) {
            tlo = r->off[b] < tlo ? r->off[b] : tlo;
            thi = r->off[b] + 1 > thi ? r->off[b] + 1 : thi;
        }
        if (dt->true_lb != tlo || dt->true_extent != thi - tlo)
            abort();
    }
    long lo, hi;
    ref_span(r, count, &lo, &hi);
    size_t span = (size_t)(hi - lo), total = (size_t)r->n * (size_t)count;
    if (span > MAX_SPAN)
        return;
    unsigned char *mem = malloc(span), *mem2 = calloc(1, span), *mem3 = calloc(1, span);
    unsigned char *want = malloc(total + 1), *got = malloc(total + 1);
    for (size_t k = 0; k < span; k++)
        mem[k] = (unsigned char)(k * 131 + 7);
    ref_pack(r, base_of(mem, lo), count, want);
    if (fm_dt_pack(base_of(mem, lo), count, dt, 0, got, total + 1) != total || memcmp(got, want, total))
        abort();
    ref_unpack(r, base_of(mem2, lo), count, want);
    if (fm_dt_unpack(base_of(mem3, lo), count, dt, 0, want, total + 1) != total || memcmp(mem2, mem3, span))
        abort();
    /* Element counts: whole, empty, and partial around the first and last
     * element (each count walks the type: a few keep the runs fast). */
    long probe[] = {0, 1, (long)r->n - 1, (long)r->n + 1, (long)total / 2, (long)total - 1, (long)total};
    for (size_t k = 0; k < sizeof probe / sizeof probe[0]; k++)
        if (probe[k] >= 0 && probe[k] <= (long)total &&
            fm_dt_elements_of(dt, probe[k]) != ref_elements(r, probe[k]))
            abort();
    free(mem), free(mem2), free(mem3), free(want), free(got);
}

static void check_round_trip(MPI_Datatype dt, int count)
{
    long lo, hi;
    if (!lib_span(dt, count, &lo, &hi))
        return;
    size_t span = (size_t)(hi - lo), total = (size_t)dt->size * (size_t)count;
    unsigned char *mem = malloc(span), *mem2 = calloc(1, span);
    unsigned char *a = malloc(total), *b = malloc(total);
    for (size_t k = 0; k < span; k++)
        mem[k] = (unsigned char)(k * 131 + 7);
    if (fm_dt_pack(base_of(mem, lo), count, dt, 0, a, total) != total)
        abort();
    /* In 7-byte pieces: the same bytes. */
    for (size_t at = 0; at < total;)
        at += fm_dt_pack(base_of(mem, lo), count, dt, at, b + at, total - at < 7 ? total - at : 7);
    if (memcmp(a, b, total) || fm_dt_unpack(base_of(mem2, lo), count, dt, 0, a, total) != total ||
        fm_dt_pack(base_of(mem2, lo), count, dt, 0, b, total) != total || memcmp(a, b, total))
        abort();
    free(mem), free(mem2), free(a), free(b);
}

static void commit_and_check(ent *e, int count)
{
    MPI_Datatype dt = e->dt;
    if (MPI_Type_commit(&dt) != MPI_SUCCESS)
        return; /* refused (over INT_MAX blocks): said, not crashed */
    check_blocks(dt);
    if (e->r)
        check_with_ref(dt, e->r, count);
    else
        check_round_trip(dt, count);
}

/* ---- constructors ------------------------------------------------------- */

/* 1 if t's bounds are far from overflowing the reference's longs (nested
 * small strides still multiply extents). */
static int moderate(MPI_Datatype t)
{
    const long l = 1L << 40;
    return t->lb > -l && t->lb < l && t->extent > -l && t->extent < l && t->true_lb > -l &&
           t->true_lb < l && t->true_extent < l;
}

/* Model the new type nt only while every value was small, its bounds are
 * moderate, and the reference (one offset per data byte) stays small. */
#define MODEL(copies, bytes) (!big && moderate(nt) && (copies) * (bytes) <= MAX_REF)

/* Build from the top of the stack; returns after pushing the new type, or
 * without when the call refused it or it would be too big to flatten. */
static void construct(fz_in *in, unsigned op)
{
    ent *c = &st[nst - 1];
    MPI_Datatype nt = MPI_DATATYPE_NULL;
    int rc = MPI_ERR_OTHER, n = count_of(in), bl[8] = {0}, di[8];
    long dl[8];
    MPI_Aint da[8];
    long copies = 0;
    ref *r = NULL;
    ent agg; /* struct: its children's bounds together */
    big = 0;
    int cnt = n < 0 ? 0 : n;
    switch (op) {
    case 0: /* contiguous */
        copies = cnt;
        if (too_big(copies, c->blocks, c->bytes))
            return;
        rc = MPI_Type_contiguous(n, c->dt, &nt);
        bl[0] = cnt;
        dl[0] = 0;
        if (rc == MPI_SUCCESS && c->r && MODEL(copies, c->bytes))
            r = ref_hindexed(1, bl, dl, c->r);
        break;
    case 1:   /* vector */
    case 2: { /* hvector */
        int b = count_of(in);
        long stride = disp_of(in, op == 2);
        copies = (long)cnt * (b < 0 ? 0 : b);
        if (too_big(copies, c->blocks, c->bytes))
            return;
        rc = op == 1 ? MPI_Type_vector(n, b, (int)stride, c->dt, &nt)
                     : MPI_Type_create_hvector(n, b, stride, c->dt, &nt);
        if (rc == MPI_SUCCESS && c->r && MODEL(copies, c->bytes)) {
            for (int i = 0; i < cnt; i++) {
                bl[i] = b;
                dl[i] = (long)i * stride * (op == 1 ? c->r->ext : 1);
            }
            r = ref_hindexed(cnt, bl, dl, c->r);
        }
        break;
    }
    case 3:   /* indexed */
    case 4:   /* hindexed */
    case 5:   /* indexed_block */
    case 6: { /* hindexed_block */
        int one = count_of(in);
        for (int i = 0; i < cnt; i++) {
            bl[i] = op >= 5 ? one : count_of(in);
            dl[i] = disp_of(in, op == 4 || op == 6);
            di[i] = (int)dl[i];
            da[i] = dl[i];
            copies += bl[i] < 0 ? 0 : bl[i];
        }
        if (too_big(copies, c->blocks, c->bytes))
            return;
        if (op == 3)
            rc = MPI_Type_indexed(n, bl, di, c->dt, &nt);
        else if (op == 4)
            rc = MPI_Type_create_hindexed(n, bl, da, c->dt, &nt);
        else if (op == 5)
            rc = MPI_Type_create_indexed_block(n, one, di, c->dt, &nt);
        else
            rc = MPI_Type_create_hindexed_block(n, one, da, c->dt, &nt);
        if (rc == MPI_SUCCESS && c->r && MODEL(copies, c->bytes)) {
            for (int i = 0; i < cnt; i++)
                dl[i] *= op == 3 || op == 5 ? c->r->ext : 1;
            r = ref_hindexed(cnt, bl, dl, c->r);
        }
        break;
    }
    case 7: { /* struct over the top 1..3 entries */
        int k = cnt % 3 + 1;
        if (k > nst)
            k = nst;
        MPI_Datatype ts[3];
        ref *rs[3];
        long blocks = 0, bytes = 0;
        int modelled = 1;
        for (int i = 0; i < k; i++) {
            ent *e = &st[nst - 1 - i];
            bl[i] = count_of(in);
            da[i] = dl[i] = disp_of(in, 1);
            ts[i] = e->dt;
            rs[i] = e->r;
            modelled &= e->r != NULL;
            long b = bl[i] < 0 ? 0 : bl[i];
            if (too_big(b, e->blocks, e->bytes))
                return;
            blocks += b * e->blocks;
            bytes += b * e->bytes;
        }
        if (blocks > MAX_BLOCKS)
            return;
        rc = MPI_Type_create_struct(n < 0 ? -1 : k, bl, da, ts, &nt);
        if (rc == MPI_SUCCESS && modelled && MODEL(1, bytes))
            r = ref_struct(k, bl, dl, rs, 1);
        copies = 1;
        agg = (ent){NULL, NULL, blocks, bytes};
        c = &agg;
        break;
    }
    case 8: { /* resized */
        long lb = disp_of(in, 1), ext = disp_of(in, 1);
        rc = MPI_Type_create_resized(c->dt, lb, ext, &nt);
        if (rc == MPI_SUCCESS && c->r && MODEL(1, c->bytes))
            r = ref_resized(c->r, lb, ext);
        copies = 1;
        break;
    }
    case 9: { /* dup */
        rc = MPI_Type_dup(c->dt, &nt);
        if (rc == MPI_SUCCESS && c->r && MODEL(1, c->bytes)) {
            int one = 1;
            long zero = 0;
            r = ref_struct(1, &one, &zero, &c->r, 0);
            r->lb = c->r->lb;
            r->ext = c->r->ext;
        }
        copies = 1;
        break;
    }
    default: { /* subarray */
        int nd = cnt % 4, sz[4], sub[4], sta[4];
        int order = fz_u8(in) & 1 ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        copies = 1;
        for (int d = 0; d < nd; d++) {
            sz[d] = (int)(disp_of(in, 0) + 32); /* mostly 0..95 */
            sub[d] = count_of(in);
            sta[d] = count_of(in);
            copies *= sub[d] < 0 ? 0 : sub[d];
        }
        if (too_big(copies, c->blocks, c->bytes))
            return;
        rc = MPI_Type_create_subarray(nd, sz, sub, sta, order, c->dt, &nt);
        if (rc == MPI_SUCCESS && c->r && MODEL(copies, c->bytes))
            r = ref_subarray(nd, sz, sub, sta, order == MPI_ORDER_FORTRAN, c->r);
        break;
    }
    }
    if (rc != MPI_SUCCESS) {
        if (nt != MPI_DATATYPE_NULL)
            abort(); /* output parameters are set only on success */
        return;
    }
    if (r && r->n > MAX_REF) {
        ref_free(r);
        r = NULL;
    }
    push(nt, r, copies * c->blocks, copies * c->bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    push_predefined(fz_u8(&in));
    for (int ops = 0; ops < 24 && !fz_empty(&in); ops++) {
        unsigned op = fz_u8(&in) % 13;
        if (op == 11)
            push_predefined(fz_u8(&in));
        else if (op == 12)
            commit_and_check(&st[nst - 1], 1 + fz_u8(&in) % 3);
        else
            construct(&in, op);
    }
    for (int i = 0; i < nst; i++)
        commit_and_check(&st[i], 2);
    while (nst)
        ent_free(&st[--nst]);
    return 0;
}
