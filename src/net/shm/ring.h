/* ring.h — lock-free single-producer single-consumer message ring.
 *
 * One ring carries messages from one sender to one receiver.  It lives in
 * memory both can see (a shared segment, or plain memory in tests) and holds
 * no pointers, so each side may map it at a different address.
 *
 *   [ fm_ring_ctl: 128 bytes ][ data: size bytes, size a power of two ]
 *
 * The data area is a sequence of records:
 *
 *   [ 8-byte header word | message bytes ... | padding ]
 *
 * A message of up to 24 bytes takes one 32-byte cell (half a cache line):
 * the smallest message, a 16-byte short envelope and 8 bytes of data
 * (net.h), so a burst of them moves two per line (message rate 8 B: 28 vs
 * 23 M/s with whole-line records; ping-pong latency no worse).  A longer one
 * takes whole lines and starts on a line (after a one-cell record, a
 * 32-byte SKIP record fills the line), so the lines it spans are its own.
 *
 * header word = kind << 32 | length.  A record becomes visible by ONE
 * release store of its header word after its bytes are written; the
 * consumer acquire-loads the word at its position and sees either 0 (nothing
 * yet) or a complete record.  To make "0" trustworthy the consumer zeroes
 * the header word and the first word of every line of a record it consumed
 * before handing the cells back, and a producer putting a one-cell record at
 * a line start zeroes the second half's first word (so old payload bytes are
 * never mistaken for a header; ring.c, clear_record); one cell of slack
 * keeps the producer from closing the ring exactly.  The header of a
 * one-cell record at a line start is zeroed when the second half is
 * consumed, not before: the producer may still be writing that half, and
 * the consumer's store would take the line from it.  The slack cell keeps
 * the producer off the first half until the tail has passed the second.
 * A record that would cross the end of the data area is placed at offset 0
 * and the tail of the area becomes a SKIP record.
 *
 * The producer's position is private to the producer; the consumer's
 * position (`tail`) is the only shared index and sits on its own cache line.
 * The producer re-reads it only when its cached copy says the ring is full;
 * the consumer publishes it once per poll batch, after the callbacks
 * returned, which is when the cells become reusable. */
#ifndef FM_NET_SHM_RING_H
#define FM_NET_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "net/net.h"

#define FM_RING_MAGIC 0x676e6972626166ULL /* "fabring" */
#define FM_RING_CELL 32 /* record granule, bytes */
#define FM_RING_HDR 8 /* bytes of the header word before a message */

typedef struct fm_ring_ctl {
    uint64_t magic;
    uint64_t size; /* bytes in the data area */
    uint8_t pad0[48];
    _Alignas(64) _Atomic uint64_t tail; /* consumer position, bytes, monotonic */
    uint8_t pad1[56];
} fm_ring_ctl;

/* Producer side (private memory of the sender). */
typedef struct fm_ring_tx {
    uint8_t *data;
    _Atomic uint64_t *tail;
    uint64_t size, mask;
    uint64_t head;        /* next byte to write */
    uint64_t cached_tail; /* last tail seen; re-read only when full */
    size_t max_msg;
} fm_ring_tx;

/* Consumer side (private memory of the receiver). */
typedef struct fm_ring_rx {
    uint8_t *data;
    _Atomic uint64_t *tail;
    uint64_t mask;
    uint64_t pos; /* next record to read; published to *tail per batch */
} fm_ring_rx;

/* 1 if a record (or skip) waits at the consumer's position: the cheap test a
 * spinning receiver makes before paying for a full poll. */
static inline int fm_ring_ready(const fm_ring_rx *rx)
{
    const _Atomic uint64_t *w = (const _Atomic uint64_t *)(const void *)(rx->data + (rx->pos & rx->mask));
    return atomic_load_explicit(w, memory_order_relaxed) != 0;
}

/* Bytes a ring with a `size`-byte data area occupies (a multiple of 64). */
size_t fm_ring_footprint(size_t size);
/* Round a requested size to the power of two actually used (>= 4 KiB). */
size_t fm_ring_round_size(size_t want);
/* Largest message (bytes after the header word) a ring of `size` accepts. */
size_t fm_ring_max_msg(size_t size);

/* Initialise a ring in zero-filled memory `mem` (64-byte aligned).  Done
 * once, by the segment owner, before anyone attaches. */
void fm_ring_format(void *mem, size_t size);
/* Attach to a formatted ring.  FM_ERR_NET if the magic or size is wrong. */
int fm_ring_tx_attach(fm_ring_tx *tx, void *mem);
int fm_ring_rx_attach(fm_ring_rx *rx, void *mem);

/* Append hdr (hlen bytes) then payload (plen bytes) as one message.
 * FM_OK, FM_ERR_AGAIN when there is no room (nothing written), FM_ERR_ARG
 * when hlen + plen > max_msg.  Never blocks. */
int fm_ring_send(fm_ring_tx *tx, const void *hdr, size_t hlen, const void *payload, size_t plen);
/* The same, with the payload written in place by fill(arg, dst, plen) — a
 * non-contiguous message is packed straight into the ring. */
typedef void fm_ring_fill_fn(void *arg, void *dst, size_t len);
int fm_ring_send_fill(fm_ring_tx *tx, const void *hdr, size_t hlen, fm_ring_fill_fn *fill,
                      void *arg, size_t plen);

/* Deliver up to `max` messages through cb(peer, msg, len), in order, then
 * release their cells.  Returns how many were delivered, or FM_ERR_NET when
 * the record at the consumer's position is not one a producer writes (a
 * corrupt or hostile peer): the ring cannot be read past it.  A delivered
 * message (len bytes) lies inside the data area; at least one cell (24
 * bytes after the header word) is readable at msg whatever len says. */
int fm_ring_poll(fm_ring_rx *rx, int peer, fm_net_deliver_fn *cb, int max);

#endif
