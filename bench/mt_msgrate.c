/* mt_msgrate — multi-threaded message rate at MPI_THREAD_MULTIPLE: rank 0's
 * T threads each send 8-byte messages to their partner thread on rank 1, in
 * windows of 64 MPI_Isend / MPI_Irecv completed by MPI_Waitall plus a
 * 4-byte ack.  Every thread on its own communicator (own) or all on
 * MPI_COMM_WORLD with one tag per thread (world).  Value: millions of
 * messages per second summed over the threads, median of 5 repetitions of
 * ITERS windows each.  Standard MPI and pthreads only, so the same source
 * builds with Open MPI's and MPICH's mpicc.  With "serialized" as third
 * argument it asks for MPI_THREAD_SERIALIZED and runs one thread: the
 * same loop without the MPI_THREAD_MULTIPLE lock, for comparison.
 *   mpiexec -n 2 mt_msgrate [max_threads (4)] [iters (2000)] [serialized] */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64
#define REPS 5
#define MAXT 16

static int rank, iters;
static MPI_Comm comms[MAXT];
static pthread_barrier_t bar;
static int use_own;

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm comm = use_own ? comms[t] : MPI_COMM_WORLD;
    char buf[8] = {0}, ack[4] = {0};
    MPI_Request req[WINDOW];
    MPI_Status st[WINDOW]; /* not MPI_STATUSES_IGNORE: gcc 12 warns on MPICH's prototype */
    pthread_barrier_wait(&bar);
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(buf, 8, MPI_CHAR, 1, t, comm, &req[w]);
            MPI_Waitall(WINDOW, req, st);
            MPI_Recv(ack, 4, MPI_CHAR, 1, MAXT + t, comm, MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(buf, 8, MPI_CHAR, 0, t, comm, &req[w]);
            MPI_Waitall(WINDOW, req, st);
            MPI_Send(ack, 4, MPI_CHAR, 0, MAXT + t, comm);
        }
    }
    pthread_barrier_wait(&bar);
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int provided, size;
    int serialized = argc > 3 && strcmp(argv[3], "serialized") == 0;
    int level = serialized ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE;
    MPI_Init_thread(&argc, &argv, level, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < level || size != 2) {
        if (rank == 0)
            fprintf(stderr, "mt_msgrate: needs 2 ranks and MPI_THREAD_MULTIPLE (got %d)\n",
                    provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int maxt = argc > 1 ? atoi(argv[1]) : 4;
    iters = argc > 2 ? atoi(argv[2]) : 2000;
    if (maxt < 1 || maxt > MAXT || serialized)
        maxt = serialized ? 1 : 4;
    for (int t = 0; t < maxt; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    if (rank == 0)
        printf("# mt_msgrate (%s): 8 B, window %d, %d windows per thread; Mmsg/s (all "
               "threads), median of %d\n# threads comm Mmsg/s\n",
               serialized ? "MPI_THREAD_SERIALIZED" : "MPI_THREAD_MULTIPLE", WINDOW, iters, REPS);
    for (use_own = 0; use_own <= 1; use_own++)
        for (int nt = 1; nt <= maxt; nt *= 2) {
            double rate[REPS];
            for (int r = 0; r < REPS; r++) {
                pthread_t th[MAXT];
                pthread_barrier_init(&bar, NULL, (unsigned)nt + 1);
                for (int t = 0; t < nt; t++)
                    pthread_create(&th[t], NULL, worker, (void *)(long)t);
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                pthread_barrier_wait(&bar); /* start */
                pthread_barrier_wait(&bar); /* all done */
                double el = MPI_Wtime() - t0;
                for (int t = 0; t < nt; t++)
                    pthread_join(th[t], NULL);
                pthread_barrier_destroy(&bar);
                rate[r] = (double)nt * iters * WINDOW / el / 1e6;
            }
            qsort(rate, REPS, sizeof rate[0], cmp);
            if (rank == 0)
                printf("%d %s %.3f\n", nt, use_own ? "own" : "world", rate[REPS / 2]);
            fflush(stdout);
        }
    for (int t = 0; t < maxt; t++)
        MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return 0;
}
