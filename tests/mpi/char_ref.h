/* char_ref.h — reference results for reductions on MPI_CHAR (coll_char,
 * rma_char), computed without MPI: arithmetic modulo 256 on the bytes, so
 * the expected value is the two's complement wraparound of a signed char,
 * and comparisons on the signed values. */
#ifndef FM_TEST_CHAR_REF_H
#define FM_TEST_CHAR_REF_H

#include "testutil.h"

#define NOPS 10
static const MPI_Op OPS[NOPS] = {MPI_SUM, MPI_PROD, MPI_MIN,  MPI_MAX, MPI_LAND,
                                 MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
static const char *const op_name[NOPS] = {"SUM", "PROD", "MIN",  "MAX", "LAND",
                                          "LOR", "LXOR", "BAND", "BOR", "BXOR"};

/* Contributor c's element i: spread over the whole signed range (large
 * magnitudes, so sums and products overflow), with zeros for the logical
 * ops. */
static inline signed char val(int c, long i)
{
    if ((c + i) % 5 == 0)
        return 0;
    unsigned char b = (unsigned char)(97u + 61u * (unsigned)c + 13u * (unsigned)i);
    signed char v;
    memcpy(&v, &b, 1); /* the byte's two's complement value */
    return v;
}

/* OPS[o] over contributors [lo, hi) of element i, in any order (every op
 * is commutative and associative on these values).  A lone contributor's
 * value is the result as it is: no op ever runs on it. */
static inline signed char expect(int o, int lo, int hi, long i)
{
    if (hi - lo == 1)
        return val(lo, i);
    unsigned acc = (unsigned char)val(lo, i);
    int mn = val(lo, i), mx = mn, nz = val(lo, i) != 0, all = nz, any = nz;
    for (int c = lo + 1; c < hi; c++) {
        signed char v = val(c, i);
        unsigned b = (unsigned char)v;
        switch (o) {
        case 0: acc += b; break;
        case 1: acc *= b; break;
        case 7: acc &= b; break;
        case 8: acc |= b; break;
        case 9: acc ^= b; break;
        }
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
        all = all && v != 0;
        any = any || v != 0;
        nz += v != 0;
    }
    unsigned char byte = (unsigned char)(acc & 0xffu);
    signed char s;
    memcpy(&s, &byte, 1);
    switch (o) {
    case 2: return (signed char)mn;
    case 3: return (signed char)mx;
    case 4: return (signed char)all;
    case 5: return (signed char)any;
    case 6: return (signed char)(nz % 2);
    default: return s;
    }
}

static inline void fill(signed char *b, long n, int c)
{
    for (long i = 0; i < n; i++)
        b[i] = val(c, i);
}

/* got[0..n) must be OPS[o] over contributors [lo, hi) of elements
 * first, first + 1, ... */
#define CHECK_CHARS(got, n, o, lo, hi, first, what)                                    \
    do {                                                                               \
        for (long ci_ = 0; ci_ < (long)(n); ci_++) {                                   \
            signed char want_ = expect((o), (lo), (hi), (first) + ci_);                \
            CHECKF((got)[ci_] == want_,                                                \
                   "%s MPI_%s on MPI_CHAR over contributors [%d,%d): element %ld is %d, " \
                   "want %d", (what), op_name[o], (lo), (hi), (long)(first) + ci_,     \
                   (got)[ci_], want_);                                                 \
        }                                                                              \
    } while (0)

#endif
