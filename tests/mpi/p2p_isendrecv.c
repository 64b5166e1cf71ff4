/* p2p_isendrecv.c — MPI-4.0 MPI_Isendrecv and MPI_Isendrecv_replace:
 * ring exchanges (small, 1 MiB, a strided type in place), the receive's
 * status (wildcards, MPI_PROC_NULL), many at once completed in reverse,
 * truncation, MPI_Request_free, and MPI_Cancel of one whose receive no
 * one will match. */
#include "testutil.h"

static int rank, size;

static void test_ring(void)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int out = 100 + rank, in = -1;
    MPI_Request rq;
    MPI_Status st;
    CHECK_MPI(MPI_Isendrecv(&out, 1, MPI_INT, right, 7, &in, 1, MPI_INT, MPI_ANY_SOURCE,
                            MPI_ANY_TAG, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    CHECK_EQ(in, 100 + left);
    CHECK_EQ(st.MPI_SOURCE, left);
    CHECK_EQ(st.MPI_TAG, 7);
    int n;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
    CHECK_EQ(n, 1);

    /* 1 MiB each way (rendezvous). */
    size_t bytes = 1 << 20;
    char *a = tu_malloc(bytes), *b = tu_malloc(bytes);
    tu_fill(a, bytes, (unsigned)rank);
    CHECK_MPI(MPI_Isendrecv(a, (int)bytes, MPI_BYTE, right, 8, b, (int)bytes, MPI_BYTE, left, 8,
                            MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_PATTERN(b, bytes, (unsigned)left);

    /* In place with a strided type: 4 ints at stride 2; the gaps stay. */
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(4, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    int v[7];
    for (int i = 0; i < 7; i++)
        v[i] = i % 2 ? -1 : rank * 10 + i;
    CHECK_MPI(MPI_Isendrecv_replace(v, 1, vec, right, 9, left, 9, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Type_free(&vec));
    CHECK_MPI(MPI_Wait(&rq, &st));
    for (int i = 0; i < 7; i++)
        CHECK_EQ(v[i], i % 2 ? -1 : left * 10 + i);
    CHECK_EQ(st.MPI_SOURCE, left);
    free(a);
    free(b);
}

/* Many at once, each tag its own, completed newest first. */
static void test_many(void)
{
    enum { K = 64 };
    int out[K], in[K];
    MPI_Request rq[K];
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    for (int k = 0; k < K; k++) {
        out[k] = rank * 1000 + k;
        in[k] = -1;
        /* Receive tag k from the left while sending tag K-1-k to the right:
         * matching must go by tag, not by posting order. */
        CHECK_MPI(MPI_Isendrecv(&out[k], 1, MPI_INT, right, K - 1 - k, &in[k], 1, MPI_INT, left,
                                k, MPI_COMM_WORLD, &rq[k]));
    }
    for (int k = K - 1; k >= 0; k--)
        CHECK_MPI(MPI_Wait(&rq[k], MPI_STATUS_IGNORE));
    for (int k = 0; k < K; k++)
        CHECK_EQ(in[k], left * 1000 + (K - 1 - k));
}

static void test_proc_null_and_free(void)
{
    int x = 5, y = -3;
    MPI_Request rq;
    MPI_Status st;
    CHECK_MPI(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0,
                            MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    CHECK_EQ(y, -3);
    /* Freed while running: still delivers. */
    int right = (rank + 1) % size, left = (rank - 1 + size) % size, got = -1;
    CHECK_MPI(MPI_Isendrecv(&x, 1, MPI_INT, right, 11, &got, 1, MPI_INT, left, 11, MPI_COMM_WORLD,
                            &rq));
    CHECK_MPI(MPI_Request_free(&rq));
    CHECK(rq == MPI_REQUEST_NULL);
    while (got != 5) {
        int flag;
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_errors(void)
{
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int two[2] = {1, 2}, one = 0;
    MPI_Request rq;
    MPI_Status st;
    CHECK_MPI(MPI_Isendrecv(two, 2, MPI_INT, right, 13, &one, 1, MPI_INT, left, 13,
                            MPI_COMM_WORLD, &rq));
    CHECK_ERR(MPI_Wait(&rq, &st), MPI_ERR_TRUNCATE);
    CHECK_ERR(MPI_Isendrecv(two, 1, MPI_INT, size, 0, &one, 1, MPI_INT, left, 0, MPI_COMM_WORLD,
                            &rq),
              MPI_ERR_RANK);
    CHECK_ERR(MPI_Isendrecv(two, 1, MPI_INT, right, -2, &one, 1, MPI_INT, left, 0,
                            MPI_COMM_WORLD, &rq),
              MPI_ERR_TAG);
    CHECK_ERR(MPI_Isendrecv(two, 1, MPI_INT, right, 0, &one, 1, MPI_INT, left, 0, MPI_COMM_WORLD,
                            NULL),
              MPI_ERR_ARG);
    /* Nobody sends tag 14: cancelling ends it, the receive reported cancelled. */
    CHECK_MPI(MPI_Isendrecv(two, 1, MPI_INT, MPI_PROC_NULL, 0, &one, 1, MPI_INT, left, 14,
                            MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Cancel(&rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    int cancelled;
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    test_ring();
    test_many();
    test_proc_null_and_free();
    test_errors();
    CHECK_MPI(MPI_Finalize());
    return 0;
}
