/* comm_many: 70,000 Comm_dup + Comm_free cycles (more than a 16-bit
 * context-id space, so ids must be reused), interleaved with splits and
 * idups, with the fresh communicators used periodically to prove they work
 * and are isolated from the previous incarnation. */
#include "testutil.h"

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    const int N = 70000;
    MPI_Comm keep;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &keep));
    for (int i = 0; i < N; i++) {
        MPI_Comm c;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        CHECK(c != MPI_COMM_NULL && c != MPI_COMM_WORLD);
        if (i % 5000 == 0) {
            /* Use it: ring exchange and an allreduce. */
            int right = (rank + 1) % size, left = (rank - 1 + size) % size, got = -1, sum = -1;
            CHECK_MPI(MPI_Sendrecv(&i, 1, MPI_INT, right, 1, &got, 1, MPI_INT, left, 1, c,
                                   MPI_STATUS_IGNORE));
            CHECK_EQ(got, i);
            CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
            CHECK_EQ(sum, size * (size - 1) / 2);
            /* Leave nothing pending on it; a message on `keep` with the same
             * tag must not be visible on the new communicator. */
            int flag = -1;
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, MPI_STATUS_IGNORE));
            CHECK_EQ(flag, 0);
        }
        CHECK_MPI(MPI_Comm_free(&c));
        CHECK(c == MPI_COMM_NULL);
        if (i % 10000 == 5) {
            MPI_Comm s, d;
            MPI_Request rq;
            CHECK_MPI(MPI_Comm_split(keep, rank % 2, rank, &s));
            CHECK_MPI(MPI_Comm_idup(s, &d, &rq));
            CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Barrier(d));
            CHECK_MPI(MPI_Comm_free(&d));
            CHECK_MPI(MPI_Comm_free(&s));
        }
    }
    CHECK_MPI(MPI_Comm_free(&keep));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
