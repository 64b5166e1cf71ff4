/* coll_rma: Bcast, Reduce, Allreduce and Barrier checked value for value
 * against references built from two-sided traffic (MPI_Allgather of every
 * member's contribution, folded locally in rank order), for every root and
 * sizes from 0 to beyond the one-sided cache's data area (32 pages by
 * default: bcast up to 128 KiB, reduce up to 64 KiB) into its large area
 * (256 pages, one node only: reduce up to 512 KiB, bcast up to 1 MiB; with
 * FABMPI_COLL_CACHE_PAGES=8 and FABMPI_COLL_CACHE_LARGE_PAGES=16 the
 * counts below cross both areas' limits), with predefined ops, a commutative user
 * op, a non-commutative one (2x2 matrix product, wrapping unsigned
 * arithmetic), contiguous and strided datatypes, MPI_IN_PLACE, back-to-back
 * calls with rotating roots, split and duplicated communicators.  Run with
 * FABMPI_COLL_RMA=on it exercises the one-sided algorithms; under any other
 * setting (or another MPI) the same checks hold. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* nanosleep under -std=c11 */
#endif
#include <time.h>

#include "testutil.h"

static int rank, size;

/* Counts of unsigned ints: around the data area's reduce limit (64 KiB =
 * 16384) and bcast limit (128 KiB = 32768) of the default cache, and with
 * 8 + 16 pages around both areas' limits (reduce 4096 / 8192, bcast 8192 /
 * 16384). */
static const int counts[] = {0,    1,     3,     100,   1000,  4097,  8192,
                             8193, 16383, 16384, 16385, 32768, 32769, 40000};
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))

static unsigned val(int r, long i, unsigned salt)
{
    return (unsigned)(r * 2654435761u) ^ (unsigned)(i * 40503u) ^ (salt * 7919u);
}

/* ---- user ops --------------------------------------------------------- */
static void usum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

static void mat_of(int r, long i, unsigned *m)
{
    m[0] = (unsigned)((r * 3 + i) % 5 + 1);
    m[1] = 1;
    m[2] = (unsigned)((r + i) % 3);
    m[3] = (unsigned)(r % 2 + 1);
}

/* ---- bcast -------------------------------------------------------------- */
static void check_bcast(MPI_Comm comm, int n, int iter)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    unsigned *buf = tu_malloc((size_t)n * sizeof(unsigned) + 1);
    for (int root = 0; root < np; root++) {
        unsigned salt = (unsigned)(iter * 131 + root);
        for (long i = 0; i < n; i++)
            buf[i] = me == root ? val(root, i, salt) : 0xdeadbeefu;
        CHECK_MPI(MPI_Bcast(buf, n, MPI_UNSIGNED, root, comm));
        for (long i = 0; i < n; i++)
            CHECKF(buf[i] == val(root, i, salt), "bcast n=%d root=%d: [%ld]=%u", n, root, i,
                   buf[i]);
    }
    free(buf);
}

/* Strided type: every other unsigned (non-contiguous in memory). */
static void check_bcast_strided(MPI_Comm comm, int n)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(n > 0 ? n : 1, 1, 2, MPI_UNSIGNED, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    unsigned *buf = tu_malloc((size_t)(2 * n + 1) * sizeof(unsigned));
    for (int root = 0; root < np; root++) {
        for (long i = 0; i < 2L * n; i++)
            buf[i] = me == root || i % 2 ? val(root, i, 5) : 0;
        CHECK_MPI(MPI_Bcast(buf, n > 0 ? 1 : 0, vec, root, comm));
        for (long i = 0; i < 2L * n; i++)
            CHECKF(buf[i] == val(root, i, 5), "strided bcast n=%d root=%d: [%ld]=%u", n, root, i,
                   buf[i]);
    }
    MPI_Type_free(&vec);
    free(buf);
}

/* ---- reduce / allreduce ----------------------------------------------- */
enum { OP_SUM, OP_MAX, OP_BXOR, OP_USUM, NOPS };

static unsigned fold(int op, unsigned a, unsigned b)
{
    switch (op) {
    case OP_MAX: return a > b ? a : b;
    case OP_BXOR: return a ^ b;
    default: return a + b;
    }
}

/* Reference: every contribution gathered two-sided, folded in rank order. */
static unsigned *reference(MPI_Comm comm, const unsigned *mine, int n, int op)
{
    int np;
    MPI_Comm_size(comm, &np);
    unsigned *all = tu_malloc((size_t)np * (size_t)n * sizeof(unsigned) + 1);
    unsigned *ref = tu_malloc((size_t)n * sizeof(unsigned) + 1);
    CHECK_MPI(MPI_Allgather(mine, n, MPI_UNSIGNED, all, n, MPI_UNSIGNED, comm));
    for (long i = 0; i < n; i++) {
        unsigned acc = all[i];
        for (int r = 1; r < np; r++)
            acc = fold(op, acc, all[(size_t)r * (size_t)n + (size_t)i]);
        ref[i] = acc;
    }
    free(all);
    return ref;
}

static void check_reduce(MPI_Comm comm, int n, MPI_Op uop_sum)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    const MPI_Op ops[NOPS] = {MPI_SUM, MPI_MAX, MPI_BXOR, uop_sum};
    unsigned *mine = tu_malloc((size_t)n * sizeof(unsigned) + 1);
    unsigned *res = tu_malloc((size_t)n * sizeof(unsigned) + 1);
    for (int o = 0; o < NOPS; o++) {
        for (long i = 0; i < n; i++)
            mine[i] = val(me, i, (unsigned)o);
        unsigned *ref = reference(comm, mine, n, o);
        for (int root = 0; root < np; root++) {
            for (long i = 0; i < n; i++)
                res[i] = 0xabababab;
            int in_place = me == root && (root + o) % 2;
            if (in_place)
                memcpy(res, mine, (size_t)n * sizeof(unsigned));
            CHECK_MPI(MPI_Reduce(in_place ? MPI_IN_PLACE : mine, res, n, MPI_UNSIGNED, ops[o],
                                 root, comm));
            if (me == root)
                for (long i = 0; i < n; i++)
                    CHECKF(res[i] == ref[i], "reduce op %d n=%d root=%d: [%ld]=%u want %u", o,
                           n, root, i, res[i], ref[i]);
        }
        int in_place = o % 2;
        if (in_place)
            memcpy(res, mine, (size_t)n * sizeof(unsigned));
        CHECK_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : mine, res, n, MPI_UNSIGNED, ops[o],
                                comm));
        for (long i = 0; i < n; i++)
            CHECKF(res[i] == ref[i], "allreduce op %d n=%d: [%ld]=%u want %u", o, n, i, res[i],
                   ref[i]);
        free(ref);
    }
    free(mine);
    free(res);
}

/* Reduce of a strided (non-contiguous) type with MPI_SUM: elements between
 * the strides must stay untouched at the root. */
static void check_reduce_strided(MPI_Comm comm, int n)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(n > 0 ? n : 1, 1, 2, MPI_UNSIGNED, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    unsigned *mine = tu_malloc((size_t)(2 * n + 1) * sizeof(unsigned));
    unsigned *res = tu_malloc((size_t)(2 * n + 1) * sizeof(unsigned));
    unsigned *dense = tu_malloc((size_t)n * sizeof(unsigned) + 1);
    for (long i = 0; i < n; i++)
        mine[2 * i] = dense[i] = val(me, i, 9), mine[2 * i + 1] = 7;
    unsigned *ref = reference(comm, dense, n, OP_SUM);
    for (int root = 0; root < np; root++) {
        for (long i = 0; i < 2L * n; i++)
            res[i] = 0x5a5a5a5a;
        CHECK_MPI(MPI_Reduce(mine, res, n > 0 ? 1 : 0, vec, MPI_SUM, root, comm));
        if (me == root)
            for (long i = 0; i < n; i++)
                CHECKF(res[2 * i] == ref[i] && res[2 * i + 1] == 0x5a5a5a5a,
                       "strided reduce n=%d root=%d: [%ld]=%u want %u", n, root, i, res[2 * i],
                       ref[i]);
    }
    CHECK_MPI(MPI_Allreduce(mine, res, n > 0 ? 1 : 0, vec, MPI_SUM, comm));
    for (long i = 0; i < n; i++)
        CHECKF(res[2 * i] == ref[i], "strided allreduce n=%d: [%ld]=%u want %u", n, i,
               res[2 * i], ref[i]);
    MPI_Type_free(&vec);
    free(mine);
    free(res);
    free(dense);
    free(ref);
}

/* Non-commutative: the result must be M_0 x M_1 x ... x M_{p-1}. */
static void check_matrix(MPI_Comm comm, int n, MPI_Datatype mat, MPI_Op op)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    unsigned *mine = tu_malloc((size_t)n * 4 * sizeof(unsigned) + 1);
    unsigned *res = tu_malloc((size_t)n * 4 * sizeof(unsigned) + 1);
    unsigned *ref = tu_malloc((size_t)n * 4 * sizeof(unsigned) + 1);
    for (long i = 0; i < n; i++) {
        mat_of(me, i, mine + 4 * i);
        unsigned acc[4], m[4];
        mat_of(0, i, acc);
        for (int r = 1; r < np; r++) {
            mat_of(r, i, m);
            tu_mat_mul(acc, m, acc);
        }
        memcpy(ref + 4 * i, acc, sizeof acc);
    }
    for (int root = 0; root < np; root++) {
        memset(res, 0, (size_t)n * 4 * sizeof(unsigned));
        CHECK_MPI(MPI_Reduce(mine, res, n, mat, op, root, comm));
        if (me == root)
            for (long i = 0; i < 4L * n; i++)
                CHECKF(res[i] == ref[i], "matrix reduce n=%d root=%d: [%ld]=%u want %u", n, root,
                       i, res[i], ref[i]);
    }
    memcpy(res, mine, (size_t)n * 4 * sizeof(unsigned));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, res, n, mat, op, comm));
    for (long i = 0; i < 4L * n; i++)
        CHECKF(res[i] == ref[i], "matrix allreduce n=%d: [%ld]=%u want %u", n, i, res[i], ref[i]);
    free(mine);
    free(res);
    free(ref);
}

/* ---- barrier ------------------------------------------------------------ */
static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A member arrives 30 ms late; nobody may leave before it came.  Checked
 * against the late member's own clock reading as it entered (sent after
 * the barrier): exact on one host, where CLOCK_MONOTONIC is shared
 * (MPI_Wtime need not be), whatever the scheduling skew between members;
 * members on another host (processor name differs) skip the comparison. */
static void check_barrier(MPI_Comm comm)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    for (int late = 0; late < np; late += np > 2 ? np - 1 : 1) {
        struct {
            double entered;
            char host[MPI_MAX_PROCESSOR_NAME];
        } info;
        memset(&info, 0, sizeof info);
        int len = 0;
        CHECK_MPI(MPI_Barrier(comm));
        if (me == late) {
            double t0 = mono();
            while (mono() - t0 < 0.030) { /* 30 ms, whatever interrupts the sleep */
                struct timespec ts = {0, 5 * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
            info.entered = mono();
            CHECK_MPI(MPI_Get_processor_name(info.host, &len));
        }
        CHECK_MPI(MPI_Barrier(comm));
        double left = mono();
        CHECK_MPI(MPI_Bcast(&info, (int)sizeof info, MPI_BYTE, late, comm));
        char host[MPI_MAX_PROCESSOR_NAME] = "";
        CHECK_MPI(MPI_Get_processor_name(host, &len));
        if (strcmp(host, info.host) == 0)
            CHECKF(left >= info.entered, "barrier left %.6f s before member %d entered it",
                   info.entered - left, late);
    }
    for (int i = 0; i < 200; i++)
        CHECK_MPI(MPI_Barrier(comm));
}

/* Back to back, no barrier between: flow control must keep a fast root
 * from overwriting a slow child's data area. */
static void check_streams(MPI_Comm comm)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    unsigned buf[64], sum[64];
    for (int it = 0; it < 300; it++) {
        int root = it % np;
        for (int i = 0; i < 64; i++)
            buf[i] = me == root ? val(root, i, (unsigned)it) : 0;
        if (me == (it * 7) % np) { /* one member dawdles now and then */
            struct timespec ts = {0, 200 * 1000};
            nanosleep(&ts, NULL);
        }
        CHECK_MPI(MPI_Bcast(buf, 64, MPI_UNSIGNED, root, comm));
        for (int i = 0; i < 64; i++)
            CHECKF(buf[i] == val(root, i, (unsigned)it), "stream bcast it=%d [%d]", it, i);
        CHECK_MPI(MPI_Allreduce(buf, sum, 64, MPI_UNSIGNED, MPI_SUM, comm));
        for (int i = 0; i < 64; i++)
            CHECKF(sum[i] == (unsigned)np * val(root, i, (unsigned)it), "stream allreduce it=%d",
                   it);
    }
}

/* Packed element counts for the matrix and strided cases, each crossing the
 * reduce limit (64 KiB) and, for bcast, the bcast limit (128 KiB). */
static const int mat_counts[] = {0, 1, 2, 5, 100, 4095, 4096, 4097};
static const int strided_counts[] = {0, 1, 100, 16384, 16385, 32768, 32769};

static void run_all(MPI_Comm comm, MPI_Op uop_sum, MPI_Op uop_mat, MPI_Datatype mat, int full)
{
    check_barrier(comm);
    for (int k = 0; k < NCOUNTS; k++) {
        int n = counts[k];
        if (!full && n > 1000 && n != 16385 && n != 32769)
            continue;
        check_bcast(comm, n, k);
        check_reduce(comm, n, uop_sum);
    }
    for (int k = 0; k < (int)(sizeof mat_counts / sizeof *mat_counts); k++)
        if (full || mat_counts[k] <= 100 || mat_counts[k] == 4097)
            check_matrix(comm, mat_counts[k], mat, uop_mat);
    for (int k = 0; k < (int)(sizeof strided_counts / sizeof *strided_counts); k++) {
        int n = strided_counts[k];
        if (!full && n > 100 && n != 32769)
            continue;
        check_bcast_strided(comm, n);
        check_reduce_strided(comm, n);
    }
    check_streams(comm);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op uop_sum, uop_mat;
    CHECK_MPI(MPI_Op_create(usum, 1, &uop_sum));
    CHECK_MPI(MPI_Op_create(tu_mat_op, 0, &uop_mat));
    MPI_Datatype mat;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat));
    CHECK_MPI(MPI_Type_commit(&mat));

    run_all(MPI_COMM_WORLD, uop_sum, uop_mat, mat, 1);

    /* Two halves: disjoint communicators that may share a context id. */
    MPI_Comm half, dup;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
    run_all(half, uop_sum, uop_mat, mat, 0);
    CHECK_MPI(MPI_Comm_dup(half, &dup));
    check_streams(dup);
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK_MPI(MPI_Comm_free(&half));

    /* Caches come and go with their communicators. */
    for (int i = 0; i < 20; i++) {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        int x = rank, s = -1;
        CHECK_MPI(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, dup));
        CHECK_EQ(s, size * (size - 1) / 2);
        CHECK_MPI(MPI_Comm_free(&dup));
    }

    MPI_Type_free(&mat);
    MPI_Op_free(&uop_sum);
    MPI_Op_free(&uop_mat);
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("coll_rma: ok (%d ranks)\n", size);
    return 0;
}
