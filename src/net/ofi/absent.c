/* absent.c — the OFI transport in a build without libfabric: it reaches no
 * peer, and asking for it (FABMPI_NET=ofi, or ranks on other nodes) gives
 * one error naming the package to install. */
#include "net/net.h"
#include "net/ofi/ofi_info.h"
#include "util/log.h"
#include "util/status.h"

static int absent_init(void)
{
    fm_error_msg("ofi: this fabmpi was built without libfabric, so it cannot reach ranks through "
                 "OFI; install libfabric-dev (Debian) and rebuild, or use FABMPI_NET=shm with "
                 "every rank on one node");
    return FM_ERR_UNSUPPORTED;
}

static int absent_reaches(int peer)
{
    (void)peer;
    return 0;
}

static int absent_send(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen)
{
    (void)peer, (void)hdr, (void)hlen, (void)payload, (void)plen;
    return FM_ERR_UNSUPPORTED;
}

static int absent_pull(int peer, void *local, uint64_t remote_addr, size_t len)
{
    (void)peer, (void)local, (void)remote_addr, (void)len;
    return FM_ERR_UNSUPPORTED;
}

static int absent_poll(fm_net_deliver_fn *cb)
{
    (void)cb;
    return 0;
}

static void absent_finalize(void) {}

fm_net_ops fm_net_ofi = {
    .name = "ofi",
    .caps = 0,
    .max_msg = 0,
    .init = absent_init,
    .reaches = absent_reaches,
    .send = absent_send,
    .pull = absent_pull,
    .poll = absent_poll,
    .finalize = absent_finalize,
};

void fm_ofi_print_info(FILE *out)
{
    fprintf(out, "  ofi          not built (libfabric-dev was not found at build time)\n");
}
