/* comm_isolation: messages with identical (source, tag) on different
 * communicators never match each other — unexpected and pre-posted, with
 * wildcards, on dups, splits and freed-then-recreated communicators — and
 * collective traffic never matches a user's wildcard receive. */
#include "testutil.h"

static int rank, size;
static MPI_Comm ctl; /* handshakes, kept off the communicators under test */

static void same_tag(int S, int R, MPI_Comm *cs, int nc)
{
    if (rank == S && S != R) {
        /* Wait for the receiver's pre-posted wildcard receives. */
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, R, 999, ctl, MPI_STATUS_IGNORE));
        for (int i = nc - 1; i >= 0; i--) {
            int v = 100 + i;
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, R, 5, cs[i]));
            v = 200 + i;
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, R, 5, cs[i]));
        }
    }
    if (rank == R) {
        MPI_Request *rq = tu_malloc(sizeof(MPI_Request) * (size_t)nc);
        MPI_Request *sr = tu_malloc(sizeof(MPI_Request) * (size_t)nc * 2);
        int *pv = tu_malloc(sizeof(int) * (size_t)nc), *sv = tu_malloc(sizeof(int) * (size_t)nc * 2);
        /* Pre-posted wildcard receive on each communicator (first message),
         * the second is received later from the unexpected queue. */
        for (int i = 0; i < nc; i++) {
            pv[i] = -1;
            CHECK_MPI(MPI_Irecv(&pv[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, cs[i], &rq[i]));
        }
        if (S != R) {
            CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, S, 999, ctl));
        } else {
            for (int i = nc - 1; i >= 0; i--) {
                sv[2 * i] = 100 + i;
                sv[2 * i + 1] = 200 + i;
                CHECK_MPI(MPI_Isend(&sv[2 * i], 1, MPI_INT, R, 5, cs[i], &sr[2 * i]));
                CHECK_MPI(MPI_Isend(&sv[2 * i + 1], 1, MPI_INT, R, 5, cs[i], &sr[2 * i + 1]));
            }
        }
        CHECK_MPI(MPI_Waitall(nc, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < nc; i++)
            CHECKF(pv[i] == 100 + i, "communicator %d: pre-posted receive got %d", i, pv[i]);
        for (int i = 0; i < nc; i++) {
            int v = -1;
            MPI_Status st;
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, cs[i], &st));
            CHECKF(v == 200 + i, "communicator %d: unexpected receive got %d", i, v);
            CHECK_EQ(st.MPI_SOURCE, S);
            CHECK_EQ(st.MPI_TAG, 5);
        }
        if (S == R)
            CHECK_MPI(MPI_Waitall(2 * nc, sr, MPI_STATUSES_IGNORE));
        for (int i = 0; i < nc; i++) {
            int flag = -1;
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, cs[i], &flag, MPI_STATUS_IGNORE));
            CHECK_EQ(flag, 0);
        }
        free(rq);
        free(sr);
        free(pv);
        free(sv);
    }
}

/* Collectives on `c` and on a dup while a user wildcard receive is posted
 * on `c`: the receive must get only the user message. */
static void coll_vs_wildcard(MPI_Comm c)
{
    int crank, csize;
    CHECK_MPI(MPI_Comm_rank(c, &crank));
    CHECK_MPI(MPI_Comm_size(c, &csize));
    int root_recv = 0, got = -1;
    MPI_Request rq = MPI_REQUEST_NULL;
    if (crank == root_recv)
        CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &rq));
    int x = crank, sum = -1;
    int *all = tu_malloc(sizeof(int) * (size_t)csize);
    for (int r = 0; r < csize; r++) {
        CHECK_MPI(MPI_Barrier(c));
        int b = crank == r ? 77 : 0;
        CHECK_MPI(MPI_Bcast(&b, 1, MPI_INT, r, c));
        CHECK_EQ(b, 77);
        CHECK_MPI(MPI_Reduce(&x, &sum, 1, MPI_INT, MPI_SUM, r, c));
        if (crank == r)
            CHECK_EQ(sum, csize * (csize - 1) / 2);
        CHECK_MPI(MPI_Gather(&x, 1, MPI_INT, all, 1, MPI_INT, r, c));
    }
    CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK_MPI(MPI_Allgather(&x, 1, MPI_INT, all, 1, MPI_INT, c));
    int *a2 = tu_malloc(sizeof(int) * (size_t)csize);
    CHECK_MPI(MPI_Alltoall(all, 1, MPI_INT, a2, 1, MPI_INT, c));
    for (int i = 0; i < csize; i++)
        CHECK_EQ(a2[i], crank);
    free(a2);
    if (crank == root_recv) {
        int flag = -1;
        CHECK_MPI(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
        CHECKF(flag == 0, "wildcard receive matched collective traffic (got %d)", got);
    }
    CHECK_MPI(MPI_Barrier(c));
    if (crank == csize - 1) {
        int v = 4321;
        if (crank == root_recv) {
            MPI_Request s;
            CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, root_recv, 12, c, &s));
            CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, root_recv, 12, c));
        }
    }
    if (crank == root_recv) {
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&rq, &st));
        CHECK_EQ(got, 4321);
        CHECK_EQ(st.MPI_TAG, 12);
        CHECK_EQ(st.MPI_SOURCE, csize - 1);
    }
    free(all);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ctl));
    enum { NC = 6 };
    MPI_Comm cs[NC];
    cs[0] = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &cs[1]));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &cs[2]));
    CHECK_MPI(MPI_Comm_dup(cs[1], &cs[3]));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &cs[4])); /* same group */
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 1, rank, &cs[5]));

    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size)
        peer = rank;
    int lo = rank < peer ? rank : peer, hi = rank < peer ? peer : rank;
    same_tag(lo, hi, cs, NC);
    if (lo != hi)
        same_tag(hi, lo, cs, NC);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* Free and recreate: the new communicators (which may reuse the freed
     * context ids) start with empty queues and stay isolated. */
    for (int round = 0; round < 3; round++) {
        for (int i = 1; i < NC; i++)
            CHECK_MPI(MPI_Comm_free(&cs[i]));
        for (int i = 1; i < NC; i++)
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &cs[i]));
        same_tag(lo, hi, cs, NC);
        if (lo != hi)
            same_tag(hi, lo, cs, NC);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }

    coll_vs_wildcard(MPI_COMM_WORLD);
    coll_vs_wildcard(cs[1]);
    MPI_Comm half;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    coll_vs_wildcard(half);
    CHECK_MPI(MPI_Comm_free(&half));

    for (int i = 1; i < NC; i++)
        CHECK_MPI(MPI_Comm_free(&cs[i]));
    CHECK_MPI(MPI_Comm_free(&ctl));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
