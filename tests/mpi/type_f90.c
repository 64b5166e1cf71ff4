/* type_f90: MPI_Type_create_f90_integer, _real and _complex from C.
 *
 *   - the kind chosen for each r and (p, r) is gfortran's
 *     SELECTED_INT_KIND / SELECTED_REAL_KIND on x86-64 (INTEGER 1, 2, 4,
 *     8, 16 bytes for ranges 2, 4, 9, 18, 38; REAL kinds 4, 8, 10 (the
 *     x87 80-bit long double, 16 bytes) and 16 (IEEE quad) for
 *     precision/range 6/37, 15/307, 18/4931, 33/4931), MPI_UNDEFINED
 *     meaning "any" for p or r;
 *   - the envelope says MPI_COMBINER_F90_*, with (r) or (p, r) as the
 *     contents' integers and no addresses or datatypes (as MPICH's
 *     createf90types checks); the same arguments give the same handle,
 *     other arguments of the same kind another;
 *   - MPI_Type_free refuses them (MPI_ERR_TYPE naming the call), and no
 *     kind is an MPI_ERR_ARG naming the call and the argument;
 *   - each type carries data around the ring and reduces with MPI_SUM as
 *     its kind: long double sums (kind 10) and quad sums (kind 16) come
 *     out exact, which a wrong layout would not;
 *   - a dup of one and a contiguous type built on one. */
#include <float.h>

#include "testutil.h"

static int rank, size;

static void check_envelope(MPI_Datatype t, int combiner, int nints, int p, int r)
{
    int ni = -1, na = -1, nd = -1, c = -1;
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &c));
    CHECK_EQ(c, combiner);
    CHECK_EQ(ni, nints);
    CHECK_EQ(na, 0);
    CHECK_EQ(nd, 0);
    int ints[2] = {-7, -7};
    /* No address or datatype array is needed: both counts are 0. */
    CHECK_MPI(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
    if (nints == 1) {
        CHECK_EQ(ints[0], r);
        CHECK_EQ(ints[1], -7);
    } else {
        CHECK_EQ(ints[0], p);
        CHECK_EQ(ints[1], r);
    }
}

static int type_size(MPI_Datatype t)
{
    int s = -1;
    CHECK_MPI(MPI_Type_size(t, &s));
    return s;
}

/* ---- which kind ---------------------------------------------------------------- */

static void integers(void)
{
    static const struct {
        int r, size;
    } cases[] = {{-5, 1}, {0, 1}, {1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 4}, {9, 4},
                 {10, 8}, {18, 8},
#ifdef MPI_INTEGER16
                 {19, 16}, {38, 16},
#endif
    };
    MPI_Datatype first[sizeof cases / sizeof *cases];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        MPI_Datatype t = MPI_DATATYPE_NULL, again = MPI_DATATYPE_NULL;
        CHECK_MPI(MPI_Type_create_f90_integer(cases[i].r, &t));
        CHECKF(type_size(t) == cases[i].size, "r=%d: size %d, expected %d", cases[i].r,
               type_size(t), cases[i].size);
        check_envelope(t, MPI_COMBINER_F90_INTEGER, 1, 0, cases[i].r);
        CHECK_MPI(MPI_Type_create_f90_integer(cases[i].r, &again));
        CHECKF(again == t, "r=%d: a second call gave another handle", cases[i].r);
        for (size_t j = 0; j < i; j++)
            CHECKF(first[j] != t, "r=%d and r=%d share a handle", cases[j].r, cases[i].r);
        first[i] = t;
    }
}

struct real_case {
    int p, r, size; /* size of the REAL; 0: no kind */
    int kind;       /* gfortran's kind */
};

static const struct real_case reals[] = {
    {3, 10, 4, 4},
    {3, MPI_UNDEFINED, 4, 4},
    {MPI_UNDEFINED, 10, 4, 4},
    {6, 37, 4, 4},
    {7, 30, 8, 8},
    {7, MPI_UNDEFINED, 8, 8},
    {MPI_UNDEFINED, 30, 4, 4},
    {MPI_UNDEFINED, 38, 8, 8},
    {6, 38, 8, 8},
    {15, 307, 8, 8},
    {-3, MPI_UNDEFINED, 4, 4},
#if LDBL_MANT_DIG == 64
    {16, MPI_UNDEFINED, 16, 10},
    {18, 4931, 16, 10},
    {MPI_UNDEFINED, 308, 16, 10},
    {1, 4931, 16, 10},
#endif
#ifdef MPI_REAL16
    {19, MPI_UNDEFINED, 16, 16},
    {33, 4931, 16, 16},
    {33, 1, 16, 16},
#endif
};
#define NREALS ((int)(sizeof reals / sizeof *reals))

static void real_kinds(int combiner)
{
    int cplx = combiner == MPI_COMBINER_F90_COMPLEX;
    MPI_Datatype seen[NREALS];
    for (int i = 0; i < NREALS; i++) {
        const struct real_case *c = &reals[i];
        MPI_Datatype t = MPI_DATATYPE_NULL, again = MPI_DATATYPE_NULL;
        if (cplx) {
            CHECK_MPI(MPI_Type_create_f90_complex(c->p, c->r, &t));
            CHECK_MPI(MPI_Type_create_f90_complex(c->p, c->r, &again));
        } else {
            CHECK_MPI(MPI_Type_create_f90_real(c->p, c->r, &t));
            CHECK_MPI(MPI_Type_create_f90_real(c->p, c->r, &again));
        }
        CHECKF(again == t, "p=%d r=%d: a second call gave another handle", c->p, c->r);
        int want = cplx ? 2 * c->size : c->size;
        CHECKF(type_size(t) == want, "%s p=%d r=%d: size %d, expected %d",
               cplx ? "complex" : "real", c->p, c->r, type_size(t), want);
        check_envelope(t, combiner, 2, c->p, c->r);
        for (int j = 0; j < i; j++)
            CHECKF(seen[j] != t, "p=%d r=%d and p=%d r=%d share a handle", reals[j].p,
                   reals[j].r, c->p, c->r);
        seen[i] = t;
        /* The kind-10 types are named as Fortran names them. */
        char name[MPI_MAX_OBJECT_NAME];
        int len = 0;
        CHECK_MPI(MPI_Type_get_name(t, name, &len));
        if (c->kind == 10)
            CHECKF(!strcmp(name, cplx ? "COMPLEX(KIND=10)" : "REAL(KIND=10)"), "name %s", name);
        else if (c->kind == 8)
            CHECKF(!strcmp(name, cplx ? "MPI_COMPLEX16" : "MPI_REAL8"), "name %s", name);
    }
    /* Not the handles of the named types (whose envelope is NAMED). */
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_create_f90_real(7, 30, &t));
    CHECK(t != MPI_REAL8);
}

/* ---- errors ---------------------------------------------------------------------- */

static void check_message(int code, const char *a, const char *b)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, msg, &len);
    CHECKF(strstr(msg, a) && strstr(msg, b), "message \"%s\" lacks \"%s\" or \"%s\"", msg, a, b);
}

static void errors(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc;
#ifdef MPI_INTEGER16
    CHECK_ERR(rc = MPI_Type_create_f90_integer(39, &t), MPI_ERR_ARG);
    check_message(rc, "MPI_Type_create_f90_integer", "r=39");
#else
    CHECK_ERR(rc = MPI_Type_create_f90_integer(19, &t), MPI_ERR_ARG);
    check_message(rc, "MPI_Type_create_f90_integer", "r=19");
#endif
    CHECK(t == MPI_DATATYPE_NULL);
    CHECK_ERR(rc = MPI_Type_create_f90_integer(MPI_UNDEFINED, &t), MPI_ERR_ARG);
    check_message(rc, "MPI_Type_create_f90_integer", "r=MPI_UNDEFINED");
    CHECK_ERR(rc = MPI_Type_create_f90_real(34, MPI_UNDEFINED, &t), MPI_ERR_ARG);
    check_message(rc, "MPI_Type_create_f90_real", "p=34");
    CHECK_ERR(rc = MPI_Type_create_f90_real(3, 4932, &t), MPI_ERR_ARG);
    check_message(rc, "MPI_Type_create_f90_real", "r=4932");
    CHECK_ERR(rc = MPI_Type_create_f90_complex(40, 5000, &t), MPI_ERR_ARG);
    check_message(rc, "MPI_Type_create_f90_complex", "p=40 and r=5000");
    CHECK_ERR(rc = MPI_Type_create_f90_complex(MPI_UNDEFINED, MPI_UNDEFINED, &t), MPI_ERR_ARG);
    check_message(rc, "MPI_Type_create_f90_complex", "p=MPI_UNDEFINED and r=MPI_UNDEFINED");
    CHECK(t == MPI_DATATYPE_NULL);
    CHECK_ERR(MPI_Type_create_f90_real(6, 37, NULL), MPI_ERR_ARG);

    /* Predefined: no one frees them, and the handle stays usable. */
    CHECK_MPI(MPI_Type_create_f90_real(7, MPI_UNDEFINED, &t));
    MPI_Datatype keep = t;
    CHECK_ERR(rc = MPI_Type_free(&t), MPI_ERR_TYPE);
    check_message(rc, "MPI_Type_free", "MPI_Type_create_f90_real(p=7, r=-32766)");
    CHECK(t == keep);
    CHECK_MPI(MPI_Type_create_f90_integer(5, &t));
    CHECK_ERR(rc = MPI_Type_free(&t), MPI_ERR_TYPE);
    check_message(rc, "MPI_Type_free", "MPI_Type_create_f90_integer(r=5)");
    CHECK_EQ(type_size(keep), 8);
}

/* ---- data ------------------------------------------------------------------------- */

#define N 5

/* N elements of t around the ring (into got), then summed over all ranks
 * (into sum). */
static void ring_and_sum(MPI_Datatype t, void *mine, void *got, void *sum, size_t bytes)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    memset(got, 0, bytes);
    CHECK_MPI(MPI_Sendrecv(mine, N, t, right, 5, got, N, t, left, 5, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    memset(sum, 0, bytes);
    CHECK_MPI(MPI_Allreduce(mine, sum, N, t, MPI_SUM, MPI_COMM_WORLD));
}

static void data(void)
{
    int left = (rank + size - 1) % size;
    long long ranksum = (long long)size * (size - 1) / 2;

    MPI_Datatype ti;
    CHECK_MPI(MPI_Type_create_f90_integer(15, &ti)); /* INTEGER(8) */
    int64_t im[N], ig[N], is[N];
    for (int i = 0; i < N; i++)
        im[i] = ((int64_t)rank << 40) + i;
    ring_and_sum(ti, im, ig, is, sizeof im);
    for (int i = 0; i < N; i++) {
        CHECK(ig[i] == ((int64_t)left << 40) + i);
        CHECK(is[i] == (ranksum << 40) + (int64_t)i * size);
    }

    MPI_Datatype td;
    CHECK_MPI(MPI_Type_create_f90_real(12, MPI_UNDEFINED, &td)); /* REAL(8) */
    double dm[N], dg[N], ds[N];
    for (int i = 0; i < N; i++)
        dm[i] = rank + 0.25 * i;
    ring_and_sum(td, dm, dg, ds, sizeof dm);
    for (int i = 0; i < N; i++) {
        CHECK(dg[i] == left + 0.25 * i);
        CHECK(ds[i] == ranksum + 0.25 * i * size);
    }

    MPI_Datatype tz;
    CHECK_MPI(MPI_Type_create_f90_complex(5, 20, &tz)); /* COMPLEX(4) */
    float zm[2 * N], zg[2 * N], zs[2 * N];
    for (int i = 0; i < N; i++) {
        zm[2 * i] = (float)rank;
        zm[2 * i + 1] = (float)-i;
    }
    ring_and_sum(tz, zm, zg, zs, sizeof zm);
    for (int i = 0; i < N; i++) {
        CHECK(zg[2 * i] == (float)left && zg[2 * i + 1] == (float)-i);
        CHECK(zs[2 * i] == (float)ranksum && zs[2 * i + 1] == (float)(-i * size));
    }

#if LDBL_MANT_DIG == 64
    /* (rank + 1) * 2^-58 above a small number: every partial sum (below
     * 64 at up to 8 ranks) is a multiple of 2^-58 that the x87 format's 64
     * bits hold exactly, in any order; a double sum would lose it. */
    MPI_Datatype tl;
    CHECK_MPI(MPI_Type_create_f90_real(17, MPI_UNDEFINED, &tl));
    long double lm[N], lg[N], ls[N];
    for (int i = 0; i < N; i++)
        lm[i] = 1.0L + 0.5L * i + (long double)(rank + 1) * 0x1p-58L;
    ring_and_sum(tl, lm, lg, ls, sizeof lm);
    long double tiny = (long double)((long long)size * (size + 1) / 2) * 0x1p-58L;
    for (int i = 0; i < N; i++) {
        CHECK(lg[i] == 1.0L + 0.5L * i + (long double)(left + 1) * 0x1p-58L);
        CHECK(ls[i] == (long double)size * (1.0L + 0.5L * i) + tiny);
    }
#endif
#ifdef MPI_REAL16
    MPI_Datatype tq;
    CHECK_MPI(MPI_Type_create_f90_real(30, 100, &tq));
    _Float128 qm[N], qg[N], qs[N];
    for (int i = 0; i < N; i++) /* the same with quad's 113 bits */
        qm[i] = 1 + (_Float128)0.5 * i + (_Float128)(rank + 1) * 0x1p-100f128;
    ring_and_sum(tq, qm, qg, qs, sizeof qm);
    _Float128 qtiny = (_Float128)((long long)size * (size + 1) / 2) * 0x1p-100f128;
    for (int i = 0; i < N; i++) {
        CHECK(qg[i] == 1 + (_Float128)0.5 * i + (_Float128)(left + 1) * 0x1p-100f128);
        CHECK(qs[i] == (_Float128)size * (1 + (_Float128)0.5 * i) + qtiny);
    }
#endif

    /* A local reduction, as MPICH's test does after its exchange. */
    double a[N] = {1, 2, 3, 4, 5}, b[N] = {10, 20, 30, 40, 50};
    CHECK_MPI(MPI_Reduce_local(a, b, N, td, MPI_SUM));
    CHECK(b[0] == 11 && b[4] == 55);
    /* Not a logical type: no MPI_LAND for REAL. */
    CHECK_ERR(MPI_Reduce_local(a, b, N, td, MPI_LAND), MPI_ERR_OP);

    /* Derived types over them: a dup (whose contents give the f90 type
     * back) and a contiguous pair. */
    MPI_Datatype dup, pair;
    CHECK_MPI(MPI_Type_dup(td, &dup));
    int ni, na, nd, c;
    CHECK_MPI(MPI_Type_get_envelope(dup, &ni, &na, &nd, &c));
    CHECK(c == MPI_COMBINER_DUP && nd == 1);
    MPI_Datatype inner = MPI_DATATYPE_NULL;
    CHECK_MPI(MPI_Type_get_contents(dup, 0, 0, 1, NULL, NULL, &inner));
    CHECK(inner == td);
    CHECK_MPI(MPI_Type_contiguous(2, td, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    double pm[4] = {rank, -rank, 7, 8}, pg[4] = {0};
    CHECK_MPI(MPI_Sendrecv(pm, 2, pair, (rank + 1) % size, 6, pg, 2, pair, left, 6,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(pg[0] == left && pg[1] == -left && pg[2] == 7 && pg[3] == 8);
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(pm, 3, td, (rank + 1) % size, 7, pg, 4, td, left, 7,
                           MPI_COMM_WORLD, &st));
    int count = -1;
    CHECK_MPI(MPI_Get_count(&st, td, &count));
    CHECK_EQ(count, 3);
    CHECK_MPI(MPI_Type_free(&dup));
    CHECK_MPI(MPI_Type_free(&pair));
}

/* An attribute on one: its delete callback runs at MPI_Finalize. */
static int deleted;
static int count_delete(MPI_Datatype t, int keyval, void *val, void *extra)
{
    (void)t, (void)keyval, (void)extra;
    if (val == (void *)&deleted)
        deleted++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    integers();
    real_kinds(MPI_COMBINER_F90_REAL);
    real_kinds(MPI_COMBINER_F90_COMPLEX);
    errors();
    /* As MPICH's createf90types with its argument 1000: no handle leaks. */
    MPI_Datatype t0, t;
    CHECK_MPI(MPI_Type_create_f90_complex(3, 10, &t0));
    for (int i = 0; i < 1000; i++) {
        CHECK_MPI(MPI_Type_create_f90_complex(3, 10, &t));
        CHECK(t == t0);
    }
    data();

    int keyval, flag = 0;
    void *val = NULL;
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, count_delete, &keyval, NULL));
    CHECK_MPI(MPI_Type_set_attr(t0, keyval, &deleted));
    CHECK_MPI(MPI_Type_get_attr(t0, keyval, &val, &flag));
    CHECK(flag && val == &deleted);
    CHECK_MPI(MPI_Type_free_keyval(&keyval));
    MPI_Finalize();
    CHECKF(deleted == 1, "the attribute's delete callback ran %d times at MPI_Finalize", deleted);
    return 0;
}
