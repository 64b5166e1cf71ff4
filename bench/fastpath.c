/* fastpath — the loop whose instructions bench/RESULTS.md ("Fast-path
 * cost") counts: rank 0 and rank 1 each post an 8-byte MPI_Irecv and
 * MPI_Isend to the other and complete both with MPI_Waitall, N times.
 * Run rank 0 under callgrind (bench/run-callgrind) and divide the
 * inclusive counts of MPI_Isend, MPI_Irecv and MPI_Waitall by N. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    long n = argc > 1 ? atol(argv[1]) : 20000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "fastpath: run with 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long s = rank, r = -1;
    int peer = 1 - rank;
    MPI_Request q[2];
    for (long i = 0; i < n; i++) {
        MPI_Irecv(&r, 1, MPI_LONG, peer, 0, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(&s, 1, MPI_LONG, peer, 0, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    }
    if (r != peer) {
        fprintf(stderr, "fastpath: rank %d received %ld, expected %d\n", rank, r, peer);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
