/* am_basic — the public active messages (include/fabmpi/am.h), each rank to
 * every rank (itself included): Short requests and replies with 0 to
 * fab_am_max_args() arguments, Medium of 0 to fab_am_max_medium() bytes
 * echoed back (with and without an argument), Long at odd offsets of the target's segment (chunked past
 * one transport message) answered by a Long into the requester's segment;
 * a flood of requests whose handlers reply and one whose handlers do not
 * (credits come back banked and by hidden replies: no deadlock), each
 * counted exactly; FAB_FLAG_IMMEDIATE returning FAB_WOULD_BLOCK once a
 * target that does not poll holds every credit (or once the ring to it is
 * full: FM_AM_EXPECT_RING_FULL=1), and the request going through once it
 * polls; AM and MPI messages interleaved; errors for bad
 * indices, ranks, sizes, destinations, requests and second replies from
 * handlers; negotiated-payload Mediums built in the library's buffers,
 * both ways, and their misuse (FM_AM_NP_FORGET=1: a handler returns
 * without committing its prepared reply, which must end the job).
 * FM_AM_FLOOD: requests per rank in each flood (default
 * 100000).  FM_AM_UNREGISTERED=1: rank 0 sends to a handler nobody
 * registered, which must end the job with a message saying so. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fabmpi/am.h>

#include "testutil.h"

enum { H_SHORT = 1, H_SHORT_R, H_MEDIUM, H_MEDIUM_R, H_LONG, H_LONG_R, H_FLOOD, H_FLOOD_R,
       H_NOREPLY, H_NESTED, H_NP, H_NP_R, H_UNREGISTERED = 200 };

static int rank, size;
/* Bumped by handlers, which may run on the progress thread. */
static _Atomic long replies, received;
static size_t seg_size;
static char *seg;

static fab_am_arg_t arg(int from, unsigned i, unsigned n)
{
    return ((fab_am_arg_t)from << 40) ^ ((fab_am_arg_t)n << 20) ^ (i * 0x9e3779b97f4a7c15ull);
}

/* ---- handlers ---- */

static void on_short(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    int from = fab_am_token_rank(t);
    CHECK(buf == NULL && n == 0);
    for (unsigned i = 0; i < na; i++)
        CHECKF(a[i] == arg(from, i, na), "short from %d: arg %u of %u", from, i, na);
    /* The reply carries the arguments back reversed. */
    fab_am_arg_t back[16];
    for (unsigned i = 0; i < na; i++)
        back[i] = a[na - 1 - i];
    CHECK_EQ(fab_am_reply_short(t, H_SHORT_R, 0, na, back), FAB_OK);
    static int once;
    if (!once++) { /* (each prints its error line) */
        /* At most one reply. */
        CHECK_EQ(fab_am_reply_short(t, H_SHORT_R, 0, 0, NULL), FAB_ERR_NOT_ALLOWED);
        /* No request or poll from a handler. */
        CHECK_EQ(fab_am_request_short(from, H_SHORT, 0, 0, NULL), FAB_ERR_NOT_ALLOWED);
        CHECK_EQ(fab_poll(), FAB_ERR_NOT_ALLOWED);
    }
}

static void on_short_r(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)buf, (void)n;
    for (unsigned i = 0; i < na; i++)
        CHECK(a[i] == arg(rank, na - 1 - i, na));
    static int once;
    if (!once++) /* a reply handler sends nothing */
        CHECK_EQ(fab_am_reply_short(t, H_SHORT_R, 0, 0, NULL), FAB_ERR_NOT_ALLOWED);
    replies++;
}

static void on_medium(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    int from = fab_am_token_rank(t);
    CHECK(na <= 1 && (na == 0 || a[0] == n));
    CHECK_PATTERN(buf, n, (unsigned)(from * 31 + n));
    CHECK_EQ(fab_am_reply_medium(t, H_MEDIUM_R, buf, n, 0, na, a), FAB_OK);
}

static void on_medium_r(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)t;
    CHECK(na <= 1 && (na == 0 || a[0] == n));
    CHECK_PATTERN(buf, n, (unsigned)(rank * 31 + n));
    replies++;
}

/* Long to rank r from rank s lands in r's segment at slot(s) + 3. */
static size_t slot(int s) { return (size_t)s * (seg_size / (size_t)size) + 3; }

static void on_long(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    int from = fab_am_token_rank(t);
    CHECK_EQ(na, 2);
    CHECK(buf == seg + slot(from));
    CHECK_EQ(a[0], n);
    CHECK_PATTERN(buf, n, (unsigned)(from + 7 * n));
    /* Answer with a Long of the same bytes into the requester's segment,
     * just past where it sent from (a[1]: that address). */
    CHECK_EQ(fab_am_reply_long(t, H_LONG_R, buf, n, (void *)(uintptr_t)a[1], 0, 1, a), FAB_OK);
}

static void on_long_r(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)t;
    CHECK(na == 1 && a[0] == n);
    CHECK_PATTERN(buf, n, (unsigned)(rank + 7 * n));
    replies++;
}

static void on_flood(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)buf, (void)n;
    received++;
    CHECK_EQ(fab_am_reply_short(t, H_FLOOD_R, 0, na, a), FAB_OK);
}

static void on_flood_r(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)t, (void)buf, (void)n, (void)a, (void)na;
    replies++;
}

static void on_noreply(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)t, (void)buf, (void)n, (void)a, (void)na;
    received++;
}

/* ---- helpers ---- */

/* Poll until *counter reaches want (20 s at most). */
static void poll_until(_Atomic long *counter, long want, const char *what)
{
    double t0 = MPI_Wtime();
    while (*counter < want) {
        CHECK_EQ(fab_poll(), FAB_OK);
        CHECKF(MPI_Wtime() - t0 < 60, "%s: %ld of %ld after 60 s", what, (long)*counter, want);
    }
    CHECKF(*counter == want, "%s: %ld, expected %ld", what, (long)*counter, want);
}

static void check_errors(void)
{
    CHECK_EQ(fab_am_register(0, on_short, 0, "zero"), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_register(256, on_short, 0, "big"), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_register(H_SHORT, on_medium, 0, "taken"), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_register(77, on_short, 8, "flags"), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_request_short(size, H_SHORT, 0, 0, NULL), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_request_short(-1, H_SHORT, 0, 0, NULL), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_request_short(0, 0, 0, 0, NULL), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_request_short(0, H_SHORT, 0, 17, NULL), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_request_short(0, H_SHORT, 0, 2, NULL), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_request_short(0, H_SHORT, 4, 0, NULL), FAB_ERR_BAD_ARG);
    char b[8];
    CHECK_EQ(fab_am_request_medium(0, H_MEDIUM, b, fab_am_max_medium() + 1, 0, 0, NULL),
             FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_request_long(0, H_LONG, b, 8, b, 0, 0, NULL), FAB_ERR_BAD_ARG);
    void *base;
    size_t sz;
    CHECK_EQ(fab_segment(0, &base, &sz), FAB_OK);
    CHECK_EQ(fab_am_request_long(0, H_LONG, b, 8, (char *)base + sz - 4, 0, 0, NULL),
             FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_segment(size, &base, &sz), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_reply_short(NULL, H_SHORT_R, 0, 0, NULL), FAB_ERR_BAD_ARG);
    CHECK(strstr(fab_strerror(FAB_WOULD_BLOCK), "FAB_WOULD_BLOCK") != NULL);
}

static void check_short_medium_long(void)
{
    long want = 0;
    for (int to = 0; to < size; to++) {
        for (unsigned na = 0; na <= fab_am_max_args(); na++) {
            fab_am_arg_t a[16];
            for (unsigned i = 0; i < na; i++)
                a[i] = arg(rank, i, na);
            CHECK_EQ(fab_am_request_short(to, H_SHORT, 0, na, a), FAB_OK);
            want++;
        }
    }
    poll_until(&replies, want, "short replies");
    size_t max = fab_am_max_medium();
    size_t sizes[] = {0, 1, 7, 64, 4096, max - 1, max};
    char *buf = tu_malloc(max);
    for (int to = 0; to < size; to++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            size_t n = sizes[k];
            if (n > max) /* small rings: 4096 is past the limit */
                continue;
            tu_fill(buf, n, (unsigned)(rank * 31 + n));
            fab_am_arg_t a = n;
            CHECK_EQ(fab_am_request_medium(to, H_MEDIUM, buf, n, 0, 1, &a), FAB_OK);
            memset(buf, 0, n); /* reusable at once */
            want++;
            if (n < 8) { /* no argument: header and payload under 24 bytes */
                tu_fill(buf, n, (unsigned)(rank * 31 + n));
                CHECK_EQ(fab_am_request_medium(to, H_MEDIUM, buf, n, 0, 0, NULL), FAB_OK);
                want++;
            }
        }
    poll_until(&replies, want, "medium replies");
    free(buf);
    /* Long: one piece, several pieces, and larger than a ring. */
    size_t lsizes[] = {0, 1, 1000, max + 1, 100000, 3 << 20};
    size_t biggest = 3 << 20;
    CHECK(seg_size / (size_t)size >= 2 * biggest + 16);
    char *src = tu_malloc(biggest);
    for (size_t k = 0; k < sizeof lsizes / sizeof *lsizes; k++) {
        size_t n = lsizes[k];
        for (int to = 0; to < size; to++) {
            void *tbase;
            size_t tsz;
            CHECK_EQ(fab_segment(to, &tbase, &tsz), FAB_OK);
            tu_fill(src, n, (unsigned)(rank + 7 * n));
            /* The reply lands in our segment, in the slot of `to`, past
             * what `to` may be sending us. */
            fab_am_arg_t a[2] = {n, (fab_am_arg_t)(uintptr_t)(seg + slot(to) + biggest + 5)};
            CHECK_EQ(fab_am_request_long(to, H_LONG, src, n, (char *)tbase + slot(rank), 0, 2, a),
                     FAB_OK);
            memset(src, 0, n);
            want++;
            poll_until(&replies, want, "long replies");
        }
    }
    free(src);
}

static long flood_n(void)
{
    const char *e = getenv("FM_AM_FLOOD");
    return e ? atol(e) : 100000;
}

static void check_floods(void)
{
    long n = flood_n();
    /* With replies: every rank floods every rank round-robin. */
    long sent = 0;
    received = 0;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* nobody floods us before the count starts */
    long want_replies = replies + n;
    for (long i = 0; i < n; i++) {
        fab_am_arg_t a = (fab_am_arg_t)i;
        CHECK_EQ(fab_am_request_short((int)((rank + 1 + i) % size), H_FLOOD, 0, 1, &a), FAB_OK);
        sent++;
    }
    poll_until(&replies, want_replies, "flood replies");
    /* Once every rank has its replies, every request was handled. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    long total;
    /* Every request was handled somewhere: the sum over ranks. */
    CHECK_MPI(MPI_Allreduce(&received, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(total, n * size);
    /* Without replies: credits come back banked or by hidden replies. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every flood request is counted */
    received = 0;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (long i = 0; i < n; i++)
        CHECK_EQ(fab_am_request_short((int)((rank + 1 + i) % size), H_NOREPLY, 0, 0, NULL), FAB_OK);
    /* Each rank gets n from the others together: n * size in all. */
    long mine = 0;
    for (long i = 0; i < n; i++)
        for (int r = 0; r < size; r++)
            if ((r + 1 + i) % size == rank)
                mine++;
    poll_until(&received, mine, "unreplied requests");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void check_immediate(void)
{
    if (size < 2)
        return;
    const char *pp_env = getenv("FABMPI_AM_CREDITS_PP");
    int pp = fab_am_max_credits(rank == 1 ? 0 : 1); /* rank 0's to rank 1, below */
    /* Set, it holds for every peer; unset, a peer on this node gets a
     * credit per KiB of the ring to it (FABMPI_SHM_RING_SIZE, larger on a
     * crowded node), at least the default 32; one over the network 32. */
    const char *net = getenv("FABMPI_NET");
    int provided;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    long ring_credits = (long)(tu_cvar("FABMPI_SHM_RING_SIZE") / 1024);
    CHECK_MPI(MPI_T_finalize());
    int want = pp_env                       ? atoi(pp_env)
               : net && !strcmp(net, "ofi") ? 32
                                            : (int)(ring_credits > 32 ? ring_credits : 32);
    CHECK_EQ(pp, want);
    CHECK_EQ(fab_am_max_credits(rank), 0);
    CHECK_EQ(fab_am_max_credits(size), FAB_ERR_BAD_ARG);
    /* First every credit rank 1 holds back for rank 0 (banked by the
     * unreplied flood) rides back on a request of rank 1's: then rank 0
     * has all AM_CREDITS_PP for rank 1. */
    received = 0;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* everyone counts from 0 before rank 1 sends */
    if (rank == 1) {
        long before = replies;
        CHECK_EQ(fab_am_request_short(0, H_FLOOD, 0, 0, NULL), FAB_OK);
        poll_until(&replies, before + 1, "rank 1's request");
    } else if (rank == 0) {
        poll_until(&received, 1, "rank 1's request");
    }
    /* Not polling means no progress thread either: one that polls while
     * rank 1 sleeps hands credits back as fast as rank 0 spends them
     * (under ThreadSanitizer it did, now and then). */
    const char *pt = getenv("FABMPI_PROGRESS_THREAD");
    const int thread_on = pt && strcmp(pt, "on") == 0;
    if (rank == 1 && thread_on)
        CHECK_MPI(MPIX_Progress_thread(0));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        sleep(1); /* not polling: every credit rank 0 sends us stays away */
    } else if (rank == 0) {
        long before = replies;
        int sent = 0, rc;
        while ((rc = fab_am_request_short(1, H_FLOOD, FAB_FLAG_IMMEDIATE, 0, NULL)) == FAB_OK &&
               sent <= pp)
            sent++;
        CHECK_EQ(rc, FAB_WOULD_BLOCK);
        /* The credits run out first, unless the ring to rank 1 is too small
         * for them (FM_AM_EXPECT_RING_FULL=1): then IMMEDIATE also refuses
         * a full transport. */
        if (getenv("FM_AM_EXPECT_RING_FULL"))
            CHECKF(sent > 0 && sent < pp, "%d requests went before the ring filled", sent);
        else
            CHECK_EQ(sent, pp);
        /* Without the flag it waits until rank 1 polls and replies. */
        CHECK_EQ(fab_am_request_short(1, H_FLOOD, 0, 0, NULL), FAB_OK);
        poll_until(&replies, before + sent + 1, "replies after the credit wait");
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1 && thread_on)
        CHECK_MPI(MPIX_Progress_thread(1));
}

/* AM and MPI between the same ranks, interleaved. */
/* Negotiated-payload Medium: the requester builds its payload in the
 * library's buffer, the handler builds its reply (the payload's bytes
 * reversed) in one too. */
static void on_np(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    int from = fab_am_token_rank(t);
    CHECK(na == 1 && a[0] == n);
    CHECK_PATTERN(buf, n, (unsigned)(from * 13 + n));
    void *out;
    size_t room;
    CHECK_EQ(fab_am_prepare_reply_medium(t, n, n + 100, 0, &out, &room), FAB_OK);
    CHECK(room >= n);
    if (n == 1 && getenv("FM_AM_NP_FORGET"))
        return; /* never committed: the job must end, saying so */
    static int once;
    if (!once++) { /* one prepared message at a time; one reply only */
        void *o2;
        size_t r2;
        CHECK_EQ(fab_am_prepare_reply_medium(t, 0, 1, 0, &o2, &r2), FAB_ERR_NOT_ALLOWED);
        CHECK_EQ(fab_am_commit_request_medium(H_NP, 0, 0, NULL), FAB_ERR_NOT_ALLOWED);
    }
    for (size_t i = 0; i < n; i++)
        ((char *)out)[i] = ((const char *)buf)[n - 1 - i];
    CHECK_EQ(fab_am_commit_reply_medium(H_NP_R, n, 1, a), FAB_OK);
}

static void on_np_r(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)t;
    CHECK(na == 1 && a[0] == n);
    for (size_t i = 0; i < n; i++)
        CHECK(((unsigned char *)buf)[i] == tu_pat(n - 1 - i, (unsigned)(rank * 13 + n)));
    replies++;
}

static void check_negotiated(void)
{
    size_t max = fab_am_max_medium();
    void *buf;
    size_t room;
    /* (each prints its error line) */
    CHECK_EQ(fab_am_commit_request_medium(H_NP, 0, 0, NULL), FAB_ERR_NOT_ALLOWED);
    CHECK_EQ(fab_am_prepare_request_medium(0, max + 1, max + 1, 0, &buf, &room), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_prepare_request_medium(0, 10, 9, 0, &buf, &room), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_prepare_request_medium(size, 0, 8, 0, &buf, &room), FAB_ERR_BAD_ARG);
    CHECK_EQ(fab_am_prepare_request_medium(0, 0, 8, 0, NULL, &room), FAB_ERR_BAD_ARG);
    const size_t sizes[] = {0, 1, 100, 4097, max};
    long want = replies;
    for (int k = 0; k < size; k++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            int t = (rank + k) % size;
            size_t n = sizes[s] < max ? sizes[s] : max; /* small rings: small Mediums */
            CHECK_EQ(fab_am_prepare_request_medium(t, n, (size_t)-1, 0, &buf, &room), FAB_OK);
            CHECK_EQ(room, max); /* as much as a Medium takes */
            if (k == 0 && s == 0) {
                void *b2;
                size_t r2;
                CHECK_EQ(fab_am_prepare_request_medium(t, 0, 8, 0, &b2, &r2), FAB_ERR_NOT_ALLOWED);
                CHECK_EQ(fab_am_commit_request_medium(H_NP, max + 1, 0, NULL), FAB_ERR_BAD_ARG);
            }
            tu_fill(buf, n, (unsigned)(rank * 13 + n));
            fab_am_arg_t a = n;
            CHECK_EQ(fab_am_commit_request_medium(H_NP, n, 1, &a), FAB_OK);
            want++;
        }
    poll_until(&replies, want, "negotiated-payload replies");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void check_mixed(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long want = replies;
    for (int i = 0; i < 200; i++) {
        int v = rank * 1000 + i, got = -1;
        fab_am_arg_t a = (fab_am_arg_t)i;
        CHECK_EQ(fab_am_request_short(right, H_FLOOD, 0, 1, &a), FAB_OK);
        want++;
        CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, right, i, &got, 1, MPI_INT, left, i, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
        CHECK_EQ(got, left * 1000 + i);
    }
    poll_until(&replies, want, "mixed replies");
}

int main(int argc, char **argv)
{
    CHECK_EQ(fab_am_request_short(0, H_SHORT, 0, 0, NULL), FAB_ERR_NOT_INIT);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_EQ(fab_am_max_args(), 16);
    CHECK(fab_am_max_medium() >= 2000);
    void *b;
    CHECK_EQ(fab_segment(rank, &b, &seg_size), FAB_OK);
    seg = b;
    CHECK(seg != NULL && ((uintptr_t)seg & 4095) == 0 && seg_size >= (64u << 20));
    struct { unsigned i; fab_am_fn_t fn; unsigned flags; } hs[] = {
        {H_SHORT, on_short, FAB_AM_REQUEST}, {H_SHORT_R, on_short_r, FAB_AM_REPLY},
        {H_MEDIUM, on_medium, FAB_AM_REQUEST}, {H_MEDIUM_R, on_medium_r, FAB_AM_REPLY},
        {H_LONG, on_long, FAB_AM_REQUEST}, {H_LONG_R, on_long_r, FAB_AM_REPLY},
        {H_FLOOD, on_flood, 0}, {H_FLOOD_R, on_flood_r, 0}, {H_NOREPLY, on_noreply, 0},
        {H_NP, on_np, FAB_AM_REQUEST}, {H_NP_R, on_np_r, FAB_AM_REPLY}};
    for (size_t i = 0; i < sizeof hs / sizeof *hs; i++)
        CHECK_EQ(fab_am_register(hs[i].i, hs[i].fn, hs[i].flags, "am_basic"), FAB_OK);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every rank's handlers are in */
    const char *unreg = getenv("FM_AM_UNREGISTERED");
    if (unreg && rank == 0) {
        CHECK_EQ(fab_am_request_short(size - 1, H_UNREGISTERED, 0, 0, NULL), FAB_OK);
        for (;;)
            fab_poll();
    }
    check_errors();
    check_short_medium_long();
    check_floods();
    check_immediate();
    check_negotiated();
    check_mixed();
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    CHECK_EQ(fab_poll(), FAB_ERR_NOT_INIT);
    return 0;
}
