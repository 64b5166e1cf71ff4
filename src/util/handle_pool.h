/* handle_pool.h — kept slots for the objects behind MPI handles.
 *
 * MPI programs pass handles they already freed, and the library must answer
 * with the handle's error class (MPI_ERR_COMM, MPI_ERR_TYPE, ...) without
 * reading freed memory.  So every object a user handle points at comes from
 * the pool of its kind: freeing it poisons its magic (the first word of
 * every handle object) and keeps the slot for the next object of the kind.
 * Checking a stale handle then reads memory the library still owns and
 * finds the magic wrong.  Like the handle tables of other MPI libraries, a
 * stale handle may come to name a newer object of the same kind.  Slots are
 * never given back to the system: a kind's memory is bounded by the most of
 * its objects alive at once.  In sanitizer and valgrind builds the rest of
 * a free slot is marked inaccessible, so internal use after free is still
 * caught.  Not thread-safe yet (the threads work adds a lock). */
#ifndef FM_UTIL_HANDLE_POOL_H
#define FM_UTIL_HANDLE_POOL_H

#include <stddef.h>
#include <stdint.h>

/* What a freed object's magic reads as: no handle kind uses it. */
#define FM_MAGIC_FREED 0xdeadf7eeu

typedef struct fm_handle_pool {
    size_t size;      /* bytes of one object (at least 16: magic, then the free-list link) */
    void *free;       /* free slots, linked through their second 8 bytes */
} fm_handle_pool;

#define FM_HANDLE_POOL(type) {.size = sizeof(type) < 16 ? 16 : sizeof(type), .free = NULL}

/* A zeroed object, or NULL when out of memory. */
void *fm_handle_get(fm_handle_pool *pool);
/* Poison obj's magic and keep its slot (obj must come from this pool). */
void fm_handle_put(fm_handle_pool *pool, void *obj);

#endif
