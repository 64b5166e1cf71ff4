/* msgrate — message rate from rank 0 to rank 1, 8 B .. 4 KiB: each
 * iteration is a window of 64 MPI_Isend (rank 0) / MPI_Irecv (rank 1)
 * completed with MPI_Waitall, then a 4-byte ack.  Value: millions of
 * messages per second, median over repetitions. */
#include "bench.h"

#define MIN_SIZE 8L
#define MAX_SIZE 4096L
#define WINDOW 64

struct ctx {
    int rank;
    int n;
    char *buf;
    char ack[4];
    MPI_Request req[WINDOW];
};

static void burst(void *vc, long iters)
{
    struct ctx *c = vc;
    for (long i = 0; i < iters; i++) {
        if (c->rank == 0) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(c->buf, c->n, MPI_CHAR, 1, 5, MPI_COMM_WORLD, &c->req[w]);
            MPI_Waitall(WINDOW, c->req, MPI_STATUSES_IGNORE);
            MPI_Recv(c->ack, 4, MPI_CHAR, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (c->rank == 1) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(c->buf, c->n, MPI_CHAR, 0, 5, MPI_COMM_WORLD, &c->req[w]);
            MPI_Waitall(WINDOW, c->req, MPI_STATUSES_IGNORE);
            MPI_Send(c->ack, 4, MPI_CHAR, 0, 6, MPI_COMM_WORLD);
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
    bench_header(&o, "msgrate", "Mmsg/s");
    for (long s = MIN_SIZE; s <= max; s = bench_next_size(&o, s, max)) {
        c.n = (int)s;
        long iters = bench_calibrate(&o, burst, &c, 2, 1000000);
        double t = bench_time(&o, burst, &c, iters);
        bench_line(&o, s, WINDOW / t / 1e6);
    }
    free(c.buf);
    MPI_Finalize();
    return 0;
}
