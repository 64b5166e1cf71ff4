/* fuzz_ofi_hdr.c — what a rank does with the bytes of a received OFI
 * message: the wire prefix (fm_ofi_wire_decode, src/net/ofi/wire.h, as
 * xfer.c's poll calls it) and then the envelope (fm_envelope_decode,
 * src/pt2pt/envelope.h, as fm_deliver calls it).
 *
 * Input: [world size byte] then the received bytes, copied into a heap
 * block of exactly that size (ASan sees any read past the message, as a
 * short receive into a larger buffer would otherwise hide).  Checked: a
 * delivered message names a rank of the job, holds a whole fm_hdr (a keyed
 * RTS a whole fm_hdr_rndv, which rndv.c rewrites in place), and an eager
 * payload lies inside it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "net/ofi/wire.h"
#include "pt2pt/envelope.h"

static uint8_t sink[1 << 16];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    int world = 1 + fz_u8(&in);
    if (in.n > sizeof sink)
        return 0;
    char *buf = malloc(in.n ? in.n : 1);
    memcpy(buf, in.p, in.n);
    fm_ofi_rx m;
    int what = fm_ofi_wire_decode(buf, in.n, world, &m);
    if (what == FM_OFI_RX_DELIVER || what == FM_OFI_RX_RTS_KEY) {
        if (m.src < 0 || m.src >= world || m.msg != buf + sizeof(fm_ofi_wire) ||
            m.len != in.n - sizeof(fm_ofi_wire) || m.len < sizeof(fm_hdr))
            abort();
        if (what == FM_OFI_RX_RTS_KEY) { /* fm_ofi_rndv_arrived: read, rewrite */
            fm_hdr_rndv h;
            memcpy(&h, m.msg, sizeof h);
            h.addr = h.rreq;
            h.rreq = 0;
            memcpy(m.msg, &h, sizeof h);
        }
        fm_envelope e;
        if (fm_envelope_decode(m.msg, m.len, &e) == FM_ENV_MATCH) {
            const char *p = e.payload;
            if (p < m.msg || p > m.msg + m.len)
                abort();
            if (e.h->proto != FM_PROTO_RTS) {
                if (e.h->len > (uint64_t)(m.msg + m.len - p))
                    abort();
                memcpy(sink, p, e.h->len);
            }
        }
    }
    free(buf);
    return 0;
}
