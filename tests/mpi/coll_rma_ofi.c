/* coll_rma_ofi: the one-sided collectives over OFI, and proof that they ran
 * there.
 *
 * Values: Bcast from every root, Reduce to every root and Allreduce with a
 * commutative user op (wrapping sum) and a non-commutative one (2x2 matrix
 * product, 16 bytes an element), and Barrier with a late member, at packed
 * sizes from 0 to beyond the cache (inline flag-line sizes, one page, the
 * reduce limit of half the data area and the bcast limit of all of it, each
 * +-1 element); every member computes every contribution itself, so the
 * references need no communication.
 *
 * Algorithms: under fabmpi with FABMPI_COLL_VERBOSE=1, world rank 0 sends
 * its stderr to a temporary file and checks, call by call, the line the
 * library printed: "rma over ofi <algorithm>" where the message fits the
 * cache (FABMPI_COLL_CACHE_PAGES, default 32), "two-sided" at 0 bytes and
 * beyond it; a Reduce at any size, "in pieces" past a quarter of the
 * cache (at most 64 KiB) — or "two-sided" everywhere when the environment says the
 * one-sided path cannot run (FABMPI_OFI_RMA=am: no RMA endpoint).  Without
 * FABMPI_COLL_VERBOSE (or under another MPI) only the values are checked.
 *
 * Progress: the root runs FM_CRMA_FLAGSETS+8 broadcasts ahead while the
 * others sit in MPI_Recv after 32 of them, so the root must read a child's
 * `done` word (fi_read) while that child is blocked in a two-sided call —
 * with a manual-progress provider (shm) the read completes only if
 * two-sided progress also drives the RMA endpoint. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <time.h>
#include <unistd.h>

#include "verbose_log.h"

static int rank, size;
static int verbose_check;   /* rank 0 checks the library's verbose lines */
static int expect_rma = 1;  /* the one-sided path can run at all */
static long area;           /* bytes of the cache data area */
static char bcast_algo[64]; /* "rma over ofi <F>-way fan-out tree" */

/* ---- the library's verbose lines ----------------------------------------- */
static void log_start(void)
{
    const char *v = getenv("FABMPI_COLL_VERBOSE");
    const char *am = getenv("FABMPI_OFI_RMA");
    const char *pages = getenv("FABMPI_COLL_CACHE_PAGES");
    const char *fan = getenv("FABMPI_COLL_FANOUT");
    area = (pages ? atol(pages) : 32) * 4096L;
    snprintf(bcast_algo, sizeof bcast_algo, "rma over ofi %ld-way fan-out tree",
             fan ? atol(fan) : 2L);
    expect_rma = !(am && strcmp(am, "am") == 0);
    verbose_check = rank == 0 && v && strcmp(v, "1") == 0;
    vl_start(verbose_check);
}

/* Two members exchange their vectors at once; more reduce then broadcast. */
static const char *allreduce_algo(void)
{
    return size == 2 ? "rma over ofi pair" : "rma over ofi reduce (binary tree) + fan-out bcast";
}

/* The verbose line of the last call named `call` must contain `want`. */
#define expect_line vl_expect

/* A Reduce larger than this runs in pieces (src/coll/rma/cache.h). */
static size_t reduce_piece(void)
{
    const size_t most = (size_t)area / 4 / 64 * 64;
    return most < 65536 ? most : 65536;
}

/* What the line must say for `bytes` packed bytes when `limit` fits. */
static const char *want_for(size_t bytes, size_t limit, const char *rma)
{
    if (expect_rma && bytes > 0 && bytes <= limit)
        return rma;
    return "two-sided";
}

/* ---- contributions ---------------------------------------------------- */
static unsigned val(int r, long i, unsigned salt)
{
    return (unsigned)(r * 2654435761u) ^ (unsigned)(i * 40503u) ^ (salt * 7919u);
}

static void usum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

static void mat_of(int r, long i, unsigned salt, unsigned *m)
{
    m[0] = (unsigned)((r * 3 + i + salt) % 5 + 1);
    m[1] = 1;
    m[2] = (unsigned)((r + i) % 3);
    m[3] = (unsigned)((r + salt) % 2 + 1);
}

/* ---- checks ------------------------------------------------------------- */
static void check_bcast(long n)
{
    size_t bytes = (size_t)n * sizeof(unsigned);
    unsigned *buf = tu_malloc(bytes + 1);
    for (int root = 0; root < size; root++) {
        unsigned salt = (unsigned)(n * 3 + root);
        for (long i = 0; i < n; i++)
            buf[i] = rank == root ? val(root, i, salt) : 0xdeadbeefu;
        CHECK_MPI(MPI_Bcast(buf, (int)n, MPI_UNSIGNED, root, MPI_COMM_WORLD));
        for (long i = 0; i < n; i++)
            CHECKF(buf[i] == val(root, i, salt), "bcast n=%ld root=%d: [%ld]=%u", n, root, i,
                   buf[i]);
        char what[64];
        snprintf(what, sizeof what, "bcast %zu bytes root %d", bytes, root);
        /* two members, past the eager size: the exchange, in a slot */
        const int pair = size == 2 && bytes > 32768 && bytes <= (size_t)area / 2 / 64 * 64;
        expect_line("MPI_Bcast", want_for(bytes, (size_t)area, pair ? "rma over ofi pair"
                                                                    : bcast_algo),
                    what);
    }
    free(buf);
}

static void check_sum(long n, MPI_Op op)
{
    size_t bytes = (size_t)n * sizeof(unsigned);
    size_t rlimit = (size_t)(area / 2 / 64 * 64);
    unsigned *mine = tu_malloc(bytes + 1), *res = tu_malloc(bytes + 1), *ref = tu_malloc(bytes + 1);
    for (long i = 0; i < n; i++) {
        mine[i] = val(rank, i, 11);
        ref[i] = 0;
        for (int r = 0; r < size; r++)
            ref[i] += val(r, i, 11);
    }
    char what[64];
    for (int root = 0; root < size; root++) {
        for (long i = 0; i < n; i++)
            res[i] = 0xabababab;
        CHECK_MPI(MPI_Reduce(mine, res, (int)n, MPI_UNSIGNED, op, root, MPI_COMM_WORLD));
        if (rank == root)
            for (long i = 0; i < n; i++)
                CHECKF(res[i] == ref[i], "sum reduce n=%ld root=%d: [%ld]=%u want %u", n, root, i,
                       res[i], ref[i]);
        snprintf(what, sizeof what, "commutative reduce %zu bytes root %d", bytes, root);
        expect_line("MPI_Reduce",
                    want_for(bytes, SIZE_MAX,
                             bytes > reduce_piece() ? "rma over ofi binary tree, in pieces"
                                                    : "rma over ofi binary tree"),
                    what);
    }
    CHECK_MPI(MPI_Allreduce(mine, res, (int)n, MPI_UNSIGNED, op, MPI_COMM_WORLD));
    for (long i = 0; i < n; i++)
        CHECKF(res[i] == ref[i], "sum allreduce n=%ld: [%ld]=%u want %u", n, i, res[i], ref[i]);
    snprintf(what, sizeof what, "commutative allreduce %zu bytes", bytes);
    expect_line("MPI_Allreduce",
                want_for(bytes, rlimit, allreduce_algo()),
                what);
    free(mine);
    free(res);
    free(ref);
}

static void check_matrix(long n, MPI_Datatype mat, MPI_Op op)
{
    size_t bytes = (size_t)n * 16;
    size_t rlimit = (size_t)(area / 2 / 64 * 64);
    unsigned *mine = tu_malloc(bytes + 1), *res = tu_malloc(bytes + 1), *ref = tu_malloc(bytes + 1);
    for (long i = 0; i < n; i++) {
        mat_of(rank, i, 3, mine + 4 * i);
        unsigned acc[4], m[4];
        mat_of(0, i, 3, acc);
        for (int r = 1; r < size; r++) {
            mat_of(r, i, 3, m);
            tu_mat_mul(acc, m, acc);
        }
        memcpy(ref + 4 * i, acc, sizeof acc);
    }
    char what[64];
    for (int root = 0; root < size; root++) {
        memset(res, 0, bytes);
        int in_place = rank == root && root % 2;
        if (in_place)
            memcpy(res, mine, bytes);
        CHECK_MPI(MPI_Reduce(in_place ? MPI_IN_PLACE : mine, res, (int)n, mat, op, root,
                             MPI_COMM_WORLD));
        if (rank == root)
            for (long i = 0; i < 4 * n; i++)
                CHECKF(res[i] == ref[i], "matrix reduce n=%ld root=%d: [%ld]=%u want %u", n, root,
                       i, res[i], ref[i]);
        snprintf(what, sizeof what, "non-commutative reduce %zu bytes root %d", bytes, root);
        expect_line("MPI_Reduce",
                    want_for(bytes, SIZE_MAX,
                             bytes > reduce_piece()
                                 ? "rma over ofi in-order binary tree (rank order), in pieces"
                                 : "rma over ofi in-order binary tree (rank order)"),
                    what);
    }
    memcpy(res, mine, bytes);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, res, (int)n, mat, op, MPI_COMM_WORLD));
    for (long i = 0; i < 4 * n; i++)
        CHECKF(res[i] == ref[i], "matrix allreduce n=%ld: [%ld]=%u want %u", n, i, res[i], ref[i]);
    snprintf(what, sizeof what, "non-commutative allreduce %zu bytes", bytes);
    expect_line("MPI_Allreduce",
                want_for(bytes, rlimit, allreduce_algo()),
                what);
    free(mine);
    free(res);
    free(ref);
}

/* The last member arrives 30 ms late; nobody may leave before it came.
 * Checked against the late member's own clock reading as it entered the
 * second barrier (sent afterwards), which is exact on one host
 * (CLOCK_MONOTONIC is shared by its processes; MPI_Wtime need not be: Open
 * MPI's starts at each process's MPI_Init) whatever the
 * scheduling skew between members; members on another host (processor
 * name differs) only check that the call succeeded. */
static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check_barrier(const char *when)
{
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    expect_line("MPI_Barrier", expect_rma ? "rma over ofi dissemination on flags" : "two-sided",
                "barrier");
    const int late = size - 1;
    struct {
        double entered;
        char host[MPI_MAX_PROCESSOR_NAME];
    } info;
    memset(&info, 0, sizeof info);
    if (rank == late) {
        double t0 = mono();
        while (mono() - t0 < 0.030) { /* 30 ms, whatever interrupts the sleep */
            struct timespec ts = {0, 5 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        info.entered = mono();
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    double left = mono();
    int len = 0;
    if (rank == late)
        CHECK_MPI(MPI_Get_processor_name(info.host, &len));
    CHECK_MPI(MPI_Bcast(&info, (int)sizeof info, MPI_BYTE, late, MPI_COMM_WORLD));
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    CHECK_MPI(MPI_Get_processor_name(host, &len));
    if (strcmp(host, info.host) == 0)
        CHECKF(left >= info.entered, "%s barrier left %.6f s before member %d entered it",
               when, info.entered - left, late);
}

/* The root runs ahead while the others wait in a two-sided receive. */
static void check_run_ahead(void)
{
    enum { AHEAD = 32, TOTAL = 40, N = 16 };
    unsigned buf[N];
    int token = -1;
    for (int it = 0; it < TOTAL; it++) {
        if (rank != 0 && it == AHEAD)
            CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++)
            buf[i] = rank == 0 ? val(0, i, (unsigned)it) : 0;
        CHECK_MPI(MPI_Bcast(buf, N, MPI_UNSIGNED, 0, MPI_COMM_WORLD));
        for (int i = 0; i < N; i++)
            CHECKF(buf[i] == val(0, i, (unsigned)it), "run-ahead bcast it=%d [%d]=%u", it, i,
                   buf[i]);
    }
    if (rank == 0)
        for (int r = 1; r < size; r++)
            CHECK_MPI(MPI_Send(&r, 1, MPI_INT, r, 7, MPI_COMM_WORLD));
    else
        CHECK_EQ(token, rank);
    expect_line("MPI_Bcast", want_for(sizeof buf, (size_t)area, "rma over ofi"),
                "run-ahead bcast");
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    log_start();
    MPI_Op op_sum, op_mat;
    CHECK_MPI(MPI_Op_create(usum, 1, &op_sum));
    CHECK_MPI(MPI_Op_create(tu_mat_op, 0, &op_mat));
    MPI_Datatype mat;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat));
    CHECK_MPI(MPI_Type_commit(&mat));

    /* First call on the communicator: the cache is set up here, by all. */
    check_barrier("first");
    /* Elements of 4 bytes: inline (<= 48 B), just past it, a page, the
     * reduce limit (half the area) and the bcast limit (all of it), +-1. */
    const long a4 = area / 4, r4 = area / 2 / 64 * 64 / 4;
    const long counts[] = {0, 1, 12, 13, 1024, r4 - 1, r4, r4 + 1, a4, a4 + 1};
    for (int k = 0; k < (int)(sizeof counts / sizeof *counts); k++) {
        if (counts[k] < 0 || (k > 0 && counts[k] == counts[k - 1]))
            continue;
        check_bcast(counts[k]);
        check_sum(counts[k], op_sum);
    }
    /* Elements of 16 bytes, around the reduce limit. */
    const long m16 = area / 2 / 64 * 64 / 16;
    const long mcounts[] = {0, 1, 3, 4, 256, m16, m16 + 1};
    for (int k = 0; k < (int)(sizeof mcounts / sizeof *mcounts); k++)
        if (k == 0 || mcounts[k] != mcounts[k - 1])
            check_matrix(mcounts[k], mat, op_mat);
    check_run_ahead();
    check_barrier("last");

    MPI_Type_free(&mat);
    MPI_Op_free(&op_sum);
    MPI_Op_free(&op_mat);
    vl_stop();
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("coll_rma_ofi: ok (%d ranks%s)\n", size,
               verbose_check ? ", algorithms checked" : "");
    return 0;
}
