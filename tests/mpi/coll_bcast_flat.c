/* coll_bcast_flat: a small MPI_Bcast of 4 or more members on a crowded
 * node (FABMPI_YIELD=always counts any node as one), where fabmpi runs it
 * flat (src/coll/rma/flat.c, fm_crma_bcast_flat): the root publishes the
 * message in its own lane and leaves, every other member copies it out.
 * The root may run calls ahead of the others, never two on one lane.
 *   - from every root: 1 unsigned (inline in the flag line), 8 (the whole
 *     inline part), 9, 256, 1024 (a lane's 4 KiB) and 1025 (another
 *     algorithm);
 *   - layouts that differ between members for one signature: odd ranks
 *     hold unsigneds spaced 8 bytes apart, even ranks plain MPI_UNSIGNED;
 *     every value checked, the gaps and the words after the buffer
 *     untouched;
 *   - 300 calls in a row, the root moving every 3 and the root or the
 *     others arriving late every few calls (so the root runs ahead into
 *     lanes the others still have to read), with MPI_Allreduce,
 *     MPI_Barrier and an outstanding MPI_Iallreduce among them;
 *   - one member passing half the root's count, or the root half the
 *     others' (an erroneous program): the member that sees a count other
 *     than its own returns MPI_ERR_TRUNCATE (more came than it holds) or
 *     MPI_ERR_OTHER, and nobody hangs;
 *   - MPI_T's coll_bcast_flat counts exactly the calls that fit (none
 *     where flat must not run: FABMPI_YIELD=never, FABMPI_COLL_RMA=off,
 *     FABMPI_NET=ofi), and with FABMPI_COLL_VERBOSE=1 world rank 0 sees
 *     "flat" in the line of each of them.
 * Under another MPI only the values are checked, and no counts differ. */
#include <string.h>

#include "verbose_log.h"

enum { GUARD = 16 };
static const unsigned SENTINEL = 0x5a5a5a5au;

static int rank, size, want_flat = -1;
static MPI_Datatype spaced; /* MPI_UNSIGNED with an extent of 8 bytes */
static tu_counters ctr;

static unsigned val(int root, int i, unsigned salt)
{
    return (unsigned)root * 1000003u + (unsigned)i * 2654435761u + salt * 7919u;
}

/* After one call of `bytes`: flat ran exactly where it must. */
static void expect_flat(size_t bytes, const char *what)
{
    if (want_flat < 0)
        return;
    vl_flat_ran(&ctr, "MPI_Bcast", want_flat && size > 3 && bytes > 0 && bytes <= 4096, what);
}

/* One bcast of n unsigneds from root; odd ranks use the spaced layout. */
static void one(int n, int root, unsigned salt)
{
    const int stride = rank % 2 ? 2 : 1;
    const size_t words = (size_t)n * (size_t)stride + GUARD;
    unsigned *buf = tu_malloc(words * sizeof *buf);
    for (size_t w = 0; w < words; w++)
        buf[w] = SENTINEL;
    if (rank == root)
        for (int i = 0; i < n; i++)
            buf[(size_t)i * (size_t)stride] = val(root, i, salt);
    CHECK_MPI(MPI_Bcast(buf, n, rank % 2 ? spaced : MPI_UNSIGNED, root, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++) {
        const unsigned got = buf[(size_t)i * (size_t)stride];
        CHECKF(got == val(root, i, salt), "bcast of %d from %d (salt %u): [%d] = %u, want %u", n,
               root, salt, i, got, val(root, i, salt));
        if (stride == 2)
            CHECKF(buf[2 * (size_t)i + 1] == SENTINEL, "bcast of %d from %d: gap after [%d] "
                   "written", n, root, i);
    }
    for (size_t w = (size_t)n * (size_t)stride; w < words; w++)
        CHECKF(buf[w] == SENTINEL, "bcast of %d from %d: word %zu past the buffer written", n,
               root, w);
    free(buf);
}

static void sizes(void)
{
    const int counts[] = {1, 8, 9, 256, 1024, 1025};
    char what[80];
    for (int root = 0; root < size; root++)
        for (int k = 0; k < (int)(sizeof counts / sizeof *counts); k++) {
            one(counts[k], root, (unsigned)(k * 16 + root));
            snprintf(what, sizeof what, "bcast of %d unsigned from %d", counts[k], root);
            expect_flat((size_t)counts[k] * 4, what);
        }
}

/* Bcasts in a row, the root or the others late every few calls; other
 * collectives among them, one nonblocking allreduce left outstanding over
 * several bcasts. */
static void run_ahead(void)
{
    tu_mix mix = {.rq = MPI_REQUEST_NULL};
    char what[80];
    for (int it = 0; it < 300; it++) {
        const int root = (it / 3) % size;
        if ((rank == root && it % 7 == 0) || (rank != root && it % 5 == 1))
            tu_spin(20e-6);
        one(1 + it % 40, root, (unsigned)(1000 + it));
        snprintf(what, sizeof what, "bcast %d of the run, root %d", it, root);
        expect_flat(4 * (size_t)(1 + it % 40), what);
        tu_mix_step(&mix, it);
    }
}

/* Member `odd` passes half the count (odd == root: the root does). */
static void mismatch(int odd, int full)
{
    MPI_Comm c = tu_fresh_comm();
    unsigned buf[64] = {0};
    const int root = 0, n = rank == odd ? full / 2 : full;
    const int rc = MPI_Bcast(buf, n, MPI_UNSIGNED, root, c);
    const int cls = tu_class_of(rc);
    /* who sees a count other than its own: the odd member, or with the
     * root odd, everyone else */
    const int sees = rank != root && (rank == odd || odd == root);
    if (sees && want_flat > 0 && size > 3)
        CHECKF(cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_OTHER,
               "bcast of %d, member %d passing %d: member %d got class %d (%s)", full, odd,
               full / 2, rank, cls, rc == MPI_SUCCESS ? "the mismatch went unnoticed" : "wrong");
    if (sees && rank == odd && want_flat > 0 && size > 3) /* less room than came: truncated */
        CHECKF(cls == MPI_ERR_TRUNCATE, "bcast of %d, member %d passing %d: class %d, want "
               "MPI_ERR_TRUNCATE", full, odd, full / 2, cls);
    if (rank == root)
        CHECKF(rc == MPI_SUCCESS, "bcast of %d, member %d passing %d: root got class %d", full,
               odd, full / 2, cls);
    MPI_Comm_free(&c);
    tu_counters_skip(want_flat >= 0 ? &ctr : NULL); /* not counted here */
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    want_flat = tu_flat_expected();
    MPI_Type_create_resized(MPI_UNSIGNED, 0, 8, &spaced);
    MPI_Type_commit(&spaced);
    vl_flat_begin(&ctr, "coll_bcast_flat", want_flat);
    sizes();
    run_ahead();
    for (int odd = 0; TU_ERRONEOUS && size > 1 && odd < size && odd < 3; odd++) {
        mismatch(odd, 8);
        mismatch(odd, 64);
    }
    vl_flat_end(&ctr, want_flat);
    MPI_Type_free(&spaced);
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("coll_bcast_flat: ok (%d ranks%s)\n", size,
               want_flat >= 0 ? ", algorithms checked" : "");
    return 0;
}
