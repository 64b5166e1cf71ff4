/* kvs.h — the rank-local copy of the bootstrap key-value store.
 *
 * After each fence the client holds every (rank, key) -> value put so far,
 * so fm_boot_get() is a hash lookup with no round trip. */
#ifndef FM_BOOT_KVS_H
#define FM_BOOT_KVS_H

#include <stddef.h>

/* Insert or replace.  Returns FM_OK or FM_ERR_NOMEM. */
int fm_kvs_put(int rank, const char *key, size_t klen, const void *val, size_t vlen);
/* Look up; NULL if absent.  *vlen receives the value's size. */
const void *fm_kvs_get(int rank, const char *key, size_t klen, size_t *vlen);
/* Forget everything (finalize). */
void fm_kvs_clear(void);

#endif
