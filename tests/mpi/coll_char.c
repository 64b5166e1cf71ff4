/* coll_char: reductions on MPI_CHAR compute as signed char.
 *
 * The standard lists only MPI_SIGNED_CHAR / MPI_UNSIGNED_CHAR among the
 * integer types for reductions, so reducing MPI_CHAR is erroneous and the
 * implementation defines the result; fabmpi, like Open MPI and MPICH,
 * computes it as signed char (OSU's reduction benchmarks reduce MPI_CHAR
 * with MPI_SUM by default).  Every integer op (SUM, PROD, MIN, MAX, LAND,
 * LOR, LXOR, BAND, BOR, BXOR) through MPI_Reduce (two roots), MPI_Allreduce
 * (also in place), MPI_Scan, MPI_Exscan, MPI_Reduce_scatter_block,
 * MPI_Reduce_scatter and MPI_Reduce_local, at counts from 1 to past the
 * large-message algorithms, and through a strided vector of MPI_CHAR.  The
 * values make SUM and PROD overflow, so the result must be the two's
 * complement wraparound of a signed char, and MIN/MAX must order negative
 * values below positive ones.  MINLOC on MPI_CHAR stays an error. */
#include "char_ref.h"

static int rank, size;

static void check(const signed char *got, long n, int o, int lo, int hi, long first,
                  const char *what)
{
    CHECK_CHARS(got, n, o, lo, hi, first, what);
}

static void run(long n)
{
    signed char *in = tu_malloc((size_t)n), *out = tu_malloc((size_t)n);
    signed char *loc = tu_malloc((size_t)n);
    fill(in, n, rank);
    for (int o = 0; o < NOPS; o++) {
        MPI_Op op = OPS[o];
        for (int k = 0; k < 2; k++) {
            int root = k ? size - 1 : 0;
            memset(out, 0x55, (size_t)n);
            CHECK_MPI(MPI_Reduce(in, out, (int)n, MPI_CHAR, op, root, MPI_COMM_WORLD));
            if (rank == root)
                check(out, n, o, 0, size, 0, "MPI_Reduce");
        }
        memset(out, 0x55, (size_t)n);
        CHECK_MPI(MPI_Allreduce(in, out, (int)n, MPI_CHAR, op, MPI_COMM_WORLD));
        check(out, n, o, 0, size, 0, "MPI_Allreduce");
        fill(out, n, rank);
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, out, (int)n, MPI_CHAR, op, MPI_COMM_WORLD));
        check(out, n, o, 0, size, 0, "MPI_Allreduce(MPI_IN_PLACE)");
        CHECK_MPI(MPI_Scan(in, out, (int)n, MPI_CHAR, op, MPI_COMM_WORLD));
        check(out, n, o, 0, rank + 1, 0, "MPI_Scan");
        CHECK_MPI(MPI_Exscan(in, out, (int)n, MPI_CHAR, op, MPI_COMM_WORLD));
        if (rank > 0)
            check(out, n, o, 0, rank, 0, "MPI_Exscan");
        /* every rank's own value reduced into rank 0's, locally */
        fill(loc, n, 0);
        for (int r = 1; r < size; r++) {
            fill(out, n, r);
            CHECK_MPI(MPI_Reduce_local(out, loc, (int)n, MPI_CHAR, op));
        }
        check(loc, n, o, 0, size, 0, "MPI_Reduce_local");
    }
    free(in);
    free(out);
    free(loc);
}

/* Blocks of `per` elements per rank, and uneven blocks (rank r: r+1). */
static void run_scatter(int per)
{
    long n = (long)per * size, tot = (long)size * (size + 1) / 2;
    signed char *in = tu_malloc((size_t)(n > tot ? n : tot)), *out = tu_malloc((size_t)per + size);
    int *counts = tu_malloc((size_t)size * sizeof(int));
    long first = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = r + 1;
        if (r < rank)
            first += r + 1;
    }
    for (int o = 0; o < NOPS; o++) {
        fill(in, n, rank);
        CHECK_MPI(MPI_Reduce_scatter_block(in, out, per, MPI_CHAR, OPS[o], MPI_COMM_WORLD));
        check(out, per, o, 0, size, (long)rank * per, "MPI_Reduce_scatter_block");
        fill(in, tot, rank);
        CHECK_MPI(MPI_Reduce_scatter(in, out, counts, MPI_CHAR, OPS[o], MPI_COMM_WORLD));
        check(out, rank + 1, o, 0, size, first, "MPI_Reduce_scatter");
    }
    free(in);
    free(out);
    free(counts);
}

/* Every other char of a buffer: the reduction goes through packed form. */
static void run_strided(void)
{
    enum { M = 37 };
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(M, 1, 2, MPI_CHAR, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    signed char in[2 * M], out[2 * M], packed[M];
    for (int o = 0; o < NOPS; o++) {
        for (int i = 0; i < M; i++) {
            in[2 * i] = val(rank, i);
            in[2 * i + 1] = 9;
        }
        memset(out, 7, sizeof out);
        CHECK_MPI(MPI_Allreduce(in, out, 1, vec, OPS[o], MPI_COMM_WORLD));
        for (int i = 0; i < M; i++) {
            packed[i] = out[2 * i];
            CHECKF(out[2 * i + 1] == 7, "strided MPI_%s: gap byte %d written", op_name[o], 2 * i + 1);
        }
        check(packed, M, o, 0, size, 0, "MPI_Allreduce(vector of MPI_CHAR)");
    }
    CHECK_MPI(MPI_Type_free(&vec));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const long counts[] = {1, 13, 4096, 70000};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
        run(counts[c]);
    run_scatter(1);
    run_scatter(300);
    run_strided();

    /* MINLOC/MAXLOC take pairs only, MPI_CHAR included. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    signed char a = 1, b = 0;
    CHECK_ERR(MPI_Allreduce(&a, &b, 1, MPI_CHAR, MPI_MINLOC, MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_ERR(MPI_Reduce_local(&a, &b, 1, MPI_CHAR, MPI_MAXLOC), MPI_ERR_OP);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_char: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
