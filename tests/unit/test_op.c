/* test_op.c — reduction operations: every predefined op on every kind it is
 * defined for, with exact expected values; the combinations the standard
 * leaves undefined; MINLOC/MAXLOC ties; user op argument order; derived
 * datatypes with holes; the collectives' local copy helpers. */
#include <complex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coll/coll_util.h"
#include "coll/op.h"
#include "dtype/dtype.h"
#include "util/status.h"

#define N 8

/* Small non-negative operands so every kind, int8_t and _Bool aside, holds
 * every result exactly. */
static const int A[N] = {6, 0, 3, 2, 1, 9, 4, 5};
static const int B[N] = {3, 5, 3, 7, 0, 2, 6, 12};
static const int X_MAX[N] = {6, 5, 3, 7, 1, 9, 6, 12};
static const int X_MIN[N] = {3, 0, 3, 2, 0, 2, 4, 5};
static const int X_SUM[N] = {9, 5, 6, 9, 1, 11, 10, 17};
static const int X_PROD[N] = {18, 0, 9, 14, 0, 18, 24, 60};
static const int X_LAND[N] = {1, 0, 1, 1, 0, 1, 1, 1};
static const int X_LOR[N] = {1, 1, 1, 1, 1, 1, 1, 1};
static const int X_LXOR[N] = {0, 1, 0, 0, 1, 0, 0, 0};
static const int X_BAND[N] = {2, 0, 3, 2, 0, 0, 4, 4};
static const int X_BOR[N] = {7, 5, 3, 7, 1, 11, 6, 13};
static const int X_BXOR[N] = {5, 5, 0, 5, 1, 11, 2, 9};

/* in = A, inout = B, then inout must equal expect. */
#define CHECK_INT_OP(T, dt, op, expect)                                            \
    do {                                                                           \
        T in[N], io[N];                                                            \
        for (int i = 0; i < N; i++) {                                              \
            in[i] = (T)A[i];                                                       \
            io[i] = (T)B[i];                                                       \
        }                                                                          \
        assert_int_equal(fm_op_apply(op, in, io, N, dt), FM_OK);                   \
        for (int i = 0; i < N; i++)                                                \
            assert_true(io[i] == (T)(expect)[i]);                                  \
    } while (0)

#define CHECK_ALL_INT_OPS(T, dt)                    \
    do {                                            \
        CHECK_INT_OP(T, dt, MPI_MAX, X_MAX);        \
        CHECK_INT_OP(T, dt, MPI_MIN, X_MIN);        \
        CHECK_INT_OP(T, dt, MPI_SUM, X_SUM);        \
        CHECK_INT_OP(T, dt, MPI_PROD, X_PROD);      \
        CHECK_INT_OP(T, dt, MPI_LAND, X_LAND);      \
        CHECK_INT_OP(T, dt, MPI_LOR, X_LOR);        \
        CHECK_INT_OP(T, dt, MPI_LXOR, X_LXOR);      \
        CHECK_INT_OP(T, dt, MPI_BAND, X_BAND);      \
        CHECK_INT_OP(T, dt, MPI_BOR, X_BOR);        \
        CHECK_INT_OP(T, dt, MPI_BXOR, X_BXOR);      \
    } while (0)

static void test_integers(void **state)
{
    (void)state;
    CHECK_ALL_INT_OPS(signed char, MPI_SIGNED_CHAR);
    CHECK_ALL_INT_OPS(signed char, MPI_CHAR); /* fabmpi's choice: see test_char */
    CHECK_ALL_INT_OPS(unsigned char, MPI_UNSIGNED_CHAR);
    CHECK_ALL_INT_OPS(short, MPI_SHORT);
    CHECK_ALL_INT_OPS(unsigned short, MPI_UNSIGNED_SHORT);
    CHECK_ALL_INT_OPS(int, MPI_INT);
    CHECK_ALL_INT_OPS(unsigned, MPI_UNSIGNED);
    CHECK_ALL_INT_OPS(long, MPI_LONG);
    CHECK_ALL_INT_OPS(unsigned long, MPI_UNSIGNED_LONG);
    CHECK_ALL_INT_OPS(long long, MPI_LONG_LONG);
    CHECK_ALL_INT_OPS(long long, MPI_LONG_LONG_INT);
    CHECK_ALL_INT_OPS(unsigned long long, MPI_UNSIGNED_LONG_LONG);
    CHECK_ALL_INT_OPS(int8_t, MPI_INT8_T);
    CHECK_ALL_INT_OPS(int16_t, MPI_INT16_T);
    CHECK_ALL_INT_OPS(int32_t, MPI_INT32_T);
    CHECK_ALL_INT_OPS(int64_t, MPI_INT64_T);
    CHECK_ALL_INT_OPS(uint8_t, MPI_UINT8_T);
    CHECK_ALL_INT_OPS(uint16_t, MPI_UINT16_T);
    CHECK_ALL_INT_OPS(uint32_t, MPI_UINT32_T);
    CHECK_ALL_INT_OPS(uint64_t, MPI_UINT64_T);
    CHECK_ALL_INT_OPS(MPI_Aint, MPI_AINT);
    CHECK_ALL_INT_OPS(MPI_Count, MPI_COUNT);
    CHECK_ALL_INT_OPS(MPI_Offset, MPI_OFFSET);
}

/* Signedness and wrap-around: MAX/MIN compare as the kind's own type, and
 * SUM/PROD wrap like two's complement arithmetic. */
static void test_integer_edges(void **state)
{
    (void)state;
    signed char sc_in[2] = {-2, 100}, sc_io[2] = {1, 100};
    assert_int_equal(fm_op_apply(MPI_MIN, sc_in, sc_io, 2, MPI_SIGNED_CHAR), FM_OK);
    assert_int_equal(sc_io[0], -2);
    assert_int_equal(fm_op_apply(MPI_SUM, sc_in, sc_io, 2, MPI_SIGNED_CHAR), FM_OK);
    assert_int_equal(sc_io[0], -4);
    assert_int_equal(sc_io[1], (signed char)200);

    unsigned char uc_in[1] = {255}, uc_io[1] = {1};
    assert_int_equal(fm_op_apply(MPI_MAX, uc_in, uc_io, 1, MPI_UNSIGNED_CHAR), FM_OK);
    assert_int_equal(uc_io[0], 255);

    short s_in[1] = {-300}, s_io[1] = {300};
    assert_int_equal(fm_op_apply(MPI_PROD, s_in, s_io, 1, MPI_SHORT), FM_OK);
    assert_int_equal(s_io[0], (short)-90000);

    int i_in[2] = {INT32_MAX, -7}, i_io[2] = {1, 3};
    assert_int_equal(fm_op_apply(MPI_SUM, i_in, i_io, 2, MPI_INT), FM_OK);
    assert_int_equal(i_io[0], INT32_MIN);
    assert_int_equal(i_io[1], -4);
    int m_in[2] = {-7, 0x0f0f}, m_io[2] = {3, 0x00ff};
    assert_int_equal(fm_op_apply(MPI_MAX, m_in, m_io, 2, MPI_INT), FM_OK);
    assert_int_equal(m_io[0], 3);
    assert_int_equal(fm_op_apply(MPI_BXOR, m_in, m_io, 2, MPI_INT), FM_OK);
    assert_int_equal(m_io[1], 0x0f0f ^ 0x0f0f);

    int64_t l_in[1] = {-5}, l_io[1] = {INT64_MAX};
    assert_int_equal(fm_op_apply(MPI_MIN, l_in, l_io, 1, MPI_INT64_T), FM_OK);
    assert_true(l_io[0] == -5);
    uint64_t u_in[1] = {UINT64_MAX}, u_io[1] = {2};
    assert_int_equal(fm_op_apply(MPI_SUM, u_in, u_io, 1, MPI_UINT64_T), FM_OK);
    assert_true(u_io[0] == 1);
}

/* MPI_CHAR is not an integer type for reductions (erroneous program), and
 * fabmpi defines the result as signed char arithmetic: negative values
 * order below positive ones, sums wrap at 8 bits. */
static void test_char(void **state)
{
    (void)state;
    char in[3] = {(char)-100, (char)-1, 0x7f}, io[3] = {(char)-100, 2, 1};
    assert_int_equal(fm_op_apply(MPI_SUM, in, io, 3, MPI_CHAR), FM_OK);
    assert_int_equal((signed char)io[0], 56); /* -200 wraps */
    assert_int_equal((signed char)io[1], 1);
    assert_int_equal((signed char)io[2], -128);
    char a = (char)-3, b = 5;
    assert_int_equal(fm_op_apply(MPI_MAX, &a, &b, 1, MPI_CHAR), FM_OK);
    assert_int_equal(b, 5);
    assert_int_equal(fm_op_apply(MPI_MIN, &a, &b, 1, MPI_CHAR), FM_OK);
    assert_int_equal((signed char)b, -3);
    a = (char)-128;
    b = (char)-1;
    assert_int_equal(fm_op_apply(MPI_PROD, &a, &b, 1, MPI_CHAR), FM_OK);
    assert_int_equal((signed char)b, -128); /* 128 wraps */
    assert_int_equal(fm_op_check(MPI_MINLOC, MPI_CHAR), FM_ERR_OP);
    assert_int_equal(fm_op_check(MPI_SUM, MPI_WCHAR), FM_ERR_OP);
}

/* MPI_Compare_and_swap's types: integers, logicals, byte; MPI_CHAR as the
 * reductions take it. */
static void test_cas_check(void **state)
{
    (void)state;
    MPI_Datatype ok[] = {MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_INT, MPI_UINT64_T,
                         MPI_LONG_LONG, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_C_BOOL, MPI_BYTE};
    MPI_Datatype bad[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_C_FLOAT_COMPLEX,
                          MPI_2INT, MPI_DOUBLE_INT, MPI_WCHAR};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (fm_op_cas_check(ok[i]) != FM_OK)
            fail_msg("fm_op_cas_check(%s) refused", ok[i]->name);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (fm_op_cas_check(bad[i]) != FM_ERR_TYPE)
            fail_msg("fm_op_cas_check(%s) accepted", bad[i]->name);
}

/* Long vectors exercise the vectorized body and its remainder loop. */
static void test_long_vectors(void **state)
{
    (void)state;
    enum { M = 1003 };
    static double din[M], dio[M];
    static int iin[M], iio[M];
    static float fin[M], fio[M];
    static long lin[M], lio[M];
    for (int i = 0; i < M; i++) {
        din[i] = i * 0.5;
        dio[i] = M - i;
        iin[i] = i - 500;
        iio[i] = 2 * i;
        fin[i] = (float)i;
        fio[i] = (float)(M - i);
        lin[i] = -(long)i;
        lio[i] = i;
    }
    assert_int_equal(fm_op_apply(MPI_SUM, din, dio, M, MPI_DOUBLE), FM_OK);
    assert_int_equal(fm_op_apply(MPI_MAX, iin, iio, M, MPI_INT), FM_OK);
    assert_int_equal(fm_op_apply(MPI_MIN, fin, fio, M, MPI_FLOAT), FM_OK);
    assert_int_equal(fm_op_apply(MPI_SUM, lin, lio, M, MPI_LONG), FM_OK);
    for (int i = 0; i < M; i++) {
        assert_true(dio[i] == i * 0.5 + (M - i));
        assert_int_equal(iio[i], i - 500 > 2 * i ? i - 500 : 2 * i);
        assert_true(fio[i] == (float)(i < M - i ? i : M - i));
        assert_int_equal(lio[i], 0);
    }
}

#define CHECK_FLOAT_OPS(T, dt)                                                       \
    do {                                                                             \
        const T a[3] = {1.5, -2.0, 0.25}, b[3] = {2.5, 4.0, 8.0};                    \
        const T xmax[3] = {2.5, 4.0, 8.0}, xmin[3] = {1.5, -2.0, 0.25};              \
        const T xsum[3] = {4.0, 2.0, 8.25}, xprod[3] = {3.75, -8.0, 2.0};            \
        MPI_Op ops[4] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD};                       \
        const T *want[4] = {xmax, xmin, xsum, xprod};                                \
        for (int o = 0; o < 4; o++) {                                                \
            T io[3];                                                                 \
            memcpy(io, b, sizeof io);                                                \
            assert_int_equal(fm_op_apply(ops[o], a, io, 3, dt), FM_OK);              \
            for (int i = 0; i < 3; i++)                                              \
                assert_true(io[i] == want[o][i]);                                    \
        }                                                                            \
    } while (0)

static void test_floats(void **state)
{
    (void)state;
    CHECK_FLOAT_OPS(float, MPI_FLOAT);
    CHECK_FLOAT_OPS(double, MPI_DOUBLE);
    CHECK_FLOAT_OPS(long double, MPI_LONG_DOUBLE);
}

#define CHECK_COMPLEX_OPS(T, dt)                                                     \
    do {                                                                             \
        T a[2] = {1 + 2 * I, -1}, io[2] = {3 + 4 * I, 2 * I};                        \
        assert_int_equal(fm_op_apply(MPI_SUM, a, io, 2, dt), FM_OK);                 \
        assert_true(io[0] == 4 + 6 * I && io[1] == -1 + 2 * I);                      \
        T p[2] = {3 + 4 * I, 2 * I};                                                 \
        assert_int_equal(fm_op_apply(MPI_PROD, a, p, 2, dt), FM_OK);                 \
        assert_true(p[0] == -5 + 10 * I && p[1] == -2 * I);                          \
    } while (0)

static void test_complex(void **state)
{
    (void)state;
    CHECK_COMPLEX_OPS(float _Complex, MPI_C_FLOAT_COMPLEX);
    CHECK_COMPLEX_OPS(float _Complex, MPI_C_COMPLEX);
    CHECK_COMPLEX_OPS(double _Complex, MPI_C_DOUBLE_COMPLEX);
    CHECK_COMPLEX_OPS(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX);
}

/* The Fortran types: integers take every integer op but the logical ones,
 * LOGICAL only those (any non-zero is .TRUE., results are 1 and 0), REAL
 * and COMPLEX types compute as their C layouts, CHARACTER takes none. */
#define CHECK_FINT_OPS(T, dt)                                                        \
    do {                                                                             \
        CHECK_INT_OP(T, dt, MPI_MAX, X_MAX);                                         \
        CHECK_INT_OP(T, dt, MPI_MIN, X_MIN);                                         \
        CHECK_INT_OP(T, dt, MPI_SUM, X_SUM);                                         \
        CHECK_INT_OP(T, dt, MPI_PROD, X_PROD);                                       \
        CHECK_INT_OP(T, dt, MPI_BAND, X_BAND);                                       \
        CHECK_INT_OP(T, dt, MPI_BOR, X_BOR);                                         \
        CHECK_INT_OP(T, dt, MPI_BXOR, X_BXOR);                                       \
        assert_int_equal(fm_op_check(MPI_LAND, dt), FM_ERR_OP);                      \
        assert_int_equal(fm_op_check(MPI_LXOR, dt), FM_ERR_OP);                      \
    } while (0)

static void test_fortran(void **state)
{
    (void)state;
    CHECK_FINT_OPS(int32_t, MPI_INTEGER);
    CHECK_FINT_OPS(int8_t, MPI_INTEGER1);
    CHECK_FINT_OPS(int16_t, MPI_INTEGER2);
    CHECK_FINT_OPS(int32_t, MPI_INTEGER4);
    CHECK_FINT_OPS(int64_t, MPI_INTEGER8);
#ifdef MPI_INTEGER16
    CHECK_FINT_OPS(__int128, MPI_INTEGER16);
    __int128 big_in = (__int128)INT64_MAX * 4, big_io = (__int128)INT64_MAX * 3;
    assert_int_equal(fm_op_apply(MPI_SUM, &big_in, &big_io, 1, MPI_INTEGER16), FM_OK);
    assert_true(big_io == (__int128)INT64_MAX * 7);
    __int128 neg = -5;
    assert_int_equal(fm_op_apply(MPI_MIN, &neg, &big_io, 1, MPI_INTEGER16), FM_OK);
    assert_true(big_io == -5);
#endif
    int8_t w_in = 100, w_io = 100; /* INTEGER*1 wraps like int8_t */
    assert_int_equal(fm_op_apply(MPI_SUM, &w_in, &w_io, 1, MPI_INTEGER1), FM_OK);
    assert_int_equal(w_io, -56);

    const int32_t la[4] = {0, 0, 1, 5}, lb[4] = {0, 7, 0, 1};
    const int32_t xand[4] = {0, 0, 0, 1}, xor_[4] = {0, 1, 1, 1}, xxor[4] = {0, 1, 1, 0};
    MPI_Op lops[3] = {MPI_LAND, MPI_LOR, MPI_LXOR};
    const int32_t *lwant[3] = {xand, xor_, xxor};
    for (int o = 0; o < 3; o++) {
        int32_t io[4];
        memcpy(io, lb, sizeof io);
        assert_int_equal(fm_op_apply(lops[o], la, io, 4, MPI_LOGICAL), FM_OK);
        assert_memory_equal(io, lwant[o], sizeof io);
    }
    MPI_Op arith[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR};
    for (size_t o = 0; o < sizeof arith / sizeof *arith; o++)
        assert_int_equal(fm_op_check(arith[o], MPI_LOGICAL), FM_ERR_OP);

    CHECK_FLOAT_OPS(float, MPI_REAL);
    CHECK_FLOAT_OPS(double, MPI_DOUBLE_PRECISION);
    CHECK_FLOAT_OPS(float, MPI_REAL4);
    CHECK_FLOAT_OPS(double, MPI_REAL8);
    CHECK_COMPLEX_OPS(float _Complex, MPI_COMPLEX);
    CHECK_COMPLEX_OPS(double _Complex, MPI_DOUBLE_COMPLEX);
    CHECK_COMPLEX_OPS(float _Complex, MPI_COMPLEX8);
    CHECK_COMPLEX_OPS(double _Complex, MPI_COMPLEX16);
#ifdef MPI_REAL16
    CHECK_FLOAT_OPS(_Float128, MPI_REAL16);
    CHECK_COMPLEX_OPS(_Complex _Float128, MPI_COMPLEX32);
    /* beyond double's 53 bits: 2^100 + 1 survives only in quad */
    _Float128 q_in = 1, q_io = 0x1p100;
    assert_int_equal(fm_op_apply(MPI_SUM, &q_in, &q_io, 1, MPI_REAL16), FM_OK);
    assert_true(q_io - 0x1p100 == 1);
#endif
    assert_int_equal(fm_op_check(MPI_MAX, MPI_COMPLEX), FM_ERR_OP);
    assert_int_equal(fm_op_check(MPI_BAND, MPI_REAL), FM_ERR_OP);
    MPI_Op every[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR, MPI_LXOR,
                      MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
    for (size_t o = 0; o < sizeof every / sizeof *every; o++)
        assert_int_equal(fm_op_check(every[o], MPI_CHARACTER), FM_ERR_OP);
    assert_int_equal(fm_op_check(MPI_SUM, MPI_2REAL), FM_ERR_OP);

    /* Compare_and_swap: integers and LOGICAL, not CHARACTER or REAL */
    assert_int_equal(fm_op_cas_check(MPI_INTEGER), FM_OK);
    assert_int_equal(fm_op_cas_check(MPI_INTEGER8), FM_OK);
    assert_int_equal(fm_op_cas_check(MPI_LOGICAL), FM_OK);
    assert_int_equal(fm_op_cas_check(MPI_CHARACTER), FM_ERR_TYPE);
    assert_int_equal(fm_op_cas_check(MPI_REAL), FM_ERR_TYPE);
#ifdef MPI_INTEGER16
    assert_int_equal(fm_op_cas_check(MPI_INTEGER16), FM_ERR_TYPE); /* over 8 bytes */
#endif
}

static void test_bool_and_byte(void **state)
{
    (void)state;
    const _Bool a[4] = {0, 0, 1, 1}, b[4] = {0, 1, 0, 1};
    const _Bool xand[4] = {0, 0, 0, 1}, xor_[4] = {0, 1, 1, 1}, xxor[4] = {0, 1, 1, 0};
    MPI_Op ops[3] = {MPI_LAND, MPI_LOR, MPI_LXOR};
    const _Bool *want[3] = {xand, xor_, xxor};
    for (int o = 0; o < 3; o++) {
        _Bool io[4];
        memcpy(io, b, sizeof io);
        assert_int_equal(fm_op_apply(ops[o], a, io, 4, MPI_C_BOOL), FM_OK);
        assert_memory_equal(io, want[o], sizeof io);
    }

    const unsigned char x = 0xF0, y = 0x3C;
    unsigned char r;
    r = y;
    assert_int_equal(fm_op_apply(MPI_BAND, &x, &r, 1, MPI_BYTE), FM_OK);
    assert_int_equal(r, 0x30);
    r = y;
    assert_int_equal(fm_op_apply(MPI_BOR, &x, &r, 1, MPI_BYTE), FM_OK);
    assert_int_equal(r, 0xFC);
    r = y;
    assert_int_equal(fm_op_apply(MPI_BXOR, &x, &r, 1, MPI_BYTE), FM_OK);
    assert_int_equal(r, 0xCC);
}

/* The standard's table (MPI-4.0 §6.9.2), written out independently of the
 * library's: which op takes which kind.  C_BOOL stands for the logicals. */
enum { C_INT = 1, C_FLOAT = 2, C_COMPLEX = 4, C_BOOL = 8, C_BYTE = 16, C_PAIR = 32, C_FINT = 64 };

static int kind_class(int k)
{
    switch (k) {
    case FM_BK_CHAR: /* fabmpi: as signed char */
    case FM_BK_SCHAR: case FM_BK_UCHAR: case FM_BK_SHORT: case FM_BK_USHORT: case FM_BK_INT:
    case FM_BK_UINT: case FM_BK_LONG: case FM_BK_ULONG: case FM_BK_LLONG: case FM_BK_ULLONG:
    case FM_BK_INT8: case FM_BK_INT16: case FM_BK_INT32: case FM_BK_INT64: case FM_BK_UINT8:
    case FM_BK_UINT16: case FM_BK_UINT32: case FM_BK_UINT64:
        return C_INT;
    case FM_BK_FLOAT: case FM_BK_DOUBLE: case FM_BK_LDOUBLE:
        return C_FLOAT;
    case FM_BK_FCOMPLEX: case FM_BK_DCOMPLEX: case FM_BK_LDCOMPLEX:
        return C_COMPLEX;
    case FM_BK_BOOL: case FM_BK_FLOGICAL:
        return C_BOOL;
    case FM_BK_FINT1: case FM_BK_FINT2: case FM_BK_FINT4: case FM_BK_FINT8:
        return C_FINT;
#ifdef MPI_INTEGER16
    case FM_BK_FINT16:
        return C_FINT;
#endif
#ifdef MPI_REAL16
    case FM_BK_FLOAT128:
        return C_FLOAT;
    case FM_BK_F128COMPLEX:
        return C_COMPLEX;
#endif
    case FM_BK_BYTE:
        return C_BYTE;
    case FM_BK_FLOAT_INT: case FM_BK_DOUBLE_INT: case FM_BK_LONG_INT: case FM_BK_2INT:
    case FM_BK_SHORT_INT: case FM_BK_LDOUBLE_INT: case FM_BK_2REAL: case FM_BK_2DOUBLE:
        return C_PAIR;
    default: /* NONE, WCHAR, Fortran CHARACTER, the 128-bit kinds without a C type */
        return 0;
    }
}

static int op_classes(MPI_Op op)
{
    if (op == MPI_MAX || op == MPI_MIN)
        return C_INT | C_FINT | C_FLOAT;
    if (op == MPI_SUM || op == MPI_PROD)
        return C_INT | C_FINT | C_FLOAT | C_COMPLEX;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return C_INT | C_BOOL;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return C_INT | C_FINT | C_BYTE;
    if (op == MPI_MINLOC || op == MPI_MAXLOC)
        return C_PAIR;
    return -1; /* REPLACE, NO_OP: any datatype, even mixed ones (byte copies) */
}

static void test_validity_table(void **state)
{
    (void)state;
#define OP_ENTRY(name) name,
    MPI_Op ops[] = {FM_PREDEFINED_OPS(OP_ENTRY)};
#undef OP_ENTRY
    struct fm_datatype fake = fab_dt_MPI_BYTE; /* a contiguous 1-byte type of any kind */
    unsigned char in[64] = {0}, io[64], before[64];
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        for (int k = 0; k < FM_BK_COUNT; k++) {
            fake.basic = (enum fm_basic_kind)k;
            int valid = op_classes(ops[o]) < 0 || (op_classes(ops[o]) & kind_class(k)) != 0;
            int rc = fm_op_check(ops[o], &fake);
            if (rc != (valid ? FM_OK : FM_ERR_OP))
                fail_msg("op %s kind %d: fm_op_check=%d, want %s", ops[o]->name, k, rc,
                         valid ? "FM_OK" : "FM_ERR_OP");
            if (!valid) {
                memset(io, 0x5a, sizeof io);
                memcpy(before, io, sizeof io);
                assert_int_equal(fm_op_apply(ops[o], in, io, 1, &fake), FM_ERR_OP);
                assert_memory_equal(io, before, sizeof io); /* untouched */
            }
        }
    }
    /* The usual mistakes, through the real datatypes. */
    assert_int_equal(fm_op_check(MPI_MAX, MPI_WCHAR), FM_ERR_OP);
    assert_int_equal(fm_op_check(MPI_MAX, MPI_C_DOUBLE_COMPLEX), FM_ERR_OP);
    assert_int_equal(fm_op_check(MPI_SUM, MPI_C_BOOL), FM_ERR_OP);
    assert_int_equal(fm_op_check(MPI_BAND, MPI_DOUBLE), FM_ERR_OP);
    assert_int_equal(fm_op_check(MPI_LAND, MPI_BYTE), FM_ERR_OP);
    assert_int_equal(fm_op_check(MPI_MINLOC, MPI_INT), FM_ERR_OP);
    assert_int_equal(fm_op_check(MPI_MAX, MPI_2INT), FM_ERR_OP);
    assert_int_equal(fm_op_check(MPI_SUM, MPI_PACKED), FM_ERR_OP);
    assert_int_equal(fm_op_check(MPI_BXOR, MPI_PACKED), FM_OK); /* PACKED is bytes */
    assert_true(fm_op_is_rma_only(MPI_REPLACE) && fm_op_is_rma_only(MPI_NO_OP));
    assert_false(fm_op_is_rma_only(MPI_SUM));
}

/* MINLOC/MAXLOC on every pair type, including padded ones (not contiguous,
 * so the packed path runs): winner's index, smaller index on a tie. */
#define CHECK_PAIRS(VT, dt) CHECK_PAIRS_IT(VT, int, dt)
#define CHECK_PAIRS_IT(VT, IT, dt)                                                   \
    do {                                                                             \
        struct { VT v; IT i; } in[4], mn[4], mx[4];                                  \
        memset(in, 0, sizeof in);                                                    \
        memset(mn, 0, sizeof mn);                                                    \
        const int iv[4] = {3, 2, 4, 7}, ii[4] = {5, 7, 1, 3};                        \
        const int ov[4] = {3, 5, 4, 1}, oi[4] = {2, 0, 9, 3};                        \
        for (int k = 0; k < 4; k++) {                                                \
            in[k].v = (VT)iv[k];                                                     \
            in[k].i = (IT)ii[k];                                                     \
            mn[k].v = (VT)ov[k];                                                     \
            mn[k].i = (IT)oi[k];                                                     \
        }                                                                            \
        memcpy(mx, mn, sizeof mx);                                                   \
        assert_int_equal(fm_op_apply(MPI_MINLOC, in, mn, 4, dt), FM_OK);             \
        assert_int_equal(fm_op_apply(MPI_MAXLOC, in, mx, 4, dt), FM_OK);             \
        const int mnv[4] = {3, 2, 4, 1}, mni[4] = {2, 7, 1, 3};                      \
        const int mxv[4] = {3, 5, 4, 7}, mxi[4] = {2, 0, 1, 3};                      \
        for (int k = 0; k < 4; k++) {                                                \
            assert_true(mn[k].v == (VT)mnv[k]);                                      \
            assert_true(mn[k].i == (IT)mni[k]);                                      \
            assert_true(mx[k].v == (VT)mxv[k]);                                      \
            assert_true(mx[k].i == (IT)mxi[k]);                                      \
        }                                                                            \
    } while (0)

static void test_minloc_maxloc(void **state)
{
    (void)state;
    CHECK_PAIRS(float, MPI_FLOAT_INT);
    CHECK_PAIRS(double, MPI_DOUBLE_INT);
    CHECK_PAIRS(long, MPI_LONG_INT);
    CHECK_PAIRS(int, MPI_2INT);
    CHECK_PAIRS(short, MPI_SHORT_INT);
    CHECK_PAIRS(long double, MPI_LONG_DOUBLE_INT);
    CHECK_PAIRS_IT(float, float, MPI_2REAL);
    CHECK_PAIRS_IT(double, double, MPI_2DOUBLE_PRECISION);
    CHECK_PAIRS_IT(int32_t, int32_t, MPI_2INTEGER);
}

static void test_replace_noop(void **state)
{
    (void)state;
    int in[3] = {1, 2, 3}, io[3] = {7, 8, 9};
    assert_int_equal(fm_op_apply(MPI_NO_OP, in, io, 3, MPI_INT), FM_OK);
    assert_int_equal(io[0], 7);
    assert_int_equal(fm_op_apply(MPI_REPLACE, in, io, 3, MPI_INT), FM_OK);
    assert_memory_equal(io, in, sizeof io);
}

/* A non-commutative user op: inout = in * 10 + inout shows which operand
 * the library passes where. */
static int user_calls;
static void digits(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    assert_true(*dt == MPI_INT);
    user_calls++;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = ((int *)in)[i] * 10 + ((int *)inout)[i];
}

static void test_user_op(void **state)
{
    (void)state;
    MPI_Op op;
    assert_int_equal(fm_op_create(digits, NULL, 0, &op), FM_OK);
    assert_true(fm_op_valid(op));
    assert_int_equal(op->commute, 0);
    assert_int_equal(fm_op_check(op, MPI_INT), FM_OK);
    int in[3] = {1, 2, 3}, io[3] = {4, 5, 6};
    user_calls = 0;
    assert_int_equal(fm_op_apply(op, in, io, 3, MPI_INT), FM_OK);
    assert_int_equal(user_calls, 1);
    assert_int_equal(io[0], 14);
    assert_int_equal(io[2], 36);
    fm_op_retain(op);
    fm_op_release(op);
    assert_true(fm_op_valid(op));
    fm_op_release(op);
    fm_op_release(MPI_SUM); /* predefined: no effect */
    assert_true(fm_op_valid(MPI_SUM));
    assert_int_equal(MPI_SUM->commute, 1);
    assert_false(fm_op_valid(MPI_OP_NULL));
}

static struct {
    void *in, *inout;
    int len;
    MPI_Datatype dt;
} seen;
static void record(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    seen.in = in;
    seen.inout = inout;
    seen.len = *len;
    seen.dt = *dt;
}

/* vector(2 blocks of 1 int, stride 2): element k covers ints 3k and 3k+2
 * (extent 3 ints), so int 3k+1 is a hole that must stay untouched. */
static MPI_Datatype make_vector(void)
{
    MPI_Datatype t;
    const int ints[3] = {2, 1, 2};
    MPI_Datatype base = MPI_INT;
    assert_int_equal(fm_dt_create(MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &base, &t), FM_OK);
    assert_int_equal(fm_dt_commit(t), FM_OK);
    assert_false(fm_dt_is_contig(t));
    assert_int_equal(t->basic, FM_BK_INT);
    return t;
}

static void test_noncontig(void **state)
{
    (void)state;
    MPI_Datatype vec = make_vector();
    assert_int_equal(vec->extent, 3 * (MPI_Aint)sizeof(int));
    enum { E = 3000, L = 3 * E }; /* 24000 packed bytes: several pack chunks */
    int *in = malloc(sizeof(int) * L), *io = malloc(sizeof(int) * L);
    for (int i = 0; i < L; i++) {
        in[i] = i;
        io[i] = -1000 - i;
    }
    assert_int_equal(fm_op_apply(MPI_MAX, in, io, E, vec), FM_OK);
    for (int i = 0; i < L; i++)
        assert_int_equal(io[i], i % 3 == 1 ? -1000 - i : i);
    assert_int_equal(fm_op_apply(MPI_SUM, in, io, E, vec), FM_OK);
    for (int i = 0; i < L; i++)
        assert_int_equal(io[i], i % 3 == 1 ? -1000 - i : 2 * i);
    assert_int_equal(fm_op_check(MPI_LAND, vec), FM_OK);
    assert_int_equal(fm_op_check(MPI_MINLOC, vec), FM_ERR_OP);

    /* The user function sees the caller's layout, not packed data. */
    MPI_Op op;
    assert_int_equal(fm_op_create(record, NULL, 1, &op), FM_OK);
    int a[6] = {0}, b[6] = {0};
    assert_int_equal(fm_op_apply(op, a, b, 2, vec), FM_OK);
    assert_ptr_equal(seen.in, a);
    assert_ptr_equal(seen.inout, b);
    assert_int_equal(seen.len, 2);
    assert_ptr_equal(seen.dt, vec);
    fm_op_release(op);

    /* fm_dt_copy: vector -> contiguous ints and back. */
    int packed[2 * 4], back[12];
    int src[12];
    for (int i = 0; i < 12; i++) {
        src[i] = 100 + i;
        back[i] = -1;
    }
    assert_int_equal(fm_dt_copy(src, 4, vec, packed, 8, MPI_INT), FM_OK);
    const int want[8] = {100, 102, 103, 105, 106, 108, 109, 111};
    assert_memory_equal(packed, want, sizeof want);
    assert_int_equal(fm_dt_copy(packed, 8, MPI_INT, back, 4, vec), FM_OK);
    for (int i = 0; i < 12; i++)
        assert_int_equal(back[i], i % 3 == 1 ? -1 : 100 + i);
    assert_int_equal(fm_dt_copy(src, 4, vec, back, 4, vec), FM_OK);
    assert_int_equal(fm_dt_copy(src, 5, MPI_INT, packed, 4, MPI_INT), FM_ERR_TRUNCATE);
    free(in);
    free(io);
    fm_dt_release(vec);
}

/* Scratch buffers cover the true extent of types whose data starts far
 * from the buffer pointer. */
static void test_tmp_alloc(void **state)
{
    (void)state;
    MPI_Datatype t, base = MPI_INT;
    const int ints[2] = {1, 2};
    const MPI_Aint disp[1] = {64};
    assert_int_equal(fm_dt_create(MPI_COMBINER_HINDEXED, 2, ints, 1, disp, 1, &base, &t), FM_OK);
    assert_int_equal(fm_dt_commit(t), FM_OK);
    assert_int_equal(t->true_lb, 64);
    void *raw, *buf = fm_coll_tmp_alloc(5, t, &raw);
    assert_non_null(buf);
    assert_ptr_equal((char *)buf + 64, raw);
    int src[10];
    for (int i = 0; i < 10; i++)
        src[i] = i;
    assert_int_equal(fm_dt_copy(src, 10, MPI_INT, buf, 5, t), FM_OK); /* writes inside raw */
    int out[10] = {0};
    assert_int_equal(fm_dt_copy(buf, 5, t, out, 10, MPI_INT), FM_OK);
    assert_memory_equal(out, src, sizeof src);
    free(raw);
    buf = fm_coll_tmp_alloc(0, t, &raw);
    assert_non_null(buf);
    free(raw);
    fm_dt_release(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers),      cmocka_unit_test(test_integer_edges),
        cmocka_unit_test(test_long_vectors),  cmocka_unit_test(test_floats),
        cmocka_unit_test(test_complex),       cmocka_unit_test(test_bool_and_byte),
        cmocka_unit_test(test_validity_table), cmocka_unit_test(test_minloc_maxloc),
        cmocka_unit_test(test_replace_noop),  cmocka_unit_test(test_user_op),
        cmocka_unit_test(test_noncontig),     cmocka_unit_test(test_tmp_alloc),
        cmocka_unit_test(test_char),          cmocka_unit_test(test_cas_check),
        cmocka_unit_test(test_fortran),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
