/* hello.c — the program the build-system tests build with CMake, Meson and
 * pkg-config against an installed fabmpi: one line per rank naming the
 * library it runs on, after an allreduce whose result it checks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, sum = 0, len;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Get_library_version(version, &len);
    version[strcspn(version, " \n")] = '\0';
    printf("C rank %d of %d on %s: sum %s\n", rank, size, version,
           sum == size * (size - 1) / 2 ? "ok" : "WRONG");
    return MPI_Finalize();
}
