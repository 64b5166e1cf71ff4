/* bandwidth — unidirectional streaming bandwidth from rank 0 to rank 1
 * (osu_bw style), 1 B .. 4 MiB: each iteration rank 0 posts a window of 64
 * MPI_Isend and waits for them all; rank 1 posts 64 MPI_Irecv, waits, and
 * returns a 4-byte ack.  Value: MB/s (10^6 bytes/s), median over
 * repetitions.  As in OSU, the 64 messages of a window share one buffer. */
#include "bench.h"

#define MAX_SIZE (4L << 20)
#define WINDOW 64

struct ctx {
    int rank;
    int n;
    char *buf;
    char ack[4];
    MPI_Request req[WINDOW];
};

static void stream(void *vc, long iters)
{
    struct ctx *c = vc;
    for (long i = 0; i < iters; i++) {
        if (c->rank == 0) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(c->buf, c->n, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &c->req[w]);
            MPI_Waitall(WINDOW, c->req, MPI_STATUSES_IGNORE);
            MPI_Recv(c->ack, 4, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (c->rank == 1) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(c->buf, c->n, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &c->req[w]);
            MPI_Waitall(WINDOW, c->req, MPI_STATUSES_IGNORE);
            MPI_Send(c->ack, 4, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_init(&argc, &argv, &o, 2);
    long max = bench_max(&o, MAX_SIZE);
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.rank = o.rank;
    c.buf = bench_alloc((size_t)max);
    bench_header(&o, "bandwidth", "MB/s");
    for (long s = 1; s <= max; s = bench_next_size(&o, s, max)) {
        c.n = (int)s;
        long iters = bench_calibrate(&o, stream, &c, 2, 100000);
        double t = bench_time(&o, stream, &c, iters);
        bench_line(&o, s, (double)s * WINDOW / t / 1e6);
    }
    free(c.buf);
    MPI_Finalize();
    return 0;
}
