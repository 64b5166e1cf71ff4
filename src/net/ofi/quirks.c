/* quirks.c — the provider quirk table (quirks.h).  Each row: the provider
 * part it applies to, the quirks, and why, naming what reproduces it. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "net/ofi/quirks.h"
#include "util/param.h"

static const struct {
    const char *part; /* one ';'-separated part of prov_name */
    unsigned quirk;
    const char *why;
} table[] = {
    {"shm", FM_OFI_QUIRK_TAGGED_MATCH,
     "libfabric 1.17's shm matches unexpected tagged messages with a stale ignore mask (wildcard "
     "receives can take a later message, exact ones another tag; tests/ofi/shm_unexp_match.c)"},
    {"net", FM_OFI_QUIRK_TAGGED_MATCH,
     "libfabric 1.17's net stalls a connection behind an unexpected message until it is received "
     "(fabmpi drains such messages when idle, at the cost of a copy) and delivers no data to a "
     "receive too small for its message"},
    {"net", FM_OFI_QUIRK_UNEXPECTED_STALLS,
     "libfabric 1.17's net keeps an unexpected message in its socket until a receive or a claim "
     "takes it, so later messages on that connection wait (tests/mpi/p2p_held)"},
    {"net", FM_OFI_QUIRK_TRUNCATION_KILLS,
     "a receive too small for an eager message must not lose the connection "
     "(tests/mpi/p2p_types with FABMPI_PT2PT=ofi)"},
    {"net", FM_OFI_QUIRK_WRITE_LANDS_LATE,
     "libfabric 1.17's net completes an fi_write before its bytes land, even with "
     "FI_DELIVERY_COMPLETE; a read behind the writes is ordered (tests/mpi/rma_fence)"},
    {"ofi_rxm", FM_OFI_QUIRK_ORDER_LIMITED,
     "libfabric 1.17's ofi_rxm sends a message larger than its eager buffer "
     "(FI_OFI_RXM_BUFFER_SIZE, 16 KiB with its own header) by rendezvous, which completes after "
     "later eager messages (tests/mpi/p2p_order over tcp;ofi_rxm with "
     "FABMPI_OFI_EAGER_LIMIT=48k)"},
    {"tcp", FM_OFI_QUIRK_TRUNCATION_KILLS,
     "libfabric 1.17's tcp drops the connection when an eager message meets a receive too small "
     "for it (ofiwg/libfabric #8274; tests/mpi/p2p_types with FABMPI_PT2PT=ofi)"},
    {"sockets", FM_OFI_QUIRK_TAGGED_MATCH,
     "over libfabric 1.17's sockets, provider matching loses MPI's no-overtaking order and "
     "splits large messages (tests/mpi/p2p_order with FABMPI_PT2PT=ofi; plain pre-posted and "
     "unexpected tagged sends keep their order there, the cause is not pinned down)"},
    {"ofi_rxd", FM_OFI_QUIRK_UNRELIABLE,
     "libfabric 1.17's udp;ofi_rxd loses, reorders and corrupts a plain stream of small messages "
     "between two or three processes (tests/ofi/rxd_order.c), and its fi_fetch_atomic returns a "
     "wrong value and crashes the target (tests/ofi/rxd_fetch_atomic.c)"},
};

/* 1 if part (n bytes) is one of the ';'-separated parts of name. */
static int has_part(const char *name, const char *part)
{
    size_t n = strlen(part);
    for (const char *p = name; p && *p;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, part, n))
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

unsigned fm_ofi_quirks(const char *prov_name)
{
    unsigned q = 0;
    for (size_t i = 0; prov_name && i < sizeof table / sizeof table[0]; i++)
        if (has_part(prov_name, table[i].part))
            q |= table[i].quirk;
    return q;
}

const char *fm_ofi_quirk_why(const char *prov_name, unsigned quirk)
{
    for (size_t i = 0; prov_name && i < sizeof table / sizeof table[0]; i++)
        if ((table[i].quirk & quirk) && has_part(prov_name, table[i].part))
            return table[i].why;
    return NULL;
}

/* ofi_rxm's eager buffer holds its own header too; 256 bytes is more than
 * that header (rxm_pkt) takes in 1.17. */
#define RXM_HEADER_ALLOWANCE 256

size_t fm_ofi_ordered_bytes(const char *prov_name)
{
    if (!(fm_ofi_quirks(prov_name) & FM_OFI_QUIRK_ORDER_LIMITED))
        return (size_t)-1;
    const char *env = fm_env_raw("FI_OFI_RXM_BUFFER_SIZE"); /* rxm reads the same variable */
    char *end = NULL;
    unsigned long long b = env && *env ? strtoull(env, &end, 0) : 0;
    size_t buf = b && end && !*end ? (size_t)b : 16384;
    return buf > RXM_HEADER_ALLOWANCE ? buf - RXM_HEADER_ALLOWANCE : 0;
}
