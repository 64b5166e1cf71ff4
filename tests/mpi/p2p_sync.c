/* p2p_sync: a synchronous send does not complete before the matching
 * receive is posted — even after the message has reached the receiver
 * (proved with a blocking Probe there) — at eager and rendezvous sizes,
 * for Issend polled with Test and for blocking Ssend (timed by causality). */
#include "testutil.h"

static int rank, size;
static MPI_Comm comm, ctl;

static void issend_waits(int S, int R, int n)
{
    unsigned char *buf = tu_malloc((size_t)n + 1);
    if (rank == S) {
        MPI_Request sr, cr;
        int flag = 0, cflag = 0, probed = 0, go = 1;
        tu_fill(buf, (size_t)n, (unsigned)n);
        CHECK_MPI(MPI_Issend(buf, n, MPI_BYTE, R, 5, comm, &sr));
        /* Until the receiver has probed our message and a further 20 ms
         * have passed, Test must keep saying "not complete". */
        CHECK_MPI(MPI_Irecv(&probed, 1, MPI_INT, R, 1, ctl, &cr));
        while (!cflag) {
            CHECK_MPI(MPI_Test(&sr, &flag, MPI_STATUS_IGNORE));
            CHECKF(!flag, "Issend of %d bytes completed before the receive was posted", n);
            CHECK_MPI(MPI_Test(&cr, &cflag, MPI_STATUS_IGNORE));
        }
        CHECK_EQ(probed, n);
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < 0.02) {
            CHECK_MPI(MPI_Test(&sr, &flag, MPI_STATUS_IGNORE));
            CHECKF(!flag, "Issend of %d bytes completed after probe, before receive", n);
        }
        CHECK(sr != MPI_REQUEST_NULL);
        CHECK_MPI(MPI_Send(&go, 1, MPI_INT, R, 2, ctl));
        CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        CHECK(sr == MPI_REQUEST_NULL);
    } else if (rank == R) {
        MPI_Status st;
        int c = -1, go = 0;
        CHECK_MPI(MPI_Probe(S, 5, comm, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &c));
        CHECK_EQ(c, n);
        CHECK_MPI(MPI_Send(&c, 1, MPI_INT, S, 1, ctl));
        CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, S, 2, ctl, MPI_STATUS_IGNORE));
        memset(buf, 0, (size_t)n + 1);
        CHECK_MPI(MPI_Recv(buf, n + 1, MPI_BYTE, S, 5, comm, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &c));
        CHECK_EQ(c, n);
        CHECK_PATTERN(buf, (size_t)n, (unsigned)n);
    }
    free(buf);
}

static void ssend_blocks(int S, int R, int n)
{
    const double delay = 0.1;
    unsigned char *buf = tu_malloc((size_t)n + 1);
    if (rank == S) {
        tu_fill(buf, (size_t)n, (unsigned)n + 1);
        double t0 = MPI_Wtime();
        CHECK_MPI(MPI_Ssend(buf, n, MPI_BYTE, R, 6, comm));
        double dt = MPI_Wtime() - t0;
        /* The receiver saw the message (so we were already in Ssend), then
         * waited `delay` before posting the receive. */
        CHECKF(dt >= delay * 0.95, "Ssend of %d bytes returned after %.3f s, before the "
               "receive was posted (%.3f s later)", n, dt, delay);
    } else if (rank == R) {
        MPI_Status st;
        CHECK_MPI(MPI_Probe(S, 6, comm, &st));
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < delay)
            ;
        CHECK_MPI(MPI_Recv(buf, n + 1, MPI_BYTE, S, 6, comm, &st));
        CHECK_PATTERN(buf, (size_t)n, (unsigned)n + 1);
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

    /* Only pairs of distinct ranks; a single rank checks the self case:
     * an Issend to self stays incomplete until the receive is posted. */
    if (size == 1) {
        int x = 42, y = 0, flag = 0;
        MPI_Request sr;
        CHECK_MPI(MPI_Issend(&x, 1, MPI_INT, 0, 9, comm, &sr));
        for (int i = 0; i < 1000; i++) {
            CHECK_MPI(MPI_Test(&sr, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag);
        }
        CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, 0, 9, comm, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        CHECK_EQ(y, 42);
    }
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer < size) {
        int lo = rank < peer ? rank : peer, hi = rank < peer ? peer : rank;
        static const int ns[] = {0, 8, 4096, 65536, 1 << 20};
        for (int k = 0; k < 5; k++) {
            issend_waits(lo, hi, ns[k]);
            issend_waits(hi, lo, ns[k]);
        }
        ssend_blocks(lo, hi, 8);
        ssend_blocks(hi, lo, 1 << 20);
    }

    CHECK_MPI(MPI_Comm_free(&comm));
    CHECK_MPI(MPI_Comm_free(&ctl));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
