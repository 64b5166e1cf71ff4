/* p2p_offsets: payloads between buffers at every offset within a page.
 *
 * The library routes copies whose destination sits 1-31 bytes past the
 * source modulo 4 KiB around glibc's and the kernel's slow `rep movsb`
 * (src/util/copy.h): a backward copy for its own copies, the streamed
 * rendezvous instead of a CMA pull.  Here every message size on both sides
 * of those paths (eager below and above the 2 KiB test, rendezvous pulled,
 * split and streamed) goes around a ring from send buffers at two offsets
 * into receive buffers at offsets inside and outside the window, with the
 * bytes around the receive buffer checked untouched; then an
 * MPI_Allreduce and an MPI_Sendrecv_replace at offsets in the window.
 *
 * With FM_TEST_EXPECT_CMA=1 (2 ranks, shared memory, the default copy
 * mode) the paths of 256 KiB messages from rank 0 to rank 1 are checked
 * through MPI_T counters:
 *   - aligned buffers: a split copy, each side one CMA copy;
 *   - the receive buffer 16 bytes past the send buffer's offset: streamed,
 *     no CMA;
 *   - received into a strided type (streamed too), after which the next
 *     aligned message is a split copy again (before, such a send stayed
 *     counted as waiting to be pulled, and split copies to that peer
 *     stopped for good). */
#include "testutil.h"

enum { PAGE = 4096, GUARD = 64 };

static int rank, size;

static void ring_once(char *sarea, char *rarea, size_t n, int soff, int roff, unsigned seed)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char *s = sarea + PAGE + soff, *r = rarea + PAGE + roff;
    tu_fill(s, n, seed + (unsigned)rank);
    memset(r - GUARD, 0x5a, n + 2 * GUARD);
    MPI_Request rq[2];
    CHECK_MPI(MPI_Irecv(r, (int)n, MPI_BYTE, left, 7, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Isend(s, (int)n, MPI_BYTE, right, 7, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    long bad = tu_verify(r, n, seed + (unsigned)left);
    CHECKF(bad < 0, "%zu bytes, send offset %d, receive offset %d: byte %ld differs", n, soff,
           roff, bad);
    for (int i = 0; i < GUARD; i++)
        CHECKF((unsigned char)r[-1 - i] == 0x5a && (unsigned char)r[n + (size_t)i] == 0x5a,
               "%zu bytes at receive offset %d: a byte around the buffer was written", n, roff);
}

/* n bytes from rank 0 (send offset 0) to rank 1 (receive offset roff),
 * into the typed buffer `into` instead when given. */
static void one_way(char *sarea, char *rarea, size_t n, int roff, unsigned seed, void *into,
                    MPI_Datatype dt)
{
    if (rank == 0) {
        tu_fill(sarea + PAGE, n, seed);
        CHECK_MPI(MPI_Send(sarea + PAGE, (int)n, MPI_BYTE, 1, 8, MPI_COMM_WORLD));
    } else if (rank == 1) {
        char *r = into ? into : rarea + PAGE + roff;
        CHECK_MPI(MPI_Recv(r, into ? 1 : (int)n, into ? dt : MPI_BYTE, 0, 8, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
        if (!into)
            CHECK_PATTERN(r, n, seed);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* This rank's CMA copies and streamed chunks since the last look must be
 * (cma, streamed>0 ? some : none) for the sender (rank 0) or receiver. */
static void expect(tu_counters *c, const char *what, long long cma0, long long cma1, int streamed)
{
    long long d[2];
    tu_counters_deltas(c, d);
    long long cma = rank == 0 ? cma0 : cma1;
    int chunks_here = rank == 0 && streamed; /* the sender counts the chunks it streams */
    CHECKF(d[0] == cma && (chunks_here ? d[1] > 0 : d[1] == 0),
           "%s: rank %d made %lld CMA copies and streamed %lld chunks (want %lld and %s)", what,
           rank, d[0], d[1], cma, chunks_here ? "some" : "none");
}

static void check_paths(char *sarea, char *rarea)
{
    const char *names[] = {"shm_cma_copies", "pt2pt_stream_chunks"};
    int provided;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    tu_counters c;
    tu_counters_start(&c, 2, names);
    const size_t n = 256 << 10;

    /* Aligned: a split copy (the receiver pulls the front, the sender
     * pushes the back). */
    one_way(sarea, rarea, n, 0, 20, NULL, MPI_BYTE);
    expect(&c, "aligned buffers", 1, 1, 0);

    /* In the window: streamed, no CMA at all. */
    one_way(sarea, rarea, n, 16, 21, NULL, MPI_BYTE);
    expect(&c, "receive buffer 16 bytes past the send buffer", 0, 0, 1);

    /* Into a strided type: streamed; the aligned message after it is a
     * split copy again. */
    MPI_Datatype strided;
    CHECK_MPI(MPI_Type_vector((int)(n / 64), 64, 128, MPI_BYTE, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    unsigned char *wide = tu_malloc(2 * n);
    one_way(sarea, rarea, n, 0, 22, wide, strided);
    if (rank == 1)
        for (size_t b = 0; b < n / 64; b++)
            for (size_t i = 0; i < 64; i++)
                CHECKF(wide[b * 128 + i] == tu_pat(b * 64 + i, 22),
                       "strided receive: block %zu byte %zu differs", b, i);
    free(wide);
    CHECK_MPI(MPI_Type_free(&strided));
    expect(&c, "a strided receive", 0, 0, 1);
    one_way(sarea, rarea, n, 0, 23, NULL, MPI_BYTE);
    expect(&c, "aligned buffers after a streamed send", 1, 1, 0);
    tu_counters_stop(&c);
    CHECK_MPI(MPI_T_finalize());
}

int main(int argc, char **argv)
{
    tu_init_min(&argc, &argv, &rank, &size, 1, "p2p_offsets");
    const size_t most = 256 << 10;
    char *sarea, *rarea;
    CHECK(posix_memalign((void **)&sarea, PAGE, most + 2 * PAGE) == 0);
    CHECK(posix_memalign((void **)&rarea, PAGE, most + 2 * PAGE) == 0);

    const size_t sizes[] = {2048, 2049, 3000, 4096, 16384 + 7, 40000, most};
    const int soffs[] = {0, 16};
    const int roffs[] = {0, 1, 8, 16, 17, 31, 32, 48, 63};
    unsigned seed = 10;
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
        for (size_t a = 0; a < sizeof soffs / sizeof *soffs; a++)
            for (size_t b = 0; b < sizeof roffs / sizeof *roffs; b++)
                ring_once(sarea, rarea, sizes[z], soffs[a], roffs[b], seed++);

    /* Collectives copy through the library's own buffers: results at an
     * offset in the window of those. */
    enum { N = 8192 };
    double *in = (double *)(void *)(sarea + PAGE), *out = (double *)(void *)(rarea + PAGE + 16);
    for (int i = 0; i < N; i++)
        in[i] = rank + i;
    CHECK_MPI(MPI_Allreduce(in, out, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECKF(out[i] == (double)size * i + (double)size * (size - 1) / 2,
               "allreduce element %d is %g", i, out[i]);
    char *rep = rarea + PAGE + 8;
    tu_fill(rep, 40000, 50 + (unsigned)rank);
    CHECK_MPI(MPI_Sendrecv_replace(rep, 40000, MPI_BYTE, (rank + 1) % size, 9,
                                   (rank + size - 1) % size, 9, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
    CHECK_PATTERN(rep, 40000, 50 + (unsigned)((rank + size - 1) % size));

    const char *e = getenv("FM_TEST_EXPECT_CMA");
    if (e && atoi(e))
        check_paths(sarea, rarea);
    free(sarea);
    free(rarea);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("p2p_offsets: ok\n");
    CHECK_MPI(MPI_Finalize());
    return 0;
}
