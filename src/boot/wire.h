/* wire.h — the bootstrap protocol spoken between src/boot (client, one per
 * rank) and tools/mpiexec (server).  Private to those two.
 *
 * A TCP stream of messages: an 8-byte header {u32 type, u32 len}, both
 * little endian whatever the host, then `len` payload bytes.  A session:
 *
 *   client                         server
 *   HELLO{ver,rank,size,pid,key} →
 *                                ← WELCOME            or REJECT{why}, close
 *   PUT{klen,vlen,key,val}*      →                    (buffered by the client
 *   FENCE                        →                     until its fence, so a
 *                                ← FENCE_DONE{rec*}    fence is one round trip)
 *   ABORT{code,why}              →                    server kills the job
 *   FINALIZE                     →                    then the client closes
 *   (at any time, on SIGURG:)
 *   HANG{snapshot}               →                    for mpiexec's hang report
 *
 * FENCE_DONE carries every PUT of the epoch from every rank as records
 * {u32 rank, u32 klen, u32 vlen, key, val}; clients keep them locally, so a
 * get never talks to the server.
 *
 * The hang report: on --timeout, mpiexec sends FM_WIRE_HANG_SIGNAL to each
 * rank; the rank's handler answers with one HANG message describing the
 * blocking MPI call it is in (src/core/hang.h).  SIGURG is ignored by
 * default, so asking a process that never installed the handler is
 * harmless.  Payload, FM_WIRE_HANG_LEN bytes:
 *   u32 active threads in blocking calls (0: the rest is meaningless)
 *   u32 peer, u32 tag (int32, INT_MIN = none), u32 count lo, u32 count hi,
 *   u32 milliseconds in the call, char call[32], char comm[64] (NUL-padded) */
#ifndef FM_BOOT_WIRE_H
#define FM_BOOT_WIRE_H

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FM_WIRE_VERSION 1u
#define FM_WIRE_HDR 8u
#define FM_BOOT_KEY_MAX 255u   /* bytes of a key-value-store key */
#define FM_BOOT_VAL_MAX 4096u  /* bytes of a value */
#define FM_BOOT_WHY_MAX 1024u  /* bytes of an abort or reject reason */
#define FM_BOOT_SECRET_MAX 128u /* hex chars of FABMPI_BOOT_KEY */
/* Largest message a client may send; anything bigger is a protocol error. */
#define FM_WIRE_CLIENT_MAX (12u + FM_BOOT_KEY_MAX + FM_BOOT_VAL_MAX)
/* Largest FENCE_DONE a client accepts (every rank's puts of one epoch). */
#define FM_WIRE_SERVER_MAX (1u << 30)

enum fm_wire_type {
    FM_WIRE_HELLO = 1,
    FM_WIRE_WELCOME,
    FM_WIRE_REJECT,
    FM_WIRE_PUT,
    FM_WIRE_FENCE,
    FM_WIRE_FENCE_DONE,
    FM_WIRE_ABORT,
    FM_WIRE_FINALIZE,
    FM_WIRE_HANG,
};

#define FM_WIRE_HANG_SIGNAL SIGURG
#define FM_WIRE_HANG_CALL 32u
#define FM_WIRE_HANG_COMM 64u
#define FM_WIRE_HANG_LEN (24u + FM_WIRE_HANG_CALL + FM_WIRE_HANG_COMM)

/* Growable byte buffer used for both directions on both sides. */
struct fm_wbuf {
    unsigned char *p;
    size_t len, cap;
};

static inline int fm_wbuf_reserve(struct fm_wbuf *b, size_t more)
{
    if (b->len + more <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

static inline int fm_wbuf_add(struct fm_wbuf *b, const void *data, size_t n)
{
    if (fm_wbuf_reserve(b, n))
        return -1;
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
    return 0;
}

static inline void fm_wire_put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static inline uint32_t fm_wire_get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline int fm_wbuf_u32(struct fm_wbuf *b, uint32_t v)
{
    unsigned char w[4];
    fm_wire_put_u32(w, v);
    return fm_wbuf_add(b, w, 4);
}

/* Append a message header; the payload follows with fm_wbuf_add/u32. */
static inline int fm_wbuf_hdr(struct fm_wbuf *b, uint32_t type, uint32_t len)
{
    return fm_wbuf_u32(b, type) || fm_wbuf_u32(b, len) ? -1 : 0;
}

/* Drop the first n bytes (a consumed message or a written chunk). */
static inline void fm_wbuf_consume(struct fm_wbuf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
}

static inline void fm_wbuf_free(struct fm_wbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* ---- decoding: these bytes come from another process ---------------------
 * Pure functions (no I/O, no state), used by the server, the client and
 * tests/fuzz/fuzz_boot_wire.c alike; each returned slice lies inside the
 * bytes it was given. */

enum { FM_WIRE_BAD = -1, FM_WIRE_NEED_MORE = 0, FM_WIRE_FRAME = 1 };

/* The message at p, of which `avail` bytes have arrived: FM_WIRE_FRAME when
 * all of it is there (*type, and *len payload bytes after the header),
 * FM_WIRE_NEED_MORE, or FM_WIRE_BAD when it declares more than max. */
static inline int fm_wire_frame(const unsigned char *p, size_t avail, uint32_t max, uint32_t *type,
                                uint32_t *len)
{
    if (avail < FM_WIRE_HDR)
        return FM_WIRE_NEED_MORE;
    *type = fm_wire_get_u32(p);
    *len = fm_wire_get_u32(p + 4);
    if (*len > max)
        return FM_WIRE_BAD;
    return avail - FM_WIRE_HDR < *len ? FM_WIRE_NEED_MORE : FM_WIRE_FRAME;
}

struct fm_wire_hello {
    uint32_t ver, rank, size, pid;
    const unsigned char *key; /* not NUL-terminated */
    size_t klen;
};

/* A HELLO payload: 0, or -1 when it is shorter than its fixed part. */
static inline int fm_wire_hello_decode(const unsigned char *p, size_t len, struct fm_wire_hello *h)
{
    if (len < 16)
        return -1;
    h->ver = fm_wire_get_u32(p);
    h->rank = fm_wire_get_u32(p + 4);
    h->size = fm_wire_get_u32(p + 8);
    h->pid = fm_wire_get_u32(p + 12);
    h->key = p + 16;
    h->klen = len - 16;
    return 0;
}

/* A key-value pair: a PUT's payload, or one record of a FENCE_DONE. */
struct fm_wire_kv {
    uint32_t rank; /* records only */
    uint32_t klen, vlen;
    const unsigned char *key, *val;
};

/* The pair at p after `skip` bytes (PUT: 0; record: 4, its rank), sizes
 * within FM_BOOT_KEY_MAX / FM_BOOT_VAL_MAX: the bytes it takes, or -1. */
static inline long fm_wire_kv_decode(const unsigned char *p, size_t len, size_t skip,
                                     struct fm_wire_kv *kv)
{
    if (len < skip + 8)
        return -1;
    kv->rank = skip ? fm_wire_get_u32(p) : 0;
    kv->klen = fm_wire_get_u32(p + skip);
    kv->vlen = fm_wire_get_u32(p + skip + 4);
    if (kv->klen > FM_BOOT_KEY_MAX || kv->vlen > FM_BOOT_VAL_MAX ||
        len - skip - 8 < (size_t)kv->klen + kv->vlen)
        return -1;
    kv->key = p + skip + 8;
    kv->val = kv->key + kv->klen;
    return (long)(skip + 8 + kv->klen + kv->vlen);
}

#endif
