/* test_dtype.c — datatypes (src/dtype, src/mpi/type_*.c): predefined sizes
 * and pair layouts, every constructor checked byte by byte against a naive
 * reference model (a list of byte offsets in type-map order), packing in
 * arbitrary pieces, and element counts of whole and partial receives.
 *
 * Built by meson against the whole library, or standalone with
 * -DFM_DTYPE_STANDALONE, which stubs the error and communicator layer so the
 * error paths and MPI_Pack can be exercised without MPI_Init. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mpi.h>

#include "mpi/type_check.h"
#include "dtype/dtype.h"

#ifdef FM_DTYPE_STANDALONE
/* ---- stubs for the layers above (standalone build only) ---------------- */
#include "mpi/comm.h"
struct fm_comm fab_comm_world;
static int last_class;
static char last_msg[512];
int fm_raise(MPI_Comm comm, const char *call, int errclass, const char *fmt, ...)
{
    (void)comm;
    va_list ap;
    int n = snprintf(last_msg, sizeof last_msg, "%s: ", call);
    va_start(ap, fmt);
    vsnprintf(last_msg + n, sizeof last_msg - (size_t)n, fmt, ap);
    va_end(ap);
    last_class = errclass;
    return errclass;
}
int fm_raise_status(MPI_Comm comm, const char *call, int status)
{
    return fm_raise(comm, call, fm_status_to_mpi_class(status), "%s", fm_status_msg(status));
}
int fm_comm_valid(MPI_Comm comm) { return comm == MPI_COMM_WORLD; }
#endif

#include "test_dtype_ref.h"

/* ---- a library type with its reference ------------------------------------ */

typedef struct tpair {
    MPI_Datatype dt;
    ref *r;
} tpair;

static unsigned rng_state = 12345;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % n;
}

static tpair basic_pair(int which)
{
    typedef struct { double v; int i; } di_t;
    typedef struct { short v; int i; } si_t;
    tpair p;
    switch (which) {
    case 0: p.dt = MPI_INT; p.r = ref_basic(sizeof(int), _Alignof(int)); break;
    case 1: p.dt = MPI_DOUBLE; p.r = ref_basic(sizeof(double), _Alignof(double)); break;
    case 2: p.dt = MPI_CHAR; p.r = ref_basic(1, 1); break;
    case 3: p.dt = MPI_SHORT; p.r = ref_basic(sizeof(short), _Alignof(short)); break;
    case 4: {
        p.dt = MPI_DOUBLE_INT;
        ref *ch[2] = {ref_basic(8, 8), ref_basic(4, 4)};
        int bl[2] = {1, 1};
        long d[2] = {0, offsetof(di_t, i)};
        p.r = ref_struct(2, bl, d, ch, 1);
        ref_free(ch[0]);
        ref_free(ch[1]);
        break;
    }
    default: {
        p.dt = MPI_SHORT_INT;
        ref *ch[2] = {ref_basic(2, 2), ref_basic(4, 4)};
        int bl[2] = {1, 1};
        long d[2] = {0, offsetof(si_t, i)};
        p.r = ref_struct(2, bl, d, ch, 1);
        ref_free(ch[0]);
        ref_free(ch[1]);
        break;
    }
    }
    return p;
}

static void tpair_free(tpair p)
{
    if (!(p.dt->flags & FM_DT_PREDEFINED))
        assert_int_equal(MPI_Type_free(&p.dt), MPI_SUCCESS);
    ref_free(p.r);
}

/* A random derived type of nesting depth <= depth. */
static tpair random_type(int depth)
{
    if (depth == 0 || (depth < 3 && rnd(4) == 0))
        return basic_pair((int)rnd(6));
    tpair c = random_type(depth - 1), p = {0};
    int kind = (int)rnd(11);
    int count = (int)rnd(4), bl[4], di[4];
    long dl[4];
    MPI_Aint da[4];
    for (int i = 0; i < 4; i++) {
        bl[i] = (int)rnd(3);
        di[i] = (int)rnd(9) - 3; /* negative displacements too */
        dl[i] = da[i] = (long)rnd(40) - 12;
    }
    int rc = MPI_SUCCESS;
    switch (kind) {
    case 0:
        rc = MPI_Type_contiguous(count, c.dt, &p.dt);
        bl[0] = count;
        dl[0] = 0;
        p.r = ref_hindexed(1, bl, dl, c.r);
        break;
    case 1: {
        int stride = (int)rnd(7) - 2;
        rc = MPI_Type_vector(count, bl[0], stride, c.dt, &p.dt);
        for (int i = 0; i < count; i++) {
            bl[i] = bl[0];
            dl[i] = (long)i * stride * c.r->ext;
        }
        p.r = ref_hindexed(count, bl, dl, c.r);
        break;
    }
    case 2: {
        MPI_Aint stride = (MPI_Aint)rnd(50) - 10;
        rc = MPI_Type_create_hvector(count, bl[0], stride, c.dt, &p.dt);
        for (int i = 0; i < count; i++) {
            bl[i] = bl[0];
            dl[i] = (long)i * stride;
        }
        p.r = ref_hindexed(count, bl, dl, c.r);
        break;
    }
    case 3:
        rc = MPI_Type_indexed(count, bl, di, c.dt, &p.dt);
        for (int i = 0; i < count; i++)
            dl[i] = (long)di[i] * c.r->ext;
        p.r = ref_hindexed(count, bl, dl, c.r);
        break;
    case 4:
        rc = MPI_Type_create_hindexed(count, bl, da, c.dt, &p.dt);
        p.r = ref_hindexed(count, bl, dl, c.r);
        break;
    case 5:
        rc = MPI_Type_create_indexed_block(count, bl[0], di, c.dt, &p.dt);
        for (int i = 0; i < count; i++) {
            dl[i] = (long)di[i] * c.r->ext;
            bl[i] = bl[0];
        }
        p.r = ref_hindexed(count, bl, dl, c.r);
        break;
    case 6:
        rc = MPI_Type_create_hindexed_block(count, bl[0], da, c.dt, &p.dt);
        for (int i = 0; i < count; i++)
            bl[i] = bl[0];
        p.r = ref_hindexed(count, bl, dl, c.r);
        break;
    case 7: {
        tpair o = random_type(depth - 1);
        MPI_Datatype ts[2] = {c.dt, o.dt};
        ref *rs[2] = {c.r, o.r};
        int n = 1 + (int)rnd(2);
        rc = MPI_Type_create_struct(n, bl, da, ts, &p.dt);
        p.r = ref_struct(n, bl, dl, rs, 1);
        tpair_free(o);
        break;
    }
    case 8: {
        MPI_Aint lb = (MPI_Aint)rnd(20) - 10, ext = (MPI_Aint)rnd(40);
        rc = MPI_Type_create_resized(c.dt, lb, ext, &p.dt);
        p.r = ref_resized(c.r, lb, ext);
        break;
    }
    case 9: {
        int nd = 1 + (int)rnd(3), sz[3], sub[3], st[3];
        int order = rnd(2) ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        for (int d = 0; d < nd; d++) {
            sz[d] = 1 + (int)rnd(4);
            sub[d] = (int)rnd((unsigned)sz[d] + 1);
            st[d] = (int)rnd((unsigned)(sz[d] - sub[d] + 1));
        }
        rc = MPI_Type_create_subarray(nd, sz, sub, st, order, c.dt, &p.dt);
        p.r = ref_subarray(nd, sz, sub, st, order == MPI_ORDER_FORTRAN, c.r);
        break;
    }
    default: {
        rc = MPI_Type_dup(c.dt, &p.dt);
        int one = 1;
        long zero = 0;
        ref *rr = ref_struct(1, &one, &zero, &c.r, 0);
        rr->lb = c.r->lb;
        rr->ext = c.r->ext;
        p.r = rr;
        break;
    }
    }
    assert_int_equal(rc, MPI_SUCCESS);
    /* Sometimes leave the child uncommitted: nesting must not need it. */
    if (rnd(2))
        assert_int_equal(MPI_Type_commit(&c.dt), MPI_SUCCESS);
    tpair_free(c); /* the parent keeps its own reference */
    return p;
}

/* Check one type against its reference: bounds, packing whole and in
 * pieces, unpacking, element counts. */
static void check_against_ref(tpair p, int count)
{
    const ref *r = p.r;
    MPI_Datatype dt = p.dt;
    assert_int_equal(MPI_Type_commit(&dt), MPI_SUCCESS);
    assert_int_equal(dt->size, r->n);
    assert_int_equal(dt->lb, r->lb);
    assert_int_equal(dt->extent, r->ext);
    if (r->n) {
        long tlo = r->off[0], thi = r->off[0] + 1;
        for (long b = 0; b < r->n; b++) {
            tlo = r->off[b] < tlo ? r->off[b] : tlo;
            thi = r->off[b] + 1 > thi ? r->off[b] + 1 : thi;
        }
        assert_int_equal(dt->true_lb, tlo);
        assert_int_equal(dt->true_extent, thi - tlo);
    }
    long lo, hi;
    ref_span(r, count, &lo, &hi);
    size_t span = (size_t)(hi - lo);
    unsigned char *mem = malloc(span), *mem2 = calloc(1, span), *mem3 = calloc(1, span);
    for (size_t k = 0; k < span; k++)
        mem[k] = (unsigned char)rnd(256);
    const unsigned char *base = mem - lo;
    size_t total = (size_t)r->n * (size_t)count;
    unsigned char *want = malloc(total + 1), *got = malloc(total + 1);
    ref_pack(r, base, count, want);
    memset(got, 0xAB, total + 1);
    assert_int_equal(fm_dt_pack(base, count, dt, 0, got, total + 1), total);
    assert_memory_equal(got, want, total);
    /* In random pieces: same bytes. */
    memset(got, 0, total + 1);
    for (size_t at = 0; at < total;) {
        size_t len = 1 + rnd(17);
        size_t n = fm_dt_pack(base, count, dt, at, got + at, len);
        assert_true(n == (len < total - at ? len : total - at));
        at += n;
    }
    assert_memory_equal(got, want, total);
    assert_int_equal(fm_dt_pack(base, count, dt, total, got, 8), 0);
    /* Unpack whole and in pieces into zeroed buffers, as the reference does. */
    ref_unpack(r, mem2 - lo, count, want);
    assert_int_equal(fm_dt_unpack(mem3 - lo, count, dt, 0, want, total + 5), total);
    assert_memory_equal(mem3, mem2, span);
    memset(mem3, 0, span);
    for (size_t at = 0; at < total;) {
        size_t len = 1 + rnd(13);
        at += fm_dt_unpack(mem3 - lo, count, dt, at, want + at, len);
    }
    assert_memory_equal(mem3, mem2, span);
    /* Element counts at every byte count up to the whole message. */
    for (long bytes = 0; bytes <= (long)total; bytes++) {
        assert_int_equal(fm_dt_elements_of(dt, bytes), ref_elements(r, bytes));
        MPI_Count c = fm_dt_count_of(dt, bytes);
        if (r->n == 0)
            assert_int_equal(c, 0);
        else
            assert_int_equal(c, bytes % r->n ? MPI_UNDEFINED : bytes / r->n);
    }
    free(mem);
    free(mem2);
    free(mem3);
    free(want);
    free(got);
}

/* ---- tests ------------------------------------------------------------------ */

static void test_predefined_sizes(void **state)
{
    (void)state;
#define CHECK_SIZE(nm, ctype)                                                      \
    do {                                                                             \
        MPI_Datatype t = &fab_dt_##nm;                                              \
        int sz;                                                                      \
        MPI_Aint lb, ext;                                                            \
        assert_true(fm_dt_valid(t) && fm_dt_usable(t));                              \
        assert_int_equal(MPI_Type_get_extent(t, &lb, &ext), MPI_SUCCESS);            \
        assert_int_equal(lb, 0);                                                     \
        assert_int_equal(ext, sizeof(ctype));                                        \
        assert_int_equal(MPI_Type_size(t, &sz), MPI_SUCCESS);                        \
        assert_true(t->basic != FM_BK_NONE && t->nbasic == 1);                       \
        assert_string_equal(t->name, #nm);                                         \
        assert_true(t->flags & FM_DT_PREDEFINED);                                    \
        if (t->nelem == 1) { /* plain types: one contiguous block of sizeof */       \
            assert_int_equal(sz, sizeof(ctype));                                     \
            assert_true(fm_dt_is_contig(t));                                         \
            assert_int_equal(t->basic_size, sizeof(ctype));                          \
        }                                                                            \
    } while (0);
    FM_PREDEFINED_DATATYPES(CHECK_SIZE)
#undef CHECK_SIZE
    assert_int_equal(MPI_INT->basic, FM_BK_INT);
    assert_int_equal(MPI_C_DOUBLE_COMPLEX->basic, FM_BK_DCOMPLEX);
    assert_int_equal(MPI_BYTE->basic, FM_BK_BYTE);
    /* Fortran types: gfortran's default sizes */
    int fsz;
    const struct { MPI_Datatype t; int size; } fortran[] = {
        {MPI_CHARACTER, 1}, {MPI_LOGICAL, 4}, {MPI_INTEGER, 4}, {MPI_REAL, 4},
        {MPI_DOUBLE_PRECISION, 8}, {MPI_COMPLEX, 8}, {MPI_DOUBLE_COMPLEX, 16},
        {MPI_2REAL, 8}, {MPI_2DOUBLE_PRECISION, 16}, {MPI_2INTEGER, 8},
    };
    for (size_t k = 0; k < sizeof fortran / sizeof *fortran; k++) {
        assert_int_equal(MPI_Type_size(fortran[k].t, &fsz), MPI_SUCCESS);
        assert_int_equal(fsz, fortran[k].size);
    }
    assert_int_equal(MPI_INTEGER->basic, FM_BK_FINT4);
    assert_int_equal(MPI_REAL->basic, FM_BK_FLOAT);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    assert_int_equal(MPI_Type_get_name(MPI_DOUBLE, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "MPI_DOUBLE");
    assert_int_equal(len, 10);
}

static void test_pair_layout(void **state)
{
    (void)state;
#define CHECK_PAIR(dt, VT, kind) CHECK_PAIR_IT(dt, VT, int, kind)
#define CHECK_PAIR_IT(dt, VT, IT, kind)                                              \
    do {                                                                             \
        typedef struct { VT v; IT i; } p_t;                                          \
        assert_int_equal(dt->size, sizeof(VT) + sizeof(IT));                         \
        assert_int_equal(dt->extent, sizeof(p_t));                                   \
        assert_int_equal(dt->basic, kind);                                           \
        assert_int_equal(dt->basic_size, sizeof(VT) + sizeof(IT));                   \
        assert_int_equal(dt->nelem, 2);                                              \
        int contig = offsetof(p_t, i) == sizeof(VT) && sizeof(p_t) == dt->size;      \
        assert_int_equal(!!fm_dt_is_contig(dt), contig);                             \
        p_t in[3], out[3];                                                           \
        memset(in, 0x11, sizeof in);                                                 \
        memset(out, 0xEE, sizeof out);                                               \
        for (int k = 0; k < 3; k++) {                                                \
            in[k].v = (VT)(k + 1);                                                   \
            in[k].i = (IT)(10 * k);                                                  \
        }                                                                            \
        unsigned char packed[3 * sizeof(p_t)];                                       \
        assert_int_equal(fm_dt_pack(in, 3, dt, 0, packed, sizeof packed), 3 * dt->size); \
        for (int k = 0; k < 3; k++) {                                                \
            VT v;                                                                    \
            IT i;                                                                    \
            memcpy(&v, packed + k * dt->size, sizeof v);                             \
            memcpy(&i, packed + k * dt->size + sizeof(VT), sizeof i);                \
            assert_true(v == (VT)(k + 1) && i == (IT)(10 * k));                      \
        }                                                                            \
        fm_dt_unpack(out, 3, dt, 0, packed, 3 * dt->size);                           \
        for (int k = 0; k < 3; k++) {                                                \
            assert_true(out[k].v == (VT)(k + 1) && out[k].i == (IT)(10 * k));        \
            for (size_t q = offsetof(p_t, i) + sizeof(IT); q < sizeof(p_t); q++)     \
                assert_int_equal(((unsigned char *)&out[k])[q], 0xEE);               \
        }                                                                            \
        /* Partial: just the value of the first pair is one element. */              \
        assert_int_equal(fm_dt_elements_of(dt, sizeof(VT)), 1);                      \
        assert_int_equal(fm_dt_elements_of(dt, 1), MPI_UNDEFINED);                   \
        assert_int_equal(fm_dt_elements_of(dt, 2 * dt->size), 4);                    \
        /* Contiguous of pairs keeps the pair kind and their spacing. */             \
        MPI_Datatype c;                                                              \
        assert_int_equal(MPI_Type_contiguous(4, dt, &c), MPI_SUCCESS);               \
        assert_int_equal(MPI_Type_commit(&c), MPI_SUCCESS);                          \
        assert_int_equal(c->size, 4 * dt->size);                                     \
        assert_int_equal(c->extent, 4 * sizeof(p_t));                                \
        assert_int_equal(c->basic, kind);                                            \
        assert_int_equal(c->nbasic, 4);                                              \
        assert_int_equal(c->nelem, 8);                                               \
        assert_int_equal(!!fm_dt_is_contig(c), contig);                              \
        assert_int_equal(fm_dt_elements_of(c, 4 * dt->size + sizeof(VT)), 9);        \
        assert_int_equal(MPI_Type_free(&c), MPI_SUCCESS);                            \
        assert_null(c);                                                              \
    } while (0)
    CHECK_PAIR(MPI_FLOAT_INT, float, FM_BK_FLOAT_INT);
    CHECK_PAIR(MPI_DOUBLE_INT, double, FM_BK_DOUBLE_INT);
    CHECK_PAIR(MPI_LONG_INT, long, FM_BK_LONG_INT);
    CHECK_PAIR(MPI_2INT, int, FM_BK_2INT);
    CHECK_PAIR(MPI_SHORT_INT, short, FM_BK_SHORT_INT);
    CHECK_PAIR(MPI_LONG_DOUBLE_INT, long double, FM_BK_LDOUBLE_INT);
    CHECK_PAIR_IT(MPI_2REAL, float, float, FM_BK_2REAL);
    CHECK_PAIR_IT(MPI_2DOUBLE_PRECISION, double, double, FM_BK_2DOUBLE);
    CHECK_PAIR_IT(MPI_2INTEGER, int32_t, int32_t, FM_BK_2INT);
#undef CHECK_PAIR_IT
#undef CHECK_PAIR
    assert_true(fm_dt_is_contig(MPI_2INT));
    assert_false(fm_dt_is_contig(MPI_DOUBLE_INT));
    assert_int_equal(MPI_SHORT_INT->nblocks, 2);
}

static void test_fixed_layouts(void **state)
{
    (void)state;
    /* vector: 3 blocks of 2 ints, stride 4 */
    MPI_Datatype v, s, r, e;
    assert_int_equal(MPI_Type_vector(3, 2, 4, MPI_INT, &v), MPI_SUCCESS);
    assert_int_equal(v->size, 24);
    assert_int_equal(v->extent, 40);
    assert_int_equal(v->basic, FM_BK_INT);
    assert_int_equal(v->nbasic, 6);
    assert_false(v->flags & FM_DT_COMMITTED);
    assert_int_equal(MPI_Type_commit(&v), MPI_SUCCESS);
    assert_int_equal(v->nblocks, 3);
    assert_false(fm_dt_is_contig(v));
    /* vector of stride == blocklength merges into one contiguous block */
    MPI_Datatype cv;
    assert_int_equal(MPI_Type_vector(5, 3, 3, MPI_DOUBLE, &cv), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&cv), MPI_SUCCESS);
    assert_int_equal(cv->nblocks, 1);
    assert_true(fm_dt_is_contig(cv));
    /* struct {char; double} pads its extent like C: mixed kinds → NONE */
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype ts[2] = {MPI_DOUBLE, MPI_CHAR};
    assert_int_equal(MPI_Type_create_struct(2, bl, d, ts, &s), MPI_SUCCESS);
    assert_int_equal(s->size, 9);
    assert_int_equal(s->extent, 16);
    assert_int_equal(s->basic, FM_BK_NONE);
    /* resized then struct: explicit bounds, no padding */
    assert_int_equal(MPI_Type_create_resized(MPI_INT, -4, 10, &r), MPI_SUCCESS);
    assert_int_equal(r->lb, -4);
    assert_int_equal(r->extent, 10);
    assert_int_equal(r->true_lb, 0);
    assert_int_equal(r->true_extent, 4);
    MPI_Datatype ts2[1] = {r};
    int bl2[1] = {2};
    MPI_Aint d2[1] = {0};
    MPI_Datatype s2;
    assert_int_equal(MPI_Type_create_struct(1, bl2, d2, ts2, &s2), MPI_SUCCESS);
    assert_int_equal(s2->extent, 20);
    assert_int_equal(s2->basic, FM_BK_INT);
    /* empty types */
    assert_int_equal(MPI_Type_contiguous(0, MPI_INT, &e), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&e), MPI_SUCCESS);
    assert_int_equal(e->size, 0);
    assert_int_equal(e->extent, 0);
    assert_int_equal(e->basic, FM_BK_INT);
    assert_int_equal(fm_dt_pack(NULL, 5, e, 0, NULL, 0), 0);
    assert_int_equal(fm_dt_count_of(e, 0), 0);
    assert_int_equal(fm_dt_elements_of(e, 0), 0);
    MPI_Datatype ez;
    assert_int_equal(MPI_Type_create_struct(0, NULL, NULL, NULL, &ez), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&ez), MPI_SUCCESS);
    assert_int_equal(ez->size, 0);
    /* subarray 4x5 of int, 2x3 at (1,1), C order */
    int sz[2] = {4, 5}, sub[2] = {2, 3}, st[2] = {1, 1};
    MPI_Datatype sa;
    assert_int_equal(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &sa),
                     MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&sa), MPI_SUCCESS);
    assert_int_equal(sa->size, 24);
    assert_int_equal(sa->extent, 80);
    assert_int_equal(sa->true_lb, 24);
    assert_int_equal(sa->nblocks, 2);
    int a[20], out[6];
    for (int i = 0; i < 20; i++)
        a[i] = i;
    fm_dt_pack(a, 1, sa, 0, out, sizeof out);
    int want[6] = {6, 7, 8, 11, 12, 13};
    assert_memory_equal(out, want, sizeof want);
    /* dup of a committed type is committed; envelope and contents */
    MPI_Datatype dv;
    assert_int_equal(MPI_Type_dup(v, &dv), MPI_SUCCESS);
    assert_true(fm_dt_usable(dv));
    int ni, na, nd, comb;
    assert_int_equal(MPI_Type_get_envelope(v, &ni, &na, &nd, &comb), MPI_SUCCESS);
    assert_true(ni == 3 && na == 0 && nd == 1 && comb == MPI_COMBINER_VECTOR);
    int ints[3];
    MPI_Datatype got;
    assert_int_equal(MPI_Type_get_contents(v, 3, 0, 1, ints, NULL, &got), MPI_SUCCESS);
    assert_true(ints[0] == 3 && ints[1] == 2 && ints[2] == 4 && got == MPI_INT);
    assert_int_equal(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb), MPI_SUCCESS);
    assert_int_equal(comb, MPI_COMBINER_NAMED);
    assert_int_equal(MPI_Type_get_envelope(s, &ni, &na, &nd, &comb), MPI_SUCCESS);
    assert_true(ni == 3 && na == 2 && nd == 2 && comb == MPI_COMBINER_STRUCT);
    /* names */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    assert_int_equal(MPI_Type_set_name(v, "my vector"), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_name(v, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "my vector");
    /* freeing the child first: the parent keeps it alive */
    assert_int_equal(MPI_Type_free(&r), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&s2), MPI_SUCCESS);
    assert_int_equal(s2->nblocks, 2);
    /* a pending operation holds a type past MPI_Type_free */
    MPI_Datatype held = dv;
    fm_dt_retain(held);
    assert_int_equal(MPI_Type_free(&dv), MPI_SUCCESS);
    assert_null(dv);
    assert_true(fm_dt_usable(held));
    fm_dt_release(held);
    MPI_Datatype all[] = {v, cv, s, s2, e, ez, sa};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        assert_int_equal(MPI_Type_free(&all[i]), MPI_SUCCESS);
}

static void test_random_vs_reference(void **state)
{
    (void)state;
    int checked = 0, multi = 0;
    for (int iter = 0; iter < 1500; iter++) {
        tpair p = random_type(3);
        if (p.r->n * 4 > 20000 || p.r->ext > 4000 || p.r->ext < -4000) {
            tpair_free(p);
            continue;
        }
        static const int counts[] = {0, 1, 3};
        check_against_ref(p, counts[rnd(3)]);
        checked++;
        multi += p.dt->nblocks > 1;
        tpair_free(p);
    }
    /* Guard against a generator that only makes trivial types. */
    print_message("%d random types checked, %d with several blocks\n", checked, multi);
    assert_true(checked > 1000 && multi > 300);
}

/* Pieces over a large, many-block type exercise the binary search. */
static void test_large_pieces(void **state)
{
    (void)state;
    MPI_Datatype v;
    assert_int_equal(MPI_Type_vector(10000, 3, 5, MPI_SHORT, &v), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&v), MPI_SUCCESS);
    assert_int_equal(v->nblocks, 10000);
    size_t n = 50000 * 2, total = 2 * 10000 * 6;
    short *src = malloc(n * 2 * sizeof(short)), *dst = calloc(n * 2, sizeof(short));
    for (size_t i = 0; i < n * 2; i++)
        src[i] = (short)i;
    unsigned char *whole = malloc(total), *pieces = malloc(total);
    assert_int_equal(fm_dt_pack(src, 2, v, 0, whole, total), total);
    for (size_t at = 0; at < total;) {
        size_t len = 1 + rnd(5000);
        at += fm_dt_pack(src, 2, v, at, pieces + at, len);
    }
    assert_memory_equal(whole, pieces, total);
    for (size_t at = 0; at < total;) {
        size_t len = 1 + rnd(5000);
        at += fm_dt_unpack(dst, 2, v, at, pieces + at, len);
    }
    for (size_t e = 0; e < 2; e++)
        for (size_t b = 0; b < 10000; b++)
            for (size_t k = 0; k < 3; k++) {
                size_t i = e * 49998 + b * 5 + k; /* extent: (9999*5+3) shorts */
                assert_int_equal(dst[i], src[i]);
            }
    free(src);
    free(dst);
    free(whole);
    free(pieces);
    assert_int_equal(MPI_Type_free(&v), MPI_SUCCESS);
}

static void test_status_counts(void **state)
{
    (void)state;
    MPI_Status st;
    memset(&st, 0, sizeof st);
    int c;
    MPI_Count cx;
    MPI_Datatype two;
    assert_int_equal(MPI_Type_contiguous(2, MPI_INT, &two), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&two), MPI_SUCCESS);
    st.fm_count = 12;
    assert_int_equal(MPI_Get_count(&st, two, &c), MPI_SUCCESS);
    assert_int_equal(c, MPI_UNDEFINED);
    assert_int_equal(MPI_Get_elements(&st, two, &c), MPI_SUCCESS);
    assert_int_equal(c, 3);
    assert_int_equal(MPI_Get_count(&st, MPI_INT, &c), MPI_SUCCESS);
    assert_int_equal(c, 3);
    st.fm_count = 13;
    assert_int_equal(MPI_Get_elements_x(&st, two, &cx), MPI_SUCCESS);
    assert_int_equal(cx, MPI_UNDEFINED);
    /* set_elements counts basic elements: Get_elements gives them back,
     * Get_count the whole elements they make (MPI_UNDEFINED for 5 ints). */
    assert_int_equal(MPI_Status_set_elements(&st, two, 6), MPI_SUCCESS);
    assert_int_equal(MPI_Get_count(&st, two, &c), MPI_SUCCESS);
    assert_int_equal(c, 3);
    assert_int_equal(MPI_Get_elements(&st, two, &c), MPI_SUCCESS);
    assert_int_equal(c, 6);
    assert_int_equal(MPI_Status_set_elements(&st, two, 5), MPI_SUCCESS);
    assert_int_equal(MPI_Get_count(&st, two, &c), MPI_SUCCESS);
    assert_int_equal(c, MPI_UNDEFINED);
    assert_int_equal(MPI_Get_elements(&st, two, &c), MPI_SUCCESS);
    assert_int_equal(c, 5);
    assert_int_equal(MPI_Status_set_elements_x(&st, MPI_DOUBLE, 7), MPI_SUCCESS);
    assert_int_equal(st.fm_count, 56);
    int flag = -1;
    assert_int_equal(MPI_Status_set_cancelled(&st, 1), MPI_SUCCESS);
    assert_int_equal(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
    assert_int_equal(flag, 1);
    /* struct {int; double} partial receives: 4 bytes = 1 element, 6 = undefined */
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE}, s;
    assert_int_equal(MPI_Type_create_struct(2, bl, d, ts, &s), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&s), MPI_SUCCESS);
    assert_int_equal(fm_dt_elements_of(s, 4), 1);
    assert_int_equal(fm_dt_elements_of(s, 6), MPI_UNDEFINED);
    assert_int_equal(fm_dt_elements_of(s, 12 + 4), 3);
    assert_int_equal(MPI_Type_free(&s), MPI_SUCCESS);
    assert_int_equal(MPI_Type_free(&two), MPI_SUCCESS);
    MPI_Aint a1, a2;
    int arr[4];
    assert_int_equal(MPI_Get_address(&arr[0], &a1), MPI_SUCCESS);
    assert_int_equal(MPI_Get_address(&arr[3], &a2), MPI_SUCCESS);
    assert_int_equal(MPI_Aint_diff(a2, a1), 3 * sizeof(int));
    assert_int_equal(MPI_Aint_add(a1, 12), a2);
}

#ifdef FM_DTYPE_STANDALONE
static void test_errors_and_pack_api(void **state)
{
    (void)state;
    MPI_Datatype t = MPI_INT, n;
    assert_int_equal(MPI_Type_free(&t), MPI_ERR_TYPE);
    assert_non_null(strstr(last_msg, "MPI_Type_free"));
    assert_non_null(strstr(last_msg, "MPI_INT"));
    assert_int_equal(MPI_Type_contiguous(-1, MPI_INT, &n), MPI_ERR_COUNT);
    assert_string_equal(last_msg, "MPI_Type_contiguous: count=-1 must be >= 0");
    assert_int_equal(MPI_Type_vector(1, 1, 1, MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
    assert_non_null(strstr(last_msg, "oldtype=MPI_DATATYPE_NULL"));
    int bl[2] = {1, -2}, di[2] = {0, 0};
    assert_int_equal(MPI_Type_indexed(2, bl, di, MPI_INT, &n), MPI_ERR_ARG);
    assert_non_null(strstr(last_msg, "array_of_blocklengths[1]=-2"));
    int sz[1] = {4}, sub[1] = {3}, st[1] = {2};
    assert_int_equal(MPI_Type_create_subarray(1, sz, sub, st, MPI_ORDER_C, MPI_INT, &n),
                     MPI_ERR_ARG);
    assert_int_equal(MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL), MPI_ERR_TYPE);
    /* uncommitted types cannot be packed */
    MPI_Datatype v;
    assert_int_equal(MPI_Type_vector(2, 1, 2, MPI_INT, &v), MPI_SUCCESS);
    int in[4] = {1, 2, 3, 4}, out[4] = {0};
    char buf[64];
    int pos = 0, psz;
    assert_int_equal(MPI_Pack(in, 1, v, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_commit(&v), MPI_SUCCESS);
    assert_int_equal(MPI_Pack_size(2, v, MPI_COMM_WORLD, &psz), MPI_SUCCESS);
    assert_int_equal(psz, 16);
    assert_int_equal(MPI_Pack(in, 1, v, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Pack(&in[1], 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    assert_int_equal(pos, 12);
    assert_int_equal(MPI_Pack(in, 2, v, buf, 16, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    pos = 0;
    assert_int_equal(MPI_Unpack(buf, 12, &pos, out, 1, v, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Unpack(buf, 12, &pos, &out[1], 1, MPI_INT, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    assert_true(out[0] == 1 && out[1] == 2 && out[2] == 3 && out[3] == 0);
    assert_int_equal(MPI_Unpack(buf, 12, &pos, out, 1, MPI_INT, MPI_COMM_WORLD),
                     MPI_ERR_TRUNCATE);
    assert_int_equal(MPI_Pack(in, 1, MPI_INT, buf, 64, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
    assert_int_equal(MPI_Type_free(&v), MPI_SUCCESS);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predefined_sizes),
        cmocka_unit_test(test_pair_layout),
        cmocka_unit_test(test_fixed_layouts),
        cmocka_unit_test(test_random_vs_reference),
        cmocka_unit_test(test_large_pieces),
        cmocka_unit_test(test_status_counts),
#ifdef FM_DTYPE_STANDALONE
        cmocka_unit_test(test_errors_and_pack_api),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
