/* coll_rma_region: the one-sided collectives' caches are regions of the
 * active-message layer (src/am/region.h), one per communicator, set up on
 * its first one-sided collective.  Checked here:
 *   - the caches run: with FABMPI_COLL_VERBOSE=1 world rank 0 sees "rma
 *     over shm" (or "over ofi" under FABMPI_NET=ofi) for each new
 *     communicator's first MPI_Allreduce;
 *   - they cost no file descriptor once set up: 40 communicators, each
 *     with its cache, leave /proc/self/fd as it was (a node peer's region
 *     is a memfd its owner closes once every member mapped it);
 *   - and no name anywhere: /dev/shm holds no /fabmpi-<job>-c* entry;
 *   - every sum is exact, and freeing the communicators in any order
 *     frees their caches (valgrind and ASan runs see the unmaps).
 * Under another MPI (no verbose lines) only the values and descriptors
 * are checked. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <dirent.h>
#include <string.h>

#include "verbose_log.h"

enum { NCOMM = 40 };

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Entries of /dev/shm that a named cache segment of this job would have. */
static int cache_names(void)
{
    const char *job = getenv("FABMPI_JOBID");
    if (!job)
        return 0;
    char prefix[128];
    snprintf(prefix, sizeof prefix, "fabmpi-%s-c", job);
    DIR *d = opendir("/dev/shm");
    if (!d)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *verbose = getenv("FABMPI_COLL_VERBOSE");
    const char *net = getenv("FABMPI_NET");
    const char *via = net && strcmp(net, "ofi") == 0 ? "rma over ofi" : "rma over shm";
    vl_start(rank == 0 && size > 1 && verbose && strcmp(verbose, "1") == 0);

    /* A first communicator and cache, so whatever the library opens once
     * per process (the one-sided endpoint over OFI) is in the baseline. */
    MPI_Comm warm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &warm));
    int one = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, warm));
    CHECK(sum == size);
    CHECK_MPI(MPI_Comm_free(&warm));
    vl_expect("MPI_Allreduce", via, "the warm-up communicator's first allreduce");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const int fds = count_fds();

    MPI_Comm comm[NCOMM];
    for (int i = 0; i < NCOMM; i++) {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm[i]));
        int v = rank + i, got = -1;
        CHECK_MPI(MPI_Allreduce(&v, &got, 1, MPI_INT, MPI_SUM, comm[i]));
        CHECK(got == size * (size - 1) / 2 + size * i);
        vl_expect("MPI_Allreduce", via, "a new communicator's first allreduce");
    }
    /* Every member is past every setup: nobody still maps a peer's region. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const int fds_now = count_fds();
    if (fds_now != fds) {
        fprintf(stderr, "rank %d: %d descriptors open after %d caches, %d before\n", rank,
                fds_now, NCOMM, fds);
        CHECK(fds_now == fds);
    }
    CHECK(cache_names() == 0);
    /* Free in an order unlike creation: odd ones first, then the rest backwards. */
    for (int i = 1; i < NCOMM; i += 2)
        CHECK_MPI(MPI_Comm_free(&comm[i]));
    for (int i = NCOMM - 2; i >= 0; i -= 2)
        CHECK_MPI(MPI_Comm_free(&comm[i]));
    CHECK(count_fds() == fds);
    vl_stop();
    MPI_Finalize();
    if (rank == 0)
        printf("coll_rma_region: %d caches, no descriptor or name left\n", NCOMM);
    return 0;
}
