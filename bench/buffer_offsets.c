/* buffer_offsets — what the placement of a program's buffers costs:
 * the same operations with both buffers page aligned (OSU's choice), and
 * with the receive or result buffer 16 or 32 bytes into a page (where
 * malloc puts them).  glibc's copies of 2 KiB-1 MiB on AMD Zen 3 run 20x
 * slower when the destination is 1-31 bytes past the source modulo 4 KiB
 * (src/util/copy.h): a library copying through fixed, aligned buffers
 * meets that distance on every call for some user offsets, or on one
 * message in 64 for others.
 *   pingpong   MPI_Send/MPI_Recv one-way latency, us
 *   allreduce  MPI_Allreduce(MPI_SUM) of doubles, us
 *   window     64 MPI_Isend / MPI_Irecv then MPI_Waitall, us per message
 * Output, one line per row:  <op> <bytes> <offset> <us>  (offset: bytes
 * into the page of the receive / result buffer; the send buffer stays
 * page aligned). */
#include "bench.h"

enum { PINGPONG, ALLREDUCE, WINDOW, NOPS };
static const char *names[] = {"pingpong", "allreduce", "window"};
enum { WIN = 64 };

struct ctx {
    int op, rank;
    long bytes;
    char *sbuf, *rbuf;
    MPI_Request rq[WIN];
};

static void run(void *vc, long iters)
{
    struct ctx *c = vc;
    int n = (int)c->bytes;
    for (long i = 0; i < iters; i++) {
        switch (c->op) {
        case PINGPONG:
            if (c->rank == 0) {
                MPI_Send(c->sbuf, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(c->rbuf, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (c->rank == 1) {
                MPI_Recv(c->rbuf, n, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(c->sbuf, n, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
            break;
        case ALLREDUCE:
            MPI_Allreduce(c->sbuf, c->rbuf, n / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            break;
        case WINDOW:
            if (c->rank > 1)
                break;
            for (int k = 0; k < WIN; k++) {
                if (c->rank == 0)
                    MPI_Isend(c->sbuf, n, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &c->rq[k]);
                else
                    MPI_Irecv(c->rbuf, n, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &c->rq[k]);
            }
            MPI_Waitall(WIN, c->rq, MPI_STATUSES_IGNORE);
            if (c->rank == 0) /* the next window starts once this one has arrived */
                MPI_Recv(NULL, 0, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Send(NULL, 0, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
            break;
        }
    }
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_init(&argc, &argv, &o, 2);
    const long most = 256L << 10;
    const int offsets[] = {0, 16, 32};
    struct {
        int op;
        long bytes;
    } rows[] = {{PINGPONG, 4096}, {PINGPONG, 16384}, {PINGPONG, 256L << 10},
                {ALLREDUCE, 4096}, {ALLREDUCE, 65536}, {WINDOW, 8192}};
    struct ctx c = {.rank = o.rank, .sbuf = bench_alloc((size_t)most),
                    .rbuf = bench_alloc((size_t)most + 4096)};
    char *rbase = c.rbuf;
    for (size_t i = 0; i < (size_t)most / 8; i++)
        ((double *)c.sbuf)[i] = (double)(o.rank + 1);
    if (o.rank == 0)
        printf("# buffer_offsets: %d ranks; op bytes offset us\n", o.size);
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++)
        for (size_t k = 0; k < sizeof offsets / sizeof *offsets; k++) {
            c.op = rows[r].op;
            c.bytes = rows[r].bytes;
            c.rbuf = rbase + offsets[k];
            long iters = bench_calibrate(&o, run, &c, 3, 100000);
            double t = bench_time(&o, run, &c, iters);
            if (c.op == PINGPONG)
                t /= 2;
            else if (c.op == WINDOW)
                t /= WIN;
            if (o.rank == 0)
                printf("%s %ld %d %.3f\n", names[c.op], c.bytes, offsets[k], t * 1e6);
        }
    free(c.sbuf);
    free(rbase);
    MPI_Finalize();
    return 0;
}
