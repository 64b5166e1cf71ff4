/* coll_ag_flat: MPI_Allgather and MPI_Allgatherv with small blocks on a
 * crowded node (FABMPI_YIELD=always counts any node as one), where fabmpi
 * runs them flat (src/coll/rma/flat.c: every member publishes its block in
 * its own shared segment, then copies every member's block out):
 *   - blocks of 1, 8 (inside the flag line), 9, 256, 1024 ints (4 KiB, the
 *     limit) and 1025 (past it: two-sided);
 *   - an input buffer and MPI_IN_PLACE;
 *   - layouts that differ between members for one signature: odd ranks
 *     send and receive ints spaced 8 bytes apart (MPI_INT resized), even
 *     ranks plain MPI_INT, so nobody may choose by its own type;
 *   - MPI_Allgatherv with uneven blocks, empty ones, all empty, and
 *     displacements in reverse rank order;
 *   - 100 calls back to back (each lane reused 50 times), and an
 *     MPI_Iallreduce (flat too, on the same lanes) left outstanding across
 *     5 allgathers;
 *   - the two halves of MPI_Comm_split as well as MPI_COMM_WORLD;
 *   - every received int checked, and the gaps between spaced ints and
 *     the ints after the buffer untouched; MPI_T's coll_allgather_flat
 *     counts the 100 calls, or none where flat must not run;
 *   - with FABMPI_COLL_VERBOSE=1, world rank 0 checks each call's line:
 *     "flat" for blocks of up to 4 KiB with FABMPI_YIELD=always, never
 *     with FABMPI_YIELD=never, FABMPI_COLL_RMA=off, over OFI
 *     (FABMPI_NET=ofi) or past 4 KiB.
 * Under another MPI only the values are checked. */
#include <string.h>

#include "verbose_log.h"

enum { GUARD = 16 };
static const int SENTINEL = 0x5a5a5a5a;

static int want_flat;  /* 1: flat must run where it fits; 0: must not run; -1: not known
                          (FABMPI_YIELD unset: as the node's CPUs have it) */
static int checked;    /* this process checks the verbose lines (world rank 0) */
static MPI_Datatype spaced; /* MPI_INT with an extent of 8 bytes */
static int counted;         /* fabmpi's MPI_T counter coll_allgather_flat is there */
static tu_counters ctr;

static int val(int r, int i, unsigned salt)
{
    return (int)((unsigned)r * 1000003u + (unsigned)i * 7u + salt * 65537u);
}

/* One call on comm: counts[p] ints from member p (fixed: all equal, and
 * MPI_Allgather), placed in rank order or reversed. */
static void one(MPI_Comm comm, const int *counts, int fixed, int reverse, int in_place,
                unsigned salt)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    const int stride = me % 2 ? 2 : 1; /* ints per element of this member's type */
    MPI_Datatype dt = stride == 2 ? spaced : MPI_INT;
    int *displs = tu_malloc(sizeof(int) * (size_t)n);
    int total = 0, largest = 0;
    for (int p = 0; p < n; p++) {
        total += counts[p];
        largest = counts[p] > largest ? counts[p] : largest;
    }
    for (int p = 0, at = 0; p < n; p++) {
        const int q = reverse ? n - 1 - p : p;
        displs[q] = at;
        at += counts[q];
    }
    const size_t rints = (size_t)total * (size_t)stride + GUARD;
    int *rbuf = tu_malloc(rints * sizeof(int));
    int *sbuf = tu_malloc(((size_t)counts[me] * (size_t)stride + 1) * sizeof(int));
    for (size_t i = 0; i < rints; i++)
        rbuf[i] = SENTINEL;
    for (int i = 0; i < counts[me]; i++) {
        sbuf[(size_t)i * (size_t)stride] = val(me, i, salt);
        if (stride == 2)
            sbuf[(size_t)i * 2 + 1] = SENTINEL;
        if (in_place)
            rbuf[(size_t)(displs[me] + i) * (size_t)stride] = val(me, i, salt);
    }
    const void *in = in_place ? MPI_IN_PLACE : sbuf;
    if (fixed)
        CHECK_MPI(MPI_Allgather(in, counts[me], dt, rbuf, counts[me], dt, comm));
    else
        CHECK_MPI(MPI_Allgatherv(in, counts[me], dt, rbuf, counts, displs, dt, comm));

    const char *call = fixed ? "MPI_Allgather" : "MPI_Allgatherv";
    for (int p = 0; p < n; p++)
        for (int i = 0; i < counts[p]; i++) {
            const size_t at = (size_t)(displs[p] + i) * (size_t)stride;
            CHECKF(rbuf[at] == val(p, i, salt),
                   "%s (salt %u, %s%s): member %d's int %d is %d, expected %d", call, salt,
                   in_place ? "in place" : "input buffer", reverse ? ", reversed" : "", p, i,
                   rbuf[at], val(p, i, salt));
            rbuf[at] = SENTINEL; /* so that what is left must all be untouched */
        }
    for (size_t i = 0; i < rints; i++)
        CHECKF(rbuf[i] == SENTINEL, "%s (salt %u): int %zu of the receive buffer was written", call,
               salt, i);
    if (checked && comm != MPI_COMM_NULL && me == 0) {
        char key[32], what[96];
        snprintf(key, sizeof key, "%s comm", call);
        snprintf(what, sizeof what, "%s of blocks up to %d ints (salt %u)", call, largest, salt);
        const int fits = n > 1 && largest > 0 && largest * (int)sizeof(int) <= 4096;
        vl_check(key, "flat", !(want_flat && fits), what);
    }
    free(rbuf);
    free(sbuf);
    free(displs);
}

static void sizes(MPI_Comm comm, unsigned *salt)
{
    int n;
    MPI_Comm_size(comm, &n);
    int *counts = tu_malloc(sizeof(int) * (size_t)n);
    static const int each[] = {1, 8, 9, 256, 1024, 1025};
    for (unsigned k = 0; k < sizeof each / sizeof each[0]; k++)
        for (int in_place = 0; in_place < 2; in_place++) {
            for (int p = 0; p < n; p++)
                counts[p] = each[k];
            one(comm, counts, 1, 0, in_place, (*salt)++);
            for (int p = 0; p < n; p++) /* uneven, some empty, up to each[k] */
                counts[p] = p % 3 == 1 ? 0 : each[k] - (p * 5) % (each[k] < 3 ? 1 : 3);
            one(comm, counts, 0, 0, in_place, (*salt)++);
            one(comm, counts, 0, 1, in_place, (*salt)++);
        }
    for (int p = 0; p < n; p++)
        counts[p] = 0;
    one(comm, counts, 0, 0, 0, (*salt)++);
    free(counts);
}

/* Back to back, and across an outstanding flat MPI_Iallreduce. */
static void streams(unsigned *salt)
{
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int *counts = tu_malloc(sizeof(int) * (size_t)n);
    long long d[1];
    if (counted)
        tu_counters_deltas(&ctr, d);
    for (int k = 0; k < 100; k++) {
        for (int p = 0; p < n; p++)
            counts[p] = 1 + (k + p) % 12;
        one(MPI_COMM_WORLD, counts, 0, k % 2, k % 3 == 0, (*salt)++);
    }
    if (counted) { /* every one of them ran flat here, or none */
        tu_counters_deltas(&ctr, d);
        if (want_flat < 0)
            CHECKF(d[0] == 0 || d[0] == 100, "%lld of 100 allgathers ran flat", d[0]);
        else
            CHECK_EQ(d[0], want_flat && n > 1 ? 100 : 0);
    }
    long long mine[2] = {me + 1, 7LL * me}, sum[2] = {0, 0};
    MPI_Request r;
    CHECK_MPI(MPI_Iallreduce(mine, sum, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
    for (int k = 0; k < 5; k++) {
        for (int p = 0; p < n; p++)
            counts[p] = 4;
        one(MPI_COMM_WORLD, counts, 1, 0, k % 2, (*salt)++);
    }
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_EQ(sum[0], (long long)n * (n + 1) / 2);
    CHECK_EQ(sum[1], 7LL * n * (n - 1) / 2);
    free(counts);
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *v = getenv("FABMPI_COLL_VERBOSE"), *y = getenv("FABMPI_YIELD");
    const char *mode = getenv("FABMPI_COLL_RMA"), *net = getenv("FABMPI_NET");
    want_flat = y && strcmp(y, "always") == 0 && !(mode && strcmp(mode, "off") == 0) &&
                !(net && strcmp(net, "ofi") == 0); /* flat maps the members' segments */
    if (!y)
        want_flat = -1;
    checked = rank == 0 && v && strcmp(v, "1") == 0 && y;
    vl_start(checked);
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 8, &spaced));
    CHECK_MPI(MPI_Type_commit(&spaced));
    int provided, idx;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    counted = MPI_T_pvar_get_index("coll_allgather_flat", MPI_T_PVAR_CLASS_COUNTER, &idx) ==
              MPI_SUCCESS;
    const char *names[1] = {"coll_allgather_flat"};
    if (counted)
        tu_counters_start(&ctr, 1, names);

    unsigned salt = 0;
    sizes(MPI_COMM_WORLD, &salt);
    streams(&salt);
    MPI_Comm half;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    sizes(half, &salt); /* world rank 0 is the first half's rank 0 */
    CHECK_MPI(MPI_Comm_free(&half));

    MPI_Type_free(&spaced);
    if (counted)
        tu_counters_stop(&ctr);
    CHECK_MPI(MPI_T_finalize());
    vl_stop();
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("coll_ag_flat: ok (%d ranks)\n", size);
    return 0;
}
