/* coll_a2a_flat: MPI_Alltoall of 3 or more members with small blocks on a
 * crowded node (FABMPI_YIELD=always counts any node as one; 2 members
 * cross through the exchange, coll_a2a_pair), where fabmpi runs it flat
 * (src/coll/rma/flat.c: every member publishes its whole send buffer in its
 * own lane, then copies its block out of every member's):
 *   - blocks of 1 int, 2, 8, and the largest whose size blocks fill a
 *     lane's 4 KiB, and one int more (another algorithm);
 *   - an input buffer and MPI_IN_PLACE;
 *   - layouts that differ between members for one signature: odd ranks
 *     send and receive ints spaced 8 bytes apart, even ranks plain MPI_INT;
 *   - 100 calls back to back with an MPI_Iallreduce (flat too, on the same
 *     lanes) left outstanding across 4 of them, and allreduces and barriers
 *     among them (tu_mix_step);
 *   - every received int checked, the gaps between spaced ints and the
 *     ints after the buffer untouched;
 *   - one member passing half the others' count (an erroneous program):
 *     every member returns MPI_ERR_TRUNCATE or MPI_ERR_OTHER;
 *   - MPI_T's coll_alltoall_flat counts exactly the calls that fit (none
 *     where flat must not run: FABMPI_YIELD=never, FABMPI_COLL_RMA=off,
 *     FABMPI_NET=ofi),
 *     and with FABMPI_COLL_VERBOSE=1 world rank 0 sees "flat" in the line
 *     of each of them.
 * Under another MPI only the values are checked, and no counts differ. */
#include <string.h>

#include "verbose_log.h"

enum { GUARD = 16 };
static const int SENTINEL = 0x5a5a5a5a;

static int rank, size, want_flat = -1;
static MPI_Datatype spaced; /* MPI_INT with an extent of 8 bytes */
static tu_counters ctr;

static int val(int from, int to, int i, unsigned salt)
{
    return (int)((unsigned)from * 1000003u + (unsigned)to * 7919u + (unsigned)i * 31u + salt);
}

/* After one call with blocks of `bytes`: flat ran exactly where it must. */
static void expect_flat(size_t bytes, const char *what)
{
    if (want_flat < 0)
        return;
    const int fits = want_flat && size > 2 && bytes > 0 && bytes * (size_t)size <= 4096;
    if (fits)
        vl_check("MPI_Alltoall", "flat", 0, what);
#ifdef FABMPI
    long long d;
    tu_counters_deltas(&ctr, &d);
    CHECKF(d == fits, "%s: coll_alltoall_flat grew by %lld, not %d", what, d, fits);
#endif
}

/* One alltoall of n ints a block; odd ranks use the spaced layout. */
static void one(int n, int in_place, unsigned salt)
{
    const int stride = rank % 2 ? 2 : 1; /* ints per element in memory */
    const MPI_Datatype dt = rank % 2 ? spaced : MPI_INT;
    const size_t ints = (size_t)n * (size_t)size * (size_t)stride;
    int *s = tu_malloc((ints + GUARD) * sizeof(int)), *r = tu_malloc((ints + GUARD) * sizeof(int));
    for (size_t i = 0; i < ints + GUARD; i++)
        s[i] = r[i] = SENTINEL;
    int *src = in_place ? r : s;
    for (int to = 0; to < size; to++)
        for (int i = 0; i < n; i++)
            src[((size_t)to * (size_t)n + (size_t)i) * (size_t)stride] = val(rank, to, i, salt);
    CHECK_MPI(MPI_Alltoall(in_place ? MPI_IN_PLACE : s, n, dt, r, n, dt, MPI_COMM_WORLD));
    for (int from = 0; from < size; from++)
        for (int i = 0; i < n; i++) {
            const size_t at = ((size_t)from * (size_t)n + (size_t)i) * (size_t)stride;
            CHECKF(r[at] == val(from, rank, i, salt),
                   "blocks of %d (in place %d): int %d from %d is %d, want %d", n, in_place, i,
                   from, r[at], val(from, rank, i, salt));
            if (stride == 2)
                CHECKF(r[at + 1] == SENTINEL, "blocks of %d: a gap was written", n);
        }
    for (size_t i = ints; i < ints + GUARD; i++)
        CHECKF(r[i] == SENTINEL, "blocks of %d: written past the buffer", n);
    char what[64];
    snprintf(what, sizeof what, "alltoall of %d ints a block (in place %d)", n, in_place);
    expect_flat((size_t)n * sizeof(int), what);
    free(s);
    free(r);
}

static void back_to_back(void)
{
    tu_mix mix = {.rq = MPI_REQUEST_NULL};
    for (int it = 0; it < 100; it++) {
        one(2, it % 3 == 0, (unsigned)(100 + it));
        tu_mix_step(&mix, it);
    }
}

/* Member `odd` passes half the count: everyone's data depends on everyone. */
static void mismatch(int odd)
{
    MPI_Comm c = tu_fresh_comm();
    int s[8 * 16] = {0}, r[8 * 16];
    const int n = rank == odd ? 4 : 8;
    const int cls = tu_class_of(MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, c));
    CHECKF(cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_OTHER,
           "alltoall with member %d passing half: class %d", odd, cls);
    MPI_Comm_free(&c);
    tu_counters_skip(want_flat >= 0 ? &ctr : NULL); /* not counted here */
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 16);
    want_flat = tu_flat_expected();
    vl_flat_begin(&ctr, "coll_alltoall_flat", want_flat);
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 8, &spaced));
    CHECK_MPI(MPI_Type_commit(&spaced));

    const int limit = 4096 / (int)sizeof(int) / size;
    const int counts[] = {1, 2, 8, limit, limit + 1};
    for (int k = 0; k < 5; k++)
        for (int in_place = 0; in_place < 2; in_place++)
            one(counts[k], in_place, (unsigned)k);
    back_to_back();
    for (int odd = 0; TU_ERRONEOUS && size > 1 && odd < size && odd < 3; odd++)
        mismatch(odd);

    MPI_Type_free(&spaced);
    vl_flat_end(&ctr, want_flat);
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("coll_a2a_flat: ok (%d ranks%s)\n", size,
               want_flat >= 0 ? ", algorithms checked" : "");
    return 0;
}
