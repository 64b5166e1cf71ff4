/* latency — ping-pong between ranks 0 and 1 (osu_latency style), 1 B .. 4 MiB.
 * Value: one-way latency in microseconds (round trip / 2), median over
 * repetitions.  Ranks beyond 1 only join the timing reductions.  --vector
 * (8 B up): each rank sends its bytes as a vector of 8-byte blocks with
 * 8-byte holes and receives them contiguous. */
#include "bench.h"

#define MAX_SIZE (4L << 20)

struct ctx {
    int rank;
    int n;
    char *sbuf, *rbuf;
    MPI_Datatype sdt; /* what each sends: n chars, or one vector of n bytes */
    int scount;
};

static void pingpong(void *vc, long iters)
{
    struct ctx *c = vc;
    for (long i = 0; i < iters; i++) {
        if (c->rank == 0) {
            MPI_Send(c->sbuf, c->scount, c->sdt, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(c->rbuf, c->n, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (c->rank == 1) {
            MPI_Recv(c->rbuf, c->n, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(c->sbuf, c->scount, c->sdt, 0, 1, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    int vector = bench_take_flag(&argc, argv, "--vector");
    bench_opts o;
    bench_init(&argc, &argv, &o, 2);
    long max = bench_max(&o, MAX_SIZE);
    struct ctx c = {o.rank, 0, bench_alloc((size_t)max * 2), bench_alloc((size_t)max), MPI_CHAR, 0};
    bench_header(&o, vector ? "latency (vector send)" : "latency", "us");
    for (long s = vector ? 8 : 1; s <= max; s = bench_next_size(&o, s, max)) {
        c.n = (int)s;
        c.sdt = vector ? bench_vector_of(s) : MPI_CHAR;
        c.scount = vector ? 1 : c.n;
        long iters = bench_calibrate(&o, pingpong, &c, 4, 1000000);
        double t = bench_time(&o, pingpong, &c, iters);
        bench_line(&o, s, t / 2 * 1e6);
        if (vector)
            MPI_Type_free(&c.sdt);
    }
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}
