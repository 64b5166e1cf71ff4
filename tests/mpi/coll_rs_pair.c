/* coll_rs_pair: MPI_Reduce_scatter and MPI_Reduce_scatter_block on
 * 2-member communicators, where fabmpi exchanges the two blocks through the
 * collective cache (src/coll/rma/select.c, "pair"), checked value for
 * value against a reference folded from an MPI_Allgather in rank order:
 *   - counts uneven and empty on either side ({0,5}, {5,0}, {3,7}, {13,1},
 *     {1000,10}) and larger than the cache's data area (30000 + 20000
 *     unsigned ints, 117 KiB: the large area);
 *   - MPI_SUM on unsigned ints, a non-commutative op (2x2 matrix product on
 *     a 4-int type, so member 0's operand must stay on the left) and a
 *     strided vector type (every other int);
 *   - on MPI_COMM_WORLD at 2 ranks, and on the 2-member halves of 4 ranks.
 * With FABMPI_COLL_VERBOSE=1, world rank 0 checks that the pair ran, or
 * with FABMPI_COLL_RMA=off that a two-sided algorithm did.
 * Under another MPI only the values are checked. */
#include <string.h>

#include "verbose_log.h"

static int want_pair; /* 1: the pair must run; 0: must not; -1: not checked */
static long pair_limit; /* largest block it takes: half the cache's largest area (defaults) */

static unsigned val(int r, long i, unsigned salt)
{
    return (unsigned)(r * 2654435761u) ^ (unsigned)(i * 40503u) ^ (salt * 7919u);
}

static void expect_algo(MPI_Comm comm, long block_bytes, const char *what)
{
    if (want_pair < 0 || comm == MPI_COMM_NULL)
        return;
    /* Only world rank 0 prints, for communicators it is rank 0 of. */
    vl_expect("MPI_Reduce_scatter",
              want_pair && block_bytes <= pair_limit ? "pair (each writes" : "two-sided",
              what);
}

/* Reference result of member `me`'s block: every member's vector gathered
 * two-sided and folded in rank order (unit = ints per element). */
static unsigned *reference(MPI_Comm comm, const unsigned *mine, long n, int unit, int mat,
                           long off, long cnt)
{
    unsigned *all = tu_malloc((size_t)2 * (size_t)n * (size_t)unit * sizeof(unsigned) + 1);
    unsigned *ref = tu_malloc((size_t)cnt * (size_t)unit * sizeof(unsigned) + 1);
    CHECK_MPI(MPI_Allgather(mine, (int)(n * unit), MPI_UNSIGNED, all, (int)(n * unit),
                            MPI_UNSIGNED, comm));
    for (long e = 0; e < cnt; e++) {
        const unsigned *a = all + (off + e) * unit, *b = all + (n + off + e) * unit;
        if (mat)
            tu_mat_mul(a, b, ref + e * unit);
        else
            for (int k = 0; k < unit; k++)
                ref[e * unit + k] = a[k] + b[k];
    }
    free(all);
    return ref;
}

static void check_counts(MPI_Comm comm, int c0, int c1, int mat, MPI_Datatype mtype,
                         MPI_Op mop, unsigned salt)
{
    int me;
    MPI_Comm_rank(comm, &me);
    const int unit = mat ? 4 : 1;
    const long n = (long)c0 + c1, mine_n = me ? c1 : c0, off = me ? c0 : 0;
    unsigned *sbuf = tu_malloc((size_t)(n * unit) * sizeof(unsigned) + 1);
    unsigned *rbuf = tu_malloc((size_t)(mine_n * unit) * sizeof(unsigned) + 64);
    for (long i = 0; i < n * unit; i++)
        sbuf[i] = val(me, i, salt);
    unsigned *ref = reference(comm, sbuf, n, unit, mat, off, mine_n);
    int counts[2] = {c0, c1};
    char what[96];
    for (int block = 0; block < 2; block++) {
        if (block && c0 != c1)
            continue;
        memset(rbuf, 0xab, (size_t)(mine_n * unit) * sizeof(unsigned) + 64);
        if (block)
            CHECK_MPI(MPI_Reduce_scatter_block(sbuf, rbuf, c0, mat ? mtype : MPI_UNSIGNED,
                                               mat ? mop : MPI_SUM, comm));
        else
            CHECK_MPI(MPI_Reduce_scatter(sbuf, rbuf, counts, mat ? mtype : MPI_UNSIGNED,
                                         mat ? mop : MPI_SUM, comm));
        for (long i = 0; i < mine_n * unit; i++)
            CHECKF(rbuf[i] == ref[i], "%s%s {%d,%d} member %d: [%ld]=%u want %u",
                   block ? "reduce_scatter_block" : "reduce_scatter", mat ? " matrix" : "", c0,
                   c1, me, i, rbuf[i], ref[i]);
        /* Nothing past the block is touched. */
        CHECK(((unsigned char *)(rbuf + mine_n * unit))[0] == 0xab);
        snprintf(what, sizeof what, "reduce_scatter {%d,%d}%s", c0, c1, mat ? " matrix" : "");
        if (n)
            expect_algo(comm, (long)(c0 > c1 ? c0 : c1) * unit * (long)sizeof(unsigned), what);
    }
    free(ref);
    free(sbuf);
    free(rbuf);
}

/* A strided vector type: element e of the block is int 2e of the buffer. */
static void check_strided(MPI_Comm comm, int c)
{
    int me;
    MPI_Comm_rank(comm, &me);
    MPI_Datatype one, vec;
    CHECK_MPI(MPI_Type_vector(1, 1, 2, MPI_UNSIGNED, &one));
    CHECK_MPI(MPI_Type_create_resized(one, 0, 2 * sizeof(unsigned), &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    unsigned *sbuf = tu_malloc((size_t)4 * (size_t)c * sizeof(unsigned) + 1);
    unsigned *rbuf = tu_malloc((size_t)2 * (size_t)c * sizeof(unsigned) + 1);
    for (long i = 0; i < 4L * c; i++)
        sbuf[i] = val(me, i, 77);
    unsigned *all = tu_malloc((size_t)8 * (size_t)c * sizeof(unsigned) + 1);
    CHECK_MPI(MPI_Allgather(sbuf, 4 * c, MPI_UNSIGNED, all, 4 * c, MPI_UNSIGNED, comm));
    for (long i = 0; i < 2L * c; i++)
        rbuf[i] = 0xabababab;
    int counts[2] = {c, c};
    CHECK_MPI(MPI_Reduce_scatter(sbuf, rbuf, counts, vec, MPI_SUM, comm));
    for (long e = 0; e < c; e++) {
        long at = 2 * ((long)me * c + e);
        unsigned want = all[at] + all[4L * c + at];
        CHECKF(rbuf[2 * e] == want, "strided member %d: [%ld]=%u want %u", me, e, rbuf[2 * e],
               want);
        CHECKF(rbuf[2 * e + 1] == 0xabababab, "strided member %d: gap %ld written", me, e);
    }
    expect_algo(comm, (long)c * (long)sizeof(unsigned), "strided reduce_scatter");
    free(all);
    free(sbuf);
    free(rbuf);
    MPI_Type_free(&vec);
    MPI_Type_free(&one);
}

static void run(MPI_Comm comm, MPI_Datatype mtype, MPI_Op mop)
{
    static const int pairs[][2] = {{0, 5}, {5, 0}, {3, 7}, {13, 1}, {1000, 10}, {8, 8},
                                   {30000, 20000}};
    for (unsigned k = 0; k < sizeof pairs / sizeof *pairs; k++) {
        check_counts(comm, pairs[k][0], pairs[k][1], 0, mtype, mop, k);
        check_counts(comm, pairs[k][0] % 512, pairs[k][1] % 512, 1, mtype, mop, k + 100);
    }
    check_strided(comm, 1);
    check_strided(comm, 300);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 && size != 4) {
        if (rank == 0)
            fprintf(stderr, "coll_rs_pair: run it on 2 or 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *v = getenv("FABMPI_COLL_VERBOSE"), *mode = getenv("FABMPI_COLL_RMA");
    int check = rank == 0 && v && strcmp(v, "1") == 0;
    want_pair = !check ? -1 : mode && strcmp(mode, "off") == 0 ? 0 : 1;
    /* Within a node the cache has its large area (256 pages); over OFI only
     * the 32-page data area. */
    const char *net = getenv("FABMPI_NET");
    pair_limit = net && strcmp(net, "ofi") == 0 ? 32 * 4096 / 2 : 256 * 4096 / 2;
    vl_start(check);
    MPI_Datatype mtype;
    MPI_Op mop;
    tu_mat_make(&mtype, &mop);
    MPI_Comm comm;
    if (size == 2)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    else /* two halves; world rank 0 is rank 0 of its half */
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &comm));
    run(comm, mtype, mop);
    CHECK_MPI(MPI_Comm_free(&comm));
    vl_stop();
    tu_mat_free(&mtype, &mop);
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("coll_rs_pair: ok (%d ranks)\n", size);
    return 0;
}
