/* ring.c — the single-producer single-consumer ring (layout in ring.h). */
#include "net/shm/ring.h"

#include <assert.h>
#include <string.h>

#include "util/status.h"
#include "util/copy.h"

static_assert(sizeof(fm_ring_ctl) == 128, "ring control block is two cache lines");
static_assert(offsetof(fm_ring_ctl, tail) == 64, "tail sits alone on the second line");
static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free in shared memory");
static_assert(sizeof(_Atomic uint64_t) == 8, "header word is 8 bytes");

enum { REC_MSG = 1, REC_SKIP = 2 };

#define REC_WORD(kind, len) (((uint64_t)(kind) << 32) | (uint64_t)(uint32_t)(len))
#define REC_KIND(w) ((unsigned)((w) >> 32))
#define REC_LEN(w) ((uint32_t)(w))

static inline _Atomic uint64_t *word_at(uint8_t *data, uint64_t mask, uint64_t pos)
{
    return (_Atomic uint64_t *)(void *)(data + (pos & mask));
}

#define LINE 64

/* Record bytes for a message of len bytes: header word + message in one
 * cell, or else in whole cache lines.  A record longer than a cell also
 * starts on a line (align_pad), so the lines it spans are its own: records
 * straddling lines shared with their neighbours cost 64-byte and 512-byte
 * messages 7-10% of bandwidth.  One-cell records pack two per line. */
static inline uint64_t rec_bytes(size_t len)
{
    uint64_t n = (uint64_t)FM_RING_HDR + len;
    return n <= FM_RING_CELL ? FM_RING_CELL : (n + LINE - 1) & ~(uint64_t)(LINE - 1);
}

/* Bytes to skip so a multi-line record starts on a line: after a one-cell
 * record, half a line. */
static inline uint64_t align_pad(uint64_t idx, uint64_t rec)
{
    return rec > FM_RING_CELL ? (LINE - (idx & (LINE - 1))) & (LINE - 1) : 0;
}

size_t fm_ring_round_size(size_t want)
{
    size_t s = 4096;
    while (s < want && s < ((size_t)1 << 31))
        s <<= 1;
    return s;
}

size_t fm_ring_footprint(size_t size) { return sizeof(fm_ring_ctl) + size; }

/* A quarter of the ring: a maximal record plus the worst skip before it
 * still fits in an empty ring, so a message that is accepted at all is
 * accepted as soon as the consumer drains. */
size_t fm_ring_max_msg(size_t size) { return size / 4 - FM_RING_HDR; }

void fm_ring_format(void *mem, size_t size)
{
    fm_ring_ctl *c = mem;
    c->size = size;
    c->magic = FM_RING_MAGIC;
    atomic_init(&c->tail, 0);
}

static int attach(void *mem, uint8_t **data, _Atomic uint64_t **tail, uint64_t *size)
{
    fm_ring_ctl *c = mem;
    if (c->magic != FM_RING_MAGIC || c->size < 4096 || (c->size & (c->size - 1)))
        return FM_ERR_NET;
    *data = (uint8_t *)mem + sizeof(fm_ring_ctl);
    *tail = &c->tail;
    *size = c->size;
    return FM_OK;
}

int fm_ring_tx_attach(fm_ring_tx *tx, void *mem)
{
    uint8_t *data;
    _Atomic uint64_t *tail;
    uint64_t size;
    int rc = attach(mem, &data, &tail, &size);
    if (rc != FM_OK)
        return rc;
    tx->data = data;
    tx->tail = tail;
    tx->size = size;
    tx->mask = size - 1;
    tx->head = atomic_load_explicit(tail, memory_order_acquire);
    tx->cached_tail = tx->head;
    tx->max_msg = fm_ring_max_msg(size);
    return FM_OK;
}

int fm_ring_rx_attach(fm_ring_rx *rx, void *mem)
{
    uint8_t *data;
    _Atomic uint64_t *tail;
    uint64_t size;
    int rc = attach(mem, &data, &tail, &size);
    if (rc != FM_OK)
        return rc;
    rx->data = data;
    rx->tail = tail;
    rx->mask = size - 1;
    rx->pos = atomic_load_explicit(tail, memory_order_relaxed);
    return FM_OK;
}

/* The message of a record longer than a line, copied with the bytes that
 * share the header word's line last: a receiver waiting for this record
 * polls that line, and each store into it while it polls costs a transfer
 * of the line.  Apart (not inlined), so the one-cell path keeps its
 * registers.  A payload packed in place (fill) is still written from its
 * first byte.  Packing the rest first and that line last (a fill taking an
 * offset), a vector of 8-byte blocks (msgrate/latency --vector, slow
 * state, 8 alternated pairs): message rate 1.12-1.39x at 64-512 B but
 * 0.80-0.96 at 1-4 KiB; latency 0.92 at 512 B but 1.05-1.21 at 64-128 B
 * and 1-4 KiB (packed in two calls in the old order: 0.98-1.05).  Not
 * kept. */
static __attribute__((noinline)) void copy_first_line_last(uint8_t *body, const void *hdr,
                                                           size_t hlen, const void *payload,
                                                           size_t plen)
{
    size_t in_first = LINE - FM_RING_HDR - hlen; /* < plen: the record is longer than a line */
    fm_copy(body + hlen + in_first, (const char *)payload + in_first, plen - in_first);
    memcpy(body, hdr, hlen);
    memcpy(body + hlen, payload, in_first);
}

/* One record: header bytes, then the payload copied from `payload` or, when
 * `fill` is given, produced by fill(arg, dst, plen) in place. */
static inline int ring_put(fm_ring_tx *tx, const void *hdr, size_t hlen, const void *payload,
                           fm_ring_fill_fn *fill, void *arg, size_t plen)
{
    size_t len = hlen + plen;
    if (len > tx->max_msg)
        return FM_ERR_ARG;
    uint64_t rec = rec_bytes(len);
    uint64_t head = tx->head;
    uint64_t idx = head & tx->mask;
    uint64_t pad = align_pad(idx, rec);
    if (idx + pad + rec > tx->size)
        pad = tx->size - idx;
    /* + one cell of slack so head never catches up with the tail exactly */
    uint64_t need = pad + rec + FM_RING_CELL;
    if (head + need - tx->cached_tail > tx->size) {
        tx->cached_tail = atomic_load_explicit(tx->tail, memory_order_acquire);
        if (head + need - tx->cached_tail > tx->size)
            return FM_ERR_AGAIN;
    }
    uint64_t at = head + pad;
    _Atomic uint64_t *w = word_at(tx->data, tx->mask, at);
    uint8_t *body = (uint8_t *)w + FM_RING_HDR;
    if (__builtin_expect(rec > LINE, 0) && !fill && hlen < LINE - FM_RING_HDR && payload) {
        copy_first_line_last(body, hdr, hlen, payload, plen);
    } else {
        if (hlen)
            memcpy(body, hdr, hlen);
        if (fill)
            fill(arg, body + hlen, plen);
        else if (plen && payload)
            fm_copy(body + hlen, payload, plen);
    }
    /* A one-cell record at a line start: the consumer next looks at the
     * second half of this line, which it does not clear (clear_record). */
    if (rec == FM_RING_CELL && !(at & (LINE - 1)))
        atomic_store_explicit(word_at(tx->data, tx->mask, at + FM_RING_CELL), 0,
                              memory_order_relaxed);
    atomic_store_explicit(w, REC_WORD(REC_MSG, len), memory_order_release);
    /* The skip goes last: the consumer reaches the record only through it. */
    if (pad)
        atomic_store_explicit(word_at(tx->data, tx->mask, head), REC_WORD(REC_SKIP, pad),
                              memory_order_release);
    tx->head = at + rec;
    return FM_OK;
}

int fm_ring_send(fm_ring_tx *tx, const void *hdr, size_t hlen, const void *payload, size_t plen)
{
    return ring_put(tx, hdr, hlen, payload, NULL, NULL, plen);
}

int fm_ring_send_fill(fm_ring_tx *tx, const void *hdr, size_t hlen, fm_ring_fill_fn *fill,
                      void *arg, size_t plen)
{
    return ring_put(tx, hdr, hlen, NULL, fill, arg, plen);
}

/* Zero the header word of a consumed record and the first word of every
 * line it covers.  The consumer looks for a header either at a line start
 * (after a record that ends on one) or in the second half of a line after a
 * one-cell record at its start, where the producer stored a zero before
 * publishing that record.  So the word where it next looks is either zero
 * or a header the producer published later (it writes there only after
 * our tail store says the cells are free).  Clearing here, in lines the
 * consumer already holds, spares the producer from touching the next line
 * on every send — one cache-line transfer per small message — and one
 * store per line rather than per cell keeps large messages' cost as it was
 * with whole-line cells (two per line cost 4 KiB messages 10%).
 * Two producer-side alternatives measured worse (2026-12-06, msgrate A/B,
 * 5-6 alternated rounds): zeroing the word after each record cost 8 B-4 KiB
 * rates 8-64% (the producer writes the line the consumer polls); zeroing
 * line starts ahead in the free part of the ring won 16-256 B 5-45% but
 * lost 512 B-4 KiB 10-30%: in a flood the sender is the bound, and this
 * clearing is work the receiver does in parallel.  Splitting by record
 * size (the producer zeroing only lines of records under 8 lines, kept in
 * a bit per line) lost 128-256 B 24-30% and won 16-32 B 17-21% (8 rounds):
 * no gain that stands above this machine's noise.  Clearing at the next
 * poll instead (so a receiver's answer is not stored behind these stores)
 * made ping-pong latency 5-15% shorter from 16 B to 2 KiB, but 1-4 KiB
 * floods 12-21% slower, even releasing at once after a batch of more than
 * one (8-10 rounds each): not kept.  A prefetchw of a record's lines before
 * its callback (so these stores find them owned) made latency 5-16% shorter
 * from 64 B to 4 KiB, left MPI floods within noise, and cut Medium AM
 * floods of 1 KiB, whose handler reads nothing, by 30-60%: not kept.
 * A record in the second half of a line also clears the first half's
 * header, left until then (fm_ring_poll): the producer may be writing the
 * second half while the consumer is done with the first (bench/RESULTS.md,
 * "The ring: no store into a line under write").  A producer prefetchw
 * 256-1024 bytes ahead gave 8 B floods nothing and cut 1 KiB ones. */
static inline void clear_record(fm_ring_rx *rx, uint64_t pos, uint64_t bytes)
{
    if (pos & (LINE - 1))
        atomic_store_explicit(word_at(rx->data, rx->mask, pos - FM_RING_CELL), 0,
                              memory_order_relaxed);
    atomic_store_explicit(word_at(rx->data, rx->mask, pos), 0, memory_order_relaxed);
    for (uint64_t at = (pos | (LINE - 1)) + 1; at < pos + bytes; at += LINE)
        atomic_store_explicit(word_at(rx->data, rx->mask, at), 0, memory_order_relaxed);
}

/* A skip the producer could have written: it moves on by whole cells and
 * stays inside the data area (ring_put: half a line, or the rest of the
 * area before a wrap). */
static int skip_ok(const fm_ring_rx *rx, uint64_t pos, uint64_t len)
{
    return len != 0 && len % FM_RING_CELL == 0 && (pos & rx->mask) + len <= rx->mask + 1;
}

int fm_ring_poll(fm_ring_rx *rx, int peer, fm_net_deliver_fn *cb, int max)
{
    uint64_t pos = rx->pos;
    int n = 0, rc = FM_OK;
    while (n < max) {
        _Atomic uint64_t *w = word_at(rx->data, rx->mask, pos);
        uint64_t word = atomic_load_explicit(w, memory_order_acquire);
        if (word == 0)
            break;
        /* The words come from another process: a record must be one the
         * producer can write, inside the data area, or we would read past
         * it (a corrupt or hostile peer).  One test on the message path. */
        uint64_t rec = rec_bytes(REC_LEN(word));
        if (__builtin_expect(REC_KIND(word) != REC_MSG || (pos & rx->mask) + rec > rx->mask + 1, 0)) {
            if (REC_KIND(word) != REC_SKIP || !skip_ok(rx, pos, REC_LEN(word))) {
                rc = FM_ERR_NET;
                break;
            }
            clear_record(rx, pos, REC_LEN(word));
            pos += REC_LEN(word);
            continue;
        }
        /* The cells stay ours until the tail store below, so the message
         * is valid for the whole callback (which may send, not poll). */
        cb(peer, (const uint8_t *)w + FM_RING_HDR, REC_LEN(word));
        /* A one-cell record at a line start: cleared with the next one
         * (clear_record), since the producer may be writing that. */
        if (rec != FM_RING_CELL || (pos & (LINE - 1)))
            clear_record(rx, pos, rec);
        pos += rec;
        n++;
    }
    if (pos != rx->pos) {
        rx->pos = pos;
        atomic_store_explicit(rx->tail, pos, memory_order_release);
    }
    return rc == FM_OK ? n : rc;
}
