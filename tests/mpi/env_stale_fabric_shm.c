/* env_stale_fabric_shm: a libfabric shm region left by a dead process that
 * had this rank's pid must not stop MPI_Init.
 *
 * libfabric's shm provider keeps an endpoint in /dev/shm/<pid>:<uid>:<index>.
 * A rank killed with SIGKILL leaves its file behind; a later process with the
 * same pid then failed in fi_enable with EBUSY, because shm saw the recorded
 * pid alive (itself).  Each rank here forges such a leftover under its own pid
 * (a zeroed file, as a dead process's half-torn region would look) before
 * MPI_Init, then exchanges messages over FABMPI_NET=ofi.  Run it with the shm
 * provider.  Afterwards the forged names must be gone (the test runner also
 * fails the case if any libfabric shm region outlives the job). */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define FORGED 2 /* endpoint indexes 0 (messages) and 1 (rendezvous reads) */

int main(int argc, char **argv)
{
    char name[FORGED][64];
    for (int i = 0; i < FORGED; i++) {
        snprintf(name[i], sizeof name[i], "/%ld:%ld:%d", (long)getpid(), (long)getuid(), i);
        int fd = shm_open(name[i], O_RDWR | O_CREAT | O_EXCL, 0600);
        CHECKF(fd >= 0, "cannot forge /dev/shm%s: %s", name[i], strerror(errno));
        CHECKF(ftruncate(fd, 4096) == 0, "cannot size /dev/shm%s: %s", name[i], strerror(errno));
        close(fd);
    }
    CHECK_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

    /* Traffic both ways round a ring, eager and large, then an allreduce. */
    enum { BIG = 1 << 18 };
    static int out[BIG], in[BIG];
    for (int i = 0; i < BIG; i++)
        out[i] = rank * BIG + i;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int len = 1; len <= BIG; len *= 64) {
        memset(in, 0xff, sizeof in);
        CHECK_MPI(MPI_Sendrecv(out, len, MPI_INT, right, len, in, len, MPI_INT, left, len,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < len; i++)
            CHECKF(in[i] == left * BIG + i, "len %d: in[%d] = %d, want %d", len, i, in[i],
                   left * BIG + i);
    }
    int sum = 0;
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECKF(sum == size * (size - 1) / 2, "allreduce sum %d, want %d", sum, size * (size - 1) / 2);
    CHECK_MPI(MPI_Finalize());

    /* The forged files were replaced by live regions, which fi_close unlinked. */
    for (int i = 0; i < FORGED; i++) {
        struct stat st;
        char path[80];
        snprintf(path, sizeof path, "/dev/shm%s", name[i]);
        CHECKF(stat(path, &st) != 0, "%s still exists after MPI_Finalize", path);
    }
    if (rank == 0)
        printf("env_stale_fabric_shm: %d ranks started over forged leftovers\n", size);
    return 0;
}
