/* dtype_large_c: the MPI-4.0 large-count datatype calls.  Every _c
 * constructor takes counts, displacements and strides beyond INT_MAX; the
 * _c queries give sizes and bounds in full (the int ones MPI_UNDEFINED);
 * MPI_Type_get_envelope_c / get_contents_c return the arguments as large
 * counts, in MPI-4.0's layout, and the int decoders refuse such types.
 *
 * Data through types that span more than 2 GB: the buffers are reserved
 * address space (MAP_NORESERVE) of which only the bytes the type touches
 * are ever written, so no memory is used; a self send, MPI_Pack_c and
 * MPI_Unpack_c move exactly those bytes and leave the rest alone. */
#include <limits.h>
#include <sys/mman.h>

#include "testutil.h"

/* Beyond INT_MAX, and a multiple of 8 (struct padding stays out of the
 * way; a darray over 2 processes splits it evenly). */
static const MPI_Count BIG = ((MPI_Count)1 << 31) + 1024;

static void check_message(int code, const char *a, const char *b)
{
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(code, s, &len);
    CHECKF(strstr(s, a) && strstr(s, b), "error string \"%s\" lacks \"%s\" or \"%s\"", s, a, b);
}

static void check_bounds(MPI_Datatype t, MPI_Count size, MPI_Count lb, MPI_Count extent,
                         MPI_Count tlb, MPI_Count textent)
{
    MPI_Count s, l, e;
    int is;
    CHECK_MPI(MPI_Type_size_c(t, &s));
    CHECK_EQ(s, size);
    CHECK_MPI(MPI_Type_size(t, &is));
    CHECK_EQ(is, size > INT_MAX ? MPI_UNDEFINED : size);
    CHECK_MPI(MPI_Type_get_extent_c(t, &l, &e));
    CHECK_EQ(l, lb);
    CHECK_EQ(e, extent);
    CHECK_MPI(MPI_Type_get_true_extent_c(t, &l, &e));
    CHECK_EQ(l, tlb);
    CHECK_EQ(e, textent);
}

/* The envelope and contents of a type from a _c constructor: no integers
 * or addresses beyond `ni` plain integers, the large counts as given. */
static void check_contents(MPI_Datatype t, int combiner, int ni, const int *ints, int nc,
                           const MPI_Count *counts, int nd)
{
    MPI_Count eni, ena, enc, end;
    int comb;
    CHECK_MPI(MPI_Type_get_envelope_c(t, &eni, &ena, &enc, &end, &comb));
    CHECK_EQ(comb, combiner);
    CHECK_EQ(eni, ni);
    CHECK_EQ(ena, 0);
    CHECK_EQ(enc, nc);
    CHECK_EQ(end, nd);
    int gi[16];
    MPI_Aint ga[1];
    MPI_Count gc[16];
    MPI_Datatype gd[4];
    CHECK_MPI(MPI_Type_get_contents_c(t, ni, 0, nc, nd, gi, ga, gc, gd));
    for (int i = 0; i < ni; i++)
        CHECKF(gi[i] == ints[i], "integer %d: %d, expected %d", i, gi[i], ints[i]);
    for (int i = 0; i < nc; i++)
        CHECKF(gc[i] == counts[i], "large count %d: %lld, expected %lld", i, gc[i], counts[i]);
    for (int i = 0; i < nd; i++) {
        int c2;
        MPI_Count a, b, c, d;
        CHECK_MPI(MPI_Type_get_envelope_c(gd[i], &a, &b, &c, &d, &c2));
        if (c2 != MPI_COMBINER_NAMED)
            CHECK_MPI(MPI_Type_free(&gd[i]));
    }
    /* The int decoders cannot say large counts: MPI_ERR_TYPE, naming the
     * call that can. */
    int a, b, d, code;
    CHECK_ERR(code = MPI_Type_get_envelope(t, &a, &b, &d, &comb), MPI_ERR_TYPE);
    check_message(code, "MPI_Type_get_envelope", "MPI_Type_get_envelope_c");
    CHECK_ERR(code = MPI_Type_get_contents(t, 16, 1, 4, gi, ga, gd), MPI_ERR_TYPE);
    check_message(code, "MPI_Type_get_contents", "_c");
}

static void constructors(void)
{
    MPI_Datatype t;
    /* contiguous: BIG bytes */
    CHECK_MPI(MPI_Type_contiguous_c(BIG, MPI_BYTE, &t));
    check_bounds(t, BIG, 0, BIG, 0, BIG);
    check_contents(t, MPI_COMBINER_CONTIGUOUS, 0, NULL, 1, (MPI_Count[]){BIG}, 1);
    CHECK_MPI(MPI_Type_free(&t));

    /* vector: 3 blocks of 2 chars, BIG chars apart */
    CHECK_MPI(MPI_Type_vector_c(3, 2, BIG, MPI_CHAR, &t));
    check_bounds(t, 6, 0, 2 * BIG + 2, 0, 2 * BIG + 2);
    check_contents(t, MPI_COMBINER_VECTOR, 0, NULL, 3, (MPI_Count[]){3, 2, BIG}, 1);
    CHECK_MPI(MPI_Type_free(&t));

    /* hvector: stride in bytes beyond INT_MAX */
    CHECK_MPI(MPI_Type_create_hvector_c(2, 1, BIG, MPI_INT, &t));
    check_bounds(t, 8, 0, BIG + 4, 0, BIG + 4);
    check_contents(t, MPI_COMBINER_HVECTOR, 0, NULL, 3, (MPI_Count[]){2, 1, BIG}, 1);
    CHECK_MPI(MPI_Type_free(&t));

    /* indexed: blocklengths and displacements as large counts */
    CHECK_MPI(MPI_Type_indexed_c(2, (MPI_Count[]){1, 2}, (MPI_Count[]){0, BIG}, MPI_CHAR, &t));
    check_bounds(t, 3, 0, BIG + 2, 0, BIG + 2);
    check_contents(t, MPI_COMBINER_INDEXED, 0, NULL, 5, (MPI_Count[]){2, 1, 2, 0, BIG}, 1);
    CHECK_MPI(MPI_Type_free(&t));

    CHECK_MPI(MPI_Type_create_hindexed_c(2, (MPI_Count[]){BIG, 1}, (MPI_Count[]){-BIG, 8},
                                         MPI_CHAR, &t));
    check_bounds(t, BIG + 1, -BIG, BIG + 9, -BIG, BIG + 9);
    check_contents(t, MPI_COMBINER_HINDEXED, 0, NULL, 5, (MPI_Count[]){2, BIG, 1, -BIG, 8}, 1);
    CHECK_MPI(MPI_Type_free(&t));

    CHECK_MPI(MPI_Type_create_indexed_block_c(2, 4, (MPI_Count[]){BIG, 0}, MPI_SHORT, &t));
    check_bounds(t, 16, 0, 2 * BIG + 8, 0, 2 * BIG + 8);
    check_contents(t, MPI_COMBINER_INDEXED_BLOCK, 0, NULL, 4, (MPI_Count[]){2, 4, BIG, 0}, 1);
    CHECK_MPI(MPI_Type_free(&t));

    CHECK_MPI(MPI_Type_create_hindexed_block_c(2, 3, (MPI_Count[]){0, BIG}, MPI_CHAR, &t));
    check_bounds(t, 6, 0, BIG + 3, 0, BIG + 3);
    check_contents(t, MPI_COMBINER_HINDEXED_BLOCK, 0, NULL, 4, (MPI_Count[]){2, 3, 0, BIG}, 1);
    CHECK_MPI(MPI_Type_free(&t));

    /* struct: a char, then BIG bytes on, a double (padded to 8 bytes) */
    CHECK_MPI(MPI_Type_create_struct_c(2, (MPI_Count[]){1, 1}, (MPI_Count[]){0, BIG + 8},
                                       (MPI_Datatype[]){MPI_CHAR, MPI_DOUBLE}, &t));
    check_bounds(t, 9, 0, BIG + 16, 0, BIG + 16);
    check_contents(t, MPI_COMBINER_STRUCT, 0, NULL, 5, (MPI_Count[]){2, 1, 1, 0, BIG + 8}, 2);
    CHECK_MPI(MPI_Type_free(&t));

    CHECK_MPI(MPI_Type_create_resized_c(MPI_INT, -BIG, 2 * BIG, &t));
    check_bounds(t, 4, -BIG, 2 * BIG, 0, 4);
    check_contents(t, MPI_COMBINER_RESIZED, 0, NULL, 2, (MPI_Count[]){-BIG, 2 * BIG}, 1);
    CHECK_MPI(MPI_Type_free(&t));

    /* subarray: 3 rows of BIG chars, rows 1..2, columns BIG-10..BIG-6 */
    CHECK_MPI(MPI_Type_create_subarray_c(2, (MPI_Count[]){3, BIG}, (MPI_Count[]){2, 5},
                                         (MPI_Count[]){1, BIG - 10}, MPI_ORDER_C, MPI_CHAR, &t));
    check_bounds(t, 10, 0, 3 * BIG, BIG + BIG - 10, BIG + 5);
    check_contents(t, MPI_COMBINER_SUBARRAY, 2, (int[]){2, MPI_ORDER_C}, 6,
                   (MPI_Count[]){3, BIG, 2, 5, 1, BIG - 10}, 1);
    CHECK_MPI(MPI_Type_free(&t));

    /* darray: BIG chars in blocks over 2 processes; process 1 holds the
     * upper half */
    CHECK_MPI(MPI_Type_create_darray_c(2, 1, 1, (MPI_Count[]){BIG},
                                       (int[]){MPI_DISTRIBUTE_BLOCK},
                                       (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){2},
                                       MPI_ORDER_C, MPI_CHAR, &t));
    check_bounds(t, BIG / 2, 0, BIG, BIG / 2, BIG / 2);
    check_contents(t, MPI_COMBINER_DARRAY, 3 + 3 + 1,
                   (int[]){2, 1, 1, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, 2,
                           MPI_ORDER_C},
                   1, (MPI_Count[]){BIG}, 1);
    CHECK_MPI(MPI_Type_free(&t));

    /* A type from an int constructor: the _c decoders describe it too,
     * with no large counts. */
    CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_INT, &t));
    MPI_Count ni, na, nc, nd;
    int comb, gi[3];
    MPI_Datatype gd;
    CHECK_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    CHECK(ni == 3 && na == 0 && nc == 0 && nd == 1 && comb == MPI_COMBINER_VECTOR);
    CHECK_MPI(MPI_Type_get_contents_c(t, 3, 0, 0, 1, gi, NULL, NULL, &gd));
    CHECK(gi[0] == 2 && gi[1] == 1 && gi[2] == 3 && gd == MPI_INT);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_get_envelope_c(MPI_INT, &ni, &na, &nc, &nd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED && ni + na + nc + nd == 0);
}

/* Reserved address space: only the pages written are ever backed. */
static unsigned char *reserve(MPI_Count bytes)
{
    void *p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECKF(p != MAP_FAILED, "cannot reserve %lld bytes of address space", bytes);
    return p;
}

/* A type whose pieces lie more than 2 GB apart moves exactly its bytes. */
static void spanning_data(void)
{
    const MPI_Count span = 2 * BIG + 64;
    unsigned char *src = reserve(span), *dst = reserve(span);
    /* 3 blocks of 2 bytes, BIG apart, then an indexed block BIG + 40 on */
    MPI_Datatype vec, t;
    CHECK_MPI(MPI_Type_vector_c(3, 2, BIG, MPI_BYTE, &vec));
    CHECK_MPI(MPI_Type_create_struct_c(2, (MPI_Count[]){1, 3}, (MPI_Count[]){0, BIG + 40},
                                       (MPI_Datatype[]){vec, MPI_BYTE}, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    const MPI_Count off[9] = {0, 1, BIG, BIG + 1, 2 * BIG, 2 * BIG + 1, BIG + 40, BIG + 41,
                              BIG + 42};
    for (int i = 0; i < 9; i++)
        src[off[i]] = (unsigned char)(11 * i + 1);
    unsigned char packed[9];
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv_c(src, 1, t, 0, 1, packed, 9, MPI_BYTE, 0, 1, MPI_COMM_SELF, &st));
    for (int i = 0; i < 9; i++)
        CHECKF(packed[i] == 11 * i + 1, "packed[%d] = %d", i, packed[i]);
    CHECK_MPI(MPI_Sendrecv_c(packed, 9, MPI_BYTE, 0, 2, dst, 1, t, 0, 2, MPI_COMM_SELF, &st));
    MPI_Count n;
    CHECK_MPI(MPI_Get_count_c(&st, t, &n));
    CHECK_EQ(n, 1);
    CHECK_MPI(MPI_Get_elements_c(&st, t, &n));
    CHECK_EQ(n, 9);
    for (int i = 0; i < 9; i++)
        CHECKF(dst[off[i]] == 11 * i + 1, "dst[%lld] = %d", off[i], dst[off[i]]);
    CHECK(dst[2] == 0 && dst[BIG - 1] == 0 && dst[BIG + 39] == 0 && dst[BIG + 43] == 0);

    /* MPI_Pack_c / MPI_Unpack_c: the same 9 bytes, behind 5 of padding. */
    unsigned char buf[16];
    MPI_Count pos = 5, size;
    CHECK_MPI(MPI_Pack_size_c(1, t, MPI_COMM_SELF, &size));
    CHECK_EQ(size, 9);
    CHECK_MPI(MPI_Pack_c(src, 1, t, buf, 16, &pos, MPI_COMM_SELF));
    CHECK_EQ(pos, 14);
    CHECK(memcmp(buf + 5, packed, 9) == 0);
    for (int i = 0; i < 9; i++)
        dst[off[i]] = 0;
    pos = 5;
    CHECK_MPI(MPI_Unpack_c(buf, 16, &pos, dst, 1, t, MPI_COMM_SELF));
    CHECK_EQ(pos, 14);
    for (int i = 0; i < 9; i++)
        CHECKF(dst[off[i]] == 11 * i + 1, "unpacked dst[%lld] = %d", off[i], dst[off[i]]);

    /* The int MPI_Pack_size of more than INT_MAX bytes: an error naming
     * the _c call; MPI_Pack_size_c answers. */
    MPI_Datatype huge;
    int isize, code;
    CHECK_MPI(MPI_Type_contiguous_c(BIG, MPI_BYTE, &huge));
    CHECK_MPI(MPI_Type_commit(&huge));
    CHECK_ERR(code = MPI_Pack_size(1, huge, MPI_COMM_SELF, &isize), MPI_ERR_COUNT);
    check_message(code, "MPI_Pack_size", "MPI_Pack_size_c");
    CHECK_MPI(MPI_Pack_size_c(3, huge, MPI_COMM_SELF, &size));
    CHECK_EQ(size, 3 * BIG);
    CHECK_MPI(MPI_Type_free(&huge));

    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_free(&vec));
    munmap(dst, (size_t)span);
    munmap(src, (size_t)span);
}

/* external32: big-endian ints, positions and sizes as MPI_Count. */
static void external(void)
{
    int v[3] = {0x01020304, -2, 7}, back[3] = {0};
    unsigned char out[20];
    MPI_Count pos = 2, size;
    CHECK_MPI(MPI_Pack_external_size_c("external32", 3, MPI_INT, &size));
    CHECK_EQ(size, 12);
    CHECK_MPI(MPI_Pack_external_c("external32", v, 3, MPI_INT, out, 20, &pos));
    CHECK_EQ(pos, 14);
    CHECK(out[2] == 1 && out[3] == 2 && out[4] == 3 && out[5] == 4);
    CHECK(out[6] == 0xff && out[9] == 0xfe && out[13] == 7);
    pos = 2;
    CHECK_MPI(MPI_Unpack_external_c("external32", out, 20, &pos, back, 3, MPI_INT));
    CHECK_EQ(pos, 14);
    CHECK(back[0] == v[0] && back[1] == v[1] && back[2] == v[2]);
}

static void errors(void)
{
    MPI_Datatype t;
    int code;
    CHECK_ERR(code = MPI_Type_vector_c(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    check_message(code, "MPI_Type_vector_c", "count=-1");
    char want[64];
    CHECK_ERR(code = MPI_Type_indexed_c(2, (MPI_Count[]){1, -BIG}, (MPI_Count[]){0, 1}, MPI_INT,
                                        &t), MPI_ERR_ARG);
    snprintf(want, sizeof want, "array_of_blocklengths[1]=%lld", -BIG);
    check_message(code, "MPI_Type_indexed_c", want);
    CHECK_ERR(code = MPI_Type_create_subarray_c(1, (MPI_Count[]){BIG}, (MPI_Count[]){BIG + 1},
                                                (MPI_Count[]){0}, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
    snprintf(want, sizeof want, "array_of_subsizes[0]=%lld", BIG + 1);
    check_message(code, "MPI_Type_create_subarray_c", want);
    /* A span beyond MPI_Aint: refused, not wrapped. */
    CHECK_ERR(code = MPI_Type_vector_c(4, 1, (MPI_Count)1 << 61, MPI_INT, &t), MPI_ERR_ARG);
    unsigned char buf[4];
    MPI_Count pos = 0;
    int v = 5;
    CHECK_ERR(code = MPI_Pack_c(&v, 1, MPI_INT, buf, 3, &pos, MPI_COMM_SELF), MPI_ERR_TRUNCATE);
    check_message(code, "MPI_Pack_c", "outsize=3");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    constructors();
    spanning_data();
    external();
    errors();
    MPI_Finalize();
    return 0;
}
