/* external32.c — the "external32" data representation (MPI-3.1 13.5.2):
 * big-endian, IEEE floating point, and fixed sizes per predefined type
 * (MPI_LONG is 4 bytes, MPI_LONG_DOUBLE a 16-byte IEEE quad), packed with
 * no padding in type-map order.
 *
 * The native packed stream cannot be converted after the fact (it keeps
 * no element types), so this walks the type map itself: derived types by
 * their pieces (fm_dt_for_each_piece), down to predefined elements, each
 * converted one scalar at a time.  It costs a call per basic element,
 * which is what a conversion costs anyway. */
#include <float.h>
#include <string.h>

#include "dtype/dtype.h"
#include "dtype/internal.h"
#include "util/status.h"

/* How one scalar travels. */
enum conv {
    CV_NONE = 0,
    CV_RAW,  /* same size both ways: the bytes, in big-endian order */
    CV_SINT, /* integer, sign-extended or cut to its low bytes */
    CV_UINT, /* integer, zero-extended or cut */
    CV_LDBL, /* long double <-> IEEE binary128 */
};

struct scalar {
    unsigned char conv, esize; /* external bytes */
};

/* A predefined type is n scalars of one kind (2 for complex), or for the
 * (value, index) pairs a value scalar and an index scalar. */
struct rep {
    struct scalar s;
    unsigned char n;
    struct scalar idx; /* pairs only (conv != CV_NONE) */
};

static const struct rep rep_of[FM_BK_COUNT] = {
    [FM_BK_CHAR] = {{CV_RAW, 1}, 1, {0, 0}},
    [FM_BK_SCHAR] = {{CV_RAW, 1}, 1, {0, 0}},
    [FM_BK_UCHAR] = {{CV_RAW, 1}, 1, {0, 0}},
    [FM_BK_BYTE] = {{CV_RAW, 1}, 1, {0, 0}},
    [FM_BK_BOOL] = {{CV_UINT, 1}, 1, {0, 0}},
    [FM_BK_INT8] = {{CV_RAW, 1}, 1, {0, 0}},
    [FM_BK_UINT8] = {{CV_RAW, 1}, 1, {0, 0}},
    [FM_BK_FCHARACTER] = {{CV_RAW, 1}, 1, {0, 0}},
    [FM_BK_FINT1] = {{CV_RAW, 1}, 1, {0, 0}},
    [FM_BK_SHORT] = {{CV_SINT, 2}, 1, {0, 0}},
    [FM_BK_INT16] = {{CV_SINT, 2}, 1, {0, 0}},
    [FM_BK_FINT2] = {{CV_SINT, 2}, 1, {0, 0}},
    [FM_BK_USHORT] = {{CV_UINT, 2}, 1, {0, 0}},
    [FM_BK_UINT16] = {{CV_UINT, 2}, 1, {0, 0}},
    [FM_BK_INT] = {{CV_SINT, 4}, 1, {0, 0}},
    [FM_BK_INT32] = {{CV_SINT, 4}, 1, {0, 0}},
    [FM_BK_FINT4] = {{CV_SINT, 4}, 1, {0, 0}},
    [FM_BK_FLOGICAL] = {{CV_SINT, 4}, 1, {0, 0}},
    [FM_BK_WCHAR] = {{CV_UINT, 4}, 1, {0, 0}},
    [FM_BK_UINT] = {{CV_UINT, 4}, 1, {0, 0}},
    [FM_BK_UINT32] = {{CV_UINT, 4}, 1, {0, 0}},
    [FM_BK_LONG] = {{CV_SINT, 4}, 1, {0, 0}},
    [FM_BK_ULONG] = {{CV_UINT, 4}, 1, {0, 0}},
    [FM_BK_LLONG] = {{CV_SINT, 8}, 1, {0, 0}},
    [FM_BK_INT64] = {{CV_SINT, 8}, 1, {0, 0}},
    [FM_BK_FINT8] = {{CV_SINT, 8}, 1, {0, 0}},
    [FM_BK_ULLONG] = {{CV_UINT, 8}, 1, {0, 0}},
    [FM_BK_UINT64] = {{CV_UINT, 8}, 1, {0, 0}},
    [FM_BK_FINT16] = {{CV_RAW, 16}, 1, {0, 0}},
    [FM_BK_FLOAT] = {{CV_RAW, 4}, 1, {0, 0}},
    [FM_BK_DOUBLE] = {{CV_RAW, 8}, 1, {0, 0}},
    [FM_BK_LDOUBLE] = {{CV_LDBL, 16}, 1, {0, 0}},
    [FM_BK_FLOAT128] = {{CV_RAW, 16}, 1, {0, 0}},
    [FM_BK_FCOMPLEX] = {{CV_RAW, 4}, 2, {0, 0}},
    [FM_BK_DCOMPLEX] = {{CV_RAW, 8}, 2, {0, 0}},
    [FM_BK_LDCOMPLEX] = {{CV_LDBL, 16}, 2, {0, 0}},
    [FM_BK_F128COMPLEX] = {{CV_RAW, 16}, 2, {0, 0}},
    [FM_BK_FLOAT_INT] = {{CV_RAW, 4}, 1, {CV_SINT, 4}},
    [FM_BK_DOUBLE_INT] = {{CV_RAW, 8}, 1, {CV_SINT, 4}},
    [FM_BK_LONG_INT] = {{CV_SINT, 4}, 1, {CV_SINT, 4}},
    [FM_BK_2INT] = {{CV_SINT, 4}, 1, {CV_SINT, 4}},
    [FM_BK_SHORT_INT] = {{CV_SINT, 2}, 1, {CV_SINT, 4}},
    [FM_BK_LDOUBLE_INT] = {{CV_LDBL, 16}, 1, {CV_SINT, 4}},
    [FM_BK_2REAL] = {{CV_RAW, 4}, 1, {CV_RAW, 4}},
    [FM_BK_2DOUBLE] = {{CV_RAW, 8}, 1, {CV_RAW, 8}},
};

/* External bytes of one element of a predefined type. */
static MPI_Count predefined_size(MPI_Datatype dt)
{
    const struct rep *r = &rep_of[dt->basic];
    return r->s.esize * r->n + r->idx.esize;
}

/* ---- scalars ------------------------------------------------------------ */

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LITTLE 1
#else
#define HOST_LITTLE 0
#endif

/* n bytes between host and big-endian order (an involution). */
static void swap_copy(unsigned char *dst, const unsigned char *src, int n)
{
    if (!HOST_LITTLE) {
        memcpy(dst, src, (size_t)n);
        return;
    }
    for (int i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
}

static void store_be(unsigned char *out, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--, v >>= 8)
        out[i] = (unsigned char)v;
}

static uint64_t load_be(const unsigned char *in, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | in[i];
    return v;
}

/* A native integer of n bytes (1, 2, 4, 8) as 64 bits. */
static uint64_t load_native(const unsigned char *p, int n, int is_signed)
{
    switch (n) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return is_signed ? (uint64_t)(int8_t)v : v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return is_signed ? (uint64_t)(int16_t)v : v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return is_signed ? (uint64_t)(int32_t)v : v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static void store_native(unsigned char *p, int n, uint64_t v)
{
    switch (n) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* From external n bytes to a 64-bit value, sign-extended if asked. */
static uint64_t widen(uint64_t v, int n, int is_signed)
{
    if (n >= 8 || !is_signed || !(v >> (8 * n - 1) & 1))
        return v;
    return v | ~((UINT64_C(1) << (8 * n)) - 1);
}

#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
/* x87 extended precision: 64-bit significand with an explicit integer bit,
 * then sign and 15-bit exponent, little-endian.  binary128 has the same
 * exponent bias and 112 fraction bits, so every x87 value is exact there;
 * coming back, the fraction rounds to nearest even. */
static void ldbl_to_quad(const unsigned char *p, unsigned char *out)
{
    uint64_t m;
    uint16_t se;
    memcpy(&m, p, 8);
    memcpy(&se, p + 8, 2);
    uint64_t exp = se & 0x7fff, frac = m & ~(UINT64_C(1) << 63);
    if (exp == 0 && (m >> 63))
        exp = 1; /* pseudo-denormal: the value of exponent 1 */
    store_be(out, (uint64_t)(se >> 15) << 63 | exp << 48 | frac >> 15, 8);
    store_be(out + 8, frac << 49, 8);
}

static void quad_to_ldbl(const unsigned char *in, unsigned char *p)
{
    uint64_t hi = load_be(in, 8), lo = load_be(in + 8, 8);
    uint64_t exp = hi >> 48 & 0x7fff, sign = hi >> 63;
    uint64_t frac = (hi & ((UINT64_C(1) << 48) - 1)) << 15 | lo >> 49; /* top 63 bits */
    uint64_t rest = lo & ((UINT64_C(1) << 49) - 1), half = UINT64_C(1) << 48, m;
    if (exp == 0x7fff) { /* infinity, or NaN kept a NaN */
        if (frac == 0 && (hi << 16 || lo))
            frac = UINT64_C(1) << 62;
        m = UINT64_C(1) << 63 | frac;
    } else {
        if (rest > half || (rest == half && (frac & 1)))
            frac++;
        if (frac >> 63) { /* rounded up into the next binade */
            frac = 0;
            exp++;
        }
        if (exp == 0x7fff)
            m = UINT64_C(1) << 63; /* overflow to infinity */
        else if (exp == 0)
            m = frac; /* denormal: no integer bit */
        else
            m = UINT64_C(1) << 63 | frac;
    }
    uint16_t se = (uint16_t)(sign << 15 | exp);
    memset(p, 0, sizeof(long double)); /* the padding too: no stale bytes */
    memcpy(p, &m, 8);
    memcpy(p + 8, &se, 2);
}
#elif LDBL_MANT_DIG == 113
static void ldbl_to_quad(const unsigned char *p, unsigned char *out) { swap_copy(out, p, 16); }
static void quad_to_ldbl(const unsigned char *in, unsigned char *p) { swap_copy(p, in, 16); }
#else
#error "external32: no conversion between this long double and IEEE binary128"
#endif

/* One scalar of native size nsize at `native`, external at `ext`. */
static void convert(struct scalar s, int nsize, unsigned char *native, unsigned char *ext,
                    int to_ext)
{
    switch (s.conv) {
    case CV_RAW:
        if (to_ext)
            swap_copy(ext, native, s.esize);
        else
            swap_copy(native, ext, s.esize);
        break;
    case CV_SINT:
    case CV_UINT:
        /* Larger to smaller moves the low bytes (MPI-3.1 13.5.2): exact
         * for every value the smaller type holds. */
        if (to_ext)
            store_be(ext, load_native(native, nsize, s.conv == CV_SINT), s.esize);
        else
            store_native(native, nsize, widen(load_be(ext, s.esize), s.esize, s.conv == CV_SINT));
        break;
    case CV_LDBL:
        if (to_ext)
            ldbl_to_quad(native, ext);
        else
            quad_to_ldbl(ext, native);
        break;
    default: break;
    }
}

/* ---- the walk ----------------------------------------------------------- */

struct walk {
    unsigned char *ext; /* cursor in the external stream */
    int to_ext;
};

struct piece_ctx {
    struct walk *w;
    char *base; /* the element the pieces are relative to */
};

static int walk_run(struct walk *w, char *base, MPI_Datatype dt, MPI_Count n);

static int walk_piece(void *ctx, const fm_dt_piece *pc)
{
    struct piece_ctx *c = ctx;
    for (MPI_Count r = 0; r < pc->reps; r++) {
        int rc = walk_run(c->w, fm_dt_addr(c->base, pc->disp + (MPI_Aint)r * pc->rep_stride),
                          pc->child, pc->count);
        if (rc)
            return rc;
    }
    return 0;
}

/* n elements of dt, the first at base, one extent apart. */
static int walk_run(struct walk *w, char *base, MPI_Datatype dt, MPI_Count n)
{
    for (MPI_Count i = 0; i < n; i++) {
        char *elem = fm_dt_addr(base, (MPI_Aint)i * dt->extent);
        if (!(dt->flags & FM_DT_PREDEFINED)) {
            struct piece_ctx c = {w, elem};
            int rc = fm_dt_for_each_piece(dt, walk_piece, &c);
            if (rc)
                return rc;
            continue;
        }
        const struct rep *r = &rep_of[dt->basic];
        if (r->s.conv == CV_NONE)
            return FM_ERR_INTERN; /* a predefined type missing from rep_of */
        unsigned char *p = (unsigned char *)elem;
        /* Pairs: the value's native size is the C member's; the index sits
         * at the end of the pair's data. */
        int nsize = r->idx.conv ? (int)fm_dt_pair_value_size(dt->basic) : (int)(dt->size / r->n);
        for (int k = 0; k < r->n; k++) {
            convert(r->s, nsize, p + k * nsize, w->ext, w->to_ext);
            w->ext += r->s.esize;
        }
        if (r->idx.conv) {
            int isize = (int)(dt->size - nsize);
            convert(r->idx, isize, p + dt->true_extent - isize, w->ext, w->to_ext);
            w->ext += r->idx.esize;
        }
    }
    return 0;
}

/* ---- sizes -------------------------------------------------------------- */

struct size_ctx {
    MPI_Count size;
};

static int size_of(MPI_Datatype dt, MPI_Count *out);

static int size_piece(void *ctx, const fm_dt_piece *pc)
{
    struct size_ctx *c = ctx;
    MPI_Count child, n;
    int rc = size_of(pc->child, &child);
    if (rc)
        return rc;
    if (__builtin_mul_overflow(pc->count, pc->reps, &n) || __builtin_mul_overflow(n, child, &n) ||
        __builtin_add_overflow(c->size, n, &c->size))
        return FM_ERR_ARG;
    return 0;
}

static int size_of(MPI_Datatype dt, MPI_Count *out)
{
    if (dt->flags & FM_DT_PREDEFINED) {
        *out = predefined_size(dt);
        return *out ? FM_OK : FM_ERR_INTERN;
    }
    struct size_ctx c = {0};
    int rc = fm_dt_for_each_piece(dt, size_piece, &c);
    if (!rc)
        *out = c.size;
    return rc;
}

int fm_dt_external32_size(MPI_Datatype dt, MPI_Count *size)
{
    return size_of(dt, size);
}

int fm_dt_pack_external32(const void *buf, MPI_Count count, MPI_Datatype dt, void *out)
{
    struct walk w = {out, 1};
    return walk_run(&w, (char *)buf, dt, count);
}

int fm_dt_unpack_external32(const void *in, void *buf, MPI_Count count, MPI_Datatype dt)
{
    struct walk w = {(unsigned char *)in, 0};
    return walk_run(&w, buf, dt, count);
}
