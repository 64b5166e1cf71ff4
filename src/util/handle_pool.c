/* handle_pool.c — kept slots for the objects behind MPI handles
 * (handle_pool.h says why). */
#include "util/handle_pool.h"

#include <stdlib.h>
#include <string.h>

#include "util/memcheck.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#elif defined(FM_HAVE_MEMCHECK)
#define POISON(p, n) ((void)VALGRIND_MAKE_MEM_NOACCESS((p), (n)))
#define UNPOISON(p, n) ((void)VALGRIND_MAKE_MEM_UNDEFINED((p), (n)))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Slot layout while free: the poisoned magic (bytes 0..7, readable by
 * handle checks), the link to the next free slot (bytes 8..15), then bytes
 * nobody may touch. */
#define LINK_OFF 8
#define KEEP 16

static void **link_of(void *slot)
{
    return (void **)(void *)((char *)slot + LINK_OFF);
}

void *fm_handle_get(fm_handle_pool *pool)
{
    void *obj = pool->free;
    if (!obj)
        return calloc(1, pool->size);
    pool->free = *link_of(obj);
    UNPOISON((char *)obj + KEEP, pool->size - KEEP);
    memset(obj, 0, pool->size);
    return obj;
}

void fm_handle_put(fm_handle_pool *pool, void *obj)
{
    const uint32_t freed = FM_MAGIC_FREED;
    memcpy(obj, &freed, sizeof freed);
    *link_of(obj) = pool->free;
    pool->free = obj;
    POISON((char *)obj + KEEP, pool->size - KEEP);
}
