/* ofi_mr_cache — the registration cache of one-sided transfers over OFI
 * (FABMPI_OFI_MR_CACHE), read through its MPI_T counters.  Each rank gets
 * from the next rank's segment (fab_rma_get: one fi_read, no other
 * transfer to count) into local buffers that the test maps, unmaps, maps
 * again at the same address, maps over, drops pages of and shrinks; each
 * such change must drop the cached registration (one invalidation) and the
 * next transfer must register again (one miss), while a repeated transfer
 * from an unchanged buffer must hit.  Every byte fetched is checked.  Then
 * eviction at FM_MR_ENTRIES (the FABMPI_OFI_MR_CACHE_ENTRIES of the row),
 * and an MPI window's MPI_Get + flush, which must go through the cache too.
 * FM_MR_CACHE_EXPECT=on|off: whether the cache is in use (off: every
 * counter stays 0). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fabmpi/am.h>

#include "testutil.h"

enum { HITS, MISSES, INVALIDATED, EVICTED, NCOUNTERS };
static const char *const counter[NCOUNTERS] = {"ofi_mr_cache_hits", "ofi_mr_cache_misses",
                                              "ofi_mr_cache_invalidated", "ofi_mr_cache_evicted"};
static tu_counters counters;

static int rank, size, t, on;
static char *seg, *tseg;
static size_t pg;
enum { N = 5000 };

/* Counter changes since the last call. */
static void deltas(long long d[NCOUNTERS]) { tu_counters_deltas(&counters, d); }

/* The counters moved by exactly hits, misses, invalidated (evicted: any)
 * when the cache is on, and not at all when it is off. */
static void expect(const char *what, long long hits, long long misses, long long inval)
{
    long long d[NCOUNTERS];
    deltas(d);
    if (!on) {
        for (int i = 0; i < NCOUNTERS; i++)
            CHECKF(d[i] == 0, "%s: %s moved by %lld with the cache off", what, counter[i], d[i]);
        return;
    }
    CHECKF(d[HITS] == hits, "%s: %lld hits, want %lld", what, d[HITS], hits);
    CHECKF(d[MISSES] == misses, "%s: %lld misses, want %lld", what, d[MISSES], misses);
    CHECKF(d[INVALIDATED] == inval, "%s: %lld invalidated, want %lld", what, d[INVALIDATED], inval);
}

/* Fetch N bytes of the next rank's pattern into p and check them. */
static void fetch(char *p)
{
    memset(p, 0, N);
    CHECK_EQ(fab_rma_get(p, t, tseg, N, 0), FAB_OK);
    CHECK_PATTERN(p, N, (unsigned)t);
}

static char *map(void *at, size_t len, int flags)
{
    char *p = mmap(at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
    CHECK(p != MAP_FAILED);
    return p;
}

static void remaps(void)
{
    size_t len = 3 * pg;
    char *p = map(NULL, len, 0);
    fetch(p + 1);
    expect("first transfer", 0, 1, 0);
    fetch(p + 1);
    fetch(p + 100); /* inside the same registration */
    expect("same buffer again", 2, 0, 0);

    CHECK_EQ(munmap(p, len), 0);
    expect("munmap", 0, 0, 1);
    CHECK(map(p, len, MAP_FIXED_NOREPLACE) == p);
    fetch(p + 1);
    expect("mapped again at the same address", 0, 1, 0);

    CHECK(map(p, pg, MAP_FIXED) == p); /* over its first page */
    expect("mmap over it", 0, 0, 1);
    fetch(p + 1);
    expect("after mmap over it", 0, 1, 0);

    CHECK_EQ(madvise(p, len, MADV_DONTNEED), 0);
    expect("madvise(MADV_DONTNEED)", 0, 0, 1);
    fetch(p + 1);
    expect("after madvise", 0, 1, 0);
    CHECK_EQ(madvise(p, len, MADV_WILLNEED), 0); /* keeps the pages */
    fetch(p + 1);
    expect("madvise(MADV_WILLNEED)", 1, 0, 0);

    CHECK(mremap(p, len, 2 * pg, 0) == p); /* shrink in place */
    expect("mremap", 0, 0, 1);
    fetch(p + 1);
    expect("after mremap", 0, 1, 0);

    /* Unmapping memory the cache never saw drops nothing. */
    char *other = map(NULL, pg, 0);
    CHECK_EQ(munmap(other, pg), 0);
    expect("unrelated munmap", 0, 0, 0);
    CHECK_EQ(munmap(p, 2 * pg), 0);
    expect("final munmap", 0, 0, 1);
}

/* Least recently used goes first: 2 x entries buffers, then the same in
 * reverse order: the last `entries` of the first pass hit, the rest miss. */
static void eviction(void)
{
    const char *e = getenv("FM_MR_ENTRIES");
    if (!e || !on)
        return;
    int entries = atoi(e), nb = 2 * entries;
    char **b = tu_malloc(sizeof *b * (size_t)nb);
    for (int i = 0; i < nb; i++)
        b[i] = map(NULL, 2 * pg, 0);
    long long d[NCOUNTERS];
    deltas(d);
    for (int i = 0; i < nb; i++)
        fetch(b[i] + 7);
    deltas(d);
    CHECK_EQ(d[MISSES], nb);
    /* and what the cache held before (at most `entries`) went too */
    CHECKF(d[EVICTED] >= nb - entries && d[EVICTED] <= nb, "%lld evicted", d[EVICTED]);
    for (int i = nb - 1; i >= 0; i--)
        fetch(b[i] + 7);
    deltas(d);
    CHECK_EQ(d[HITS], entries);
    CHECK_EQ(d[MISSES], entries);
    CHECK_EQ(d[EVICTED], entries);
    for (int i = 0; i < nb; i++)
        CHECK_EQ(munmap(b[i], 2 * pg), 0);
    deltas(d);
    CHECK_EQ(d[INVALIDATED], entries);
    free(b);
}

/* An MPI window's get from a network peer takes its descriptor here too. */
static void window(void)
{
    int *base;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                               &base, &win));
    for (int i = 0; i < 64; i++)
        base[i] = rank * 1000 + i;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int *got = (int *)(void *)map(NULL, pg, 0);
    long long d[NCOUNTERS];
    deltas(d);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    CHECK_MPI(MPI_Get(got, 64, MPI_INT, t, 0, 64, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(t, win));
    for (int i = 0; i < 64; i++)
        CHECK_EQ(got[i], t * 1000 + i);
    deltas(d);
    if (on)
        CHECKF(d[MISSES] >= 1, "MPI_Get into a new buffer: %lld misses", d[MISSES]);
    else
        CHECK_EQ(d[MISSES] + d[HITS], 0);
    CHECK_EQ(munmap(got, pg), 0);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int provided;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *want = getenv("FM_MR_CACHE_EXPECT");
    CHECKF(want && (!strcmp(want, "on") || !strcmp(want, "off")),
           "FM_MR_CACHE_EXPECT must be on or off");
    CHECKF(size > 1, "run on 2 or more ranks over OFI");
    on = !strcmp(want, "on");
    pg = (size_t)sysconf(_SC_PAGESIZE);
    t = (rank + 1) % size;
    void *b;
    size_t sz;
    CHECK_EQ(fab_segment(rank, &b, &sz), FAB_OK);
    seg = b;
    CHECK_EQ(fab_segment(t, &b, &sz), FAB_OK);
    tseg = b;
    tu_fill(seg, N, (unsigned)rank);
    tu_counters_start(&counters, NCOUNTERS, counter);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* The first transfer to a peer asks it for its segment's key; take
     * that (and the endpoint's own first registrations) out of the count. */
    char warm[64];
    CHECK_EQ(fab_rma_get(warm, t, tseg, sizeof warm, 0), FAB_OK);
    long long d[NCOUNTERS];
    deltas(d);

    remaps();
    eviction();
    window();

    tu_counters_stop(&counters);
    CHECK_MPI(MPI_T_finalize());
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("ofi_mr_cache: %d ranks, cache %s: ok\n", size, want);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
