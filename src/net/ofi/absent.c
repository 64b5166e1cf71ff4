/* absent.c — the OFI transport in a build without libfabric: it reaches no
 * peer, and asking for it (FABMPI_NET=ofi, or ranks on other nodes) gives
 * one error naming the package to install. */
#include "net/net.h"
#include "net/ofi/ofi_info.h"
#include "util/log.h"
#include "util/status.h"

static int absent_init(fm_net *n)
{
    (void)n;
    fm_error_msg("ofi: this fabmpi was built without libfabric, so it cannot reach ranks through "
                 "OFI; install libfabric-dev (Debian) and rebuild, or use FABMPI_NET=shm with "
                 "every rank on one node");
    return FM_ERR_UNSUPPORTED;
}

static int absent_reaches(int peer, const fm_net *n)
{
    (void)n, (void)peer;
    return 0;
}

static int absent_send(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen,
                       fm_net *n)
{
    (void)n, (void)peer, (void)hdr, (void)hlen, (void)payload, (void)plen;
    return FM_ERR_UNSUPPORTED;
}

static int absent_pull(int peer, void *local, uint64_t remote_addr, size_t len, fm_net *n)
{
    (void)n, (void)peer, (void)local, (void)remote_addr, (void)len;
    return FM_ERR_UNSUPPORTED;
}

static int absent_poll(fm_net_deliver_fn *cb, fm_net *n)
{
    (void)n, (void)cb;
    return 0;
}

static void absent_finalize(fm_net *n) { (void)n; }

static const fm_net_ops absent_ops = {
    .name = "ofi",
    .init = absent_init,
    .reaches = absent_reaches,
    .send = absent_send,
    .pull = absent_pull,
    .poll = absent_poll,
    .finalize = absent_finalize,
};

fm_net fm_net_ofi = {.ops = &absent_ops};
/* Never opened: lanes reach OFI peers only when fm_net_ofi is up. */
fm_net fm_net_ofi_lanes[FM_NET_LANES_MAX];

void fm_ofi_print_info(FILE *out)
{
    fprintf(out, "  ofi          not built (libfabric-dev was not found at build time)\n");
}
