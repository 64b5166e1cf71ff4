/* fuzz_boot_wire.c — the bootstrap wire protocol (src/boot/wire.h) as both
 * ends read it: the decoders mpiexec's server (tools/mpiexec_server.c) and
 * a rank's client (src/boot/mpiexec_client.c) call on bytes from another
 * process.
 *
 * Input: [mode byte] then the bytes one end receives:
 *   mode even  a client's stream to the server: frames, the first of which
 *              must be a HELLO (a stranger), bounded as the server bounds
 *              them; a HELLO makes the rest authenticated (the key is taken
 *              as right), after which PUT payloads are decoded exactly;
 *   mode odd   a FENCE_DONE payload: its records, one after another.
 * The bytes are copied to a buffer of their exact size, so any read past
 * them is an ASan report.  Checked: every slice a decoder returns lies
 * inside the bytes it was given, and consumption always moves forward. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const unsigned char *lo, size_t n, const unsigned char *p, size_t len)
{
    if (p < lo || len > n || p > lo + (n - len))
        abort();
}

static void server_stream(const unsigned char *b, size_t n)
{
    int authenticated = 0;
    size_t off = 0;
    for (;;) {
        uint32_t type = 0, len = 0;
        uint32_t max = authenticated ? FM_WIRE_CLIENT_MAX : 16 + FM_BOOT_SECRET_MAX;
        int got = fm_wire_frame(b + off, n - off, max, &type, &len);
        if (got != FM_WIRE_FRAME || (!authenticated && type != FM_WIRE_HELLO))
            return; /* waits for more, or closes the connection */
        const unsigned char *p = b + off + FM_WIRE_HDR;
        inside(b, n, p, len);
        if (!authenticated) {
            struct fm_wire_hello h;
            if (fm_wire_hello_decode(p, len, &h))
                return; /* REJECT */
            inside(b, n, h.key, h.klen);
            authenticated = 1;
        } else if (type == FM_WIRE_PUT) {
            struct fm_wire_kv kv;
            long used = fm_wire_kv_decode(p, len, 0, &kv);
            if (used >= 0) {
                inside(b, n, kv.key, kv.klen);
                inside(b, n, kv.val, kv.vlen);
                if ((size_t)used > len)
                    abort();
            }
        }
        off += FM_WIRE_HDR + len;
    }
}

static void fence_records(const unsigned char *b, size_t n)
{
    size_t off = 0;
    while (off < n) {
        struct fm_wire_kv kv;
        long used = fm_wire_kv_decode(b + off, n - off, 4, &kv);
        if (used < 0)
            return; /* the client refuses the whole reply */
        if (used < 12 || (size_t)used > n - off)
            abort();
        inside(b, n, kv.key, kv.klen);
        inside(b, n, kv.val, kv.vlen);
        off += (size_t)used;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t n = size - 1;
    unsigned char *b = malloc(n ? n : 1);
    if (!b)
        return 0;
    memcpy(b, data + 1, n);
    if (data[0] % 2 == 0)
        server_stream(b, n);
    else
        fence_records(b, n);
    free(b);
    return 0;
}
