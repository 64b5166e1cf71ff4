/* coll_a2a_pair: MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw on two
 * members, which exchange through the collective cache where it holds
 * their blocks (src/coll/rma/reduce.c, fm_crma_exchange: each writes its
 * block for the other into the other's cache, copies its own, then copies
 * the other's out):
 *   - blocks of 4 B, 48 B (inside a flag line), 52 B, 4 KiB, 512 KiB (half
 *     the large area, the most a slot holds over shared memory), 512 KiB
 *     + 64 (two pieces; two-sided over OFI) and 2 MiB + 12 (two-sided);
 *   - an input buffer and MPI_IN_PLACE;
 *   - layouts that differ between the members for one signature: member 1
 *     sends and receives ints spaced 8 bytes apart (MPI_INT resized);
 *   - alltoallv with blocks of different sizes each way, one empty, and
 *     displacements in reverse order; alltoallw with byte displacements;
 *   - 100 calls back to back (more than the cache's 32 flag sets) with a
 *     2-member MPI_Allreduce (the pair, same slots) between them;
 *   - the nonblocking and persistent forms (persistent started twice), and
 *     two MPI_Ialltoall outstanding (one in pieces) with a blocking
 *     MPI_Alltoall between, completed in reverse order; a persistent one
 *     made before the cache was there, started before and after;
 *   - on MPI_COMM_WORLD at 2 ranks, and on the halves of MPI_Comm_split at
 *     4 (at 3 the last rank, alone in its half, only counts no call);
 *   - every int of every block checked, gaps and tails untouched;
 *   - with FABMPI_COLL_VERBOSE=1 world rank 0 checks each call's line:
 *     "pair" exactly where the exchange runs (FABMPI_COLL_RMA unset or on;
 *     over OFI only when on, blocks up to 64 KiB), and MPI_T's
 *     coll_alltoall_pair counts the 100 calls.
 * Under another MPI only the values are checked. */
#include "pair_test.h"

enum { GUARD = 16, A2A = 0, A2AV = 1, A2AW = 2 };
static const int SENTINEL = 0x5a5a5a5a;
static const char *const call_name[] = {"MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw"};


static int val(int from, int to, long i, unsigned salt)
{
    return (int)((unsigned)from * 1000003u + (unsigned)to * 500009u + (unsigned)i * 7u +
                 salt * 65537u);
}

/* One call on a 2-member comm: member m sends n[m][j] ints to member j;
 * mode 0 blocking, 1 nonblocking + MPI_Wait, 2 persistent, started twice
 * (never in place: twice would swap the blocks back). */
static void one_mode(MPI_Comm comm, int form, int mode, int in_place, long n[2][2], unsigned salt)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    const int stride = me ? 2 : 1;
    MPI_Datatype dt = me ? spaced : MPI_INT;
    const MPI_Aint ext = stride * (MPI_Aint)sizeof(int);
    /* Block j sits at displs[j] elements: block 1 first, then block 0. */
    int scounts[2], rcounts[2], sdispls[2], rdispls[2], sbytes[2], rbytes[2];
    MPI_Datatype types[2] = {dt, dt};
    for (int j = 0; j < 2; j++) {
        scounts[j] = (int)n[me][j];
        rcounts[j] = (int)n[j][me];
    }
    if (form == A2A)
        for (int j = 0; j < 2; j++)
            sdispls[j] = rdispls[j] = j * scounts[0];
    else {
        sdispls[1] = rdispls[1] = 0;
        sdispls[0] = scounts[1];
        rdispls[0] = rcounts[1];
    }
    for (int j = 0; j < 2; j++) {
        sbytes[j] = (int)(sdispls[j] * ext);
        rbytes[j] = (int)(rdispls[j] * ext);
    }
    const long selems = (long)scounts[0] + scounts[1], relems = (long)rcounts[0] + rcounts[1];
    const size_t rints = (size_t)relems * (size_t)stride + GUARD;
    int *rbuf = tu_malloc(rints * sizeof(int));
    int *sbuf = tu_malloc(((size_t)selems * (size_t)stride + 1) * sizeof(int));
    for (size_t i = 0; i < rints; i++)
        rbuf[i] = SENTINEL;
    for (long i = 0; i < selems * stride; i++)
        sbuf[i] = SENTINEL;
    for (int j = 0; j < 2; j++)
        for (long i = 0; i < scounts[j]; i++) {
            sbuf[(sdispls[j] + i) * stride] = val(me, j, i, salt);
            if (in_place) /* sends and receives then use the receive layout */
                rbuf[(rdispls[j] + i) * stride] = val(me, j, i, salt);
        }
    const void *in = in_place ? MPI_IN_PLACE : sbuf;
    if (form == A2A)
        RUN_FORMS(mode, MPI_Alltoall(in, scounts[0], dt, rbuf, rcounts[0], dt, comm),
                  MPI_Ialltoall(in, scounts[0], dt, rbuf, rcounts[0], dt, comm, &rq_),
                  MPI_Alltoall_init(in, scounts[0], dt, rbuf, rcounts[0], dt, comm, MPI_INFO_NULL,
                                    &rq_));
    else if (form == A2AV)
        RUN_FORMS(mode,
                  MPI_Alltoallv(in, scounts, sdispls, dt, rbuf, rcounts, rdispls, dt, comm),
                  MPI_Ialltoallv(in, scounts, sdispls, dt, rbuf, rcounts, rdispls, dt, comm, &rq_),
                  MPI_Alltoallv_init(in, scounts, sdispls, dt, rbuf, rcounts, rdispls, dt, comm,
                                     MPI_INFO_NULL, &rq_));
    else
        RUN_FORMS(mode,
                  MPI_Alltoallw(in, scounts, sbytes, types, rbuf, rcounts, rbytes, types, comm),
                  MPI_Ialltoallw(in, scounts, sbytes, types, rbuf, rcounts, rbytes, types, comm,
                                 &rq_),
                  MPI_Alltoallw_init(in, scounts, sbytes, types, rbuf, rcounts, rbytes, types,
                                     comm, MPI_INFO_NULL, &rq_));

    for (int j = 0; j < 2; j++)
        for (long i = 0; i < rcounts[j]; i++) {
            const size_t at = (size_t)(rdispls[j] + i) * (size_t)stride;
            CHECKF(rbuf[at] == val(j, me, i, salt),
                   "%s (form %d, salt %u%s): int %ld of member %d's block is %d, expected %d",
                   call_name[form], form, salt, in_place ? ", in place" : "", i, j, rbuf[at],
                   val(j, me, i, salt));
            rbuf[at] = SENTINEL;
        }
    for (size_t i = 0; i < rints; i++)
        CHECKF(rbuf[i] == SENTINEL, "form %d (salt %u): int %zu of the receive buffer was written",
               form, salt, i);
    if (checked && me == 0 && size == 2) {
        const long most = (n[0][1] > n[1][0] ? n[0][1] : n[1][0]) * (long)sizeof(int);
        char what[96], key[48];
        snprintf(what, sizeof what, "form %d mode %d, blocks of %ld and %ld ints (salt %u)", form,
                 mode, n[0][1], n[1][0], salt);
        snprintf(key, sizeof key, "%s%s", call_name[form], mode ? ", nonblocking" : " comm");
        if (most > pair_max && most <= 2 * pair_max && pieces)
            vl_check(key, "pair, in pieces", 0, what);
        else
            vl_check(key, "pair", !(most > 0 && most <= (pieces ? 2 : 1) * pair_max), what);
    }
    free(rbuf);
    free(sbuf);
}

static void one(MPI_Comm comm, int form, int in_place, long n[2][2], unsigned salt)
{
    one_mode(comm, form, 0, in_place, n, salt);
}

static void sizes(MPI_Comm comm, unsigned *salt)
{
    static const long each[] = {1, 12, 13, 1024, 131072, 131088, 262144, 524291};
    for (unsigned k = 0; k < sizeof each / sizeof each[0]; k++)
        for (int in_place = 0; in_place < 2; in_place++) {
            const long e = each[k];
            long fixed[2][2] = {{e, e}, {e, e}};
            one(comm, A2A, in_place, fixed, (*salt)++);
            /* v and w: 0 -> 1 gets e, 1 -> 0 about half, own blocks 3 */
            /* (in place, what goes each way is one block: the same size) */
            long uneven[2][2] = {{3, e}, {in_place ? e : e / 2 + 1, 3}};
            one(comm, A2AV, in_place, uneven, (*salt)++);
            one(comm, A2AW, in_place, uneven, (*salt)++);
            long empty[2][2] = {{e, 0}, {in_place ? 0 : e, e}}; /* nothing from 0 to 1 */
            one(comm, A2AV, in_place, empty, (*salt)++);
        }
}

/* Nonblocking and persistent: the exchange once a blocking collective set
 * the cache up (sizes() ran first), pieces included. */
static void forms(MPI_Comm comm, unsigned *salt)
{
    static const long each[] = {1, 13, 1024, 131072, 262144, 524291};
    for (int mode = 1; mode <= 2; mode++)
        for (unsigned k = 0; k < sizeof each / sizeof each[0]; k++)
            for (int form = 0; form < 3; form++)
                for (int in_place = 0; in_place < (mode == 1 ? 2 : 1); in_place++) {
                    const long e = each[k];
                    long n[2][2] = {{3, e}, {form == A2A || in_place ? e : e / 2 + 1, 3}};
                    if (form == A2A)
                        n[0][0] = n[1][1] = e;
                    one_mode(comm, form, mode, in_place, n, (*salt)++);
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
        sb[c] = tu_malloc(2 * (size_t)len[c] * sizeof(int));
        rb[c] = tu_malloc(2 * (size_t)len[c] * sizeof(int));
        for (int j = 0; j < 2; j++)
            for (long i = 0; i < len[c]; i++) {
                sb[c][j * len[c] + i] = val(me, j, i, s0 + (unsigned)c);
                rb[c][j * len[c] + i] = SENTINEL;
            }
    }
    CHECK_MPI(MPI_Ialltoall(sb[0], (int)len[0], MPI_INT, rb[0], (int)len[0], MPI_INT, comm, &rq[0]));
    CHECK_MPI(MPI_Ialltoall(sb[1], (int)len[1], MPI_INT, rb[1], (int)len[1], MPI_INT, comm, &rq[1]));
    CHECK_MPI(MPI_Alltoall(sb[2], (int)len[2], MPI_INT, rb[2], (int)len[2], MPI_INT, comm));
    CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    for (int c = 0; c < 3; c++) {
        for (int j = 0; j < 2; j++)
            for (long i = 0; i < len[c]; i++)
                CHECKF(rb[c][j * len[c] + i] == val(j, me, i, s0 + (unsigned)c),
                       "outstanding exchange %d: int %ld of member %d's block is %d", c, i, j,
                       rb[c][j * len[c] + i]);
        free(sb[c]);
        free(rb[c]);
    }
    *salt += 3;
}

/* A persistent alltoall made before its communicator's cache is there:
 * each start chooses, two-sided first, the exchange once a blocking
 * collective has set the cache up. */
static void late_cache(MPI_Comm pair, unsigned *salt)
{
    int me;
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(pair, &comm));
    MPI_Comm_rank(comm, &me);
    enum { N = 300 };
    int sb[2 * N], rb[2 * N];
    const unsigned s0 = (*salt)++;
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < N; i++)
            sb[j * N + i] = val(me, j, i, s0);
    MPI_Request rq;
    CHECK_MPI(MPI_Alltoall_init(sb, N, MPI_INT, rb, N, MPI_INT, comm, MPI_INFO_NULL, &rq));
    long long d[1];
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
                CHECKF(rb[j * N + i] == val(j, me, i, s0),
                       "persistent alltoall, start %d: int %d of member %d's block is %d", round,
                       i, j, rb[j * N + i]);
        if (round == 0) { /* a blocking one sets the cache up */
            int x[2] = {me, me}, y[2];
            CHECK_MPI(MPI_Alltoall(x, 1, MPI_INT, y, 1, MPI_INT, comm));
            CHECK(y[0] == 0 && y[1] == 1);
            if (counted)
                tu_counters_deltas(&ctr, d);
        }
    }
    CHECK_MPI(MPI_Request_free(&rq));
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* Back to back, with the pair allreduce in the same slots between. */
static void stream(MPI_Comm comm, unsigned *salt)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    long long d[1];
    if (counted)
        tu_counters_deltas(&ctr, d);
    for (int k = 0; k < 100; k++) {
        const long e = 1 + (k * 37) % 300;
        const int form = k % 3, fixed = form == A2A;
        long n[2][2] = {{e, fixed ? e : e + k % 3}, {fixed ? e : e + k % 5, e}};
        one(comm, form, k % 12 == 0, n, (*salt)++);
        if (k % 7 == 0) {
            long x = me + 1, sum = 0;
            CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_LONG, MPI_SUM, comm));
            CHECK_EQ(sum, (long)size * (size + 1) / 2);
        }
    }
    if (counted) {
        tu_counters_deltas(&ctr, d);
        /* every one of the 100 is under the limit: all ran the pair, or none */
        if (size == 2 && pair_max >= 0)
            CHECK_EQ(d[0], 100);
        else
            CHECK_EQ(d[0], 0);
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
    const char *names[1] = {"coll_alltoall_pair"};
    pair_test_init(&argc, &argv, 1, names);
    return pair_test_run("coll_a2a_pair", body);
}
