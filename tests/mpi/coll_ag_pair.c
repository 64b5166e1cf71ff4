/* coll_ag_pair: MPI_Allgather and MPI_Allgatherv on two members, which
 * exchange through the collective cache where it holds their blocks
 * (src/coll/rma/exchange.c: each writes its block into the other's cache,
 * copies its own into place, then copies the other's out):
 *   - blocks of 4 B, 48 B (inside a flag line), 52 B, 4 KiB, 512 KiB (the
 *     most a slot holds over shared memory), 512 KiB + 64 (two pieces;
 *     two-sided over OFI) and 2 MiB + 12 (two-sided);
 *   - an input buffer and MPI_IN_PLACE;
 *   - layouts that differ between the members for one signature: member 1
 *     sends and receives ints spaced 8 bytes apart (MPI_INT resized);
 *   - allgatherv with blocks of different sizes, one empty, and
 *     displacements in reverse order (member 1's block first);
 *   - 100 calls back to back (more than the cache's 32 flag sets) with a
 *     2-member MPI_Alltoall (an exchange too, same slots) between some;
 *   - the nonblocking and persistent forms (persistent started twice), two
 *     MPI_Iallgather outstanding (one in pieces) with a blocking
 *     MPI_Allgather between, completed in reverse order, and a persistent
 *     one made before the cache was there, started before and after;
 *   - on MPI_COMM_WORLD at 2 ranks, and on the halves of MPI_Comm_split at
 *     4 (at 3 the last rank, alone in its half, takes no part);
 *   - every int of every block checked, gaps and tails untouched;
 *   - with FABMPI_COLL_VERBOSE=1 world rank 0 checks each call's line:
 *     "pair" exactly where the exchange runs (FABMPI_COLL_RMA unset or on;
 *     over OFI only when on), except that on a crowded node blocking calls
 *     of blocks up to 4 KiB run flat (FABMPI_YIELD=always: must; unset:
 *     may, as the node's CPUs have it; never: must not); MPI_T's
 *     coll_allgather_pair and coll_allgather_flat count the 100 calls.
 * Under another MPI only the values are checked. */
#include "pair_test.h"

enum { GUARD = 16 };
static const int SENTINEL = 0x5a5a5a5a;

static int crowded; /* 1: small blocking calls run flat; 0: not; -1: not known */

static int val(int from, long i, unsigned salt)
{
    return (int)((unsigned)from * 1000003u + (unsigned)i * 7u + salt * 65537u);
}

/* One call on a 2-member comm, member m contributing n[m] ints; v: as
 * MPI_Allgatherv with member 1's block first; mode 0 blocking, 1
 * nonblocking + MPI_Wait, 2 persistent, started twice. */
static void one_mode(MPI_Comm comm, int v, int mode, int in_place, const long n[2], unsigned salt)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    const int stride = me ? 2 : 1;
    MPI_Datatype dt = me ? spaced : MPI_INT;
    int counts[2] = {(int)n[0], (int)n[1]}, displs[2];
    if (v) {
        displs[1] = 0;
        displs[0] = counts[1];
    } else {
        displs[0] = 0;
        displs[1] = counts[0];
    }
    const long elems = n[0] + n[1];
    const size_t rints = (size_t)elems * (size_t)stride + GUARD;
    int *rbuf = tu_malloc(rints * sizeof(int));
    int *sbuf = tu_malloc(((size_t)n[me] * (size_t)stride + 1) * sizeof(int));
    for (size_t i = 0; i < rints; i++)
        rbuf[i] = SENTINEL;
    for (long i = 0; i < n[me]; i++) {
        sbuf[i * stride] = val(me, i, salt);
        if (in_place)
            rbuf[(displs[me] + i) * stride] = val(me, i, salt);
    }
    const void *in = in_place ? MPI_IN_PLACE : sbuf;
    if (!v)
        RUN_FORMS(mode, MPI_Allgather(in, counts[me], dt, rbuf, counts[me], dt, comm),
                  MPI_Iallgather(in, counts[me], dt, rbuf, counts[me], dt, comm, &rq_),
                  MPI_Allgather_init(in, counts[me], dt, rbuf, counts[me], dt, comm,
                                     MPI_INFO_NULL, &rq_));
    else
        RUN_FORMS(mode, MPI_Allgatherv(in, counts[me], dt, rbuf, counts, displs, dt, comm),
                  MPI_Iallgatherv(in, counts[me], dt, rbuf, counts, displs, dt, comm, &rq_),
                  MPI_Allgatherv_init(in, counts[me], dt, rbuf, counts, displs, dt, comm,
                                      MPI_INFO_NULL, &rq_));

    const char *call = v ? "MPI_Allgatherv" : "MPI_Allgather";
    for (int j = 0; j < 2; j++)
        for (long i = 0; i < n[j]; i++) {
            const size_t at = (size_t)(displs[j] + i) * (size_t)stride;
            CHECKF(rbuf[at] == val(j, i, salt),
                   "%s (mode %d, salt %u%s): int %ld of member %d's block is %d, expected %d", call,
                   mode, salt, in_place ? ", in place" : "", i, j, rbuf[at], val(j, i, salt));
            rbuf[at] = SENTINEL;
        }
    for (size_t i = 0; i < rints; i++)
        CHECKF(rbuf[i] == SENTINEL, "%s (salt %u): int %zu of the receive buffer was written",
               call, salt, i);
    if (checked && me == 0 && size == 2) {
        const long most = (n[0] > n[1] ? n[0] : n[1]) * (long)sizeof(int);
        char what[96], key[48];
        snprintf(what, sizeof what, "%s mode %d, blocks of %ld and %ld ints (salt %u)", call, mode,
                 n[0], n[1], salt);
        snprintf(key, sizeof key, "%s%s", call, mode ? ", nonblocking" : " comm");
        const int flat = !mode && crowded && pair_max >= 0 && !ofi && most > 0 && most <= 4096;
        if (flat && crowded > 0)
            vl_check(key, "flat", 0, what);
        else if (flat)
            vl_check(key, "two-sided", 1, what); /* flat or the pair */
        else if (most > pair_max && most <= 2 * pair_max && pieces)
            vl_check(key, "pair, in pieces", 0, what);
        else
            vl_check(key, "pair", !(most > 0 && most <= (pieces ? 2 : 1) * pair_max), what);
    }
    free(rbuf);
    free(sbuf);
}

static void sizes(MPI_Comm comm, unsigned *salt)
{
    static const long each[] = {1, 12, 13, 1024, 131072, 131088, 262144, 524291};
    for (unsigned k = 0; k < sizeof each / sizeof each[0]; k++)
        for (int in_place = 0; in_place < 2; in_place++) {
            const long e = each[k];
            const long fixed[2] = {e, e}, uneven[2] = {e, e / 2 + 1}, empty[2] = {0, e};
            one_mode(comm, 0, 0, in_place, fixed, (*salt)++);
            one_mode(comm, 1, 0, in_place, uneven, (*salt)++);
            one_mode(comm, 1, 0, in_place, empty, (*salt)++);
        }
}

/* Nonblocking and persistent: the exchange once a blocking collective set
 * the cache up (sizes() ran first), pieces included. */
static void forms(MPI_Comm comm, unsigned *salt)
{
    static const long each[] = {1, 13, 1024, 131072, 262144, 524291};
    for (int mode = 1; mode <= 2; mode++)
        for (unsigned k = 0; k < sizeof each / sizeof each[0]; k++)
            for (int v = 0; v < 2; v++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    const long e = each[k];
                    const long n[2] = {e, v ? e / 2 + 1 : e};
                    one_mode(comm, v, mode, in_place, n, (*salt)++);
                }
}

/* Two exchanges outstanding at once (one in pieces), a blocking one
 * between them, completed in reverse order. */
static void outstanding(MPI_Comm comm, unsigned *salt)
{
    int me;
    MPI_Comm_rank(comm, &me);
    static const long len[3] = {16384, 262144, 1024}; /* ints: 64 KiB, 1 MiB, 4 KiB */
    int *sb[3], *rb[3];
    MPI_Request rq[2];
    const unsigned s0 = *salt;
    for (int c = 0; c < 3; c++) {
        sb[c] = tu_malloc((size_t)len[c] * sizeof(int));
        rb[c] = tu_malloc(2 * (size_t)len[c] * sizeof(int));
        for (long i = 0; i < len[c]; i++)
            sb[c][i] = val(me, i, s0 + (unsigned)c);
        for (long i = 0; i < 2 * len[c]; i++)
            rb[c][i] = SENTINEL;
    }
    CHECK_MPI(MPI_Iallgather(sb[0], (int)len[0], MPI_INT, rb[0], (int)len[0], MPI_INT, comm,
                             &rq[0]));
    CHECK_MPI(MPI_Iallgather(sb[1], (int)len[1], MPI_INT, rb[1], (int)len[1], MPI_INT, comm,
                             &rq[1]));
    CHECK_MPI(MPI_Allgather(sb[2], (int)len[2], MPI_INT, rb[2], (int)len[2], MPI_INT, comm));
    CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    for (int c = 0; c < 3; c++) {
        for (int j = 0; j < 2; j++)
            for (long i = 0; i < len[c]; i++)
                CHECKF(rb[c][j * len[c] + i] == val(j, i, s0 + (unsigned)c),
                       "outstanding allgather %d: int %ld of member %d's block is %d", c, i, j,
                       rb[c][j * len[c] + i]);
        free(sb[c]);
        free(rb[c]);
    }
    *salt += 3;
}

/* A persistent allgather made before its communicator's cache is there:
 * each start chooses, two-sided first, the exchange once a blocking
 * collective has set the cache up. */
static void late_cache(MPI_Comm pair, unsigned *salt)
{
    int me;
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(pair, &comm));
    MPI_Comm_rank(comm, &me);
    enum { N = 300 };
    int sb[N], rb[2 * N];
    const unsigned s0 = (*salt)++;
    for (int i = 0; i < N; i++)
        sb[i] = val(me, i, s0);
    MPI_Request rq;
    CHECK_MPI(MPI_Allgather_init(sb, N, MPI_INT, rb, N, MPI_INT, comm, MPI_INFO_NULL, &rq));
    long long d[2];
    if (counted)
        tu_counters_deltas(&ctr, d);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 2 * N; i++)
            rb[i] = SENTINEL;
        CHECK_MPI(MPI_Start(&rq));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        if (counted) { /* two-sided until the cache is there, then the exchange */
            tu_counters_deltas(&ctr, d);
            CHECKF(d[0] == (round > 0 && pair_max >= 0), "start %d: %lld exchanges", round, d[0]);
        }
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < N; i++)
                CHECKF(rb[j * N + i] == val(j, i, s0),
                       "persistent allgather, start %d: int %d of member %d's block is %d", round,
                       i, j, rb[j * N + i]);
        if (round == 0) { /* a blocking one sets the cache up */
            int x = me, y[2];
            CHECK_MPI(MPI_Allgather(&x, 1, MPI_INT, y, 1, MPI_INT, comm));
            CHECK(y[0] == 0 && y[1] == 1);
            if (counted)
                tu_counters_deltas(&ctr, d);
        }
    }
    CHECK_MPI(MPI_Request_free(&rq));
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* Back to back, with a 2-member alltoall (the same slots) between some. */
static void stream(MPI_Comm comm, unsigned *salt)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    long long d[2];
    if (counted)
        tu_counters_deltas(&ctr, d);
    for (int k = 0; k < 100; k++) {
        const long e = 1 + (k * 37) % 300;
        const int v = k % 2;
        const long n[2] = {e, v ? e + k % 5 : e};
        one_mode(comm, v, 0, k % 12 == 0, n, (*salt)++);
        if (k % 7 == 0) {
            int x[2] = {me, 10 + me}, y[2];
            CHECK_MPI(MPI_Alltoall(x, 1, MPI_INT, y, 1, MPI_INT, comm));
            /* member j sent us its x[me]: j, or 10 + j to member 1 */
            CHECK(y[0] == 10 * me && y[1] == 10 * me + 1);
        }
    }
    if (counted) {
        tu_counters_deltas(&ctr, d);
        /* every one of the 100 is under the limit and 4 KiB: all ran one
         * sided, the pair or (crowded) flat, or none did */
        CHECK_EQ(d[0] + d[1], size == 2 && pair_max >= 0 ? 100 : 0);
        if (crowded >= 0 && !ofi)
            CHECK_EQ(d[1 - crowded], 0); /* crowded: no pair; else no flat */
    }
}

static void body(MPI_Comm pair, unsigned *salt)
{
    sizes(pair, salt);
    stream(pair, salt);
    forms(pair, salt);
    outstanding(pair, salt);
    late_cache(pair, salt);
}

int main(int argc, char **argv)
{
    const char *names[2] = {"coll_allgather_pair", "coll_allgather_flat"};
    pair_test_init(&argc, &argv, 2, names);
    crowded = pt_env_is("FABMPI_YIELD", "always") ? 1 : pt_env_is("FABMPI_YIELD", "never") ? 0 : -1;
    return pair_test_run("coll_ag_pair", body);
}
