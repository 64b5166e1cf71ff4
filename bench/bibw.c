/* bibw — bidirectional bandwidth between ranks 0 and 1 (osu_bibw style),
 * 1 B .. 4 MiB: each iteration both ranks post a window of 64 MPI_Irecv and
 * 64 MPI_Isend to each other and wait for all 128.  Value: total MB/s in
 * both directions (10^6 bytes/s), median over repetitions.  The messages of
 * a window share one send and one receive buffer per rank, as in OSU. */
#include "bench.h"

#define MAX_SIZE (4L << 20)
#define WINDOW 64

struct ctx {
    int rank;
    int n;
    char *sbuf, *rbuf;
    MPI_Request req[2 * WINDOW];
};

static void exchange(void *vc, long iters)
{
    struct ctx *c = vc;
    if (c->rank > 1)
        return;
    int peer = 1 - c->rank;
    for (long i = 0; i < iters; i++) {
        for (int w = 0; w < WINDOW; w++)
            MPI_Irecv(c->rbuf, c->n, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &c->req[w]);
        for (int w = 0; w < WINDOW; w++)
            MPI_Isend(c->sbuf, c->n, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &c->req[WINDOW + w]);
        MPI_Waitall(2 * WINDOW, c->req, MPI_STATUSES_IGNORE);
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
    c.sbuf = bench_alloc((size_t)max);
    c.rbuf = bench_alloc((size_t)max);
    bench_header(&o, "bibw", "MB/s");
    for (long s = 1; s <= max; s = bench_next_size(&o, s, max)) {
        c.n = (int)s;
        long iters = bench_calibrate(&o, exchange, &c, 2, 100000);
        double t = bench_time(&o, exchange, &c, iters);
        bench_line(&o, s, 2.0 * (double)s * WINDOW / t / 1e6);
    }
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}
