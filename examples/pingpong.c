/* pingpong — ping-pong latency between ranks 0 and 1 for sizes 8 B .. 1 MiB.
 * Other ranks only take part in the closing barrier.  Rank 0 prints a table:
 * size, one-way latency (us, best of 5 timed runs) and bandwidth (MB/s,
 * 1 MB = 10^6 bytes).  Every received message is checked. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE (1 << 20)

static int iterations(int size)
{
    if (size <= 4096)
        return 2000;
    int n = (int)(2000L * 4096 / size);
    return n < 50 ? 50 : n;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong: needs at least 2 ranks, got %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    unsigned char *buf = malloc(MAX_SIZE);
    if (!buf) {
        fprintf(stderr, "pingpong: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int bad = 0;

    if (rank == 0)
        printf("%10s %12s %12s\n", "size(B)", "latency(us)", "bw(MB/s)");
    static const int sizes[] = {8, 64, 512, 4096, 32768, 262144, MAX_SIZE};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        int iters = iterations(n);
        double best = 1e30;
        for (int run = 0; run < 6; run++) {   /* run 0 is the warm-up */
            memset(buf, (unsigned char)(run + 1), (size_t)n);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (rank == 0) {
                for (int i = 0; i < iters; i++) {
                    MPI_Send(buf, n, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
                    MPI_Recv(buf, n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
            } else if (rank == 1) {
                for (int i = 0; i < iters; i++) {
                    MPI_Recv(buf, n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, n, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
                }
            }
            double t = (MPI_Wtime() - t0) / (2.0 * iters);
            if (rank <= 1 && (buf[0] != (unsigned char)(run + 1) ||
                              buf[n - 1] != (unsigned char)(run + 1)))
                bad = 1;
            if (run > 0 && t < best)
                best = t;
        }
        if (rank == 0)
            printf("%10d %12.2f %12.1f\n", n, best * 1e6, n / best / 1e6);
    }
    fflush(stdout);

    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && anybad)
        fprintf(stderr, "pingpong: received data did not match what was sent\n");
    free(buf);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
