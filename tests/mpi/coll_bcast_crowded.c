/* coll_bcast_crowded: MPI_Bcast on a crowded node (ranks outnumbering
 * CPUs; FABMPI_YIELD=always makes any node count as one) goes one-sided
 * through the collective cache once it is larger than the node sends
 * eagerly (an eighth of a shm ring) and fits the cache's largest area, and
 * two-sided otherwise (src/coll/rma/select.c, crowded_bcast_wins):
 *   - sizes on both sides of each boundary: the eager size, one byte
 *     more, an odd size between, the largest area and one byte more, as
 *     bytes and as ints;
 *   - from every root, each payload checked byte for byte on every rank;
 *   - with FABMPI_COLL_VERBOSE=1 world rank 0 checks which algorithm ran:
 *     FABMPI_YIELD=always expects the rule above, =never (not crowded)
 *     expects two-sided at every one of these sizes.
 * Under another MPI only the payloads are checked. */
#include <string.h>

#include "verbose_log.h"

static int expect = -1; /* 1: crowded rule; 0: always two-sided; -1: not checked */

static void one(size_t bytes, MPI_Datatype dt, size_t limit, size_t area, unsigned salt)
{
    int rank, size, unit;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_size(dt, &unit);
    const int count = (int)(bytes / (size_t)unit);
    unsigned char *buf = tu_malloc(bytes + 64);
    char what[96];
    for (int root = 0; root < size; root++) {
        const unsigned seed = salt * 131u + (unsigned)root;
        if (rank == root)
            tu_fill(buf, bytes, seed);
        else
            memset(buf, 0x5a, bytes);
        memset(buf + bytes, 0xa5, 64);
        CHECK_MPI(MPI_Bcast(buf, count, dt, root, MPI_COMM_WORLD));
        CHECK_PATTERN(buf, bytes, seed);
        for (int i = 0; i < 64; i++)
            CHECKF(buf[bytes + i] == 0xa5, "bcast of %zu bytes wrote past its end (byte %d)",
                   bytes, i);
        snprintf(what, sizeof what, "MPI_Bcast of %zu bytes from root %d", bytes, root);
        if (expect >= 0)
            vl_expect("MPI_Bcast",
                      expect && bytes > limit && bytes <= area ? "rma over shm" : "two-sided",
                      what);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, size;
    tu_init_min(&argc, &argv, &rank, &size, 3, "coll_bcast_crowded");
    const char *v = getenv("FABMPI_COLL_VERBOSE"), *y = getenv("FABMPI_YIELD");
    if (rank == 0 && v && !strcmp(v, "1") && y)
        expect = !strcmp(y, "always") ? 1 : !strcmp(y, "never") ? 0 : -1;
    /* Under another MPI these are sizes like any others. */
    size_t limit = 128 << 10, area = 1 << 20;
    if (expect >= 0) {
        int provided;
        CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
        limit = tu_cvar("FABMPI_SHM_RING_SIZE") / 8;
        unsigned long pages = tu_cvar("FABMPI_COLL_CACHE_PAGES");
        unsigned long large = tu_cvar("FABMPI_COLL_CACHE_LARGE_PAGES");
        area = (large > pages ? large : pages) * 4096;
        CHECK_MPI(MPI_T_finalize());
    }
    /* Every rank needs the same sizes: rank 0's. */
    unsigned long sizes[2] = {limit, area};
    CHECK_MPI(MPI_Bcast(sizes, 2, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD));
    limit = sizes[0];
    area = sizes[1];
    vl_start(expect >= 0);
    const size_t bytes[] = {limit, limit + 1, limit + (area - limit) / 2 + 3, area, area + 1};
    for (unsigned i = 0; i < sizeof bytes / sizeof bytes[0]; i++)
        one(bytes[i], MPI_BYTE, limit, area, i);
    one(limit + 4, MPI_INT, limit, area, 10);
    one(area, MPI_INT, limit, area, 11);
    vl_stop();
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("coll_bcast_crowded: ok (%d ranks)\n", size);
    return 0;
}
