/* p2p_done_send.c — requests of sends that completed at once (small eager
 * sends; fabmpi hands them all one shared, completed request): every
 * request call on them behaves as on any completed send, mixed in arrays
 * with pending receives, and no payload is lost.  Rank r sends to r+1 and
 * receives from r-1. */
#include "testutil.h"

#define N 6

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long out[N], in[N];
    MPI_Request s[N], r[N];
    for (int i = 0; i < N; i++) {
        out[i] = 1000L * rank + i;
        in[i] = -1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        CHECK_MPI(MPI_Isend(&out[i], 1, MPI_LONG, right, i, MPI_COMM_WORLD, &s[i]));

    /* 0: Request_get_status says done (eventually) and keeps the handle. */
    int flag = 0;
    MPI_Status st;
    while (!flag)
        CHECK_MPI(MPI_Request_get_status(s[0], &flag, &st));
    CHECK(s[0] != MPI_REQUEST_NULL);
    CHECK_MPI(MPI_Wait(&s[0], &st));
    CHECK(s[0] == MPI_REQUEST_NULL);
    /* 1: Cancel after completion: not cancelled, the message arrives. */
    CHECK_MPI(MPI_Cancel(&s[1]));
    CHECK_MPI(MPI_Wait(&s[1], &st));
    int cancelled = 1;
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled == 0);
    /* 2: Request_free: the message still arrives. */
    CHECK_MPI(MPI_Request_free(&s[2]));
    CHECK(s[2] == MPI_REQUEST_NULL);
    /* 3..5: Test, then Waitany / Waitsome mixed with pending receives. */
    flag = 0;
    while (!flag)
        CHECK_MPI(MPI_Test(&s[3], &flag, MPI_STATUS_IGNORE));
    CHECK(s[3] == MPI_REQUEST_NULL);

    /* Receive 0..5 in reverse posting order; tags make them exact. */
    for (int i = N - 1; i >= 0; i--)
        CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_LONG, left, i, MPI_COMM_WORLD, &r[i]));
    MPI_Request mix[4] = {s[4], r[0], s[5], r[1]};
    int idx = -1;
    CHECK_MPI(MPI_Waitany(4, mix, &idx, &st));
    CHECK(idx >= 0 && idx < 4 && mix[idx] == MPI_REQUEST_NULL);
    int outcount = 0, done[4];
    MPI_Status sts[4];
    int left_active = 3;
    while (left_active > 0) {
        CHECK_MPI(MPI_Waitsome(4, mix, &outcount, done, sts));
        CHECK(outcount != MPI_UNDEFINED && outcount >= 1);
        left_active -= outcount;
    }
    CHECK_MPI(MPI_Waitsome(4, mix, &outcount, done, sts));
    CHECK(outcount == MPI_UNDEFINED);
    CHECK_MPI(MPI_Waitall(N - 2, &r[2], MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++)
        CHECKF(in[i] == 1000L * left + i, "message %d from rank %d: got %ld, want %ld", i, left,
               in[i], 1000L * left + i);

    /* Many at once, then Testall until done. */
    enum { M = 200 };
    long many_out[M], many_in[M];
    MPI_Request q[2 * M];
    for (int i = 0; i < M; i++) {
        many_out[i] = 7L * i + rank;
        many_in[i] = -1;
        CHECK_MPI(MPI_Irecv(&many_in[i], 1, MPI_LONG, left, 100, MPI_COMM_WORLD, &q[i]));
    }
    for (int i = 0; i < M; i++)
        CHECK_MPI(MPI_Isend(&many_out[i], 1, MPI_LONG, right, 100, MPI_COMM_WORLD, &q[M + i]));
    flag = 0;
    while (!flag)
        CHECK_MPI(MPI_Testall(2 * M, q, &flag, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 2 * M; i++)
        CHECK(q[i] == MPI_REQUEST_NULL);
    for (int i = 0; i < M; i++) /* non-overtaking: in order */
        CHECKF(many_in[i] == 7L * i + left, "many[%d] = %ld, want %ld", i, many_in[i],
               7L * i + left);
    MPI_Finalize();
    return 0;
}
