/* hello.c — the startup benchmark's program (bench/run-startup): MPI_Init,
 * one line per rank, MPI_Finalize.  Standard MPI only, so the same source
 * builds with fabmpi's, Open MPI's and MPICH's mpicc. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("hello from rank %d of %d\n", rank, size);
    MPI_Finalize();
    return 0;
}
