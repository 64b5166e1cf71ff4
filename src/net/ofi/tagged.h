/* tagged.h — the OFI transport's tagged interface: what the provider-
 * matching engine (src/pt2pt/ofi_engine*) may use of it.  The provider
 * chosen, each peer's address, the endpoint's tagged calls, and where
 * tagged completions go.  The engine never touches the transport's state
 * (fm_ofi) itself; tests/check-surface fails when code outside src/net/ofi/
 * names it.  The calls are inline: they sit on the engine's message path. */
#ifndef FM_NET_OFI_TAGGED_H
#define FM_NET_OFI_TAGGED_H

#include <rdma/fi_tagged.h>

#include "net/ofi/ofi.h"

/* The provider the transport runs on. */
static inline const struct fi_info *fm_ofi_provider(void) { return fm_ofi.info; }
/* 0 once the transport is torn down (completions then only end operations). */
static inline int fm_ofi_is_up(void) { return fm_ofi.up; }
/* Address of world rank `peer` (FI_ADDR_NOTAVAIL until inserted). */
static inline fi_addr_t fm_ofi_peer_addr(int peer) { return fm_ofi.addr[peer]; }
/* Something left for `peer`: finalize flushes behind it. */
static inline void fm_ofi_mark_sent(int peer) { fm_ofi.c0.sent[peer] |= 1; }

/* Completions (and error completions) of FM_OFI_OP_TAGGED contexts go to
 * these, from the transport's poll. */
static inline void fm_ofi_set_tagged_handlers(void (*event)(const struct fi_cq_tagged_entry *e),
                                              void (*error)(const struct fi_cq_err_entry *e))
{
    fm_ofi.tagged_event = event;
    fm_ofi.tagged_error = error;
}

/* The endpoint's tagged calls: libfabric's, on the transport's endpoint. */
static inline ssize_t fm_ofi_tinject(const void *buf, size_t len, fi_addr_t a, uint64_t tag)
{
    return fi_tinject(fm_ofi.c0.tx, buf, len, a, tag);
}
static inline ssize_t fm_ofi_tinjectdata(const void *buf, size_t len, uint64_t data, fi_addr_t a,
                                         uint64_t tag)
{
    return fi_tinjectdata(fm_ofi.c0.tx, buf, len, data, a, tag);
}
static inline ssize_t fm_ofi_tsend(const void *buf, size_t len, fi_addr_t a, uint64_t tag,
                                   void *ctx)
{
    return fi_tsend(fm_ofi.c0.tx, buf, len, NULL, a, tag, ctx);
}
static inline ssize_t fm_ofi_tsenddata(const void *buf, size_t len, uint64_t data, fi_addr_t a,
                                       uint64_t tag, void *ctx)
{
    return fi_tsenddata(fm_ofi.c0.tx, buf, len, NULL, data, a, tag, ctx);
}
static inline ssize_t fm_ofi_trecv(void *buf, size_t len, fi_addr_t a, uint64_t tag,
                                   uint64_t ignore, void *ctx)
{
    return fi_trecv(fm_ofi.c0.rx, buf, len, NULL, a, tag, ignore, ctx);
}
static inline ssize_t fm_ofi_trecvmsg(const struct fi_msg_tagged *m, uint64_t flags)
{
    return fi_trecvmsg(fm_ofi.c0.rx, m, flags);
}
static inline void fm_ofi_tcancel(void *ctx) { fi_cancel(&fm_ofi.c0.rx->fid, ctx); }
/* The provider's text for an error completion. */
static inline const char *fm_ofi_cq_errstr(const struct fi_cq_err_entry *e)
{
    return fi_cq_strerror(fm_ofi.c0.cq, e->prov_errno, e->err_data, NULL, 0);
}

#endif
