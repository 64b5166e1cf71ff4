/* coll_reduce_pieces: a one-sided MPI_Reduce larger than its piece (64 KiB,
 * or a quarter of the collective cache's largest area when that is less:
 * src/coll/rma/cache.h, fm_crma_reduce_piece) runs as one reduce per
 * piece.  Checked here, from every root, at sizes on both sides of a
 * piece, a few pieces and an odd count past 1 MiB:
 *   - MPI_INT with MPI_SUM, MPI_IN_PLACE at the root every other call;
 *   - MPI_DOUBLE_INT with MPI_MINLOC (12 bytes an element, extent 16: a
 *     piece ends on an element, ties go to the lowest rank);
 *   - a vector type with a hole in each element (MPI_Type_vector(2, 1, 2,
 *     MPI_INT)): the root's holes keep their bytes;
 *   - a non-commutative user op (2x2 matrix product): the result is the
 *     rank-ordered product in every piece;
 *   - every result exact on the root; nothing written past its end;
 *   - counts that differ between members (an erroneous program): one
 *     member passes half the others' count, both counts in pieces, or the
 *     half one piece; the root returns MPI_ERR_TRUNCATE or MPI_ERR_OTHER
 *     and no member waits for a piece that never comes (with
 *     FM_TEST_PIECES=1: under the two-sided paths the sizes differ in
 *     protocol, which this does not test);
 *   - with FM_TEST_PIECES=1, MPI_T's coll_reduce_pieces grows by one on
 *     every rank exactly for the calls larger than a piece (and by none
 *     for smaller ones); with FM_TEST_PIECES=0 it never grows (the
 *     two-sided paths); unset, it is not read (another MPI).
 * The piece comes from FABMPI_COLL_CACHE_PAGES and
 * FABMPI_COLL_CACHE_LARGE_PAGES; runs over OFI set the latter to 0 (OFI
 * caches have no large area). */
#include <string.h>

#include "testutil.h"

static int rank, size, expect = -1;
static size_t piece = 65536;
#ifdef FABMPI
static tu_counters ctr;
#endif

/* After one MPI_Reduce of `bytes` bytes: coll_reduce_pieces grew by one
 * when it was larger than a piece, else not at all. */
static void check_counter(size_t bytes, size_t unit, const char *what)
{
#ifdef FABMPI
    if (expect < 0)
        return;
    long long d;
    tu_counters_deltas(&ctr, &d);
    const long long want = expect && bytes > piece && unit <= piece;
    CHECKF(d == want, "%s (%zu bytes, pieces of %zu): coll_reduce_pieces grew by %lld, not %lld",
           what, bytes, piece, d, want);
#else
    (void)bytes;
    (void)unit;
    (void)what;
#endif
}

static int sum_val(int q, long i) { return (int)((q * 7 + i * 13) % 1000) - 500; }

static void ints(long n, int root)
{
    int *s = tu_malloc((size_t)n * sizeof(int)), *r = tu_malloc((size_t)(n + 16) * sizeof(int));
    const int in_place = rank == root && (root + n) % 2 == 0;
    for (long i = 0; i < n; i++)
        (in_place ? r : s)[i] = sum_val(rank, i);
    for (long i = n; i < n + 16; i++)
        r[i] = 0x5a5a5a5a;
    CHECK_MPI(MPI_Reduce(in_place ? MPI_IN_PLACE : s, r, (int)n, MPI_INT, MPI_SUM, root,
                         MPI_COMM_WORLD));
    if (rank == root) {
        for (long i = 0; i < n; i++) {
            int want = 0;
            for (int q = 0; q < size; q++)
                want += sum_val(q, i);
            CHECKF(r[i] == want, "MPI_INT SUM, %ld ints, root %d%s: [%ld] = %d, not %d", n,
                   root, in_place ? " in place" : "", i, r[i], want);
        }
        for (long i = n; i < n + 16; i++)
            CHECKF(r[i] == 0x5a5a5a5a, "MPI_INT SUM, %ld ints: wrote past the end", n);
    }
    check_counter((size_t)n * sizeof(int), sizeof(int), "MPI_INT SUM");
    free(s);
    free(r);
}

typedef struct { double v; int i; } dbl_int;

static double minloc_val(int q, long i) { return (double)((q * 31 + i * 17) % 97 / 4); }

static void minloc(long n, int root)
{
    dbl_int *s = tu_malloc((size_t)n * sizeof *s), *r = tu_malloc((size_t)n * sizeof *r);
    for (long i = 0; i < n; i++)
        s[i] = (dbl_int){minloc_val(rank, i), rank};
    CHECK_MPI(MPI_Reduce(s, r, (int)n, MPI_DOUBLE_INT, MPI_MINLOC, root, MPI_COMM_WORLD));
    if (rank == root)
        for (long i = 0; i < n; i++) {
            dbl_int want = {minloc_val(0, i), 0};
            for (int q = 1; q < size; q++)
                if (minloc_val(q, i) < want.v)
                    want = (dbl_int){minloc_val(q, i), q};
            CHECKF(r[i].v == want.v && r[i].i == want.i,
                   "MPI_DOUBLE_INT MINLOC, %ld elements, root %d: [%ld] = (%g, %d), not (%g, %d)",
                   n, root, i, r[i].v, r[i].i, want.v, want.i);
        }
    int unit;
    MPI_Type_size(MPI_DOUBLE_INT, &unit);
    check_counter((size_t)n * (size_t)unit, (size_t)unit, "MPI_DOUBLE_INT MINLOC");
    free(s);
    free(r);
}

/* Elements of 2 ints at offsets 0 and 2 of 3: the middle int is a hole. */
static void holes(long n, int root)
{
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    int *s = tu_malloc((size_t)n * 3 * sizeof(int)), *r = tu_malloc((size_t)n * 3 * sizeof(int));
    for (long i = 0; i < 3 * n; i++) {
        s[i] = sum_val(rank, i);
        r[i] = -7;
    }
    CHECK_MPI(MPI_Reduce(s, r, (int)n, vec, MPI_SUM, root, MPI_COMM_WORLD));
    if (rank == root)
        for (long i = 0; i < 3 * n; i++) {
            int want = 0;
            for (int q = 0; q < size && i % 3 != 1; q++)
                want += sum_val(q, i);
            if (i % 3 == 1)
                want = -7;
            CHECKF(r[i] == want, "vector SUM, %ld elements, root %d: int %ld = %d, not %d", n,
                   root, i, r[i], want);
        }
    check_counter((size_t)n * 8, 8, "vector SUM");
    free(s);
    free(r);
    MPI_Type_free(&vec);
}

static void mat_of(int q, long i, unsigned *m)
{
    m[0] = 1;
    m[1] = (unsigned)(q + i % 5);
    m[2] = (unsigned)(2 * q + i % 3);
    m[3] = 1;
}

static void matrices(long n, int root)
{
    MPI_Datatype mat;
    MPI_Op op;
    tu_mat_make(&mat, &op);
    unsigned *s = tu_malloc((size_t)n * 16), *r = tu_malloc((size_t)n * 16);
    for (long i = 0; i < n; i++)
        mat_of(rank, i, s + 4 * i);
    CHECK_MPI(MPI_Reduce(s, r, (int)n, mat, op, root, MPI_COMM_WORLD));
    if (rank == root)
        for (long i = 0; i < n; i++) {
            unsigned want[4], m[4];
            mat_of(0, i, want);
            for (int q = 1; q < size; q++) {
                mat_of(q, i, m);
                tu_mat_mul(want, m, want);
            }
            CHECKF(!memcmp(r + 4 * i, want, sizeof want),
                   "matrix product, %ld elements, root %d: element %ld is not the rank-ordered "
                   "product", n, root, i);
        }
    check_counter((size_t)n * 16, 16, "matrix product");
    free(s);
    free(r);
    tu_mat_free(&mat, &op);
}

/* MPI_Reduce to 0 on a fresh communicator where member `odd` passes half
 * the others' count: the root's result depends on it, so it fails. */
static void mismatch(int odd, long full)
{
    MPI_Comm c = tu_fresh_comm();
    const long mine = rank == odd ? full / 2 : full;
    int *in = tu_malloc((size_t)full * sizeof(int)), *out = tu_malloc((size_t)full * sizeof(int));
    for (long i = 0; i < full; i++)
        in[i] = (int)i;
    const int rc = MPI_Reduce(in, out, (int)mine, MPI_INT, MPI_SUM, 0, c);
    const int cls = tu_class_of(rc);
    if (rank == 0)
        CHECKF(cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_OTHER,
               "reduce of %ld ints, member %d passing %ld: root got class %d (%s)", full, odd,
               full / 2, cls, rc == MPI_SUCCESS ? "the mismatch went unnoticed" : "wrong class");
    free(in);
    free(out);
    MPI_Comm_free(&c);
}

/* Counts of `unit`-byte elements: one, a piece's worth, one more, a few
 * pieces and a bit, and past 1 MiB. */
static void counts_for(size_t unit, long *c)
{
    const long per = (long)(piece / unit);
    c[0] = 1;
    c[1] = per;
    c[2] = per + 1;
    c[3] = 3 * per + 5;
    c[4] = (long)((1u << 20) / unit) + 3;
}

int main(int argc, char **argv)
{
    tu_init_min(&argc, &argv, &rank, &size, 2, "coll_reduce_pieces");
    const char *e = getenv("FM_TEST_PIECES");
    if (e)
        expect = atoi(e) != 0;
#ifdef FABMPI
    int provided;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    const size_t pages = tu_cvar("FABMPI_COLL_CACHE_PAGES");
    const size_t large = tu_cvar("FABMPI_COLL_CACHE_LARGE_PAGES");
    const size_t area = (large > pages ? large : pages) * 4096, most = area / 4 / 64 * 64;
    piece = most < piece ? most : piece;
    const char *names[1] = {"coll_reduce_pieces"};
    if (expect >= 0)
        tu_counters_start(&ctr, 1, names);
#endif
    long c[5];
    for (int root = 0; root < size; root++) {
        counts_for(sizeof(int), c);
        for (int k = 0; k < 5; k++)
            ints(c[k], root);
        int unit;
        MPI_Type_size(MPI_DOUBLE_INT, &unit);
        counts_for((size_t)unit, c);
        for (int k = 0; k < 5; k++)
            minloc(c[k], root);
        counts_for(8, c);
        for (int k = 0; k < 5; k++)
            holes(c[k], root);
        counts_for(16, c);
        for (int k = 0; k < 5; k++)
            matrices(c[k], root);
    }
    if (expect == 1) {
        const long per = (long)(piece / sizeof(int));
        for (int odd = 0; odd < size && odd < 3; odd++) {
            mismatch(odd, 4 * per); /* 4 pieces against 2 */
            if (piece > 1024) /* else the half is small enough to run flat on a crowded
                                 node: another algorithm, which this does not test */
                mismatch(odd, 2 * per); /* 2 pieces against 1 */
        }
    }
#ifdef FABMPI
    if (expect >= 0)
        tu_counters_stop(&ctr);
    CHECK_MPI(MPI_T_finalize());
#endif
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("coll_reduce_pieces: ok (%d ranks, pieces of %zu bytes)\n", size, piece);
    return 0;
}
