/* lock_epoch — passive-target epochs against a target that waits in a
 * blocking call: rank 0 does MPI_Win_lock(EXCLUSIVE, 1) + an 8 B MPI_Put +
 * MPI_Win_unlock, 20000 times after 1000 warm-ups, while rank 1 sits in
 * MPI_Barrier.  Value: microseconds per epoch.  Standard MPI (builds with
 * mpicc.openmpi / mpicc.mpich too); 2 ranks:
 *   FABMPI_NET=ofi FABMPI_OFI_PROVIDER_INCLUDE=net mpiexec -n 2 ./lock_epoch */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long *mem, v = 42;
    MPI_Win win;
    MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    const int n = 20000, warm = 1000;
    if (rank == 0) {
        double t0 = 0;
        for (int i = 0; i < n + warm; i++) {
            if (i == warm)
                t0 = MPI_Wtime();
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win);
            MPI_Win_unlock(1, win);
        }
        printf("lock_epoch: %.2f us per lock + put + unlock\n", (MPI_Wtime() - t0) / n * 1e6);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
