/* p2p_cancel: MPI_Cancel of a posted receive that nothing matches
 * (Test_cancelled true, and a later message goes to a later receive), of a
 * receive already matched by a synchronous send (not cancelled, data
 * intact), of a completed receive, and MPI_Status_set_cancelled. */
#include "testutil.h"

static int rank, size;
static MPI_Comm comm, ctl;

static void cancel_unmatched(int S, int R)
{
    if (rank == R) {
        int v = -1, flag = -1;
        MPI_Request rq;
        MPI_Status st;
        CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 77, comm, &rq));
        CHECK_MPI(MPI_Cancel(&rq));
        CHECK(rq != MPI_REQUEST_NULL); /* cancel only marks it */
        CHECK_MPI(MPI_Wait(&rq, &st));
        CHECK(rq == MPI_REQUEST_NULL);
        CHECK_MPI(MPI_Test_cancelled(&st, &flag));
        CHECK_EQ(flag, 1);
        CHECK_EQ(v, -1);

        /* Same with a specific source and Test polling. */
        CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, S, 77, comm, &rq));
        CHECK_MPI(MPI_Cancel(&rq));
        flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Test(&rq, &flag, &st));
        flag = -1;
        CHECK_MPI(MPI_Test_cancelled(&st, &flag));
        CHECK_EQ(flag, 1);

        /* A large receive, cancelled, then the real message arrives and is
         * received by a new receive; the cancelled buffer stays untouched. */
        int n = 100000;
        int *big = tu_malloc(sizeof(int) * (size_t)n), *big2 = tu_malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++)
            big[i] = -7;
        CHECK_MPI(MPI_Irecv(big, n, MPI_INT, S, 78, comm, &rq));
        CHECK_MPI(MPI_Cancel(&rq));
        CHECK_MPI(MPI_Wait(&rq, &st));
        CHECK_MPI(MPI_Test_cancelled(&st, &flag));
        CHECK_EQ(flag, 1);
        MPI_Request r2, r3;
        CHECK_MPI(MPI_Irecv(big2, n, MPI_INT, S, 78, comm, &r2));
        CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, S, 77, comm, &r3));
        if (S != R) {
            int go = 1;
            CHECK_MPI(MPI_Send(&go, 1, MPI_INT, S, 0, ctl));
        } else {
            int one = 1;
            int *sb = tu_malloc(sizeof(int) * (size_t)n);
            MPI_Request s2[2];
            for (int i = 0; i < n; i++)
                sb[i] = i;
            CHECK_MPI(MPI_Isend(&one, 1, MPI_INT, R, 77, comm, &s2[0]));
            CHECK_MPI(MPI_Isend(sb, n, MPI_INT, R, 78, comm, &s2[1]));
            CHECK_MPI(MPI_Waitall(2, (MPI_Request[]){r2, r3}, MPI_STATUSES_IGNORE));
            r2 = r3 = MPI_REQUEST_NULL;
            CHECK_MPI(MPI_Waitall(2, s2, MPI_STATUSES_IGNORE));
            free(sb);
        }
        CHECK_MPI(MPI_Wait(&r2, &st));
        CHECK_MPI(MPI_Wait(&r3, MPI_STATUS_IGNORE));
        CHECK_EQ(v, 1);
        for (int i = 0; i < n; i++) {
            CHECKF(big2[i] == i, "big2[%d] = %d", i, big2[i]);
            CHECKF(big[i] == -7, "cancelled buffer written at %d", i);
        }
        free(big);
        free(big2);
    } else if (rank == S) {
        int go, one = 1, n = 100000;
        int *sb = tu_malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++)
            sb[i] = i;
        CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, R, 0, ctl, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Send(&one, 1, MPI_INT, R, 77, comm));
        CHECK_MPI(MPI_Send(sb, n, MPI_INT, R, 78, comm));
        free(sb);
    }
}

static void cancel_matched(int S, int R, int n)
{
    int *buf = tu_malloc(sizeof(int) * (size_t)n);
    if (rank == R) {
        MPI_Request rq;
        MPI_Status st;
        int flag = -1, go = 1;
        for (int i = 0; i < n; i++)
            buf[i] = -1;
        CHECK_MPI(MPI_Irecv(buf, n, MPI_INT, S, 80, comm, &rq));
        if (S != R) {
            CHECK_MPI(MPI_Send(&go, 1, MPI_INT, S, 0, ctl));
            /* The sender's Ssend has returned: our receive is matched. */
            CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, S, 1, ctl, MPI_STATUS_IGNORE));
        } else {
            MPI_Request sr;
            int *sb = tu_malloc(sizeof(int) * (size_t)n);
            for (int i = 0; i < n; i++)
                sb[i] = i * 5;
            CHECK_MPI(MPI_Issend(sb, n, MPI_INT, R, 80, comm, &sr));
            CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
            free(sb);
        }
        CHECK_MPI(MPI_Cancel(&rq));
        CHECK_MPI(MPI_Wait(&rq, &st));
        CHECK_MPI(MPI_Test_cancelled(&st, &flag));
        CHECK_EQ(flag, 0);
        CHECK_EQ(st.MPI_SOURCE, S);
        CHECK_EQ(st.MPI_TAG, 80);
        int c = -1;
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &c));
        CHECK_EQ(c, n);
        for (int i = 0; i < n; i++)
            CHECKF(buf[i] == i * 5, "matched receive: buf[%d] = %d", i, buf[i]);

        /* Cancel after completion was observed (request still alive). */
        int v = -1;
        if (S == R) {
            int x = 9;
            MPI_Request sr;
            CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, R, 81, comm, &sr));
            CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, S, 81, comm, &rq));
            CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, S, 81, comm, &rq));
        }
        flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Request_get_status(rq, &flag, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Cancel(&rq));
        CHECK_MPI(MPI_Wait(&rq, &st));
        flag = -1;
        CHECK_MPI(MPI_Test_cancelled(&st, &flag));
        CHECK_EQ(flag, 0);
        CHECK_EQ(v, 9);
    } else if (rank == S) {
        int go = 0, x = 9;
        for (int i = 0; i < n; i++)
            buf[i] = i * 5;
        CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, R, 0, ctl, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Ssend(buf, n, MPI_INT, R, 80, comm));
        CHECK_MPI(MPI_Send(&go, 1, MPI_INT, R, 1, ctl));
        CHECK_MPI(MPI_Send(&x, 1, MPI_INT, R, 81, comm));
    }
    free(buf);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ctl));

    MPI_Status st;
    int flag = -1;
    CHECK_MPI(MPI_Status_set_cancelled(&st, 1));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_EQ(flag, 1);
    CHECK_MPI(MPI_Status_set_cancelled(&st, 0));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_EQ(flag, 0);

    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size)
        peer = rank;
    int lo = rank < peer ? rank : peer, hi = rank < peer ? peer : rank;
    cancel_unmatched(lo, hi);
    if (lo != hi)
        cancel_unmatched(hi, lo);
    static const int ns[] = {1, 1000, 300000};
    for (int k = 0; k < 3; k++) {
        cancel_matched(lo, hi, ns[k]);
        if (lo != hi)
            cancel_matched(hi, lo, ns[k]);
    }

    CHECK_MPI(MPI_Comm_free(&comm));
    CHECK_MPI(MPI_Comm_free(&ctl));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
