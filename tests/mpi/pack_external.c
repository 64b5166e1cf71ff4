/* pack_external: MPI_Pack_external / MPI_Unpack_external /
 * MPI_Pack_external_size with "external32" (MPI-3.1 13.5.2).
 *   - the size of every predefined C and Fortran type per the standard's
 *     table (MPI_LONG 4 bytes, MPI_LONG_DOUBLE 16, pairs as their parts);
 *   - exact big-endian bytes for integers (cut to 4 bytes for long, sign-
 *     and zero-extended back), IEEE float/double/quad, complex, pairs;
 *   - long double through IEEE binary128, rounding to nearest even back;
 *   - derived types (struct with padding, vector, indexed, resized,
 *     subarray): type-map order without padding, padding left untouched
 *     on unpack; position advances over several calls;
 *   - rank 0's bytes are every rank's (broadcast and compared);
 *   - errors: other datareps MPI_ERR_ARG, short buffers MPI_ERR_TRUNCATE,
 *     bad position MPI_ERR_ARG, negative counts MPI_ERR_COUNT, uncommitted
 *     or null types MPI_ERR_TYPE. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <wchar.h>

#include "testutil.h"

static const char X32[] = "external32";

static void check_size(MPI_Datatype dt, const char *name, int want)
{
    MPI_Aint size = -1;
    CHECK_MPI(MPI_Pack_external_size(X32, 1, dt, &size));
    CHECKF(size == want, "external32 size of %s = %ld, expected %d", name, (long)size, want);
    CHECK_MPI(MPI_Pack_external_size(X32, 7, dt, &size));
    CHECKF(size == 7 * want, "external32 size of 7 %s = %ld", name, (long)size);
}

/* Pack one count of dt from buf; the bytes must be want[0..n). */
static void check_bytes(const void *buf, int count, MPI_Datatype dt, const char *what,
                        const unsigned char *want, int n)
{
    unsigned char out[256];
    MPI_Aint pos = 0;
    memset(out, 0xA5, sizeof out);
    CHECK_MPI(MPI_Pack_external(X32, buf, count, dt, out, sizeof out, &pos));
    CHECKF(pos == n, "%s: position %ld after packing, expected %d", what, (long)pos, n);
    for (int i = 0; i < n; i++)
        CHECKF(out[i] == want[i], "%s: byte %d is %02x, expected %02x", what, i, out[i], want[i]);
    CHECKF(out[n] == 0xA5, "%s: wrote past %d bytes", what, n);
}

/* Unpack n bytes into count of dt at buf (which the caller checks). */
static void unpack_bytes(const unsigned char *in, int n, void *buf, int count, MPI_Datatype dt)
{
    MPI_Aint pos = 0;
    CHECK_MPI(MPI_Unpack_external(X32, in, n, &pos, buf, count, dt));
    CHECK_EQ(pos, n);
}

#define BYTES(...) ((const unsigned char[]){__VA_ARGS__}), sizeof((const unsigned char[]){__VA_ARGS__})

static void sizes(void)
{
#define S(t, n) check_size(t, #t, n)
    S(MPI_CHAR, 1); S(MPI_SIGNED_CHAR, 1); S(MPI_UNSIGNED_CHAR, 1); S(MPI_BYTE, 1);
    S(MPI_PACKED, 1); S(MPI_WCHAR, 4); S(MPI_SHORT, 2); S(MPI_UNSIGNED_SHORT, 2);
    S(MPI_INT, 4); S(MPI_UNSIGNED, 4); S(MPI_LONG, 4); S(MPI_UNSIGNED_LONG, 4);
    S(MPI_LONG_LONG_INT, 8); S(MPI_LONG_LONG, 8); S(MPI_UNSIGNED_LONG_LONG, 8);
    S(MPI_FLOAT, 4); S(MPI_DOUBLE, 8); S(MPI_LONG_DOUBLE, 16);
    S(MPI_C_BOOL, 1); S(MPI_INT8_T, 1); S(MPI_INT16_T, 2); S(MPI_INT32_T, 4);
    S(MPI_INT64_T, 8); S(MPI_UINT8_T, 1); S(MPI_UINT16_T, 2); S(MPI_UINT32_T, 4);
    S(MPI_UINT64_T, 8); S(MPI_AINT, 8); S(MPI_COUNT, 8); S(MPI_OFFSET, 8);
    S(MPI_C_COMPLEX, 8); S(MPI_C_FLOAT_COMPLEX, 8); S(MPI_C_DOUBLE_COMPLEX, 16);
    S(MPI_C_LONG_DOUBLE_COMPLEX, 32);
    S(MPI_FLOAT_INT, 8); S(MPI_DOUBLE_INT, 12); S(MPI_LONG_INT, 8); S(MPI_2INT, 8);
    S(MPI_SHORT_INT, 6); S(MPI_LONG_DOUBLE_INT, 20);
    S(MPI_CHARACTER, 1); S(MPI_LOGICAL, 4); S(MPI_INTEGER, 4); S(MPI_REAL, 4);
    S(MPI_DOUBLE_PRECISION, 8); S(MPI_COMPLEX, 8); S(MPI_DOUBLE_COMPLEX, 16);
    S(MPI_INTEGER1, 1); S(MPI_INTEGER2, 2); S(MPI_INTEGER4, 4); S(MPI_INTEGER8, 8);
    S(MPI_REAL4, 4); S(MPI_REAL8, 8); S(MPI_COMPLEX8, 8); S(MPI_COMPLEX16, 16);
    S(MPI_2REAL, 8); S(MPI_2DOUBLE_PRECISION, 16); S(MPI_2INTEGER, 8);
#ifdef MPI_INTEGER16
    S(MPI_INTEGER16, 16);
#endif
#ifdef MPI_REAL16
    S(MPI_REAL16, 16); S(MPI_COMPLEX32, 32);
#endif
#undef S
}

static void integers(void)
{
    int i = 0x01020304, im = -2;
    check_bytes(&i, 1, MPI_INT, "int", BYTES(1, 2, 3, 4));
    check_bytes(&im, 1, MPI_INT, "int -2", BYTES(0xff, 0xff, 0xff, 0xfe));
    short sh[2] = {0x0102, -3};
    check_bytes(sh, 2, MPI_SHORT, "short", BYTES(1, 2, 0xff, 0xfd));
    unsigned short us = 0xfffe;
    check_bytes(&us, 1, MPI_UNSIGNED_SHORT, "unsigned short", BYTES(0xff, 0xfe));
    long l[2] = {-5, 0x12345678};
    check_bytes(l, 2, MPI_LONG, "long", BYTES(0xff, 0xff, 0xff, 0xfb, 0x12, 0x34, 0x56, 0x78));
    unsigned long ul = 0xfffffffful;
    check_bytes(&ul, 1, MPI_UNSIGNED_LONG, "unsigned long", BYTES(0xff, 0xff, 0xff, 0xff));
    long long ll = 0x0102030405060708ll;
    check_bytes(&ll, 1, MPI_LONG_LONG, "long long", BYTES(1, 2, 3, 4, 5, 6, 7, 8));
    int64_t i64 = -1;
    check_bytes(&i64, 1, MPI_INT64_T, "int64 -1", BYTES(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff));
    MPI_Aint a = (MPI_Aint)0x0a0b0c0d;
    check_bytes(&a, 1, MPI_AINT, "MPI_Aint", BYTES(0, 0, 0, 0, 0x0a, 0x0b, 0x0c, 0x0d));
    unsigned char uc[3] = {1, 0x80, 0xff};
    check_bytes(uc, 3, MPI_UNSIGNED_CHAR, "unsigned char", BYTES(1, 0x80, 0xff));
    _Bool b[2] = {1, 0};
    check_bytes(b, 2, MPI_C_BOOL, "bool", BYTES(1, 0));
    wchar_t wc = L'A';
    check_bytes(&wc, 1, MPI_WCHAR, "wchar", BYTES(0, 0, 0, 0x41));
    int32_t logical = 1;
    check_bytes(&logical, 1, MPI_LOGICAL, "LOGICAL", BYTES(0, 0, 0, 1));

    /* Back: sign- and zero-extension to the native width. */
    long lback[2] = {0, 0};
    unpack_bytes(BYTES(0xff, 0xff, 0xff, 0xfb, 0x7f, 0xff, 0xff, 0xff), lback, 2, MPI_LONG);
    CHECK_EQ(lback[0], -5);
    CHECK_EQ(lback[1], 0x7fffffffl);
    unsigned long ulback = 0;
    unpack_bytes(BYTES(0x80, 0, 0, 1), &ulback, 1, MPI_UNSIGNED_LONG);
    CHECK(ulback == 0x80000001ul);
    short shback = 0;
    unpack_bytes(BYTES(0x80, 0x01), &shback, 1, MPI_SHORT);
    CHECK_EQ(shback, -32767);
    int64_t i64back = 0;
    unpack_bytes(BYTES(0x80, 0, 0, 0, 0, 0, 0, 2), &i64back, 1, MPI_INT64_T);
    CHECK(i64back == INT64_MIN + 2);
#ifdef MPI_INTEGER16
    __int128 big = ((__int128)0x0102030405060708 << 64) | 0x090a0b0c0d0e0f10;
    check_bytes(&big, 1, MPI_INTEGER16, "INTEGER*16",
                BYTES(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16));
#endif
}

static void floats(void)
{
    float f[2] = {1.0f, -0.5f};
    check_bytes(f, 2, MPI_FLOAT, "float", BYTES(0x3f, 0x80, 0, 0, 0xbf, 0, 0, 0));
    double d = -2.5;
    check_bytes(&d, 1, MPI_DOUBLE, "double", BYTES(0xc0, 0x04, 0, 0, 0, 0, 0, 0));
    float _Complex fc = 1.0f + 2.0f * _Complex_I;
    check_bytes(&fc, 1, MPI_C_FLOAT_COMPLEX, "float complex",
                BYTES(0x3f, 0x80, 0, 0, 0x40, 0, 0, 0));
    double _Complex dc = 0;
    unpack_bytes(BYTES(0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0), &dc, 1,
                 MPI_C_DOUBLE_COMPLEX);
    CHECK(creal(dc) == 1.0 && cimag(dc) == -2.0);

    long double ld[2] = {1.0L, -3.0L};
    check_bytes(ld, 2, MPI_LONG_DOUBLE, "long double",
                BYTES(0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                      0xc0, 0x00, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    /* Values round-trip exactly (binary128 holds every long double). */
    long double vals[] = {0.0L, -0.0L, 1.0L / 3.0L, -LDBL_MAX, LDBL_MIN, LDBL_TRUE_MIN,
                          LDBL_MIN / 3.0L, 12345.6789L, (long double)INFINITY,
                          -(long double)INFINITY};
    enum { NV = sizeof vals / sizeof vals[0] };
    unsigned char ext[NV * 16];
    long double back[NV];
    MPI_Aint pos = 0;
    CHECK_MPI(MPI_Pack_external(X32, vals, NV, MPI_LONG_DOUBLE, ext, sizeof ext, &pos));
    CHECK_EQ(pos, NV * 16);
    memset(back, 0, sizeof back);
    unpack_bytes(ext, NV * 16, back, NV, MPI_LONG_DOUBLE);
    for (int i = 0; i < NV; i++)
        CHECKF(back[i] == vals[i] && signbit(back[i]) == signbit(vals[i]),
               "long double %d: %Lg came back as %Lg", i, vals[i], back[i]);
    long double nan = NAN, nanback = 0;
    pos = 0;
    CHECK_MPI(MPI_Pack_external(X32, &nan, 1, MPI_LONG_DOUBLE, ext, 16, &pos));
    CHECK((ext[0] & 0x7f) == 0x7f && ext[1] == 0xff);
    unpack_bytes(ext, 16, &nanback, 1, MPI_LONG_DOUBLE);
    CHECK(isnan(nanback));
#if LDBL_MANT_DIG == 64
    /* 1 + 2^-64 is half an x87 ulp above 1: ties to even, 1.  1 + 2^-63 +
     * 2^-64 rounds up to 1 + 2^-62.  Just over half rounds up. */
    long double r = 0;
    unpack_bytes(BYTES(0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0), &r, 1,
                 MPI_LONG_DOUBLE);
    CHECK(r == 1.0L);
    unpack_bytes(BYTES(0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0), &r, 1,
                 MPI_LONG_DOUBLE);
    CHECK(r == 1.0L + 0x1p-62L);
    unpack_bytes(BYTES(0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1), &r, 1,
                 MPI_LONG_DOUBLE);
    CHECK(r == 1.0L + 0x1p-63L);
    /* All ones beyond the x87 fraction: rounds into 2.0. */
    unpack_bytes(BYTES(0x3f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                       0xff, 0xff, 0xff, 0xff), &r, 1, MPI_LONG_DOUBLE);
    CHECK(r == 2.0L);
#endif
#ifdef MPI_REAL16
    _Float128 q = 1.0f128;
    check_bytes(&q, 1, MPI_REAL16, "REAL*16", BYTES(0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
#endif
}

static void pairs(void)
{
    struct { double v; int i; } di = {1.0, 7};
    check_bytes(&di, 1, MPI_DOUBLE_INT, "MPI_DOUBLE_INT",
                BYTES(0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7));
    struct { short v; int i; } si = {-1, 2};
    check_bytes(&si, 1, MPI_SHORT_INT, "MPI_SHORT_INT", BYTES(0xff, 0xff, 0, 0, 0, 2));
    struct { long v; int i; } li = {-2, 3};
    check_bytes(&li, 1, MPI_LONG_INT, "MPI_LONG_INT", BYTES(0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 3));
    struct { long double v; int i; } ldi = {2.0L, -1}, ldiback;
    check_bytes(&ldi, 1, MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT",
                BYTES(0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff));
    memset(&ldiback, 0, sizeof ldiback);
    unpack_bytes(BYTES(0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9),
                 &ldiback, 1, MPI_LONG_DOUBLE_INT);
    CHECK(ldiback.v == 2.0L && ldiback.i == 9);
    float ff[2] = {1.0f, 2.0f};
    check_bytes(ff, 1, MPI_2REAL, "MPI_2REAL", BYTES(0x3f, 0x80, 0, 0, 0x40, 0, 0, 0));
}

struct rec {
    char c;      /* 7 bytes of padding follow */
    double d;
    short s[3];  /* 2 bytes of padding follow */
    int i;
};

static void derived(int rank)
{
    /* struct with padding, two elements */
    int bl[4] = {1, 1, 3, 1};
    MPI_Aint disp[4] = {offsetof(struct rec, c), offsetof(struct rec, d),
                        offsetof(struct rec, s), offsetof(struct rec, i)};
    MPI_Datatype types[4] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT, MPI_INT}, trec, tv, ti, tr, tsub;
    CHECK_MPI(MPI_Type_create_struct(4, bl, disp, types, &trec));
    MPI_Aint lb, ext;
    CHECK_MPI(MPI_Type_get_extent(trec, &lb, &ext));
    CHECK_EQ(ext, sizeof(struct rec));
    /* uncommitted: refused */
    MPI_Aint size;
    CHECK_ERR(MPI_Pack_external_size(X32, 1, trec, &size), MPI_ERR_TYPE);
    CHECK_MPI(MPI_Type_commit(&trec));
    CHECK_MPI(MPI_Pack_external_size(X32, 2, trec, &size));
    CHECK_EQ(size, 2 * (1 + 8 + 6 + 4));
    struct rec r[2] = {{'A', 1.0, {1, -1, 0x0203}, 0x0a0b0c0d}, {'z', -2.0, {0, 0, 0}, -1}};
    check_bytes(r, 2, trec, "struct",
                BYTES('A', 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 2, 3, 0x0a, 0x0b, 0x0c,
                      0x0d, 'z', 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff,
                      0xff));
    /* Unpack leaves the padding as it was. */
    unsigned char ebuf[64];
    MPI_Aint pos = 0;
    CHECK_MPI(MPI_Pack_external(X32, r, 2, trec, ebuf, sizeof ebuf, &pos));
    struct rec back[2];
    memset(back, 0x5c, sizeof back);
    unpack_bytes(ebuf, (int)pos, back, 2, trec);
    for (int k = 0; k < 2; k++) {
        CHECK(back[k].c == r[k].c && back[k].d == r[k].d && back[k].i == r[k].i);
        CHECK(back[k].s[0] == r[k].s[0] && back[k].s[1] == r[k].s[1] && back[k].s[2] == r[k].s[2]);
        const unsigned char *p = (const unsigned char *)&back[k];
        for (size_t b = 1; b < offsetof(struct rec, d); b++)
            CHECKF(p[b] == 0x5c, "padding byte %zu of element %d was written", b, k);
    }

    /* vector of long: every other one, 4 bytes each */
    long lv[6] = {1, 100, 2, 200, -3, 300};
    CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_LONG, &tv));
    CHECK_MPI(MPI_Type_commit(&tv));
    check_bytes(lv, 1, tv, "vector of long", BYTES(0, 0, 0, 1, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xfd));
    /* indexed, in a non-monotone type-map order */
    int ibl[2] = {1, 2}, idisp[2] = {3, 0};
    short sv[4] = {10, 11, 12, 13};
    CHECK_MPI(MPI_Type_indexed(2, ibl, idisp, MPI_SHORT, &ti));
    CHECK_MPI(MPI_Type_commit(&ti));
    check_bytes(sv, 1, ti, "indexed", BYTES(0, 13, 0, 10, 0, 11));
    /* resized int: two elements 8 bytes apart */
    int iv[4] = {1, 2, 3, 4};
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &tr));
    CHECK_MPI(MPI_Type_commit(&tr));
    check_bytes(iv, 2, tr, "resized", BYTES(0, 0, 0, 1, 0, 0, 0, 3));
    /* 2x2 corner of a 3x3 array of float */
    float grid[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    int sizes[2] = {3, 3}, subs[2] = {2, 2}, starts[2] = {1, 1};
    CHECK_MPI(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_FLOAT, &tsub));
    CHECK_MPI(MPI_Type_commit(&tsub));
    check_bytes(grid, 1, tsub, "subarray",
                BYTES(0x40, 0x80, 0, 0, 0x40, 0xa0, 0, 0, 0x40, 0xe0, 0, 0, 0x41, 0, 0, 0));

    /* position runs across calls, packing and unpacking */
    unsigned char buf[64];
    pos = 0;
    int one = 1;
    CHECK_MPI(MPI_Pack_external(X32, &one, 1, MPI_INT, buf, sizeof buf, &pos));
    CHECK_MPI(MPI_Pack_external(X32, lv, 1, tv, buf, sizeof buf, &pos));
    CHECK_MPI(MPI_Pack_external(X32, sv, 1, ti, buf, sizeof buf, &pos));
    CHECK_EQ(pos, 4 + 12 + 6);
    int oneb = 0;
    long lvb[6] = {0};
    short svb[4] = {0};
    MPI_Aint upos = 0;
    CHECK_MPI(MPI_Unpack_external(X32, buf, pos, &upos, &oneb, 1, MPI_INT));
    CHECK_MPI(MPI_Unpack_external(X32, buf, pos, &upos, lvb, 1, tv));
    CHECK_MPI(MPI_Unpack_external(X32, buf, pos, &upos, svb, 1, ti));
    CHECK_EQ(upos, pos);
    CHECK(oneb == 1 && lvb[0] == 1 && lvb[2] == 2 && lvb[4] == -3 && lvb[1] == 0 && lvb[5] == 0);
    CHECK(svb[0] == 10 && svb[1] == 11 && svb[2] == 0 && svb[3] == 13);

    /* Every rank packs the same bytes (the representation is portable). */
    unsigned char mine[64], root[64];
    pos = 0;
    memset(mine, 0, sizeof mine);
    CHECK_MPI(MPI_Pack_external(X32, r, 2, trec, mine, sizeof mine, &pos));
    memcpy(root, mine, sizeof root);
    CHECK_MPI(MPI_Bcast(root, sizeof root, MPI_BYTE, 0, MPI_COMM_WORLD));
    CHECKF(memcmp(root, mine, sizeof mine) == 0, "rank %d packs other bytes than rank 0", rank);

    /* A large run: 100000 ints, each big-endian. */
    enum { N = 100000 };
    int *big = tu_malloc(N * sizeof(int)), *bigback = tu_malloc(N * sizeof(int));
    unsigned char *bext = tu_malloc(N * 4);
    for (int k = 0; k < N; k++)
        big[k] = k * 2654435761u;
    pos = 0;
    CHECK_MPI(MPI_Pack_external(X32, big, N, MPI_INT, bext, N * 4, &pos));
    CHECK_EQ(pos, N * 4);
    for (int k = 0; k < N; k++) {
        unsigned v = (unsigned)big[k];
        CHECK(bext[4 * k] == (v >> 24) && bext[4 * k + 1] == ((v >> 16) & 0xff) &&
              bext[4 * k + 2] == ((v >> 8) & 0xff) && bext[4 * k + 3] == (v & 0xff));
    }
    unpack_bytes(bext, N * 4, bigback, N, MPI_INT);
    CHECK(memcmp(big, bigback, N * sizeof(int)) == 0);
    free(big);
    free(bigback);
    free(bext);

    MPI_Type_free(&trec);
    MPI_Type_free(&tv);
    MPI_Type_free(&ti);
    MPI_Type_free(&tr);
    MPI_Type_free(&tsub);
}

static void errors(void)
{
    int v[4] = {0};
    unsigned char out[16];
    MPI_Aint pos = 0, size = -1;
    CHECK_ERR(MPI_Pack_external("native", v, 1, MPI_INT, out, sizeof out, &pos), MPI_ERR_ARG);
    CHECK_ERR(MPI_Pack_external("External32", v, 1, MPI_INT, out, sizeof out, &pos), MPI_ERR_ARG);
    CHECK_ERR(MPI_Pack_external_size("internal", 1, MPI_INT, &size), MPI_ERR_ARG);
    CHECK_ERR(MPI_Unpack_external("external", out, sizeof out, &pos, v, 1, MPI_INT), MPI_ERR_ARG);
    CHECK_ERR(MPI_Pack_external(NULL, v, 1, MPI_INT, out, sizeof out, &pos), MPI_ERR_ARG);
    CHECK_EQ(pos, 0);
    CHECK_EQ(size, -1);
    CHECK_ERR(MPI_Pack_external(X32, v, 5, MPI_INT, out, sizeof out, &pos), MPI_ERR_TRUNCATE);
    pos = 14;
    CHECK_ERR(MPI_Pack_external(X32, v, 1, MPI_INT, out, sizeof out, &pos), MPI_ERR_TRUNCATE);
    CHECK_EQ(pos, 14);
    pos = 17;
    CHECK_ERR(MPI_Pack_external(X32, v, 1, MPI_INT, out, sizeof out, &pos), MPI_ERR_ARG);
    pos = -1;
    CHECK_ERR(MPI_Pack_external(X32, v, 1, MPI_INT, out, sizeof out, &pos), MPI_ERR_ARG);
    pos = 0;
    CHECK_ERR(MPI_Pack_external(X32, v, -1, MPI_INT, out, sizeof out, &pos), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Pack_external(X32, v, 1, MPI_DATATYPE_NULL, out, sizeof out, &pos),
              MPI_ERR_TYPE);
    CHECK_ERR(MPI_Pack_external_size(X32, -2, MPI_INT, &size), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Unpack_external(X32, out, 8, &pos, v, 3, MPI_INT), MPI_ERR_TRUNCATE);
    CHECK_ERR(MPI_Unpack_external(X32, out, 8, &pos, v, -1, MPI_INT), MPI_ERR_COUNT);
    pos = 9;
    CHECK_ERR(MPI_Unpack_external(X32, out, 8, &pos, v, 0, MPI_INT), MPI_ERR_ARG);
    pos = 0;
    /* zero elements: nothing moves, position stays */
    CHECK_MPI(MPI_Pack_external(X32, NULL, 0, MPI_INT, NULL, 0, &pos));
    CHECK_MPI(MPI_Unpack_external(X32, NULL, 0, &pos, NULL, 0, MPI_INT));
    CHECK_EQ(pos, 0);
#ifdef FABMPI
    CHECK_ERR(MPI_Pack_external(X32, v, 1, MPI_INT, out, sizeof out, NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Pack_external_size(X32, 1, MPI_INT, NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Pack_external(X32, v, 1, MPI_INT, NULL, sizeof out, &pos), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Pack_external(X32, NULL, 1, MPI_INT, out, sizeof out, &pos), MPI_ERR_BUFFER);
#endif
    CHECK_EQ(pos, 0);
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    sizes();
    integers();
    floats();
    pairs();
    derived(rank);
    errors();
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("pack_external: OK (%d ranks)\n", size);
    return 0;
}
