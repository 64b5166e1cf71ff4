/* dtype_fortran: the Fortran-named datatypes used from C.
 *
 *   - MPI_Type_size and extent, MPI_Type_get_name of each (gfortran's
 *     default sizes: INTEGER, REAL, LOGICAL 4, DOUBLE PRECISION 8,
 *     CHARACTER 1, COMPLEX 8; the optional INTEGER16, REAL16, COMPLEX32
 *     where mpi.h defines them);
 *   - a message of each around the ring arrives whole, with MPI_Get_count
 *     and MPI_Get_elements right (a pair type is two elements);
 *   - reductions per the standard's table (MPI-4.0 §6.9.2), with
 *     MPI_Allreduce and MPI_Reduce: Fortran integers every arithmetic and
 *     bitwise op (PROD wrapping like the integer type), never a logical
 *     one; REAL types MIN/MAX/SUM/PROD; complex types (Fortran and C)
 *     SUM and PROD with complex arithmetic, nothing else; LOGICAL the
 *     logical ops only; CHARACTER none; MPI_2REAL, MPI_2DOUBLE_PRECISION
 *     and MPI_2INTEGER MINLOC/MAXLOC (lowest index on ties);
 *   - one-sided: Accumulate of INTEGER, REAL and COMPLEX, MAXLOC on
 *     2INTEGER, Fetch_and_op on INTEGER8 and Compare_and_swap on LOGICAL
 *     (TESTLIST also runs it over OFI: active messages and provider
 *     atomics). */
#include <complex.h>

#include "testutil.h"

#define COUNT 37

static int rank, size;

/* ---- sizes, names, point-to-point ----------------------------------------- */
typedef struct {
    MPI_Datatype t;
    const char *name;
    int size, elements; /* bytes, and basic elements per element */
} ftype;

#define FT(t, sz, el) {t, #t, sz, el}
static const ftype types[] = {
    FT(MPI_CHARACTER, 1, 1), FT(MPI_LOGICAL, 4, 1), FT(MPI_INTEGER, 4, 1), FT(MPI_REAL, 4, 1),
    FT(MPI_DOUBLE_PRECISION, 8, 1), FT(MPI_COMPLEX, 8, 1), FT(MPI_DOUBLE_COMPLEX, 16, 1),
    FT(MPI_INTEGER1, 1, 1), FT(MPI_INTEGER2, 2, 1), FT(MPI_INTEGER4, 4, 1),
    FT(MPI_INTEGER8, 8, 1), FT(MPI_REAL4, 4, 1), FT(MPI_REAL8, 8, 1), FT(MPI_COMPLEX8, 8, 1),
    FT(MPI_COMPLEX16, 16, 1), FT(MPI_2REAL, 8, 2), FT(MPI_2DOUBLE_PRECISION, 16, 2),
    FT(MPI_2INTEGER, 8, 2), FT(MPI_C_COMPLEX, 8, 1), FT(MPI_C_FLOAT_COMPLEX, 8, 1),
    FT(MPI_C_DOUBLE_COMPLEX, 16, 1),
    FT(MPI_C_LONG_DOUBLE_COMPLEX, (int)sizeof(long double _Complex), 1),
#ifdef MPI_INTEGER16
    FT(MPI_INTEGER16, 16, 1),
#endif
#ifdef MPI_REAL16
    FT(MPI_REAL16, 16, 1), FT(MPI_COMPLEX32, 32, 1),
#endif
};
#define NTYPES ((int)(sizeof types / sizeof *types))

static void describe(void)
{
    for (int k = 0; k < NTYPES; k++) {
        const ftype *f = &types[k];
        int sz = -1, len = -1;
        MPI_Aint lb = -1, ext = -1;
        char name[MPI_MAX_OBJECT_NAME];
        CHECK_MPI(MPI_Type_size(f->t, &sz));
        CHECKF(sz == f->size, "MPI_Type_size(%s) = %d, want %d", f->name, sz, f->size);
        CHECK_MPI(MPI_Type_get_extent(f->t, &lb, &ext));
        CHECKF(lb == 0 && ext == f->size, "%s: lb %ld extent %ld, want 0 and %d", f->name,
               (long)lb, (long)ext, f->size);
        CHECK_MPI(MPI_Type_get_name(f->t, name, &len));
        CHECKF(strcmp(name, f->name) == 0 && len == (int)strlen(f->name),
               "MPI_Type_get_name(%s) = \"%s\" (%d)", f->name, name, len);
    }
}

static void ring(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int k = 0; k < NTYPES; k++) {
        const ftype *f = &types[k];
        size_t bytes = (size_t)COUNT * (size_t)f->size;
        unsigned char *out = tu_malloc(bytes), *in = tu_malloc(bytes);
        tu_fill(out, bytes, (unsigned)(rank * 100 + k));
        memset(in, 0, bytes);
        MPI_Status st;
        CHECK_MPI(MPI_Sendrecv(out, COUNT, f->t, next, k, in, COUNT, f->t, prev, k,
                               MPI_COMM_WORLD, &st));
        CHECK_PATTERN(in, bytes, (unsigned)(prev * 100 + k));
        int n = -1;
        CHECK_MPI(MPI_Get_count(&st, f->t, &n));
        CHECKF(n == COUNT, "MPI_Get_count(%s) = %d, want %d", f->name, n, COUNT);
        CHECK_MPI(MPI_Get_elements(&st, f->t, &n));
        CHECKF(n == COUNT * f->elements, "MPI_Get_elements(%s) = %d, want %d", f->name, n,
               COUNT * f->elements);
        free(out);
        free(in);
    }
}

/* ---- reductions ------------------------------------------------------------ */
/* Reduce (v(r, i) for every rank r) with op, by MPI_Allreduce and by
 * MPI_Reduce at the last rank, into `got` (COUNT elements of T). */
#define REDUCE(T, dt, op, v, got)                                                      \
    do {                                                                               \
        T mine_[COUNT], red_[COUNT];                                                   \
        for (int i = 0; i < COUNT; i++)                                                \
            mine_[i] = v(rank, i);                                                     \
        CHECK_MPI(MPI_Allreduce(mine_, got, COUNT, dt, op, MPI_COMM_WORLD));           \
        CHECK_MPI(MPI_Reduce(mine_, red_, COUNT, dt, op, size - 1, MPI_COMM_WORLD));   \
        /* By value: a long double's padding bytes are no part of it. */              \
        for (int i_ = 0; rank == size - 1 && i_ < COUNT; i_++)                          \
            CHECKF(red_[i_] == got[i_], "%s %s element %d: MPI_Reduce differs from "     \
                   "MPI_Allreduce", #dt, #op, i_);                                     \
    } while (0)

#define EXPECT_OP_ERROR(dt, op)                                                        \
    do {                                                                               \
        unsigned char a_[64] = {0}, b_[64];                                            \
        CHECK_ERR(MPI_Allreduce(a_, b_, 1, dt, op, MPI_COMM_WORLD), MPI_ERR_OP);       \
    } while (0)

/* Fortran integers: small values, so PROD wraps in the narrow types; the
 * reference computes in the unsigned type UT (at least unsigned int) and
 * keeps the low bits, i.e. two's complement wraparound. */
#define IVAL(r, i) (((r) * 5 + (i) * 3) % 11 - 3)
#define CHECK_FINT(T, UT, dt)                                                          \
    do {                                                                               \
        MPI_Op ops_[7] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR}; \
        for (int o = 0; o < 7; o++) {                                                  \
            T got[COUNT];                                                              \
            REDUCE(T, dt, ops_[o], (T)IVAL, got);                                      \
            for (int i = 0; i < COUNT; i++) {                                          \
                UT acc = (UT)(T)IVAL(0, i);                                            \
                T mx = (T)IVAL(0, i), mn = mx;                                         \
                for (int r = 1; r < size; r++) {                                       \
                    T x = (T)IVAL(r, i);                                               \
                    switch (o) {                                                       \
                    case 0: acc += (UT)x; break;                                       \
                    case 1: acc *= (UT)x; break;                                       \
                    case 4: acc &= (UT)x; break;                                       \
                    case 5: acc |= (UT)x; break;                                       \
                    case 6: acc ^= (UT)x; break;                                       \
                    }                                                                  \
                    mx = x > mx ? x : mx;                                              \
                    mn = x < mn ? x : mn;                                              \
                }                                                                      \
                T want = o == 2 ? mx : o == 3 ? mn : (T)acc;                           \
                CHECKF(got[i] == want, "%s op %d element %d: %lld, want %lld", #dt, o, i, \
                       (long long)got[i], (long long)want);                            \
            }                                                                          \
        }                                                                              \
        EXPECT_OP_ERROR(dt, MPI_LAND);                                                 \
        EXPECT_OP_ERROR(dt, MPI_LXOR);                                                 \
        EXPECT_OP_ERROR(dt, MPI_MAXLOC);                                               \
    } while (0)

/* Reals: powers of two and -1, so every sum and product is exact. */
static double rval(int r, int i)
{
    static const double v[4] = {0.5, 2.0, -1.0, 1.0};
    return v[(r + i) % 4];
}
#define CHECK_REAL(T, dt)                                                              \
    do {                                                                               \
        MPI_Op ops_[4] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};                        \
        for (int o = 0; o < 4; o++) {                                                  \
            T got[COUNT];                                                              \
            REDUCE(T, dt, ops_[o], (T)rval, got);                                      \
            for (int i = 0; i < COUNT; i++) {                                          \
                T want = (T)rval(0, i);                                                \
                for (int r = 1; r < size; r++) {                                       \
                    T x = (T)rval(r, i);                                               \
                    want = o == 0 ? want + x : o == 1 ? want * x : o == 2 ? (x > want ? x : want) \
                                                                 : (x < want ? x : want); \
                }                                                                      \
                CHECKF(got[i] == want, "%s op %d element %d: %g, want %g", #dt, o, i,  \
                       (double)got[i], (double)want);                                  \
            }                                                                          \
        }                                                                              \
        EXPECT_OP_ERROR(dt, MPI_BAND);                                                 \
        EXPECT_OP_ERROR(dt, MPI_LOR);                                                  \
    } while (0)

/* Complex: Gaussian integers of small norm, so products are exact too;
 * i * i = -1 shows the multiplication is complex, not per component. */
static double _Complex cval(int r, int i)
{
    static const double _Complex v[4] = {1.0 * I, 1.0 + 1.0 * I, -1.0, 2.0 - 1.0 * I};
    return v[(r + 2 * i) % 4];
}
#define CHECK_COMPLEX(T, dt)                                                           \
    do {                                                                               \
        MPI_Op ops_[2] = {MPI_SUM, MPI_PROD};                                          \
        for (int o = 0; o < 2; o++) {                                                  \
            T got[COUNT];                                                              \
            REDUCE(T, dt, ops_[o], (T)cval, got);                                      \
            for (int i = 0; i < COUNT; i++) {                                          \
                double _Complex want = cval(0, i);                                     \
                for (int r = 1; r < size; r++)                                         \
                    want = o ? want * cval(r, i) : want + cval(r, i);                  \
                CHECKF(got[i] == (T)want, "%s %s element %d: %g%+gi, want %g%+gi", #dt,  \
                       o ? "PROD" : "SUM", i, (double)creal(got[i]), (double)cimag(got[i]), \
                       creal(want), cimag(want));                                      \
            }                                                                          \
        }                                                                              \
        EXPECT_OP_ERROR(dt, MPI_MAX);                                                  \
        EXPECT_OP_ERROR(dt, MPI_MIN);                                                  \
        EXPECT_OP_ERROR(dt, MPI_LAND);                                                 \
    } while (0)

static void reduce_logical(void)
{
    /* .TRUE. is 1 (gfortran); false wherever (r + i) % 3 == 0 */
#define LVAL(r, i) ((((r) + (i)) % 3) != 0)
    MPI_Op ops[3] = {MPI_LAND, MPI_LOR, MPI_LXOR};
    for (int o = 0; o < 3; o++) {
        int32_t got[COUNT];
        REDUCE(int32_t, MPI_LOGICAL, ops[o], (int32_t)LVAL, got);
        for (int i = 0; i < COUNT; i++) {
            int all = 1, any = 0, odd = 0;
            for (int r = 0; r < size; r++) {
                all &= LVAL(r, i);
                any |= LVAL(r, i);
                odd ^= LVAL(r, i);
            }
            int want = o == 0 ? all : o == 1 ? any : odd;
            CHECKF(got[i] == want, "MPI_LOGICAL op %d element %d: %d, want %d", o, i,
                   (int)got[i], want);
        }
    }
    EXPECT_OP_ERROR(MPI_LOGICAL, MPI_SUM);
    EXPECT_OP_ERROR(MPI_LOGICAL, MPI_BAND);
    EXPECT_OP_ERROR(MPI_LOGICAL, MPI_MAX);
}

/* (value, index) pairs: index = rank, values with ties across ranks. */
#define PVAL(r, i) (((r) * 7 + (i) * 3) % 5)
#define CHECK_PAIR(VT, IT, dt)                                                         \
    do {                                                                               \
        typedef struct { VT v; IT i; } pair;                                           \
        for (int o = 0; o < 2; o++) {                                                  \
            pair mine[COUNT], got[COUNT];                                              \
            for (int i = 0; i < COUNT; i++) {                                          \
                mine[i].v = (VT)PVAL(rank, i);                                         \
                mine[i].i = (IT)rank;                                                  \
            }                                                                          \
            CHECK_MPI(MPI_Allreduce(mine, got, COUNT, dt, o ? MPI_MAXLOC : MPI_MINLOC,  \
                                    MPI_COMM_WORLD));                                  \
            for (int i = 0; i < COUNT; i++) {                                          \
                int best = 0;                                                          \
                for (int r = 1; r < size; r++)                                         \
                    if (o ? PVAL(r, i) > PVAL(best, i) : PVAL(r, i) < PVAL(best, i))   \
                        best = r;                                                      \
                CHECKF(got[i].v == (VT)PVAL(best, i) && got[i].i == (IT)best,          \
                       "%s %s element %d: (%g, %g), want (%d, %d)", #dt,               \
                       o ? "MAXLOC" : "MINLOC", i, (double)got[i].v, (double)got[i].i,  \
                       PVAL(best, i), best);                                           \
            }                                                                          \
        }                                                                              \
        EXPECT_OP_ERROR(dt, MPI_SUM);                                                  \
        EXPECT_OP_ERROR(dt, MPI_MAX);                                                  \
    } while (0)

static void reductions(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_FINT(int32_t, uint32_t, MPI_INTEGER);
    CHECK_FINT(int8_t, unsigned, MPI_INTEGER1); /* no promotion to int on the way */
    CHECK_FINT(int16_t, unsigned, MPI_INTEGER2);
    CHECK_FINT(int32_t, uint32_t, MPI_INTEGER4);
    CHECK_FINT(int64_t, uint64_t, MPI_INTEGER8);
#ifdef MPI_INTEGER16
    CHECK_FINT(__int128, unsigned __int128, MPI_INTEGER16);
#endif
    CHECK_REAL(float, MPI_REAL);
    CHECK_REAL(double, MPI_DOUBLE_PRECISION);
    CHECK_REAL(float, MPI_REAL4);
    CHECK_REAL(double, MPI_REAL8);
#ifdef MPI_REAL16
    CHECK_REAL(_Float128, MPI_REAL16);
    CHECK_COMPLEX(_Complex _Float128, MPI_COMPLEX32);
#endif
    CHECK_COMPLEX(float _Complex, MPI_COMPLEX);
    CHECK_COMPLEX(double _Complex, MPI_DOUBLE_COMPLEX);
    CHECK_COMPLEX(float _Complex, MPI_COMPLEX8);
    CHECK_COMPLEX(double _Complex, MPI_COMPLEX16);
    CHECK_COMPLEX(float _Complex, MPI_C_COMPLEX);
    CHECK_COMPLEX(float _Complex, MPI_C_FLOAT_COMPLEX);
    CHECK_COMPLEX(double _Complex, MPI_C_DOUBLE_COMPLEX);
    CHECK_COMPLEX(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX);
    reduce_logical();
    CHECK_PAIR(float, float, MPI_2REAL);
    CHECK_PAIR(double, double, MPI_2DOUBLE_PRECISION);
    CHECK_PAIR(int32_t, int32_t, MPI_2INTEGER);
    MPI_Op every[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR, MPI_LXOR,
                      MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
    for (size_t o = 0; o < sizeof every / sizeof *every; o++)
        EXPECT_OP_ERROR(MPI_CHARACTER, every[o]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- one-sided ------------------------------------------------------------- */
typedef struct {
    int32_t sum;           /* MPI_INTEGER, SUM of rank + 1 */
    float rsum;            /* MPI_REAL, SUM of 0.5 */
    float _Complex cprod;  /* MPI_COMPLEX, PROD of i */
    int32_t loc[2];        /* MPI_2INTEGER, MAXLOC of (rank % 2, rank) */
    int64_t ctr;           /* MPI_INTEGER8, Fetch_and_op SUM */
    int32_t flag;          /* MPI_LOGICAL, Compare_and_swap */
} wmem;

static void one_sided(void)
{
    wmem *m;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(sizeof *m, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &m, &win));
    memset(m, 0, sizeof *m);
    m->cprod = 1;
    m->loc[0] = -1;
    CHECK_MPI(MPI_Win_fence(0, win));
    int32_t mine = rank + 1, loc[2] = {rank % 2, rank};
    float half = 0.5f;
    float _Complex ii = I;
    for (int t = 0; t < size; t++) {
        CHECK_MPI(MPI_Accumulate(&mine, 1, MPI_INTEGER, t, offsetof(wmem, sum), 1, MPI_INTEGER,
                                 MPI_SUM, win));
        CHECK_MPI(MPI_Accumulate(&half, 1, MPI_REAL, t, offsetof(wmem, rsum), 1, MPI_REAL,
                                 MPI_SUM, win));
        CHECK_MPI(MPI_Accumulate(&ii, 1, MPI_COMPLEX, t, offsetof(wmem, cprod), 1, MPI_COMPLEX,
                                 MPI_PROD, win));
        CHECK_MPI(MPI_Accumulate(loc, 1, MPI_2INTEGER, t, offsetof(wmem, loc), 1, MPI_2INTEGER,
                                 MPI_MAXLOC, win));
    }
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_EQ(m->sum, size * (size + 1) / 2);
    CHECKF(m->rsum == 0.5f * (float)size, "MPI_REAL accumulate: %g", (double)m->rsum);
    float _Complex want = 1;
    for (int r = 0; r < size; r++)
        want *= I;
    CHECKF(m->cprod == want, "MPI_COMPLEX PROD accumulate: %g%+gi, want %g%+gi",
           (double)crealf(m->cprod), (double)cimagf(m->cprod), (double)crealf(want),
           (double)cimagf(want));
    CHECK_EQ(m->loc[0], size > 1 ? 1 : 0);
    CHECK_EQ(m->loc[1], size > 1 ? 1 : 0); /* the lowest rank holding the maximum */

    /* passive target: a counter and a LOGICAL flag at rank 0 */
    CHECK_MPI(MPI_Win_lock_all(0, win));
    int64_t one = 1, before = -1;
    CHECK_MPI(MPI_Fetch_and_op(&one, &before, MPI_INTEGER8, 0, offsetof(wmem, ctr), MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECKF(before >= 0 && before < size, "MPI_Fetch_and_op(MPI_INTEGER8) fetched %lld",
           (long long)before);
    int32_t t = 1, f = 0, old = -1;
    CHECK_MPI(MPI_Compare_and_swap(&t, &f, &old, MPI_LOGICAL, 0, offsetof(wmem, flag), win));
    CHECK_MPI(MPI_Win_unlock_all(win));
    int won = old == 0, winners = 0;
    CHECK_MPI(MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECKF(winners == 1, "MPI_Compare_and_swap(MPI_LOGICAL): %d ranks swapped", winners);
    CHECK_MPI(MPI_Win_fence(0, win));
    if (rank == 0) {
        CHECK_EQ(m->ctr, size);
        CHECK_EQ(m->flag, 1);
    }
    CHECK_MPI(MPI_Win_free(&win));
}

/* MPI_Type_match_size gives the predefined named types (not copies), and
 * refuses sizes and classes that have none; the C++ types of MPI-3.1 have
 * C's layouts and reduce like them. */
static void match_size_and_cxx(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t) == MPI_SUCCESS && t == MPI_REAL8);
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &t) == MPI_SUCCESS && t == MPI_REAL4);
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 2, &t) == MPI_SUCCESS && t == MPI_INTEGER2);
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t) == MPI_SUCCESS &&
          t == MPI_COMPLEX16);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls = -1;
    MPI_Error_class(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t), &cls);
    CHECKF(cls == MPI_ERR_ARG, "match_size(REAL, 3): class %d", cls);
    MPI_Error_class(MPI_Type_match_size(42, 4, &t), &cls);
    CHECKF(cls == MPI_ERR_ARG, "match_size(42, 4): class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    int sz = 0;
    MPI_Type_size(MPI_CXX_BOOL, &sz);
    CHECK(sz == (int)sizeof(_Bool));
    MPI_Type_size(MPI_CXX_LONG_DOUBLE_COMPLEX, &sz);
    CHECK(sz == (int)sizeof(long double _Complex));
    _Bool mine = rank == 0, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD);
    CHECK(any == 1);
    double _Complex z = rank + 1.0 * _Complex_I, zs = 0;
    MPI_Allreduce(&z, &zs, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    CHECKF(creal(zs) == size * (size - 1) / 2.0 && cimag(zs) == size, "cxx complex sum %g%+gi",
           creal(zs), cimag(zs));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    describe();
    ring();
    reductions();
    one_sided();
    match_size_and_cxx();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("dtype_fortran: %d ranks, %d types OK\n", size, NTYPES);
    MPI_Finalize();
    return 0;
}
