/* ring — rank 0 starts a token that travels 0 -> 1 -> ... -> size-1 -> 0,
 * `laps` times (argv[1], default 10).  Every rank adds 1 to the token as it
 * passes, so after the last lap rank 0 must hold laps * size.  Exit status
 * 0 on success, 1 (via MPI_Abort) if the value is wrong. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    long laps = argc > 1 ? strtol(argv[1], NULL, 10) : 10;
    if (laps < 1)
        laps = 1;
    int next = (rank + 1) % size;
    int prev = (rank + size - 1) % size;
    long token = 0;

    if (size == 1) {
        /* A ring of one: send to ourselves with a nonblocking receive. */
        for (long i = 0; i < laps; i++) {
            MPI_Request rq;
            long in;
            MPI_Irecv(&in, 1, MPI_LONG, 0, 1, MPI_COMM_WORLD, &rq);
            token++;
            MPI_Send(&token, 1, MPI_LONG, 0, 1, MPI_COMM_WORLD);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            token = in;
        }
    } else {
        for (long i = 0; i < laps; i++) {
            if (rank == 0) {
                token++;
                MPI_Send(&token, 1, MPI_LONG, next, 1, MPI_COMM_WORLD);
                MPI_Recv(&token, 1, MPI_LONG, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&token, 1, MPI_LONG, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                token++;
                MPI_Send(&token, 1, MPI_LONG, next, 1, MPI_COMM_WORLD);
            }
        }
    }

    int ok = 1;
    if (rank == 0) {
        long want = laps * size;
        ok = token == want;
        printf("ring: %d ranks, %ld laps, token %ld (expected %ld): %s\n", size, laps,
               token, want, ok ? "ok" : "WRONG");
        fflush(stdout);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 0;
}
