/* hello — every rank reports its rank, the job size and its processor name.
 * Lines are printed in rank order (rank 0 collects them), so the output is
 * deterministic. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, len;
    char name[MPI_MAX_PROCESSOR_NAME];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(name, 0, sizeof name);
    MPI_Get_processor_name(name, &len);

    if (rank == 0) {
        printf("hello from rank 0 of %d on %s\n", size, name);
        for (int r = 1; r < size; r++) {
            char other[MPI_MAX_PROCESSOR_NAME];
            MPI_Recv(other, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, r, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            printf("hello from rank %d of %d on %s\n", r, size, other);
        }
        fflush(stdout);
    } else {
        MPI_Send(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
