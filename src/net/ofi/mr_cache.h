/* mr_cache.h — local registrations for one-sided transfers on the OFI RMA
 * endpoint (rma.c), cached by page range.
 *
 * A provider with FI_MR_LOCAL wants a descriptor for every local buffer of
 * fi_write, fi_read and the atomics.  Registering per transfer costs a
 * pin and an unpin each time; the cache keeps registrations, most recently
 * used first, up to FABMPI_OFI_MR_CACHE_ENTRIES, and drops any whose pages
 * leave the address space (util/mem_hooks.c), so a buffer unmapped and
 * mapped again at the same address is registered again.
 * FABMPI_OFI_MR_CACHE=auto uses it where the provider needs it, on for
 * every transfer (to test and measure it where none does), off never (a
 * provider needing it then reaches peers by messages). */
#ifndef FM_NET_OFI_MR_CACHE_H
#define FM_NET_OFI_MR_CACHE_H

#include <stddef.h>
#include <stdint.h>

struct fid_domain;

/* Start caching on `domain`: key_next hands out requested keys when the
 * provider lets us choose them (NULL: the provider's own); pinned says the
 * provider pins pages (FI_MR_LOCAL), so malloc must not give memory back. */
void fm_ofi_mr_cache_open(struct fid_domain *domain, uint64_t *key_next, int pinned);

/* Whether transfers take descriptors from the cache. */
extern int fm_ofi_mr_cache_on;

/* The descriptor of a registration covering [buf, buf+len), registered
 * now if none is cached; FM_OK, or FM_ERR_NET after saying why.  len 0:
 * NULL.  Call under the library lock. */
int fm_ofi_mr_desc(const void *buf, size_t len, void **desc);

/* Operations posted on the endpoint and not yet completed: registrations
 * dropped meanwhile are closed only once this is 0. */
extern long fm_ofi_mr_inflight;

/* Close dropped registrations when nothing is in flight (rma.c's poll). */
void fm_ofi_mr_reap(void);

/* Close every registration and stop (before the domain closes). */
void fm_ofi_mr_cache_close(void);

#endif
