/* fuzz_input.h — reading a fuzz input as a stream of small values.
 *
 * Each target decodes libFuzzer's bytes into the calls it makes.  Reading
 * past the end yields zeros, so every input decodes to something and short
 * inputs mean small, simple cases. */
#ifndef FM_FUZZ_INPUT_H
#define FM_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in;

static inline int fz_empty(const fz_in *in) { return in->n == 0; }

static inline uint8_t fz_u8(fz_in *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

static inline uint32_t fz_u32(fz_in *in)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)fz_u8(in) << (8 * i);
    return v;
}

static inline uint64_t fz_u64(fz_in *in)
{
    uint64_t lo = fz_u32(in);
    return lo | (uint64_t)fz_u32(in) << 32;
}

/* A value in [0, n): one byte when n <= 256, else four. */
static inline unsigned fz_below(fz_in *in, unsigned n)
{
    return n <= 256 ? fz_u8(in) % n : fz_u32(in) % n;
}

/* The bytes up to the next NUL (or the end), copied NUL-terminated into
 * buf (cut to len - 1); the NUL is consumed. */
static inline void fz_str(fz_in *in, char *buf, size_t len)
{
    const uint8_t *nul = memchr(in->p, 0, in->n);
    size_t n = nul ? (size_t)(nul - in->p) : in->n;
    size_t k = n < len - 1 ? n : len - 1;
    memcpy(buf, in->p, k);
    buf[k] = '\0';
    in->p += n + (nul != NULL);
    in->n -= n + (nul != NULL);
}

#endif
