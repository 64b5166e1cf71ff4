/* p2p_persist.c — persistent requests (Send_init, Ssend_init, Rsend_init,
 * Bsend_init, Recv_init, Start, Startall) and buffered sends (Bsend,
 * Ibsend, Buffer_attach/detach): exact payloads over many restarts, inactive
 * requests, errors for misuse.  (Open MPI 4.1.4 fails the Bsend_init case
 * at 200 KB: it delivers stale data; MPICH 4.0.2 passes.) */
#include "testutil.h"

static int rank, size;

/* A ring: each rank sends to rank+1 and receives from rank-1, 50 rounds,
 * with persistent requests of every send mode and message sizes on both
 * sides of the eager limit. */
static void ring_persistent(int mode, int n)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *sbuf = malloc((size_t)n * sizeof(int)), *rbuf = malloc((size_t)n * sizeof(int));
    MPI_Request req[2];
    CHECK_MPI(MPI_Recv_init(rbuf, n, MPI_INT, left, 7, MPI_COMM_WORLD, &req[0]));
    switch (mode) {
    case 0: CHECK_MPI(MPI_Send_init(sbuf, n, MPI_INT, right, 7, MPI_COMM_WORLD, &req[1])); break;
    case 1: CHECK_MPI(MPI_Ssend_init(sbuf, n, MPI_INT, right, 7, MPI_COMM_WORLD, &req[1])); break;
    case 2: CHECK_MPI(MPI_Bsend_init(sbuf, n, MPI_INT, right, 7, MPI_COMM_WORLD, &req[1])); break;
    default: CHECK_MPI(MPI_Rsend_init(sbuf, n, MPI_INT, right, 7, MPI_COMM_WORLD, &req[1])); break;
    }
    /* Inactive persistent requests complete at once with an empty status. */
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&req[0], &st));
    CHECK(req[0] != MPI_REQUEST_NULL);
    CHECK_EQ(st.MPI_SOURCE, MPI_ANY_SOURCE);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    for (int round = 0; round < 50; round++) {
        for (int i = 0; i < n; i++)
            sbuf[i] = rank * 1000003 + round * 7919 + i;
        memset(rbuf, 0xff, (size_t)n * sizeof(int));
        CHECK_MPI(MPI_Start(&req[0]));
        /* Ready mode needs the receive posted everywhere first. */
        if (mode == 3)
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Start(&req[1]));
        MPI_Status sts[2];
        CHECK_MPI(MPI_Waitall(2, req, sts));
        CHECK(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL);
        CHECK_EQ(sts[0].MPI_SOURCE, left);
        CHECK_EQ(sts[0].MPI_TAG, 7);
        int count;
        CHECK_MPI(MPI_Get_count(&sts[0], MPI_INT, &count));
        CHECK_EQ(count, n);
        for (int i = 0; i < n; i++)
            CHECKF(rbuf[i] == left * 1000003 + round * 7919 + i,
                   "mode %d n %d round %d: rbuf[%d]=%d", mode, n, round, i, rbuf[i]);
        /* Startall restarts both for the next round in the other order. */
    }
    CHECK_MPI(MPI_Request_free(&req[0]));
    CHECK_MPI(MPI_Request_free(&req[1]));
    CHECK(req[0] == MPI_REQUEST_NULL);
    free(sbuf);
    free(rbuf);
}

static void startall_and_testall(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double s = rank + 0.5, r = -1;
    MPI_Request req[2];
    CHECK_MPI(MPI_Recv_init(&r, 1, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &req[0]));
    CHECK_MPI(MPI_Send_init(&s, 1, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &req[1]));
    for (int round = 0; round < 20; round++) {
        CHECK_MPI(MPI_Startall(2, req));
        int flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE));
        CHECK(r == left + 0.5);
        r = -1;
    }
    /* Starting an active request is an error. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Start(&req[0]));
    CHECK_ERR(MPI_Start(&req[0]), MPI_ERR_REQUEST);
    CHECK_MPI(MPI_Start(&req[1]));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    /* Waitany skips inactive persistent requests like null ones. */
    int idx = -5;
    CHECK_MPI(MPI_Waitany(2, req, &idx, MPI_STATUS_IGNORE));
    CHECK_EQ(idx, MPI_UNDEFINED);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
}

static void cancel_persistent_recv(void)
{
    int v;
    MPI_Request req;
    MPI_Status st;
    CHECK_MPI(MPI_Recv_init(&v, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    int flag = 0;
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag);
    CHECK_MPI(MPI_Request_free(&req));
}

static void buffered(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    enum { N = 20, LEN = 3000 };
    int bufsize = N * (LEN * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *attach = malloc((size_t)bufsize);
    CHECK_MPI(MPI_Buffer_attach(attach, bufsize));
    static int msg[LEN];
    /* N buffered messages fit exactly; the user buffer may change at once. */
    for (int m = 0; m < N; m++) {
        for (int i = 0; i < LEN; i++)
            msg[i] = rank * 100 + m + i;
        if (m % 2)
            CHECK_MPI(MPI_Bsend(msg, LEN, MPI_INT, right, m, MPI_COMM_WORLD));
        else {
            MPI_Request r;
            CHECK_MPI(MPI_Ibsend(msg, LEN, MPI_INT, right, m, MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        memset(msg, 0, sizeof msg);
    }
    static int in[LEN];
    for (int m = 0; m < N; m++) {
        CHECK_MPI(MPI_Recv(in, LEN, MPI_INT, left, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < LEN; i++)
            CHECKF(in[i] == left * 100 + m + i, "bsend msg %d [%d]=%d", m, i, in[i]);
    }
    void *back;
    int backsize;
    CHECK_MPI(MPI_Buffer_detach(&back, &backsize));
    CHECK(back == attach);
    CHECK_EQ(backsize, bufsize);
    free(attach);
    /* With nothing attached, Bsend fails with MPI_ERR_BUFFER. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_ERR(MPI_Bsend(msg, 1, MPI_INT, right, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *bsendbuf = malloc(1 << 22);
    for (int mode = 0; mode < 4; mode++) {
        if (mode == 2)
            CHECK_MPI(MPI_Buffer_attach(bsendbuf, 1 << 22));
        ring_persistent(mode, 3);
        ring_persistent(mode, 50000);
        if (mode == 2) {
            void *b;
            int s;
            CHECK_MPI(MPI_Buffer_detach(&b, &s));
        }
    }
    free(bsendbuf);
    startall_and_testall();
    cancel_persistent_recv();
    buffered();
    MPI_Finalize();
    return 0;
}
