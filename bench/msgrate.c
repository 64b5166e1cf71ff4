/* msgrate — message rate from rank 0 to rank 1, 8 B .. 4 KiB: each
 * iteration is a window of 64 MPI_Isend (rank 0) / MPI_Irecv (rank 1)
 * completed with MPI_Waitall, then a 4-byte ack.  Value: millions of
 * messages per second, median over repetitions.  --vector: rank 0 sends
 * its bytes as a vector of 8-byte blocks with 8-byte holes (a packed,
 * non-contiguous message); rank 1 receives them contiguous. */
#include "bench.h"

#define MIN_SIZE 8L
#define MAX_SIZE 4096L
#define WINDOW 64

struct ctx {
    int rank;
    int n;
    char *buf;
    MPI_Datatype sdt; /* what rank 0 sends: n chars, or one vector of n bytes */
    int scount;
    char ack[4];
    MPI_Request req[WINDOW];
};

static void burst(void *vc, long iters)
{
    struct ctx *c = vc;
    for (long i = 0; i < iters; i++) {
        if (c->rank == 0) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(c->buf, c->scount, c->sdt, 1, 5, MPI_COMM_WORLD, &c->req[w]);
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
    int vector = bench_take_flag(&argc, argv, "--vector");
    bench_opts o;
    bench_init(&argc, &argv, &o, 2);
    long max = bench_max(&o, MAX_SIZE);
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.rank = o.rank;
    c.buf = bench_alloc((size_t)max * 2);
    bench_header(&o, vector ? "msgrate (vector send)" : "msgrate", "Mmsg/s");
    for (long s = MIN_SIZE; s <= max; s = bench_next_size(&o, s, max)) {
        c.n = (int)s;
        c.sdt = vector ? bench_vector_of(s) : MPI_CHAR;
        c.scount = vector ? 1 : c.n;
        long iters = bench_calibrate(&o, burst, &c, 2, 1000000);
        double t = bench_time(&o, burst, &c, iters);
        bench_line(&o, s, WINDOW / t / 1e6);
        if (vector)
            MPI_Type_free(&c.sdt);
    }
    free(c.buf);
    MPI_Finalize();
    return 0;
}
