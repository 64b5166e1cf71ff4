/* matching.h — time per match versus queue depth (standard MPI only).
 *
 * Ranks 0 and 1 ping-pong 8-byte messages while each keeps `depth` receives
 * posted that never match them:
 *   MATCH_OTHER_SOURCE  decoys from another source (the rank itself): an
 *                       engine with per-source queues stays flat;
 *   MATCH_SAME_SOURCE   decoys from the partner with other tags: every match
 *                       walks them (linear in any MPI);
 *   MATCH_WILDCARD      decoys are MPI_ANY_SOURCE receives with other tags:
 *                       every arrival checks them (linear in any MPI).
 * Value: one-way latency in microseconds at each depth (1 .. 4096; --quick
 * stops at 256); its growth over depth 1 is the matching cost.  Decoys are
 * cancelled at the end. */
#include "bench.h"

enum { MATCH_OTHER_SOURCE, MATCH_SAME_SOURCE, MATCH_WILDCARD };

struct match_ctx {
    int rank;
    long msg_in, msg_out;
};

static void match_pingpong(void *vc, long iters)
{
    struct match_ctx *c = vc;
    for (long i = 0; i < iters; i++) {
        if (c->rank == 0) {
            MPI_Send(&c->msg_out, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&c->msg_in, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (c->rank == 1) {
            MPI_Recv(&c->msg_in, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&c->msg_out, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD);
        }
    }
}

static int match_main(int argc, char **argv, const char *name, int mode)
{
    bench_opts o;
    bench_init(&argc, &argv, &o, 2);
    long maxdepth = o.quick ? 256 : 4096;
    MPI_Request *decoys = malloc((size_t)maxdepth * sizeof *decoys);
    long *sink = malloc((size_t)maxdepth * sizeof *sink);
    int partner = o.rank == 0 ? 1 : 0;
    long posted = 0;
    struct match_ctx c = {o.rank, 0, 42};
    bench_header(&o, name, "us");
    for (long depth = 1; depth <= maxdepth; depth *= 4) {
        /* Grow the decoy queue to `depth` on the two ping-pong ranks. */
        for (; o.rank < 2 && posted < depth; posted++) {
            int src = mode == MATCH_OTHER_SOURCE ? o.rank
                      : mode == MATCH_SAME_SOURCE ? partner
                                                  : MPI_ANY_SOURCE;
            MPI_Irecv(&sink[posted], 1, MPI_LONG, src, 1000 + (int)posted, MPI_COMM_WORLD,
                      &decoys[posted]);
        }
        long iters = bench_calibrate(&o, match_pingpong, &c, 4, 1000000);
        double t = bench_time(&o, match_pingpong, &c, iters);
        bench_line(&o, depth, t / 2 * 1e6);
    }
    for (long i = 0; i < posted; i++) {
        MPI_Cancel(&decoys[i]);
        MPI_Wait(&decoys[i], MPI_STATUS_IGNORE);
    }
    free(decoys);
    free(sink);
    MPI_Finalize();
    return 0;
}
