/* select.c — which libfabric provider the OFI transport uses.
 *
 * fi_getinfo lists every (provider, fabric, domain) that offers an RDM
 * endpoint with our capabilities.  libfabric's own order puts layered
 * software stacks first on machines without NICs (tcp;ofi_rxm before net),
 * so we rank the entries ourselves: hardware providers, then the native
 * software ones by what they cost per message here (net ~5 us,
 * tcp;ofi_rxm 25-75 us, sockets milliseconds).  Within a provider the
 * domain matters: loopback when every rank is on this node, otherwise a
 * routable interface, IPv4 before IPv6.  A provider that loses messages
 * (quirks.c: udp;ofi_rxd) is never taken, even when named. */
#include <stdio.h>
#include <string.h>

#include "net/ofi/ofi.h"
#include "net/ofi/quirks.h"

#define FM_OFI_CAPS (FI_MSG | FI_TAGGED | FI_RMA)
#define FM_OFI_API FI_VERSION(1, 17)

int fm_ofi_getinfo(struct fi_info **out)
{
    *out = NULL;
    struct fi_info *hints = fi_allocinfo();
    if (!hints)
        return -FI_ENOMEM;
    hints->ep_attr->type = FI_EP_RDM;
    /* FI_REMOTE_CQ_DATA must not be asked for here: libfabric 1.17 then
     * returns nothing; cq_data_size tells whether a provider has it. */
    hints->caps = FM_OFI_CAPS;
    hints->mode = 0;
    hints->domain_attr->mr_mode = 0;
    /* MPI's non-overtaking rule rides on send-after-send order. */
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->rx_attr->msg_order = FI_ORDER_SAS;
    /* One thread at a time calls into the endpoint (thread levels up to
     * SERIALIZED), so the provider may skip its own locks. */
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    /* Directed receives let the provider-matching engine's full tag mode
     * name a receive's source by address; a provider without them is
     * still fine for everything else, hence the second try. */
    hints->caps = FM_OFI_CAPS | FI_DIRECTED_RECV;
    int rc = fi_getinfo(FM_OFI_API, NULL, NULL, 0, hints, out);
    if (rc != 0 || !*out) {
        hints->caps = FM_OFI_CAPS;
        rc = fi_getinfo(FM_OFI_API, NULL, NULL, 0, hints, out);
    }
    fi_freeinfo(hints);
    if (rc != 0)
        *out = NULL;
    return rc;
}

int fm_ofi_name_listed(const char *prov, const char *list)
{
    if (!prov || !list)
        return 0;
    const char *e = list;
    while (*e) {
        while (*e == ',' || *e == ' ')
            e++;
        size_t n = strcspn(e, ",");
        while (n && e[n - 1] == ' ')
            n--;
        if (n) {
            /* whole name, or one ;-separated part of it */
            if (strlen(prov) == n && !strncmp(prov, e, n))
                return 1;
            const char *p = prov;
            while (*p) {
                size_t m = strcspn(p, ";");
                if (m == n && !strncmp(p, e, n))
                    return 1;
                p += m;
                if (*p == ';')
                    p++;
            }
        }
        e += strcspn(e, ",");
    }
    return 0;
}

/* Lower is better: the provider's first component decides, a layered stack
 * (";ofi_rxm") ranks just behind its native form. */
static int provider_rank(const char *prov)
{
    static const struct { const char *core; int rank; } known[] = {
        {"shm", 1}, {"net", 2}, {"tcp", 3}, {"udp", 4}, {"sockets", 5},
    };
    size_t n = strcspn(prov, ";");
    int rank = 0; /* anything else: a NIC's provider (verbs, efa, cxi, psm3, ...) */
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strlen(known[i].core) == n && !strncmp(prov, known[i].core, n))
            rank = known[i].rank;
    return rank * 2 + (prov[n] == ';');
}

static int is_loopback(const struct fi_info *i)
{
    const char *d = i->domain_attr->name ? i->domain_attr->name : "";
    const char *f = i->fabric_attr->name ? i->fabric_attr->name : "";
    return !strcmp(d, "lo") || !strncmp(f, "127.", 4) || !strcmp(f, "::1/128");
}

/* Penalty of an entry's address within its provider. */
static int domain_penalty(const struct fi_info *i, int single_node)
{
    const char *f = i->fabric_attr->name ? i->fabric_attr->name : "";
    int p = 0;
    if (is_loopback(i) != single_node && strcmp(i->fabric_attr->prov_name, "shm") != 0)
        p += 4;
    if (i->addr_format == FI_SOCKADDR_IN6)
        p += 1;
    if (!strncmp(f, "fe80:", 5)) /* link-local: needs a scope id to reach */
        p += 2;
    return p;
}

int fm_ofi_provider_first(const struct fi_info *list, const struct fi_info *i)
{
    for (const struct fi_info *j = list; j != i; j = j->next)
        if (!strcmp(j->fabric_attr->prov_name, i->fabric_attr->prov_name))
            return 0;
    return 1;
}

void fm_ofi_provider_names(struct fi_info *list, int usable_only, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (struct fi_info *i = list; i; i = i->next) {
        const char *name = i->fabric_attr->prov_name;
        if (!fm_ofi_provider_first(list, i) ||
            (usable_only && (fm_ofi_quirks(name) & FM_OFI_QUIRK_UNRELIABLE)))
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
    }
}

struct fi_info *fm_ofi_choose(struct fi_info *list, const char *include, const char *exclude,
                              const char *domain, int single_node, char *why, size_t whylen)
{
    struct fi_info *best = NULL;
    int best_score = 0;
    int shm_refused = 0;
    const char *unreliable = NULL; /* a provider left out for losing messages */
    for (struct fi_info *i = list; i; i = i->next) {
        const char *prov = i->fabric_attr->prov_name;
        if (include && *include && !fm_ofi_name_listed(prov, include))
            continue;
        if (exclude && *exclude && fm_ofi_name_listed(prov, exclude))
            continue;
        if (domain && *domain && strcmp(domain, i->domain_attr->name ? i->domain_attr->name : "") &&
            strcmp(domain, i->fabric_attr->name ? i->fabric_attr->name : ""))
            continue;
        /* The shm provider reaches only processes on this node. */
        if (!single_node && !strcmp(prov, "shm")) {
            shm_refused = 1;
            continue;
        }
        if (fm_ofi_quirks(prov) & FM_OFI_QUIRK_UNRELIABLE) {
            unreliable = prov;
            continue;
        }
        int score = provider_rank(prov) * 16 + domain_penalty(i, single_node);
        if (!best || score < best_score) {
            best = i;
            best_score = score;
        }
    }
    if (best)
        return best;
    char offered[512];
    fm_ofi_provider_names(list, 1, offered, sizeof offered);
    snprintf(why, whylen,
             "no libfabric provider fits: asked for an RDM endpoint with FI_MSG|FI_TAGGED|FI_RMA "
             "and send-after-send order%s%s%s%s%s%s%s%s%s%s%s%s; libfabric offers usable: %s; "
             "set FABMPI_OFI_PROVIDER_INCLUDE to one of those (and check "
             "FABMPI_OFI_PROVIDER_EXCLUDE, FABMPI_OFI_DOMAIN), or FABMPI_NET=shm on one node",
             include && *include ? ", FABMPI_OFI_PROVIDER_INCLUDE=" : "", include ? include : "",
             exclude && *exclude ? ", FABMPI_OFI_PROVIDER_EXCLUDE=" : "", exclude ? exclude : "",
             domain && *domain ? ", FABMPI_OFI_DOMAIN=" : "", domain ? domain : "",
             shm_refused ? " (shm left out: ranks span nodes)" : "",
             unreliable ? " (" : "", unreliable ? unreliable : "",
             unreliable ? " left out: " : "",
             unreliable ? fm_ofi_quirk_why(unreliable, FM_OFI_QUIRK_UNRELIABLE) : "",
             unreliable ? ")" : "",
             offered[0] ? offered : "nothing (see fi_info; is a provider installed?)");
    return NULL;
}
