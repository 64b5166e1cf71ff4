/* coll_reduce_flat: a small MPI_Reduce on an oversubscribed node, where
 * fabmpi runs it "flat" (src/coll/rma/flat.c, fm_crma_reduce_flat): every
 * member publishes its vector in its own lane, the root alone waits for
 * all and folds them; the others leave at once, so they may run a call
 * ahead of the root, never two.
 *
 * Values, from every root: MPI_SUM on unsigned at counts inline in the
 * flag line, just past it, at the flat limit (1 KiB) and just past it, in
 * place at the root and not; a non-commutative user op (2x2 matrix
 * product: the rank-ordered product); 300 reduces in a row with the root
 * moving and the root arriving late every few calls (so the others run
 * ahead into the lanes it has still to read), each result exact, with
 * MPI_Allreduce, MPI_Barrier and an outstanding MPI_Iallreduce among them;
 * counts that differ between members (an erroneous program) give the root
 * MPI_ERR_TRUNCATE or MPI_ERR_OTHER and hang nobody.
 *
 * Algorithms: FABMPI_YIELD=always makes fabmpi treat the node as
 * oversubscribed (flat must run where it fits), FABMPI_YIELD=never or
 * FABMPI_COLL_RMA=off that it must not.  Then MPI_T's coll_reduce_flat
 * counts exactly the calls that fit, and with FABMPI_COLL_VERBOSE=1 world
 * rank 0 checks each call's line for "flat".  Otherwise (or under another
 * MPI) only values are checked, and no counts differ. */
#include <string.h>

#include "verbose_log.h"

static int rank, size;
static int want_flat = -1; /* 1: flat must run where it fits; 0: must not; -1: unknown */
static tu_counters ctr;

/* After one MPI_Reduce whose vector fits (or not) the flat limit. */
static void expect_flat(int fits, const char *what)
{
    if (want_flat < 0)
        return;
    vl_flat_ran(&ctr, "MPI_Reduce", want_flat && fits, what);
}

static unsigned val(int r, long i, unsigned salt)
{
    return (unsigned)(r * 2654435761u) ^ (unsigned)(i * 40503u) ^ (salt * 7919u);
}

static void sum_to(int n, int root, int in_place, unsigned salt)
{
    unsigned *s = tu_malloc((size_t)n * sizeof *s + 1), *r = tu_malloc((size_t)n * sizeof *r + 1);
    for (int i = 0; i < n; i++)
        (in_place ? r : s)[i] = val(rank, i, salt);
    CHECK_MPI(MPI_Reduce(in_place ? MPI_IN_PLACE : s, r, n, MPI_UNSIGNED, MPI_SUM, root,
                         MPI_COMM_WORLD));
    if (rank == root)
        for (int i = 0; i < n; i++) {
            unsigned want = 0;
            for (int p = 0; p < size; p++)
                want += val(p, i, salt);
            CHECKF(r[i] == want, "sum of %d to root %d (in place %d, salt %u): [%d] = %u, want %u",
                   n, root, in_place, salt, i, r[i], want);
        }
    free(s);
    free(r);
}

static void sums(void)
{
    const int counts[] = {1, 8, 9, 100, 256, 257, 1000};
    char what[80];
    for (int root = 0; root < size; root++)
        for (int k = 0; k < (int)(sizeof counts / sizeof *counts); k++) {
            const int in_place = rank == root && (k + root) % 2;
            sum_to(counts[k], root, in_place, (unsigned)(k * 16 + root));
            snprintf(what, sizeof what, "MPI_SUM of %d unsigned to root %d", counts[k], root);
            expect_flat(counts[k] * 4 <= 1024, what);
        }
}

static void matrices(MPI_Datatype mat, MPI_Op op)
{
    const int counts[] = {1, 2, 64, 65};
    char what[80];
    for (int root = 0; root < size; root++)
        for (int k = 0; k < 4; k++) {
            const int n = counts[k];
            unsigned *s = tu_malloc((size_t)n * 16), *r = tu_malloc((size_t)n * 16);
            for (int i = 0; i < 4 * n; i++)
                s[i] = val(rank, i, 5) | 1;
            CHECK_MPI(MPI_Reduce(s, r, n, mat, op, root, MPI_COMM_WORLD));
            if (rank == root)
                for (int e = 0; e < n; e++) {
                    unsigned want[4], m[4];
                    for (int j = 0; j < 4; j++)
                        want[j] = val(0, 4 * e + j, 5) | 1;
                    for (int p = 1; p < size; p++) {
                        for (int j = 0; j < 4; j++)
                            m[j] = val(p, 4 * e + j, 5) | 1;
                        tu_mat_mul(want, m, want);
                    }
                    CHECKF(!memcmp(want, r + 4 * e, sizeof want),
                           "matrix product of %d to root %d: element %d not the rank-ordered "
                           "product", n, root, e);
                }
            snprintf(what, sizeof what, "matrix product of %d to root %d", n, root);
            expect_flat(n * 16 <= 1024, what);
            free(s);
            free(r);
        }
}

/* Reduces in a row, the root arriving late every few calls; other
 * collectives among them, one nonblocking allreduce left outstanding over
 * several reduces. */
static void run_ahead(void)
{
    tu_mix mix = {.rq = MPI_REQUEST_NULL};
    char what[80];
    for (int it = 0; it < 300; it++) {
        const int root = (it / 3) % size;
        if (rank == root && it % 7 == 0)
            tu_spin(20e-6);
        sum_to(12, root, 0, (unsigned)(1000 + it));
        snprintf(what, sizeof what, "reduce %d of the run, root %d", it, root);
        expect_flat(1, what);
        tu_mix_step(&mix, it);
    }
}

/* Member `odd` passes half the count: the root's result depends on it. */
static void mismatch(int odd, int full)
{
    MPI_Comm c = tu_fresh_comm();
    unsigned in[64] = {0}, out[64];
    const int rc = MPI_Reduce(in, out, rank == odd ? full / 2 : full, MPI_UNSIGNED, MPI_SUM, 0, c);
    const int cls = tu_class_of(rc);
    if (rank == 0)
        CHECKF(cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_OTHER,
               "reduce of %d, member %d passing %d: root got class %d (%s)", full, odd, full / 2,
               cls, rc == MPI_SUCCESS ? "the mismatch went unnoticed" : "wrong class");
    MPI_Comm_free(&c);
    tu_counters_skip(want_flat >= 0 ? &ctr : NULL); /* not counted here */
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    want_flat = tu_flat_expected();
    if (size < 2 && want_flat > 0)
        want_flat = 0;
    vl_flat_begin(&ctr, "coll_reduce_flat", want_flat);

    MPI_Op op_mat;
    MPI_Datatype mat;
    tu_mat_make(&mat, &op_mat);
    sums();
    matrices(mat, op_mat);
    run_ahead();
    /* one member: no mismatch */
    for (int odd = 0; TU_ERRONEOUS && size > 1 && odd < size && odd < 3; odd++) {
        mismatch(odd, 8);
        mismatch(odd, 64);
    }
    tu_mat_free(&mat, &op_mat);
    vl_flat_end(&ctr, want_flat);
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("coll_reduce_flat: ok (%d ranks%s)\n", size,
               want_flat >= 0 ? ", algorithms checked" : "");
    return 0;
}
