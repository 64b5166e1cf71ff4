/* noncontig — bandwidth of a 4 MiB message whose data is a vector of
 * BLOCK-byte blocks with BLOCK-byte holes, for BLOCK = 8 B .. 64 KiB.
 * Each iteration rank 0 sends the vector to rank 1, which receives it into
 * a contiguous buffer and returns a 0-byte ack; with --recv-side the roles
 * of the layouts swap (contiguous send, vector receive).  Value: MB/s
 * (10^6 bytes of data per second), median over repetitions.  The "size"
 * column is the block size. */
#include "bench.h"

#define TOTAL (4L << 20)
#define MAX_BLOCK (64L << 10)

struct ctx {
    int rank, recv_side;
    char *vbuf, *cbuf;
    MPI_Datatype vec;
};

static void transfer(void *vc, long iters)
{
    struct ctx *c = vc;
    for (long i = 0; i < iters; i++) {
        if (c->rank == 0) {
            if (c->recv_side)
                MPI_Send(c->cbuf, (int)TOTAL, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            else
                MPI_Send(c->vbuf, 1, c->vec, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (c->rank == 1) {
            if (c->recv_side)
                MPI_Recv(c->vbuf, 1, c->vec, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Recv(c->cbuf, (int)TOTAL, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    /* Our own option first; the rest are bench.h's. */
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.recv_side = bench_take_flag(&argc, argv, "--recv-side");
    bench_opts o;
    bench_init(&argc, &argv, &o, 2);
    c.rank = o.rank;
    c.vbuf = bench_alloc((size_t)TOTAL * 2);
    c.cbuf = bench_alloc((size_t)TOTAL);
    bench_header(&o, c.recv_side ? "noncontig (vector receive)" : "noncontig (vector send)",
                 "MB/s");
    for (long b = 8; b <= bench_max(&o, MAX_BLOCK); b = bench_next_size(&o, b, MAX_BLOCK)) {
        MPI_Type_vector((int)(TOTAL / b), (int)b, (int)(2 * b), MPI_BYTE, &c.vec);
        MPI_Type_commit(&c.vec);
        long iters = bench_calibrate(&o, transfer, &c, 2, 100000);
        double t = bench_time(&o, transfer, &c, iters);
        bench_line(&o, b, (double)TOTAL / t / 1e6);
        MPI_Type_free(&c.vec);
    }
    free(c.vbuf);
    free(c.cbuf);
    MPI_Finalize();
    return 0;
}
