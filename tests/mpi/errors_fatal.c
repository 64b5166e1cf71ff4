/* errors_fatal: MUST die.  Under the default MPI_ERRORS_ARE_FATAL handler,
 * the last rank sends to an invalid rank while the others wait for it in
 * MPI_Recv.  The job must end with a non-zero status, naming MPI_Send on
 * stderr; the other ranks must be torn down by the launcher.  Listed with
 * expect=fail in TESTLIST. */
#include "testutil.h"

int main(int argc, char **argv)
{
    int rank, size, buf = 1;
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == size - 1) {
        MPI_Send(&buf, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD);
        /* Not reached with a conforming library. */
        printf("errors_fatal: MPI_Send to an invalid rank returned under "
               "MPI_ERRORS_ARE_FATAL (rank %d)\n", rank);
        for (int i = 0; i < size - 1; i++)
            MPI_Send(&buf, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&buf, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
