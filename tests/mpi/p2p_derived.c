/* p2p_derived.c — derived datatypes through point-to-point, against a
 * reference: vector, indexed (negative displacement), struct with holes,
 * resized (also as many elements) and subarray types, at sizes from 0 to 16 MiB (eager, rendezvous,
 * split copies, pipelined), sent with one type and received with another of
 * the same type signature, and with MPI_Pack/MPI_Unpack as the reference.
 * Every rank sends to rank+1 and receives from rank-1. */
#include "testutil.h"

static int rank, size;

/* Fill the bytes a type covers with a pattern tied to (seed, element
 * position in the packed stream), via MPI_Pack/MPI_Unpack so the reference
 * is the standard's own definition of the type map. */
static void fill_typed(void *buf, int count, MPI_Datatype dt, unsigned seed)
{
    int psize;
    CHECK_MPI(MPI_Pack_size(count, dt, MPI_COMM_WORLD, &psize));
    unsigned char *packed = malloc((size_t)psize + 1);
    for (int i = 0; i < psize; i++)
        packed[i] = (unsigned char)(seed * 131u + (unsigned)i * 7u + ((unsigned)i >> 9));
    int pos = 0;
    CHECK_MPI(MPI_Unpack(packed, psize, &pos, buf, count, dt, MPI_COMM_WORLD));
    free(packed);
}

/* The packed bytes of (buf, count, dt) must equal the pattern of `seed`. */
static void check_typed(const void *buf, int count, MPI_Datatype dt, unsigned seed,
                        const char *what)
{
    int psize, pos = 0;
    CHECK_MPI(MPI_Pack_size(count, dt, MPI_COMM_WORLD, &psize));
    unsigned char *packed = malloc((size_t)psize + 1);
    CHECK_MPI(MPI_Pack(buf, count, dt, packed, psize, &pos, MPI_COMM_WORLD));
    for (int i = 0; i < pos; i++) {
        unsigned char want = (unsigned char)(seed * 131u + (unsigned)i * 7u + ((unsigned)i >> 9));
        CHECKF(packed[i] == want, "%s: packed byte %d is %u, want %u", what, i, packed[i], want);
    }
    free(packed);
}

/* Types with the same signature: n doubles in different layouts (each
 * taken once, except t[5], taken n times: one block per element, elements
 * an extent apart). */
#define NTYPES 6
static int count_of(int i, int n) { return i == 5 ? n : 1; }

static void make_types(int n, MPI_Datatype t[NTYPES])
{
    /* 0: contiguous doubles */
    CHECK_MPI(MPI_Type_contiguous(n, MPI_DOUBLE, &t[0]));
    /* 1: vector, blocks of 3 with a stride of 5 (n rounded down to blocks
     * of 3; the remainder as a second vector glued by struct) */
    MPI_Datatype v, rest;
    CHECK_MPI(MPI_Type_vector(n / 3, 3, 5, MPI_DOUBLE, &v));
    CHECK_MPI(MPI_Type_contiguous(n % 3, MPI_DOUBLE, &rest));
    int bl[2] = {1, 1};
    MPI_Aint ext;
    MPI_Aint lb;
    CHECK_MPI(MPI_Type_get_extent(v, &lb, &ext));
    MPI_Aint disp[2] = {0, ext + 16};
    MPI_Datatype parts[2] = {v, rest};
    CHECK_MPI(MPI_Type_create_struct(2, bl, disp, parts, &t[1]));
    MPI_Type_free(&v);
    MPI_Type_free(&rest);
    /* 2: indexed, pairs of doubles walking backwards (negative-going
     * displacements relative to the first block) */
    int nb = n / 2 + (n % 2);
    int *len = malloc((size_t)nb * sizeof(int)), *dsp = malloc((size_t)nb * sizeof(int));
    for (int i = 0; i < nb; i++) {
        len[i] = (i == nb - 1 && n % 2) ? 1 : 2;
        dsp[i] = 3 * (nb - 1 - i);
    }
    CHECK_MPI(MPI_Type_indexed(nb, len, dsp, MPI_DOUBLE, &t[2]));
    free(len);
    free(dsp);
    /* 3: resized double (extent 24) repeated n times */
    MPI_Datatype r;
    CHECK_MPI(MPI_Type_create_resized(MPI_DOUBLE, 0, 24, &r));
    CHECK_MPI(MPI_Type_contiguous(n, r, &t[3]));
    /* 5: the resized double itself, sent as n elements */
    t[5] = r;
    /* 4: subarray: an (n x 2) block in the middle of an (n x 4) array,
     * taking column 1 of two */
    int sizes[2] = {n, 4}, sub[2] = {n, 1}, start[2] = {0, 1};
    if (n > 0)
        CHECK_MPI(MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t[4]));
    else
        CHECK_MPI(MPI_Type_contiguous(0, MPI_DOUBLE, &t[4]));
    for (int i = 0; i < NTYPES; i++)
        CHECK_MPI(MPI_Type_commit(&t[i]));
}

static void *alloc_for(MPI_Datatype dt, int count)
{
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(dt, &lb, &ext);
    MPI_Type_get_true_extent(dt, &tlb, &text);
    size_t span = (size_t)(text > ext ? text : ext) * (size_t)(count > 0 ? count : 1) + 64;
    char *p = calloc(1, span + 64);
    return p;
}

static void roundtrip(int n)
{
    MPI_Datatype t[NTYPES];
    make_types(n, t);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int st = 0; st < NTYPES; st++) {
        for (int rt = 0; rt < NTYPES; rt++) {
            if (n > 200000 && !(st == rt || st == 0 || rt == 0))
                continue; /* big sizes: a representative subset */
            int sc = count_of(st, n), rc = count_of(rt, n);
            void *sbuf = alloc_for(t[st], sc), *rbuf = alloc_for(t[rt], rc);
            unsigned seed = (unsigned)(rank * 977 + st * 31 + rt * 7 + n);
            fill_typed(sbuf, sc, t[st], seed);
            MPI_Request q[2];
            MPI_Status status;
            CHECK_MPI(MPI_Irecv(rbuf, rc, t[rt], left, st * NTYPES + rt, MPI_COMM_WORLD, &q[0]));
            CHECK_MPI(MPI_Isend(sbuf, sc, t[st], right, st * NTYPES + rt, MPI_COMM_WORLD, &q[1]));
            CHECK_MPI(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Wait(&q[0], &status));
            int cnt;
            CHECK_MPI(MPI_Get_count(&status, MPI_DOUBLE, &cnt));
            CHECKF(cnt == n, "n=%d send type %d recv type %d: count %d", n, st, rt, cnt);
            char what[96];
            snprintf(what, sizeof what, "n=%d send type %d recv type %d", n, st, rt);
            unsigned lseed = (unsigned)(left * 977 + st * 31 + rt * 7 + n);
            check_typed(rbuf, rc, t[rt], lseed, what);
            free(sbuf);
            free(rbuf);
        }
    }
    for (int i = 0; i < NTYPES; i++)
        MPI_Type_free(&t[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* doubles: 0 B, 8 B, small eager, eager limit region, rendezvous,
     * split-copy sizes, 16 MiB */
    int ns[] = {0, 1, 7, 100, 2047, 2049, 4095, 4097, 20000, 150000, 700000, 2 * 1024 * 1024};
    int nn = (int)(sizeof ns / sizeof ns[0]);
    if (size > 4)
        nn--; /* 16 MiB x 8 ranks x 2 buffers is too much for the CI machine's time */
    for (int i = 0; i < nn; i++)
        roundtrip(ns[i]);
    MPI_Finalize();
    return 0;
}
