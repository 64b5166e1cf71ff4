/* fuzz_shm_ring.c — what a rank does with what a peer wrote into its
 * shared-memory ring: the record framing (fm_ring_poll, src/net/shm/ring.c)
 * and the envelope of each delivered message (fm_envelope_decode,
 * src/pt2pt/envelope.h, as fm_deliver calls it).
 *
 * Input: [mode byte][2-byte start cell] then
 *   mode even: the 4 KiB data area exactly as a hostile peer left it;
 *   mode odd:  [count byte] messages a genuine producer sends (fm_ring_send,
 *              2-byte length + the header bytes from the input), then
 *              [offset, xor] byte pairs flipping bytes of the live ring.
 * The ring sits in a heap block of its exact size, so ASan sees any read
 * outside it.  Checked: every delivered message lies in the data area, an
 * eager payload lies in its message, polling ends (no endless skip loop),
 * and a malformed record is reported (FM_ERR_NET) rather than read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "net/shm/ring.h"
#include "pt2pt/envelope.h"
#include "util/status.h"

#define RING_SIZE 4096

static const uint8_t *area_lo, *area_hi;
static uint8_t sink[RING_SIZE];

/* What fm_deliver reads: the message, then the envelope's view of it. */
static void deliver(int peer, const void *msg, size_t len)
{
    (void)peer;
    const uint8_t *m = msg;
    if (m < area_lo || m + sizeof(fm_hdr) > area_hi || len > (size_t)(area_hi - m))
        abort();
    memcpy(sink, m, len); /* every byte the callback may touch */
    fm_envelope e;
    if (fm_envelope_decode(msg, len, &e) != FM_ENV_MATCH)
        return;
    const uint8_t *p = e.payload;
    if (p < m || p > m + len)
        abort();
    if (e.h->proto != FM_PROTO_RTS) { /* eager: h->len bytes follow */
        if (e.h->len > (uint64_t)(m + len - p))
            abort();
        memcpy(sink, p, e.h->len);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    int mode = fz_u8(&in);
    uint64_t start = (uint64_t)(fz_u8(&in) | fz_u8(&in) << 8) * FM_RING_CELL;
    uint8_t *mem = aligned_alloc(64, fm_ring_footprint(RING_SIZE));
    memset(mem, 0, fm_ring_footprint(RING_SIZE));
    fm_ring_format(mem, RING_SIZE);
    /* The consumer resumes wherever an earlier run left it: any cell,
     * possibly after the ring wrapped. */
    atomic_store(&((fm_ring_ctl *)mem)->tail, start);
    uint8_t *area = mem + sizeof(fm_ring_ctl);
    area_lo = area;
    area_hi = area + RING_SIZE;

    if (!(mode & 1)) {
        size_t n = in.n < RING_SIZE ? in.n : RING_SIZE;
        memcpy(area, in.p, n);
    } else {
        fm_ring_tx tx;
        if (fm_ring_tx_attach(&tx, mem) != FM_OK)
            abort();
        int count = fz_u8(&in) % 64;
        uint8_t buf[RING_SIZE];
        for (int i = 0; i < count; i++) {
            size_t len = (fz_u8(&in) | fz_u8(&in) << 8) % tx.max_msg;
            size_t hl = len < sizeof(fm_hdr_rndv) ? len : sizeof(fm_hdr_rndv);
            memset(buf, 0, len);
            for (size_t k = 0; k < hl; k++)
                buf[k] = fz_u8(&in);
            int rc = fm_ring_send(&tx, buf, hl, buf + hl, len - hl);
            if (rc == FM_ERR_AGAIN)
                break;
            if (rc != FM_OK)
                abort();
        }
        while (in.n >= 2) { /* the peer scribbles on the live ring */
            unsigned off = (fz_u8(&in) | (unsigned)fz_u8(&in) << 8) % RING_SIZE;
            area[off] ^= fz_u8(&in);
        }
    }

    fm_ring_rx rx;
    if (fm_ring_rx_attach(&rx, mem) != FM_OK)
        abort();
    /* Every poll consumes something or stops; a valid ring holds at most
     * RING_SIZE / FM_RING_CELL records, so more rounds mean a loop. */
    for (int round = 0;; round++) {
        if (round > RING_SIZE / FM_RING_CELL + 1)
            abort();
        int n = fm_ring_poll(&rx, 1, deliver, 1 + round % 32);
        if (n <= 0)
            break;
    }
    free(mem);
    return 0;
}
