/* coll_rs_flat: MPI_Reduce_scatter and MPI_Reduce_scatter_block on a
 * crowded node (FABMPI_YIELD=always counts any node as one), where a
 * vector the flat allreduce takes is reduced by it and each member copies
 * its block (src/coll/reduce_scatter.c), unless some block is empty:
 *   - blocks of 1 to 40 elements, all non-empty, and layouts with empty
 *     blocks (member 0 only, every other member);
 *   - MPI_SUM on unsigned ints and a non-commutative op (2x2 matrix
 *     product on a 4-int type: members folded in rank order), with an input
 *     buffer and MPI_IN_PLACE;
 *   - every block checked value for value against a reference folded from
 *     an MPI_Allgather of every member's vector, and the bytes after the
 *     block untouched;
 *   - with FABMPI_COLL_VERBOSE=1 world rank 0 checks which way ran: the
 *     flat allreduce when every block is non-empty, the reduce otherwise.
 * Under another MPI only the values are checked. */
#include <string.h>

#include "verbose_log.h"

static int check; /* world rank 0 checks the verbose lines */

static unsigned val(int r, long i, unsigned salt)
{
    return (unsigned)(r * 2654435761u) ^ (unsigned)(i * 40503u) ^ (salt * 7919u);
}

/* counts[i] elements (of `unit` ints) for member i; block form when
 * `block` (every count equal). */
static void one(const int *counts, int block, int mat, int in_place, MPI_Datatype mtype,
                MPI_Op mop, unsigned salt)
{
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int unit = mat ? 4 : 1;
    long n = 0, off = 0;
    for (int i = 0; i < size; i++) {
        if (i == me)
            off = n;
        n += counts[i];
    }
    const long mine = counts[me], ints = n * unit;
    unsigned *sbuf = tu_malloc((size_t)ints * sizeof(unsigned) + 1);
    unsigned *rbuf = tu_malloc((size_t)(in_place ? ints : mine * unit) * sizeof(unsigned) + 64);
    unsigned *all = tu_malloc((size_t)(ints * size) * sizeof(unsigned) + 1);
    for (long i = 0; i < ints; i++)
        sbuf[i] = val(me, i, salt);
    CHECK_MPI(MPI_Allgather(sbuf, (int)ints, MPI_UNSIGNED, all, (int)ints, MPI_UNSIGNED,
                            MPI_COMM_WORLD));
    const size_t rbytes = (size_t)(in_place ? ints : mine * unit) * sizeof(unsigned);
    if (in_place)
        memcpy(rbuf, sbuf, (size_t)ints * sizeof(unsigned));
    memset((char *)rbuf + rbytes, 0xab, 64);
    MPI_Datatype dt = mat ? mtype : MPI_UNSIGNED;
    MPI_Op op = mat ? mop : MPI_SUM;
    const void *in = in_place ? MPI_IN_PLACE : sbuf;
    if (block)
        CHECK_MPI(MPI_Reduce_scatter_block(in, rbuf, counts[0], dt, op, MPI_COMM_WORLD));
    else
        CHECK_MPI(MPI_Reduce_scatter(in, rbuf, counts, dt, op, MPI_COMM_WORLD));
    for (long e = 0; e < mine; e++) {
        unsigned ref[4], tmp[4];
        memcpy(ref, all + (off + e) * unit, (size_t)unit * sizeof(unsigned));
        for (int r = 1; r < size; r++) {
            const unsigned *x = all + (long)r * ints + (off + e) * unit;
            if (mat) {
                tu_mat_mul(ref, x, tmp);
                memcpy(ref, tmp, sizeof tmp);
            } else {
                ref[0] += x[0];
            }
        }
        for (int k = 0; k < unit; k++)
            CHECKF(rbuf[e * unit + k] == ref[k],
                   "%s (%s%s, salt %u): block element %ld int %d is %u, expected %u",
                   block ? "MPI_Reduce_scatter_block" : "MPI_Reduce_scatter",
                   mat ? "matrix op" : "MPI_SUM", in_place ? ", in place" : "", salt, e, k,
                   rbuf[e * unit + k], ref[k]);
    }
    for (int i = 0; i < 64; i++)
        CHECKF(((unsigned char *)rbuf)[rbytes + i] == 0xab, "reduce_scatter wrote past its block");
    int every = 1;
    for (int i = 0; i < size; i++)
        every &= counts[i] > 0;
    char what[96];
    snprintf(what, sizeof what, "reduce_scatter of %ld elements (salt %u)", n, salt);
    /* The flat allreduce's line when it ran, the reduce's when not. */
    if (check)
        vl_expect(every ? "MPI_Allreduce" : "MPI_Reduce ", every ? "flat" : "root=0", what);
    free(sbuf);
    free(rbuf);
    free(all);
}

int main(int argc, char **argv)
{
    int rank, size;
    tu_init_min(&argc, &argv, &rank, &size, 3, "coll_rs_flat");
    const char *v = getenv("FABMPI_COLL_VERBOSE"), *y = getenv("FABMPI_YIELD");
    check = rank == 0 && v && !strcmp(v, "1") && y && !strcmp(y, "always");
    vl_start(check);
    MPI_Datatype mtype;
    MPI_Op mop;
    tu_mat_make(&mtype, &mop);
    int *counts = tu_malloc(sizeof(int) * (size_t)size);
    unsigned salt = 0;
    for (int mat = 0; mat < 2; mat++)
        for (int in_place = 0; in_place < 2; in_place++) {
            /* Whole vectors within the flat allreduce's 1 KiB (an element
             * is 4 bytes, or 16 with the matrix type). */
            const int each[] = {1, 3, 1024 / (mat ? 16 : 4) / size};
            for (unsigned k = 0; k < sizeof each / sizeof each[0]; k++) {
                for (int i = 0; i < size; i++)
                    counts[i] = each[k];
                one(counts, 1, mat, in_place, mtype, mop, salt++);
                for (int i = 0; i < size; i++)
                    counts[i] = 1 + (i * 7 + (int)k) % 5;
                one(counts, 0, mat, in_place, mtype, mop, salt++);
                for (int i = 0; i < size; i++)
                    counts[i] = i % 2 ? 0 : 2 + (int)k;
                one(counts, 0, mat, in_place, mtype, mop, salt++);
                for (int i = 0; i < size; i++)
                    counts[i] = i == 0 ? 1 + (int)k : 0;
                one(counts, 0, mat, in_place, mtype, mop, salt++);
            }
        }
    free(counts);
    vl_stop();
    tu_mat_free(&mtype, &mop);
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("coll_rs_flat: ok (%d ranks)\n", size);
    return 0;
}
