/* fault_prog.c — one MPI program, many ways to fail; driven by
 * tests/run-fault-tests.  Usage: fault_prog MODE [ARGS...] [marker=...]
 * (the trailing marker only makes the processes of one case findable).
 *
 *   init                     MPI_Init, print "init ok rank R of N", MPI_Finalize
 *   late-init SECONDS        sleep, then the same as init
 *   noinit                   never touches MPI: print a line, exit 0
 *   abort RANK CODE          RANK calls MPI_Abort(CODE); the others sleep forever
 *   selfkill RANK            RANK kills itself with SIGKILL; the others sleep forever
 *   exit RANK CODE           RANK exits CODE without finalizing; the others sleep forever
 *   exit-after-finalize RANK CODE   all finalize; then RANK exits CODE
 *   sleep                    print "ready R", then sleep forever
 *   sleep-noint              the same, ignoring SIGINT and SIGTERM (only SIGKILL ends it)
 *   sleep-linked             the same as sleep, holding a linked segment under the job's
 *                            name, as a rank killed inside MPI_Win_allocate would
 *   deadlock                 ranks 0 and 1 each MPI_Recv(count 4, tag 7) from the
 *                            other; every other rank waits in MPI_Barrier */
#include <fabmpi/am.h>
#include <mpi.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void sleep_forever(void)
{
    for (;;)
        sleep(1);
}

static int arg(int argc, char **argv, int i)
{
    if (i >= argc) {
        fprintf(stderr, "fault_prog %s: missing argument %d\n", argv[1], i - 1);
        exit(2);
    }
    return atoi(argv[i]);
}

static void on_flood_request(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a,
                             unsigned na)
{
    (void)buf, (void)n;
    fab_am_reply_short(t, 2, 0, na, a);
}

static void on_flood_reply(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a,
                           unsigned na)
{
    (void)t, (void)buf, (void)n, (void)a, (void)na;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "init";
    if (!strcmp(mode, "noinit")) {
        printf("no MPI here\n");
        return 0;
    }
    if (!strcmp(mode, "late-init")) {
        sleep((unsigned)arg(argc, argv, 2));
        mode = "init";
    }
    int rc = MPI_Init(&argc, &argv);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "fault_prog: MPI_Init returned %d\n", rc);
        return 1;
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strcmp(mode, "init")) {
        printf("init ok rank %d of %d\n", rank, size);
    } else if (!strcmp(mode, "abort")) {
        if (rank == arg(argc, argv, 2))
            MPI_Abort(MPI_COMM_WORLD, arg(argc, argv, 3));
        sleep_forever();
    } else if (!strcmp(mode, "am-flood-kill")) {
        /* Every rank floods every other with active-message requests whose
         * handlers reply; rank argv[2] dies by SIGKILL after argv[3] of
         * them, while the others wait for its credits. */
        fab_am_register(1, on_flood_request, FAB_AM_REQUEST, "flood");
        fab_am_register(2, on_flood_reply, FAB_AM_REPLY, "flood reply");
        MPI_Barrier(MPI_COMM_WORLD);
        for (long i = 0;; i++) {
            if (rank == arg(argc, argv, 2) && i == arg(argc, argv, 3))
                raise(SIGKILL);
            fab_am_arg_t a = (fab_am_arg_t)i;
            fab_am_request_short((int)((rank + 1 + i % (size - 1)) % size), 1, 0, 1, &a);
        }
    } else if (!strcmp(mode, "selfkill")) {
        if (rank == arg(argc, argv, 2))
            raise(SIGKILL);
        sleep_forever();
    } else if (!strcmp(mode, "segv")) {
        if (rank == arg(argc, argv, 2)) {
            /* A real fault, not raise(): handlers see it as a crash.  Not
             * NULL itself, which UBSan's null check would stop first. */
            volatile uintptr_t nowhere = 16; /* volatile: the compiler cannot see it */
            *(volatile int *)nowhere = 1;
        }
        sleep_forever();
    } else if (!strcmp(mode, "exit")) {
        if (rank == arg(argc, argv, 2))
            exit(arg(argc, argv, 3));
        sleep_forever();
    } else if (!strcmp(mode, "exit-after-finalize")) {
        MPI_Finalize();
        return rank == arg(argc, argv, 2) ? arg(argc, argv, 3) : 0;
    } else if (!strcmp(mode, "deadlock")) {
        int buf[4];
        if (rank < 2 && size >= 2)
            MPI_Recv(buf, 4, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Barrier(MPI_COMM_WORLD);
    } else if (!strcmp(mode, "sleep") || !strcmp(mode, "sleep-noint") ||
               !strcmp(mode, "sleep-linked")) {
        if (!strcmp(mode, "sleep-linked")) {
            /* The name scheme of util/shm_segment.c: /fabmpi-<jobid>-<what><world rank>. */
            char name[128];
            const char *job = getenv("FABMPI_JOBID");
            snprintf(name, sizeof name, "/fabmpi-%s-w999-%d", job ? job : "none", rank);
            int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
            if (fd < 0) {
                perror("fault_prog: shm_open");
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
            close(fd);
        }
        if (!strcmp(mode, "sleep-noint")) {
            signal(SIGINT, SIG_IGN);
            signal(SIGTERM, SIG_IGN);
        }
        printf("ready %d\n", rank);
        fflush(stdout);
        sleep_forever();
    } else {
        fprintf(stderr, "fault_prog: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
