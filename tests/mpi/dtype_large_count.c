/* dtype_large_count: datatypes with more than INT_MAX blocks or bytes.
 * A vector of 2^31-ish strided elements must commit at once and in little
 * memory (its flattened form describes the repetition instead of listing
 * every block); sizes, extents and element counts beyond INT_MAX come back
 * right from the _x queries and MPI_UNDEFINED from the int ones; and a
 * vector long enough to keep its repetition round-trips through
 * MPI_Pack/MPI_Unpack and a self send. */
#include <limits.h>
#include <sys/resource.h>
#include <time.h>

#include "testutil.h"

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static long max_rss_kb(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

static void check_huge_vector(void)
{
    /* INT_MAX/2 blocks of 4 ints, stride 3 blocks: 2^34 bytes of data. */
    const MPI_Count nblk = INT_MAX / 2;
    MPI_Datatype four, vec, rsz;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &four));
    CHECK_MPI(MPI_Type_commit(&four));
    long rss0 = max_rss_kb();
    double t0 = seconds();
    CHECK_MPI(MPI_Type_vector((int)nblk, 1, 3, four, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    CHECK_MPI(MPI_Type_create_resized(vec, INT_MAX, -1024, &rsz));
    CHECK_MPI(MPI_Type_commit(&rsz));
    double dt = seconds() - t0;
    long grown = max_rss_kb() - rss0;
    CHECKF(dt < 2.0, "building and committing took %.1f s", dt);
    CHECKF(grown < 64 * 1024, "committing grew the resident set by %ld KiB", grown);

    MPI_Count size_x, lb_x, ext_x, elements_x;
    int size_i, elements_i, count_i;
    const MPI_Count bytes = nblk * 16, true_ext = 48 * (nblk - 1) + 16;
    CHECK_MPI(MPI_Type_size_x(vec, &size_x));
    CHECK_EQ(size_x, bytes);
    CHECK_MPI(MPI_Type_size(vec, &size_i));
    CHECK_EQ(size_i, MPI_UNDEFINED);
    CHECK_MPI(MPI_Type_get_extent_x(vec, &lb_x, &ext_x));
    CHECK_EQ(lb_x, 0);
    CHECK_EQ(ext_x, true_ext);
    CHECK_MPI(MPI_Type_get_true_extent_x(rsz, &lb_x, &ext_x));
    CHECK_EQ(lb_x, 0);
    CHECK_EQ(ext_x, true_ext);
    CHECK_MPI(MPI_Type_get_extent_x(rsz, &lb_x, &ext_x));
    CHECK_EQ(lb_x, INT_MAX);
    CHECK_EQ(ext_x, -1024);

    /* A status holding one such element: 4 * nblk ints. */
    MPI_Status st;
    memset(&st, 0, sizeof st);
    CHECK_MPI(MPI_Status_set_elements_x(&st, vec, 4 * nblk));
    CHECK_MPI(MPI_Get_elements_x(&st, vec, &elements_x));
    CHECK_EQ(elements_x, 4 * nblk);
    CHECK_MPI(MPI_Get_elements(&st, vec, &elements_i));
    CHECK_EQ(elements_i, MPI_UNDEFINED);
    CHECK_MPI(MPI_Get_count(&st, vec, &count_i));
    CHECK_EQ(count_i, 1);
    CHECK_MPI(MPI_Status_set_elements_x(&st, vec, 4 * nblk - 1)); /* one int short */
    CHECK_MPI(MPI_Get_elements_x(&st, vec, &elements_x));
    CHECK_EQ(elements_x, 4 * nblk - 1);
    CHECK_MPI(MPI_Get_count(&st, vec, &count_i));
    CHECK_EQ(count_i, MPI_UNDEFINED);

    CHECK_MPI(MPI_Type_free(&rsz));
    CHECK_MPI(MPI_Type_free(&vec));
    CHECK_MPI(MPI_Type_free(&four));
}

/* A vector long enough to keep its repetition (over 65,536 blocks) packs,
 * unpacks and travels with every block in place and the holes untouched. */
static void check_long_vector(void)
{
    enum { NBLK = 100000, BLK = 3, STRIDE = 5 };
    int *src = tu_malloc(sizeof(int) * NBLK * STRIDE);
    int *dst = tu_malloc(sizeof(int) * NBLK * STRIDE);
    int *packed = tu_malloc(sizeof(int) * NBLK * BLK);
    for (int i = 0; i < NBLK * STRIDE; i++)
        src[i] = i;
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(NBLK, BLK, STRIDE, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));

    int pos = 0, psize = 0;
    CHECK_MPI(MPI_Pack_size(1, vec, MPI_COMM_SELF, &psize));
    CHECK(psize >= (int)sizeof(int) * NBLK * BLK);
    CHECK_MPI(MPI_Pack(src, 1, vec, packed, (int)sizeof(int) * NBLK * BLK, &pos, MPI_COMM_SELF));
    CHECK_EQ(pos, (int)sizeof(int) * NBLK * BLK);
    for (int b = 0; b < NBLK; b++)
        for (int k = 0; k < BLK; k++)
            CHECKF(packed[b * BLK + k] == b * STRIDE + k, "packed[%d] = %d, expected %d",
                   b * BLK + k, packed[b * BLK + k], b * STRIDE + k);

    /* Unpack into a zeroed buffer: the blocks come back, the holes stay 0. */
    memset(dst, 0, sizeof(int) * NBLK * STRIDE);
    pos = 0;
    CHECK_MPI(MPI_Unpack(packed, (int)sizeof(int) * NBLK * BLK, &pos, dst, 1, vec, MPI_COMM_SELF));
    for (int i = 0; i < NBLK * STRIDE; i++)
        CHECKF(dst[i] == (i % STRIDE < BLK ? i : 0), "dst[%d] = %d", i, dst[i]);

    /* Through point-to-point, typed on both sides (any window offsets). */
    memset(dst, 0, sizeof(int) * NBLK * STRIDE);
    CHECK_MPI(MPI_Sendrecv(src, 1, vec, 0, 7, dst, 1, vec, 0, 7, MPI_COMM_SELF,
                           MPI_STATUS_IGNORE));
    for (int i = 0; i < NBLK * STRIDE; i++)
        CHECKF(dst[i] == (i % STRIDE < BLK ? i : 0), "sendrecv dst[%d] = %d", i, dst[i]);

    /* A message shorter than the receive type (2 elements): the first fills. */
    int *two = tu_malloc(sizeof(int) * 2 * NBLK * STRIDE);
    memset(two, 0, sizeof(int) * 2 * NBLK * STRIDE);
    CHECK_MPI(MPI_Sendrecv(packed, NBLK * BLK, MPI_INT, 0, 8, two, 2, vec, 0, 8, MPI_COMM_SELF,
                           MPI_STATUS_IGNORE));
    for (int i = 0; i < NBLK * STRIDE; i++)
        CHECKF(two[i] == (i % STRIDE < BLK ? i : 0), "two[%d] = %d", i, two[i]);
    free(two);
    CHECK_MPI(MPI_Type_free(&vec));
    free(packed);
    free(dst);
    free(src);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_huge_vector();
    check_long_vector();
    MPI_Finalize();
    return 0;
}
