/* env_lazy_fabric: libfabric is loaded only when OFI is used.  Loading
 * Debian's libfabric 1.17 costs ~0.2 s (the PSM libraries it pulls in), so
 * fabmpi opens it with dlopen on first use.  With FABMPI_NET=ofi it must be
 * mapped after MPI_Init (and messages must flow); otherwise (a single-node
 * job, FABMPI_NET unset, auto or shm) it must never be mapped.  Before
 * MPI_Init it is never mapped: neither this program nor libfabmpi links it.
 * fabmpi-specific (reads FABMPI_NET); under another MPI it checks only the
 * traffic. */
#include "testutil.h"

/* 1 when a line of /proc/self/maps names libfabric; the line into line. */
static int fabric_mapped(char *line, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECKF(f != NULL, "cannot open /proc/self/maps");
    int found = 0;
    while (!found && fgets(line, (int)len, f))
        found = strstr(line, "libfabric") != NULL;
    fclose(f);
    line[found ? strcspn(line, "\n") : 0] = '\0';
    return found;
}

int main(int argc, char **argv)
{
    char line[4096];
#ifdef FABMPI
    const char *net = getenv("FABMPI_NET");
    int want = net && strcmp(net, "ofi") == 0;
    CHECKF(!fabric_mapped(line, sizeof line),
           "libfabric is mapped before MPI_Init, so something links it: %s", line);
#endif
    CHECK_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

    /* Traffic: a ring exchange and an allreduce. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_EQ(got, left);
    int sum = -1;
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(sum, size * (size - 1) / 2);

#ifdef FABMPI
    int mapped = fabric_mapped(line, sizeof line);
    if (want)
        CHECKF(mapped, "FABMPI_NET=ofi, yet libfabric is not mapped after MPI_Init");
    else
        CHECKF(!mapped,
               "libfabric is mapped after MPI_Init though FABMPI_NET=%s on one node never uses "
               "OFI (it costs ~0.2 s of startup): %s",
               net ? net : "(unset)", line);
#endif
    CHECK_MPI(MPI_Finalize());
    return 0;
}
