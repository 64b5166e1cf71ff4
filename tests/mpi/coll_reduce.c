/* coll_reduce: Reduce (every root), Allreduce, Reduce_scatter,
 * Reduce_scatter_block, Scan, Exscan — counts 0 / 1 / 1000 / 100000, several
 * datatypes, every predefined op valid for them, MINLOC / MAXLOC (ties go to
 * the lowest index) on the pair types, MPI_IN_PLACE; user ops commutative and
 * non-commutative (2x2 matrix product: the result must be the rank-ordered
 * product), Op_commutative, Reduce_local, Op_free. */
#include "testutil.h"

static int rank, size;

enum { T_INT, T_LL, T_DOUBLE, T_FLOAT, T_UCHAR, T_SHORT, T_UNSIGNED, NT };
static const char *tname[NT] = {"INT", "LONG_LONG", "DOUBLE", "FLOAT", "UNSIGNED_CHAR", "SHORT",
                                "UNSIGNED"};
static MPI_Datatype tdt[NT];
static const size_t tsz[NT] = {sizeof(int), sizeof(long long), sizeof(double), sizeof(float), 1,
                               sizeof(short), sizeof(unsigned)};

enum { O_SUM, O_PROD, O_MAX, O_MIN, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR, NO };
static const char *oname[NO] = {"SUM", "PROD", "MAX", "MIN", "LAND", "LOR", "LXOR", "BAND", "BOR",
                                "BXOR"};
static MPI_Op odt[NO];

static int valid(int t, int o)
{
    int isfloat = (t == T_DOUBLE || t == T_FLOAT);
    if (isfloat)
        return o <= O_MIN;
    if (t == T_UCHAR) /* no overflow-prone arithmetic on bytes */
        return o != O_SUM && o != O_PROD;
    return 1;
}

static long long gen(int r, long i, int o)
{
    switch (o) {
    case O_SUM: return (r * 31 + i * 17) % 101 - 50;
    case O_PROD: { static const int v[3] = {1, 2, -1}; return v[(r * 7 + i) % 3]; }
    case O_MAX:
    case O_MIN: return (r * 37 + i * 11) % 97;
    case O_LAND:
    case O_LOR:
    case O_LXOR: return (r + i) % 4 == 0 ? 0 : (r + i) % 7 + 1;
    default: return (r * 0x35 + i * 0x1b) & 0x7f;
    }
}

static long long gen_t(int t, int r, long i, int o)
{
    long long v = gen(r, i, o);
    if (t == T_UNSIGNED && o == O_SUM)
        v = v + 50; /* keep it non-negative */
    if (t == T_UNSIGNED && o == O_PROD)
        v = v < 0 ? 3 : v;
    return v;
}

static long long fold(int o, long long a, long long b)
{
    switch (o) {
    case O_SUM: return a + b;
    case O_PROD: return a * b;
    case O_MAX: return a > b ? a : b;
    case O_MIN: return a < b ? a : b;
    case O_LAND: return (a && b) ? 1 : 0;
    case O_LOR: return (a || b) ? 1 : 0;
    case O_LXOR: return (!a != !b) ? 1 : 0;
    case O_BAND: return a & b;
    case O_BOR: return a | b;
    default: return a ^ b;
    }
}

static void put(int t, void *buf, long i, long long v)
{
    switch (t) {
    case T_INT: ((int *)buf)[i] = (int)v; break;
    case T_LL: ((long long *)buf)[i] = v; break;
    case T_DOUBLE: ((double *)buf)[i] = (double)v; break;
    case T_FLOAT: ((float *)buf)[i] = (float)v; break;
    case T_UCHAR: ((unsigned char *)buf)[i] = (unsigned char)v; break;
    case T_SHORT: ((short *)buf)[i] = (short)v; break;
    default: ((unsigned *)buf)[i] = (unsigned)v; break;
    }
}

static long long get(int t, const void *buf, long i)
{
    switch (t) {
    case T_INT: return ((const int *)buf)[i];
    case T_LL: return ((const long long *)buf)[i];
    case T_DOUBLE: return (long long)((const double *)buf)[i];
    case T_FLOAT: return (long long)((const float *)buf)[i];
    case T_UCHAR: return ((const unsigned char *)buf)[i];
    case T_SHORT: return ((const short *)buf)[i];
    default: return ((const unsigned *)buf)[i];
    }
}

/* Expected value of element i folded over ranks lo..hi (inclusive), in the
 * type's own arithmetic (put/get round trip after each step). */
static long long expect(int t, int o, long i, int lo, int hi)
{
    unsigned char tmp[16];
    long long acc = gen_t(t, lo, i, o);
    put(t, tmp, 0, acc);
    acc = get(t, tmp, 0);
    for (int r = lo + 1; r <= hi; r++) {
        acc = fold(o, acc, gen_t(t, r, i, o));
        put(t, tmp, 0, acc);
        acc = get(t, tmp, 0);
    }
    return acc;
}

static void fill(int t, int o, void *buf, long n, int r, long off)
{
    for (long i = 0; i < n; i++)
        put(t, buf, i, gen_t(t, r, i + off, o));
}

static void verify(int t, int o, const void *buf, long n, int lo, int hi, long off,
                   const char *coll, int root)
{
    for (long i = 0; i < n; i++) {
        long long want = expect(t, o, i + off, lo, hi), got = get(t, buf, i);
        CHECKF(got == want, "%s %s %s count %ld root %d: element %ld = %lld, expected %lld", coll,
               oname[o], tname[t], n, root, i + off, got, want);
    }
}

static void run(int t, int o, int count, int all_roots)
{
    MPI_Datatype dt = tdt[t];
    MPI_Op op = odt[o];
    size_t es = tsz[t];
    long total = (long)count * size;
    unsigned char *s = tu_malloc(es * (size_t)total + 16), *r = tu_malloc(es * (size_t)total + 16);

    /* Reduce, normal and in place. */
    for (int root = 0; root < size; root++) {
        if (!all_roots && root != (o + t) % size)
            continue;
        for (int ip = 0; ip < 2; ip++) {
            fill(t, o, s, count, rank, 0);
            memset(r, 0xCD, es * (size_t)count + 16);
            if (ip && rank == root) {
                fill(t, o, r, count, rank, 0);
                CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, r, count, dt, op, root, MPI_COMM_WORLD));
            } else {
                CHECK_MPI(MPI_Reduce(s, r, count, dt, op, root, MPI_COMM_WORLD));
            }
            if (rank == root)
                verify(t, o, r, count, 0, size - 1, 0, ip ? "Reduce(in place)" : "Reduce", root);
            CHECK(r[es * (size_t)count] == 0xCD);
            /* Send buffer untouched. */
            if (!(ip && rank == root))
                for (long i = 0; i < count; i++)
                    CHECK(get(t, s, i) == gen_t(t, rank, i, o));
        }
    }
    /* Allreduce. */
    for (int ip = 0; ip < 2; ip++) {
        memset(r, 0xCD, es * (size_t)count + 16);
        if (ip) {
            fill(t, o, r, count, rank, 0);
            CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, r, count, dt, op, MPI_COMM_WORLD));
        } else {
            fill(t, o, s, count, rank, 0);
            CHECK_MPI(MPI_Allreduce(s, r, count, dt, op, MPI_COMM_WORLD));
        }
        verify(t, o, r, count, 0, size - 1, 0, ip ? "Allreduce(in place)" : "Allreduce", -1);
        CHECK(r[es * (size_t)count] == 0xCD);
    }
    /* Scan / Exscan. */
    for (int ip = 0; ip < 2; ip++) {
        memset(r, 0xCD, es * (size_t)count + 16);
        if (ip) {
            fill(t, o, r, count, rank, 0);
            CHECK_MPI(MPI_Scan(MPI_IN_PLACE, r, count, dt, op, MPI_COMM_WORLD));
        } else {
            fill(t, o, s, count, rank, 0);
            CHECK_MPI(MPI_Scan(s, r, count, dt, op, MPI_COMM_WORLD));
        }
        verify(t, o, r, count, 0, rank, 0, ip ? "Scan(in place)" : "Scan", -1);
        memset(r, 0xCD, es * (size_t)count + 16);
        if (ip) {
            fill(t, o, r, count, rank, 0);
            CHECK_MPI(MPI_Exscan(MPI_IN_PLACE, r, count, dt, op, MPI_COMM_WORLD));
        } else {
            fill(t, o, s, count, rank, 0);
            CHECK_MPI(MPI_Exscan(s, r, count, dt, op, MPI_COMM_WORLD));
        }
        if (rank > 0)
            verify(t, o, r, count, 0, rank - 1, 0, ip ? "Exscan(in place)" : "Exscan", -1);
    }
    /* Reduce_scatter_block: each rank gets `count` elements of a
     * size*count reduction. */
    for (int ip = 0; ip < 2; ip++) {
        memset(r, 0xCD, es * (size_t)total + 16);
        if (ip) {
            fill(t, o, r, total, rank, 0);
            CHECK_MPI(MPI_Reduce_scatter_block(MPI_IN_PLACE, r, count, dt, op, MPI_COMM_WORLD));
        } else {
            fill(t, o, s, total, rank, 0);
            CHECK_MPI(MPI_Reduce_scatter_block(s, r, count, dt, op, MPI_COMM_WORLD));
            CHECK(r[es * (size_t)count] == 0xCD);
        }
        verify(t, o, r, count, 0, size - 1, (long)rank * count,
               ip ? "Reduce_scatter_block(in place)" : "Reduce_scatter_block", -1);
    }
    /* Reduce_scatter with uneven counts (some zero). */
    int *rc = tu_malloc(sizeof(int) * (size_t)size);
    long rtot = 0, myoff = 0;
    for (int i = 0; i < size; i++) {
        rc[i] = count == 0 ? 0 : (i % 3 == 1 ? 0 : count / 2 + i);
        if (i < rank)
            myoff += rc[i];
        rtot += rc[i];
    }
    unsigned char *s2 = tu_malloc(es * (size_t)rtot + 16), *r2 = tu_malloc(es * (size_t)rtot + 16);
    for (int ip = 0; ip < 2; ip++) {
        memset(r2, 0xCD, es * (size_t)rtot + 16);
        if (ip) {
            fill(t, o, r2, rtot, rank, 0);
            CHECK_MPI(MPI_Reduce_scatter(MPI_IN_PLACE, r2, rc, dt, op, MPI_COMM_WORLD));
        } else {
            fill(t, o, s2, rtot, rank, 0);
            CHECK_MPI(MPI_Reduce_scatter(s2, r2, rc, dt, op, MPI_COMM_WORLD));
            CHECK(r2[es * (size_t)rc[rank]] == 0xCD);
        }
        verify(t, o, r2, rc[rank], 0, size - 1, myoff,
               ip ? "Reduce_scatter(in place)" : "Reduce_scatter", -1);
    }
    free(rc);
    free(s2);
    free(r2);
    free(s);
    free(r);
}

/* ---- MINLOC / MAXLOC ---- */
#define LOC_TEST(NAME, VT, DT)                                                            \
    static void loc_##NAME(int count)                                                     \
    {                                                                                     \
        typedef struct { VT v; int i; } p_t;                                              \
        p_t *s = tu_malloc(sizeof(p_t) * (size_t)count + 1);                              \
        p_t *r = tu_malloc(sizeof(p_t) * (size_t)count + 1);                              \
        for (int k = 0; k < count; k++) {                                                 \
            s[k].v = (VT)((rank * 13 + k * 7) % 5);                                       \
            s[k].i = (size - rank) * 10 + k % 3;                                          \
        }                                                                                 \
        for (int which = 0; which < 2; which++) {                                         \
            MPI_Op op = which ? MPI_MAXLOC : MPI_MINLOC;                                  \
            for (int coll = 0; coll < 3; coll++) {                                        \
                int root = coll == 0 ? (count + which) % size : -1;                       \
                if (coll == 0)                                                            \
                    CHECK_MPI(MPI_Reduce(s, r, count, DT, op, root, MPI_COMM_WORLD));     \
                else if (coll == 1)                                                       \
                    CHECK_MPI(MPI_Allreduce(s, r, count, DT, op, MPI_COMM_WORLD));        \
                else                                                                      \
                    CHECK_MPI(MPI_Scan(s, r, count, DT, op, MPI_COMM_WORLD));             \
                if (coll == 0 && rank != root)                                            \
                    continue;                                                             \
                int hi = coll == 2 ? rank : size - 1;                                     \
                for (int k = 0; k < count; k++) {                                         \
                    VT bv = 0;                                                            \
                    int bi = 0;                                                           \
                    for (int q = 0; q <= hi; q++) {                                       \
                        VT v = (VT)((q * 13 + k * 7) % 5);                                \
                        int ix = (size - q) * 10 + k % 3;                                 \
                        if (q == 0 || (which ? v > bv : v < bv) || (v == bv && ix < bi)) { \
                            bv = v;                                                       \
                            bi = ix;                                                      \
                        }                                                                 \
                    }                                                                     \
                    CHECKF(r[k].v == bv && r[k].i == bi,                                  \
                           "%s " #DT " coll %d element %d: (%g,%d), expected (%g,%d)",    \
                           which ? "MAXLOC" : "MINLOC", coll, k, (double)r[k].v, r[k].i,  \
                           (double)bv, bi);                                               \
                }                                                                         \
            }                                                                             \
        }                                                                                 \
        free(s);                                                                          \
        free(r);                                                                          \
    }
LOC_TEST(2int, int, MPI_2INT)
LOC_TEST(double_int, double, MPI_DOUBLE_INT)
LOC_TEST(float_int, float, MPI_FLOAT_INT)
LOC_TEST(long_int, long, MPI_LONG_INT)
LOC_TEST(short_int, short, MPI_SHORT_INT)

/* ---- user ops ---- */
static int ncalls;

/* 2x2 matrices of unsigned (wrapping arithmetic stays associative):
 * inout = in * inout. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        unsigned c0 = a[0] * b[0] + a[1] * b[2], c1 = a[0] * b[1] + a[1] * b[3];
        unsigned c2 = a[2] * b[0] + a[3] * b[2], c3 = a[2] * b[1] + a[3] * b[3];
        b[0] = c0;
        b[1] = c1;
        b[2] = c2;
        b[3] = c3;
    }
    ncalls++;
}

static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    CHECK(*dt == MPI_INT);
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++)
        b[k] += a[k];
    ncalls++;
}

static void mat_of(int r, int k, unsigned *m)
{
    m[0] = 1 + (unsigned)(r % 2);
    m[1] = (unsigned)((r + k) % 3);
    m[2] = (unsigned)((r * 5 + k) % 4);
    m[3] = 1;
}

static void mat_expect(int lo, int hi, int k, unsigned *m)
{
    unsigned acc[4], x[4];
    mat_of(hi, k, acc);
    for (int r = hi - 1; r >= lo; r--) { /* acc = m_r * acc */
        mat_of(r, k, x);
        int one = 1;
        matmul(x, acc, &one, NULL);
    }
    memcpy(m, acc, sizeof acc);
}

static void user_ops(int count)
{
    MPI_Op mm, us;
    MPI_Datatype mt;
    int commute = -1;
    CHECK_MPI(MPI_Op_create(matmul, 0, &mm));
    CHECK_MPI(MPI_Op_create(my_sum, 1, &us));
    CHECK_MPI(MPI_Op_commutative(mm, &commute));
    CHECK_EQ(commute, 0);
    CHECK_MPI(MPI_Op_commutative(us, &commute));
    CHECK_EQ(commute, 1);
    CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &mt));
    CHECK_MPI(MPI_Type_commit(&mt));

    unsigned *s = tu_malloc(16 * (size_t)count * (size_t)size + 16);
    unsigned *r = tu_malloc(16 * (size_t)count * (size_t)size + 16);
    unsigned want[4];
    for (int k = 0; k < count * size; k++)
        mat_of(rank, k, s + 4 * k);

    for (int root = 0; root < size; root++) {
        CHECK_MPI(MPI_Reduce(s, r, count, mt, mm, root, MPI_COMM_WORLD));
        if (rank == root)
            for (int k = 0; k < count; k++) {
                mat_expect(0, size - 1, k, want);
                CHECKF(memcmp(r + 4 * k, want, 16) == 0,
                       "non-commutative Reduce root %d element %d: not the rank-ordered product",
                       root, k);
            }
    }
    memcpy(r, s, 16 * (size_t)count);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, r, count, mt, mm, MPI_COMM_WORLD));
    for (int k = 0; k < count; k++) {
        mat_expect(0, size - 1, k, want);
        CHECKF(memcmp(r + 4 * k, want, 16) == 0, "non-commutative Allreduce element %d", k);
    }
    CHECK_MPI(MPI_Scan(s, r, count, mt, mm, MPI_COMM_WORLD));
    for (int k = 0; k < count; k++) {
        mat_expect(0, rank, k, want);
        CHECKF(memcmp(r + 4 * k, want, 16) == 0, "non-commutative Scan element %d", k);
    }
    CHECK_MPI(MPI_Exscan(s, r, count, mt, mm, MPI_COMM_WORLD));
    if (rank > 0)
        for (int k = 0; k < count; k++) {
            mat_expect(0, rank - 1, k, want);
            CHECKF(memcmp(r + 4 * k, want, 16) == 0, "non-commutative Exscan element %d", k);
        }
    CHECK_MPI(MPI_Reduce_scatter_block(s, r, count, mt, mm, MPI_COMM_WORLD));
    for (int k = 0; k < count; k++) {
        mat_expect(0, size - 1, rank * count + k, want);
        CHECKF(memcmp(r + 4 * k, want, 16) == 0, "non-commutative Reduce_scatter_block %d", k);
    }

    /* Commutative user op equals MPI_SUM. */
    int *is = tu_malloc(sizeof(int) * (size_t)count + 4), *ir = tu_malloc(sizeof(int) * (size_t)count + 4);
    for (int k = 0; k < count; k++)
        is[k] = rank * 3 + k;
    for (int root = 0; root < size; root++) {
        CHECK_MPI(MPI_Reduce(is, ir, count, MPI_INT, us, root, MPI_COMM_WORLD));
        if (rank == root)
            for (int k = 0; k < count; k++)
                CHECK_EQ(ir[k], 3 * size * (size - 1) / 2 + size * k);
    }
    CHECK_MPI(MPI_Allreduce(is, ir, count, MPI_INT, us, MPI_COMM_WORLD));
    for (int k = 0; k < count; k++)
        CHECK_EQ(ir[k], 3 * size * (size - 1) / 2 + size * k);

    /* Reduce_local: inoutbuf = inbuf op inoutbuf. */
    if (count > 0) {
        unsigned a[4], b[4], ab[4];
        mat_of(1, 0, a);
        mat_of(2, 0, b);
        memcpy(ab, b, sizeof b);
        int one = 1;
        matmul(a, ab, &one, NULL);
        ncalls = 0;
        CHECK_MPI(MPI_Reduce_local(a, b, 1, mt, mm));
        CHECK(memcmp(b, ab, sizeof ab) == 0);
        CHECK(ncalls >= 1);
        int x[3] = {1, 2, 3}, y[3] = {10, 20, 30};
        CHECK_MPI(MPI_Reduce_local(x, y, 3, MPI_INT, MPI_SUM));
        CHECK(y[0] == 11 && y[1] == 22 && y[2] == 33 && x[0] == 1);
        CHECK_MPI(MPI_Reduce_local(x, y, 3, MPI_INT, MPI_MAX));
        CHECK(y[0] == 11 && y[2] == 33);
        CHECK_MPI(MPI_Reduce_local(x, y, 3, MPI_INT, us));
        CHECK(y[0] == 12 && y[1] == 24 && y[2] == 36);
    }

    CHECK_MPI(MPI_Op_free(&mm));
    CHECK_MPI(MPI_Op_free(&us));
    CHECK(mm == MPI_OP_NULL && us == MPI_OP_NULL);
    CHECK_MPI(MPI_Type_free(&mt));
    free(s);
    free(r);
    free(is);
    free(ir);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    tdt[T_INT] = MPI_INT;
    tdt[T_LL] = MPI_LONG_LONG;
    tdt[T_DOUBLE] = MPI_DOUBLE;
    tdt[T_FLOAT] = MPI_FLOAT;
    tdt[T_UCHAR] = MPI_UNSIGNED_CHAR;
    tdt[T_SHORT] = MPI_SHORT;
    tdt[T_UNSIGNED] = MPI_UNSIGNED;
    MPI_Op ops[NO] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND,
                      MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
    memcpy(odt, ops, sizeof ops);

    for (int o = 0; o < NO; o++) {
        int c = -1;
        CHECK_MPI(MPI_Op_commutative(odt[o], &c));
        CHECKF(c == 1, "MPI_%s not commutative", oname[o]);
    }
    int c = -1;
    CHECK_MPI(MPI_Op_commutative(MPI_MINLOC, &c));
    CHECK_EQ(c, 1);

    static const int counts[] = {0, 1, 1000};
    for (int ci = 0; ci < 3; ci++)
        for (int t = 0; t < NT; t++)
            for (int o = 0; o < NO; o++)
                if (valid(t, o))
                    run(t, o, counts[ci], o == O_SUM || (o == O_BXOR && t == T_INT));
    /* Large counts: sums on a 4-byte and an 8-byte type, two roots. */
    run(T_INT, O_SUM, 100000, 0);
    run(T_DOUBLE, O_MAX, 100000, 0);

    static const int lcounts[] = {0, 1, 1000, 100000};
    for (int ci = 0; ci < 4; ci++) {
        loc_2int(lcounts[ci]);
        if (lcounts[ci] <= 1000) {
            loc_double_int(lcounts[ci]);
            loc_float_int(lcounts[ci]);
            loc_long_int(lcounts[ci]);
            loc_short_int(lcounts[ci]);
        }
    }
    user_ops(0);
    user_ops(1);
    user_ops(1000);

    CHECK_MPI(MPI_Finalize());
    return 0;
}
