/* allreduce_persistent — what persistence buys an 8-byte MPI_Allreduce:
 * the blocking call, MPI_Iallreduce + MPI_Wait, and MPI_Allreduce_init
 * once then MPI_Start + MPI_Wait per iteration (MPI-4.0; left out where
 * the library is older).  Microseconds per operation on the slowest rank,
 * median over repetitions.  Output: <form> <us>. */
#include "bench.h"

struct ctx {
    int form; /* 0 blocking, 1 nonblocking, 2 persistent */
    double in, out;
    MPI_Request persistent;
};

static void run(void *vc, long iters)
{
    struct ctx *c = vc;
    for (long i = 0; i < iters; i++) {
        if (c->form == 0) {
            MPI_Allreduce(&c->in, &c->out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        } else if (c->form == 1) {
            MPI_Request rq;
            MPI_Iallreduce(&c->in, &c->out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else {
            MPI_Start(&c->persistent);
            MPI_Wait(&c->persistent, MPI_STATUS_IGNORE);
        }
    }
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_init(&argc, &argv, &o, 2);
    struct ctx c = {.in = o.rank + 1};
    static const char *names[] = {"blocking", "nonblocking", "persistent"};
    int forms = 2;
#if MPI_VERSION >= 4 || defined(FABMPI) /* fabmpi: MPI-3.1 plus these */
    MPI_Allreduce_init(&c.in, &c.out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &c.persistent);
    forms = 3;
#endif
    if (o.rank == 0)
        printf("# allreduce_persistent: %d ranks, 8 B, us per operation\n", o.size);
    for (c.form = 0; c.form < forms; c.form++) {
        c.out = 0;
        run(&c, 1);
        if (c.out != (double)o.size * (o.size + 1) / 2)
            bench_die("allreduce_persistent: wrong sum");
        long iters = bench_calibrate(&o, run, &c, 3, 1000000);
        double t = bench_time(&o, run, &c, iters);
        if (o.rank == 0)
            printf("%s %.3f\n", names[c.form], t * 1e6);
    }
#if MPI_VERSION >= 4 || defined(FABMPI) /* fabmpi: MPI-3.1 plus these */
    MPI_Request_free(&c.persistent);
#endif
    MPI_Finalize();
    return 0;
}
