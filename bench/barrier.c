/* barrier — MPI_Barrier over MPI_COMM_WORLD (run with 4 ranks).  Prints one
 * line 'ranks value': value is microseconds per barrier on the slowest rank,
 * median over repetitions. */
#include "bench.h"

static void barrier(void *vc, long iters)
{
    (void)vc;
    for (long i = 0; i < iters; i++)
        MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_init(&argc, &argv, &o, 1);
    bench_header(&o, "barrier", "us");
    if (o.rank == 0)
        printf("# size column = number of ranks\n");
    long iters = bench_calibrate(&o, barrier, NULL, 3, 1000000);
    double t = bench_time(&o, barrier, NULL, iters);
    bench_line(&o, o.size, t * 1e6);
    MPI_Finalize();
    return 0;
}
