/* am_rma — fab_rma_put/get, blocking, _nb (waited, and tested until done)
 * and _nbi, each rank to every rank (itself included), of 0 bytes up to
 * FM_RMA_MAX (default 1m) at odd offsets of the target's segment and odd
 * local alignments: every byte checked at the target after the puts and
 * after the gets, and the bytes either side of each transfer untouched.
 * The source of a non-bulk _nb/_nbi put is overwritten as soon as the call
 * returns (the target must still see what it held then); FAB_FLAG_BULK
 * keeps it until the sync.  Local buffers unmapped and mapped again at the
 * same address between transfers (nothing may stay cached for them).
 * Errors: remote ranges outside the segment, bad ranks, flags and
 * pointers, a transfer from a handler.  FM_RMA_EXPECT=copy|cma|net|msg:
 * the path transfers to other ranks must have taken (MPI_T counters
 * am_rma_*), so a case cannot pass on another path than the one it names. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <fabmpi/am.h>

#include "testutil.h"

enum { NOW, NB_WAIT, NB_TEST, NBI, NMODES };
static const char *mode_name[NMODES] = {"blocking", "nb+wait", "nb+test", "nbi"};

static int rank, size;
static char *seg;
static size_t seg_size, region, maxn;
static char **segs; /* every rank's segment base */

#define GUARD 0xa5

/* Where origin o's transfers of n bytes land in target t's segment. */
static size_t off_of(int o, size_t n) { return (size_t)o * region + 1 + n % 5; }
static unsigned seed_of(int o, int t, size_t n, int mode)
{
    return (unsigned)(o * 31 + t * 7 + (int)n * 3 + mode);
}

static void sync_ev(int mode, fab_event_t ev)
{
    if (mode == NB_WAIT) {
        CHECK_EQ(fab_wait(ev), FAB_OK);
    } else if (mode == NB_TEST) {
        int rc;
        while ((rc = fab_test(ev)) == FAB_NOT_READY)
            ;
        CHECK_EQ(rc, FAB_OK);
    }
}

static void put(int mode, int t, void *dst, void *src, size_t n, unsigned flags)
{
    fab_event_t ev = NULL;
    switch (mode) {
    case NOW: CHECK_EQ(fab_rma_put(t, dst, src, n, flags), FAB_OK); break;
    case NB_WAIT:
    case NB_TEST: CHECK_EQ(fab_rma_put_nb(t, dst, src, n, flags, &ev), FAB_OK); break;
    case NBI: CHECK_EQ(fab_rma_put_nbi(t, dst, src, n, flags), FAB_OK); break;
    }
    if (!(flags & FAB_FLAG_BULK))
        memset(src, 0x5a, n); /* non-bulk: the source is ours again */
    sync_ev(mode, ev);
}

static void get(int mode, void *dst, int t, void *src, size_t n)
{
    fab_event_t ev = NULL;
    switch (mode) {
    case NOW: CHECK_EQ(fab_rma_get(dst, t, src, n, 0), FAB_OK); break;
    case NB_WAIT:
    case NB_TEST: CHECK_EQ(fab_rma_get_nb(dst, t, src, n, 0, &ev), FAB_OK); break;
    case NBI: CHECK_EQ(fab_rma_get_nbi(dst, t, src, n, 0), FAB_OK); break;
    }
    sync_ev(mode, ev);
}

/* Origins check what landed in our segment, and its guards. */
static void check_landed(size_t n, int mode)
{
    for (int o = 0; o < size; o++) {
        unsigned char *at = (unsigned char *)seg + off_of(o, n);
        long bad = tu_verify(at, n, seed_of(o, rank, n, mode));
        CHECKF(bad < 0, "%s put of %zu bytes from rank %d: byte %ld differs", mode_name[mode], n,
               o, bad);
        CHECKF(at[-1] == GUARD && at[n] == GUARD, "%s put of %zu bytes from rank %d wrote outside",
               mode_name[mode], n, o);
    }
}

static void one_size(size_t n, int mode, unsigned flags)
{
    for (int o = 0; o < size; o++) { /* guards around every origin's range */
        seg[off_of(o, n) - 1] = (char)GUARD;
        seg[off_of(o, n) + n] = (char)GUARD;
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* A source per target: a bulk _nbi put's stays untouched until the
     * sync, after the puts to every target. */
    char **sbufs = tu_malloc(sizeof *sbufs * (size_t)size);
    for (int k = 0; k < size; k++) {
        int t = (rank + k) % size;
        sbufs[k] = tu_malloc(n + 8);
        char *src = sbufs[k] + 3;
        tu_fill(src, n, seed_of(rank, t, n, mode));
        put(mode, t, segs[t] + off_of(rank, n), src, n, flags);
    }
    if (mode == NBI)
        CHECK_EQ(fab_nbi_wait(), FAB_OK);
    for (int k = 1; k < size; k++)
        free(sbufs[k]);
    char *sbuf = sbufs[0], *src = sbuf + 3;
    free(sbufs);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    check_landed(n, mode);
    /* Read each back (into the same odd-aligned buffer, scribbled first). */
    for (int k = 0; k < size; k++) {
        int t = (rank + size - k) % size;
        memset(src, 0x3c, n);
        get(mode, src, t, segs[t] + off_of(rank, n), n);
        if (mode == NBI)
            CHECK_EQ(fab_nbi_wait(), FAB_OK);
        long bad = tu_verify(src, n, seed_of(rank, t, n, mode));
        CHECKF(bad < 0, "%s get of %zu bytes from rank %d: byte %ld differs", mode_name[mode], n,
               t, bad);
    }
    free(sbuf);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* Local memory unmapped and mapped again at the same address between
 * transfers, new contents each time. */
static void remap(void)
{
    static const size_t sizes[] = {8, 65537, 1 << 20};
    int t = (rank + 1) % size, from = (rank + size - 1) % size;
    for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s] < maxn ? sizes[s] : maxn, len = n + 4096;
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(p != MAP_FAILED);
        for (int round = 0; round < 3; round++) {
            unsigned seed = (unsigned)(rank * 1000 + (int)s * 10 + round);
            tu_fill(p + 1, n, seed);
            CHECK_EQ(fab_rma_put(t, segs[t] + off_of(rank, n), p + 1, n, 0), FAB_OK);
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            long bad = tu_verify(seg + off_of(from, n), n, (unsigned)(from * 1000 + (int)s * 10 + round));
            CHECKF(bad < 0, "remapped put of %zu bytes, round %d: byte %ld differs", n, round, bad);
            CHECK_EQ(munmap(p, len), 0);
            char *q = mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                           -1, 0);
            CHECK(q == p);
            CHECK_EQ(fab_rma_get(p + 1, t, segs[t] + off_of(rank, n), n, 0), FAB_OK);
            CHECK_PATTERN(p + 1, n, seed);
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        }
        CHECK_EQ(munmap(p, len), 0);
    }
}

/* Written by the handler, which may run on the progress thread: atomic. */
static int from_handler_rc = 1;
static void h_try(fab_am_token_t tk, void *b, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)tk, (void)b, (void)n, (void)a, (void)na;
    __atomic_store_n(&from_handler_rc, fab_rma_put(rank, seg, seg + 8, 8, 0), __ATOMIC_RELEASE);
}

static void errors(void)
{
    int t = (rank + 1) % size;
    char local[16] = {0};
    fab_event_t ev = (fab_event_t)local;
    /* (each prints its error line) */
    CHECK_EQ(fab_rma_put(t, segs[t] + seg_size - 4, local, 8, 0), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_rma_get(local, t, segs[t] - 1, 2, 0), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_rma_put(t, local, local, 8, 0), FAB_ERR_BAD_ARG); /* not in the segment */
    CHECK_EQ(fab_rma_put(size, segs[t], local, 8, 0), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_rma_get(local, -1, segs[t], 8, 0), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_rma_put(t, segs[t], local, 8, 4), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_rma_put(t, segs[t], NULL, 8, 0), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_rma_put_nb(t, segs[t], local, 8, 0, NULL), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_rma_get_nb(local, t, segs[t] + seg_size, 1, 0, &ev), FAB_ERR_BAD_ARG);
    CHECK(ev == NULL); /* no event for what never started */
    /* Nothing to move: fine with any pointers, and no event. */
    CHECK_EQ(fab_rma_put(t, NULL, NULL, 0, 0), FAB_OK);
    ev = (fab_event_t)local;
    CHECK_EQ(fab_rma_get_nb(NULL, t, NULL, 0, 0, &ev), FAB_OK);
    CHECK(ev == NULL);
    CHECK_EQ(fab_wait(NULL), FAB_OK);
    CHECK_EQ(fab_test(NULL), FAB_OK);
    CHECK_EQ(fab_nbi_wait(), FAB_OK);
    /* Not from a handler. */
    CHECK_EQ(fab_am_register(1, h_try, FAB_AM_REQUEST, "try"), FAB_OK);
    CHECK_EQ(fab_am_request_short(rank, 1, 0, 0, NULL), FAB_OK);
    while (__atomic_load_n(&from_handler_rc, __ATOMIC_ACQUIRE) == 1)
        CHECK_EQ(fab_poll(), FAB_OK);
    CHECK_EQ(__atomic_load_n(&from_handler_rc, __ATOMIC_ACQUIRE), FAB_ERR_NOT_ALLOWED);
    /* IMMEDIATE: done, or refused with nothing started. */
    int rc = fab_rma_put(t, segs[t], local, 8, FAB_FLAG_IMMEDIATE);
    CHECK(rc == FAB_OK || rc == FAB_WOULD_BLOCK);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* The path counters, started before the first transfer (an MPI_T counter
 * counts from its handle's start). */
static const char *const path[] = {"copy", "cma", "net", "msg"};
static MPI_T_pvar_session session;
static MPI_T_pvar_handle handle[4];

static void start_counters(void)
{
    CHECK_MPI(MPI_T_pvar_session_create(&session));
    for (int i = 0; i < 4; i++) {
        char name[32];
        int idx, count;
        snprintf(name, sizeof name, "am_rma_%s", path[i]);
        CHECK_MPI(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx));
        CHECK_MPI(MPI_T_pvar_handle_alloc(session, idx, NULL, &handle[i], &count));
    }
    CHECK_MPI(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES));
}

/* Transfers to other ranks took the path FM_RMA_EXPECT names. */
static void check_path(void)
{
    const char *want = getenv("FM_RMA_EXPECT");
    for (int i = 0; want && size > 1 && i < 4; i++) {
        unsigned long long v;
        CHECK_MPI(MPI_T_pvar_read(session, handle[i], &v));
        if (!strcmp(want, path[i]))
            CHECKF(v > 0, "no transfer went by %s", path[i]);
        else if (strcmp(path[i], "copy")) /* transfers to oneself are copies */
            CHECKF(v == 0, "%llu transfers went by %s, not %s", v, path[i], want);
    }
    CHECK_MPI(MPI_T_pvar_session_free(&session));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int provided;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    maxn = getenv("FM_RMA_MAX") ? strtoull(getenv("FM_RMA_MAX"), NULL, 0) : 1 << 20;
    if (getenv("FM_RMA_MAX") && strchr(getenv("FM_RMA_MAX"), 'm'))
        maxn <<= 20;
    segs = tu_malloc(sizeof *segs * (size_t)size);
    for (int r = 0; r < size; r++) {
        void *b;
        size_t sz;
        CHECK_EQ(fab_segment(r, &b, &sz), FAB_OK);
        segs[r] = b;
        seg_size = sz;
    }
    seg = segs[rank];
    start_counters();
    region = (seg_size / (size_t)size) & ~(size_t)4095;
    CHECKF(maxn + 8 <= region, "FM_RMA_MAX=%zu does not fit a %zu-byte region", maxn, region);

    size_t sizes[64];
    int ns = 0;
    static const size_t small[] = {0, 1, 2, 7, 8, 63, 64, 65, 4095, 4097, 65535, 65539};
    for (unsigned i = 0; i < sizeof small / sizeof *small; i++)
        if (small[i] <= maxn)
            sizes[ns++] = small[i];
    for (size_t n = (size_t)1 << 20; n <= maxn; n <<= 2)
        sizes[ns++] = n + 5 <= maxn ? n + 5 : n;
    if (sizes[ns - 1] != maxn)
        sizes[ns++] = maxn;
    for (int i = 0; i < ns; i++)
        for (int m = 0; m < NMODES; m++)
            one_size(sizes[i], m, 0);
    /* Bulk: the source left alone until the sync. */
    for (int m = NB_WAIT; m < NMODES; m++)
        one_size(maxn < 100000 ? maxn : 100000, m, FAB_FLAG_BULK);
    remap();
    errors();
    check_path();
    CHECK_MPI(MPI_T_finalize());
    free(segs);
    if (rank == 0)
        printf("am_rma: %d sizes up to %zu bytes x %d sync modes, %d ranks: ok\n", ns, maxn,
               NMODES, size);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
