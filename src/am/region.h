/* region.h — memory of this process that peers reach through this layer,
 * and the one place the library makes memory reachable or reaches a
 * peer's:
 *   - on this node by mapping it: a nameless shared segment (memfd) a peer
 *     maps through /proc/<pid>/fd/<fd> from the owner's node card;
 *   - over the network by one-sided writes and reads at (raddr + offset,
 *     key) through am/xfer.h: registered with its transport, and the
 *     owner's endpoint inserted by the peer from the net card.
 * The regions: the active-message segment (am/segment.c; registered on
 * first network use by am/rma.c), the memory of windows with network
 * peers (src/rma/remote.c) and the one-sided collectives' caches
 * (src/coll/rma/backend_*.c).  Callers move the cards: the segment's by
 * the bootstrap and by active messages, windows' and caches' in their
 * communicator's setup allgather. */
#ifndef FM_AM_REGION_H
#define FM_AM_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "net/net.h"

/* How a peer on this node maps a region. */
typedef struct fm_region_node_card {
    uint64_t base; /* the region's address in its owner */
    uint64_t len;
    int32_t pid;   /* the owner */
    int32_t fd;    /* its memfd there; -1: not mappable (private memory) */
} fm_region_node_card;

#define FM_REGION_EP_MAX 160 /* bytes of an endpoint name a card carries */

/* How a peer reaches a region over the network. */
typedef struct fm_region_net_card {
    int32_t ok;    /* 0: not registered; nothing below is set */
    int32_t eplen;
    uint64_t raddr; /* target address of the region's first byte (its virtual
                       address, or 0 when the transport addresses by offset) */
    uint64_t key;
    char ep[FM_REGION_EP_MAX]; /* the owner's one-sided endpoint */
} fm_region_net_card;

/* Made by fm_region_alloc or fm_region_wrap only: a zeroed struct would
 * say descriptor 0. */
typedef struct fm_region {
    unsigned char *base;
    size_t len;
    int fd;          /* memfd peers may still map, or -1 */
    int owned;       /* base was mapped by fm_region_alloc: unmapped at free */
    fm_net *net;     /* registered with this transport, or NULL */
    fm_net_mr *mr;
    uint64_t key, raddr; /* of the registration */
} fm_region;

enum { FM_REGION_SHARED = 1 }; /* peers on this node may map it (else private) */

/* Map len zeroed bytes as r, taking the memory of the first `reserve` of
 * them now (shared: allocated, so a lack of it fails here, not as a SIGBUS
 * at the first touch of a page; private: counted against the commit
 * limit); the rest gets pages when first touched.  FM_OK, or
 * FM_ERR_NOMEM with errno set and *failed naming the step ("create",
 * "size", "map"). */
int fm_region_alloc(fm_region *r, size_t len, size_t reserve, unsigned how, const char **failed);
/* The caller's [base, base + len) as r: nothing to free but what
 * fm_region_register adds. */
void fm_region_wrap(fm_region *r, void *base, size_t len);
/* Register r with the one-sided transport (am/xfer.h's, opened on first
 * use) unless it is, and fill *card; card->ok 0 when there is none, it has
 * no name to give, or registration failed. */
void fm_region_register(fm_region *r, fm_region_net_card *card);
/* Fill r's node card, for peers on this node to map it. */
void fm_region_describe(const fm_region *r, fm_region_node_card *card);
/* The owner: every peer that would map r has (or never will): close the
 * memfd, so a process does not hold a descriptor per region. */
void fm_region_seal(fm_region *r);
/* Give the registration back (before the transport closes). */
void fm_region_deregister(fm_region *r);
/* Deregister, seal, and unmap what fm_region_alloc mapped. */
void fm_region_free(fm_region *r);

/* A peer's region on this node, mapped here; NULL with errno set and
 * *failed naming the step ("open", "size", "map"). */
void *fm_region_map(const fm_region_node_card *card, const char **failed);
void fm_region_unmap(void *mapped, const fm_region_node_card *card);
/* Make world rank `world`'s region reachable by one-sided transfers from
 * here (its endpoint inserted); 1 when it is. */
int fm_region_reach(int world, const fm_region_net_card *card);

#endif
