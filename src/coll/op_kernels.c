/* op_kernels.c — the typed loops behind every predefined reduction.
 *
 * Loops are generated from lists of (op, kind, C type, arithmetic type)
 * so each one is a plain restrict-qualified for-loop the compiler can
 * vectorize.  Which (op, kind) pairs exist follows MPI-4.0 §6.9.2:
 *   MAX MIN            C integer, Fortran integer, floating point
 *   SUM PROD           C integer, Fortran integer, floating point, complex
 *   LAND LOR LXOR      C integer, logical (C_BOOL, Fortran LOGICAL)
 *   BAND BOR BXOR      C integer, Fortran integer, byte
 *   MINLOC MAXLOC      the (value, index) pair types, C and Fortran
 * Fortran REAL and COMPLEX types share the C kinds of their layout;
 * CHARACTER takes no op.  MPI_CHAR is a character type there, so reducing
 * it is erroneous and the implementation defines the result: it computes
 * as signed char (table rows borrowed from SCHAR below), as Open MPI and
 * MPICH do, because OSU's reduction and accumulate benchmarks reduce
 * MPI_CHAR with MPI_SUM by default.  MPI_WCHAR takes no op.
 *
 * Integer SUM and PROD compute in an unsigned type at least as wide as
 * unsigned int: wrap-around is then defined behaviour (no promotion to a
 * signed int that could overflow), and the bits are those of two's
 * complement arithmetic, which is what every MPI user expects. */
#include <stdint.h>
#include <string.h>

#include "coll/op_kernels.h"

/* (op, kind, C type, arithmetic type) for each family; floating and
 * complex types compute in their own type. */
#define FM_KINDS_INT(X, OP)                                                         \
    X(OP, SCHAR, signed char, unsigned) X(OP, UCHAR, unsigned char, unsigned)      \
    X(OP, SHORT, short, unsigned) X(OP, USHORT, unsigned short, unsigned)          \
    X(OP, INT, int, unsigned) X(OP, UINT, unsigned, unsigned)                      \
    X(OP, LONG, long, unsigned long) X(OP, ULONG, unsigned long, unsigned long)    \
    X(OP, LLONG, long long, unsigned long long)                                    \
    X(OP, ULLONG, unsigned long long, unsigned long long)                          \
    X(OP, INT8, int8_t, unsigned) X(OP, INT16, int16_t, unsigned)                  \
    X(OP, INT32, int32_t, uint32_t) X(OP, INT64, int64_t, uint64_t)                \
    X(OP, UINT8, uint8_t, unsigned) X(OP, UINT16, uint16_t, unsigned)              \
    X(OP, UINT32, uint32_t, uint32_t) X(OP, UINT64, uint64_t, uint64_t)
#define FM_KINDS_FLOAT(X, OP)                                                       \
    X(OP, FLOAT, float, float) X(OP, DOUBLE, double, double)                       \
    X(OP, LDOUBLE, long double, long double)
#define FM_KINDS_COMPLEX(X, OP)                                                     \
    X(OP, FCOMPLEX, float _Complex, float _Complex)                                \
    X(OP, DCOMPLEX, double _Complex, double _Complex)                               \
    X(OP, LDCOMPLEX, long double _Complex, long double _Complex)
#define FM_KINDS_BOOL(X, OP) X(OP, BOOL, _Bool, unsigned)
#define FM_KINDS_BYTE(X, OP) X(OP, BYTE, unsigned char, unsigned)
/* The optional Fortran types mpi.h declares where the compiler has them. */
#ifdef __SIZEOF_INT128__
#define FM_KINDS_FINT16(X, OP) X(OP, FINT16, __int128, unsigned __int128)
#else
#define FM_KINDS_FINT16(X, OP)
#endif
#if defined(__FLT128_MAX__) && defined(__SIZEOF_FLOAT128__)
#define FM_KINDS_QUAD(X, OP) X(OP, FLOAT128, _Float128, _Float128)
#define FM_KINDS_QUAD_COMPLEX(X, OP) X(OP, F128COMPLEX, _Complex _Float128, _Complex _Float128)
#else
#define FM_KINDS_QUAD(X, OP)
#define FM_KINDS_QUAD_COMPLEX(X, OP)
#endif

/* Every (op, kind) loop that exists. */
#define FM_ALL_LOOPS(X)                                                             \
    FM_KINDS_INT(X, MAX) FM_KINDS_FLOAT(X, MAX) FM_KINDS_FINT16(X, MAX)            \
    FM_KINDS_QUAD(X, MAX)                                                          \
    FM_KINDS_INT(X, MIN) FM_KINDS_FLOAT(X, MIN) FM_KINDS_FINT16(X, MIN)            \
    FM_KINDS_QUAD(X, MIN)                                                          \
    FM_KINDS_INT(X, SUM) FM_KINDS_FLOAT(X, SUM) FM_KINDS_COMPLEX(X, SUM)           \
    FM_KINDS_FINT16(X, SUM) FM_KINDS_QUAD(X, SUM) FM_KINDS_QUAD_COMPLEX(X, SUM)    \
    FM_KINDS_INT(X, PROD) FM_KINDS_FLOAT(X, PROD) FM_KINDS_COMPLEX(X, PROD)        \
    FM_KINDS_FINT16(X, PROD) FM_KINDS_QUAD(X, PROD) FM_KINDS_QUAD_COMPLEX(X, PROD) \
    FM_KINDS_INT(X, LAND) FM_KINDS_BOOL(X, LAND)                                   \
    FM_KINDS_INT(X, LOR) FM_KINDS_BOOL(X, LOR)                                     \
    FM_KINDS_INT(X, LXOR) FM_KINDS_BOOL(X, LXOR)                                   \
    FM_KINDS_INT(X, BAND) FM_KINDS_BYTE(X, BAND) FM_KINDS_FINT16(X, BAND)          \
    FM_KINDS_INT(X, BOR) FM_KINDS_BYTE(X, BOR) FM_KINDS_FINT16(X, BOR)             \
    FM_KINDS_INT(X, BXOR) FM_KINDS_BYTE(X, BXOR) FM_KINDS_FINT16(X, BXOR)

/* a = in[i], b = inout[i]; U is the arithmetic type. */
#define FM_E_MAX(a, b, U) ((a) > (b) ? (a) : (b))
#define FM_E_MIN(a, b, U) ((a) < (b) ? (a) : (b))
#define FM_E_SUM(a, b, U) ((U)(a) + (U)(b))
#define FM_E_PROD(a, b, U) ((U)(a) * (U)(b))
#define FM_E_LAND(a, b, U) ((a) && (b))
#define FM_E_LOR(a, b, U) ((a) || (b))
#define FM_E_LXOR(a, b, U) (!(a) != !(b))
#define FM_E_BAND(a, b, U) ((a) & (b))
#define FM_E_BOR(a, b, U) ((a) | (b))
#define FM_E_BXOR(a, b, U) ((a) ^ (b))

/* The default x86-64 target vectorizes these loops with 16-byte SSE2, one
 * vector per cycle: an 8 KiB MPI_SUM on ints (accumulate latency) was
 * compute-bound at ~16 B per cycle with the data in L1.  Clones for wider
 * vectors, one picked per loop at load time from the CPU (ifunc, so the
 * table holds the chosen clone: no extra call), cut 8 KiB from 0.18 to
 * 0.11 us here (Zen 4; AVX-512 also 16 KiB from 0.24 to 0.21).  Same bits
 * as the SSE2 loop: element-wise ops, no reassociation, and no contraction
 * into FMA under -std=c11.  Not under ThreadSanitizer: the ifunc resolver
 * runs during relocation, before its instrumentation can (it crashes). */
#if defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute) && \
    !defined(__SANITIZE_THREAD__)
#if __has_attribute(target_clones)
#define FM_KERNEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef FM_KERNEL_CLONES
#define FM_KERNEL_CLONES
#endif

#define FM_DEFINE_LOOP(OP, K, T, U)                                                 \
    FM_KERNEL_CLONES                                                                \
    static void fm_k_##OP##_##K(const void *restrict vin, void *restrict vio, size_t n) \
    {                                                                               \
        const T *restrict in = vin;                                                 \
        T *restrict io = vio;                                                       \
        for (size_t i = 0; i < n; i++)                                              \
            io[i] = (T)FM_E_##OP(in[i], io[i], U);                                  \
    }
FM_ALL_LOOPS(FM_DEFINE_LOOP)

/* Pair kinds work on the packed form (value bytes, then the index bytes,
 * no padding): that is what both contiguous runs and fm_dt_pack produce,
 * and it is why these loops read and write through memcpy.  (op, kind,
 * value type, index type): C pairs index by int, Fortran ones by the
 * value's own type (MPI_2INTEGER is 2INT's layout). */
#define FM_KINDS_PAIR(X, OP)                                                        \
    X(OP, FLOAT_INT, float, int) X(OP, DOUBLE_INT, double, int)                    \
    X(OP, LONG_INT, long, int) X(OP, 2INT, int, int) X(OP, SHORT_INT, short, int)  \
    X(OP, LDOUBLE_INT, long double, int) X(OP, 2REAL, float, float)                \
    X(OP, 2DOUBLE, double, double)

/* MPI's rule: the winning value's index; on a tie, the smaller index. */
#define FM_DEFINE_PAIR_LOOP(OP, K, VT, IT)                                          \
    static void fm_k_##OP##_##K(const void *restrict vin, void *restrict vio, size_t n) \
    {                                                                               \
        const unsigned char *in = vin;                                              \
        unsigned char *io = vio;                                                    \
        const size_t stride = sizeof(VT) + sizeof(IT);                              \
        for (size_t i = 0; i < n; i++, in += stride, io += stride) {                \
            VT a, b;                                                                \
            IT ia, ib;                                                              \
            memcpy(&a, in, sizeof a);                                               \
            memcpy(&b, io, sizeof b);                                               \
            memcpy(&ia, in + sizeof(VT), sizeof ia);                                \
            memcpy(&ib, io + sizeof(VT), sizeof ib);                                \
            if (FM_PAIR_WINS_##OP(a, b) || (a == b && ia < ib))                     \
                memcpy(io, in, stride);                                             \
        }                                                                           \
    }
#define FM_PAIR_WINS_MINLOC(a, b) ((a) < (b))
#define FM_PAIR_WINS_MAXLOC(a, b) ((a) > (b))
FM_KINDS_PAIR(FM_DEFINE_PAIR_LOOP, MINLOC)
FM_KINDS_PAIR(FM_DEFINE_PAIR_LOOP, MAXLOC)

/* Kinds that compute exactly as another kind does: (op, kind, as kind).
 * They get that kind's loops for the ops listed, no code of their own. */
#define FM_INT_OPS(X, K, AS)                                                        \
    X(MAX, K, AS) X(MIN, K, AS) X(SUM, K, AS) X(PROD, K, AS) X(LAND, K, AS)        \
    X(LOR, K, AS) X(LXOR, K, AS) X(BAND, K, AS) X(BOR, K, AS) X(BXOR, K, AS)
#define FM_FINT_OPS(X, K, AS)                                                       \
    X(MAX, K, AS) X(MIN, K, AS) X(SUM, K, AS) X(PROD, K, AS) X(BAND, K, AS)        \
    X(BOR, K, AS) X(BXOR, K, AS)
#define FM_LOGICAL_OPS(X, K, AS) X(LAND, K, AS) X(LOR, K, AS) X(LXOR, K, AS)
/* LOGICAL through the int32 loops: any non-zero is true, results are 0
 * and 1, gfortran's .FALSE. and .TRUE. */
#define FM_ALL_ALIASES(X)                                                           \
    FM_INT_OPS(X, CHAR, SCHAR) FM_FINT_OPS(X, FINT1, INT8) FM_FINT_OPS(X, FINT2, INT16) \
    FM_FINT_OPS(X, FINT4, INT32) FM_FINT_OPS(X, FINT8, INT64)                      \
    FM_LOGICAL_OPS(X, FLOGICAL, INT32)

#define FM_LOOP_ENTRY(OP, K, T, U) [FM_OPI_MPI_##OP][FM_BK_##K] = fm_k_##OP##_##K,
#define FM_PAIR_ENTRY(OP, K, VT, IT) [FM_OPI_MPI_##OP][FM_BK_##K] = fm_k_##OP##_##K,
#define FM_ALIAS_ENTRY(OP, K, AS) [FM_OPI_MPI_##OP][FM_BK_##K] = fm_k_##OP##_##AS,
fm_op_kernel_fn *const fm_op_kernel[FM_OPI_COUNT][FM_BK_COUNT] = {
    FM_ALL_LOOPS(FM_LOOP_ENTRY)
    FM_ALL_ALIASES(FM_ALIAS_ENTRY)
    FM_KINDS_PAIR(FM_PAIR_ENTRY, MINLOC)
    FM_KINDS_PAIR(FM_PAIR_ENTRY, MAXLOC)
};

/* Bytes of one basic element in packed form (0: no arithmetic on it). */
#define FM_SIZE_ENTRY(OP, K, T, U) [FM_BK_##K] = sizeof(T),
#define FM_PAIR_SIZE_ENTRY(OP, K, VT, IT) [FM_BK_##K] = sizeof(VT) + sizeof(IT),
const unsigned char fm_op_kind_size[FM_BK_COUNT] = {
    FM_KINDS_INT(FM_SIZE_ENTRY, _) FM_KINDS_FLOAT(FM_SIZE_ENTRY, _)
    FM_KINDS_COMPLEX(FM_SIZE_ENTRY, _) FM_KINDS_BOOL(FM_SIZE_ENTRY, _)
    FM_KINDS_BYTE(FM_SIZE_ENTRY, _) FM_KINDS_PAIR(FM_PAIR_SIZE_ENTRY, _)
    FM_KINDS_FINT16(FM_SIZE_ENTRY, _) FM_KINDS_QUAD(FM_SIZE_ENTRY, _)
    FM_KINDS_QUAD_COMPLEX(FM_SIZE_ENTRY, _)
    [FM_BK_CHAR] = sizeof(char), [FM_BK_WCHAR] = sizeof(wchar_t),
    [FM_BK_FCHARACTER] = 1, [FM_BK_FLOGICAL] = sizeof(int32_t), [FM_BK_FINT1] = sizeof(int8_t),
    [FM_BK_FINT2] = sizeof(int16_t), [FM_BK_FINT4] = sizeof(int32_t),
    [FM_BK_FINT8] = sizeof(int64_t),
};
