/* alloc_mem.c — MPI_Alloc_mem and MPI_Free_mem.
 *
 * Heap memory aligned to a cache line (64 bytes: every C type, the
 * vectorised reduction kernels' clones and long double elements in a
 * window are at home there), or to the MPI-4.1 hint
 * mpi_minimum_memory_alignment when it asks for more.  A window created
 * over it later reaches it as it reaches any memory: node peers by CMA,
 * network peers through the transport's registration.
 *
 * A registry of the blocks handed out lets MPI_Free_mem answer a pointer
 * that did not come from MPI_Alloc_mem (a stack or malloc'ed address, a
 * block already freed) with MPI_ERR_BASE instead of passing it to free(),
 * which would corrupt the heap or crash later.  Programs allocate a few
 * buffers this way, so an open-addressed table of pointers is plenty; a
 * mutex keeps it whole should threads allocate at once. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "mpi/api.h"
#include "mpi/info.h"

#define ALIGN_DEFAULT 64
/* Larger alignments than this are hints we do not honour. */
#define ALIGN_MAX ((size_t)1 << 21)
/* No block beyond a 56-bit address space can exist; asking the allocator
 * anyway would make sanitizers abort instead of returning NULL. */
#define SIZE_MAX_BLOCK (UINT64_C(1) << 56)

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static void **slots; /* live blocks; NULL marks an empty slot */
static size_t cap, used; /* cap: 0 or a power of two, at most half full */

static size_t home(const void *p, size_t mask)
{
    uint64_t h = (uint64_t)(uintptr_t)p >> 6; /* blocks are 64-byte aligned */
    return (size_t)((h * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & mask;
}

static size_t find(const void *p)
{
    size_t mask = cap - 1, i = home(p, mask);
    while (slots[i] && slots[i] != p)
        i = (i + 1) & mask;
    return i; /* p's slot, or the empty slot where it would go */
}

static int reg_add(void *p)
{
    if ((used + 1) * 2 > cap) {
        size_t ncap = cap ? cap * 2 : 64;
        void **old = slots, **fresh = calloc(ncap, sizeof *fresh);
        if (!fresh)
            return FM_ERR_NOMEM;
        size_t ocap = cap;
        slots = fresh;
        cap = ncap;
        for (size_t i = 0; i < ocap; i++)
            if (old[i])
                slots[find(old[i])] = old[i];
        free(old);
    }
    slots[find(p)] = p;
    used++;
    return FM_OK;
}

/* Remove p; 0 if it was not there.  Later entries of its probe run move
 * back so every entry stays reachable from its home slot (no tombstones). */
static int reg_remove(const void *p)
{
    if (!cap)
        return 0;
    size_t mask = cap - 1, i = find(p);
    if (!slots[i])
        return 0;
    slots[i] = NULL;
    used--;
    for (size_t j = (i + 1) & mask; slots[j]; j = (j + 1) & mask) {
        size_t k = home(slots[j], mask);
        /* slots[j] may move to the hole at i unless its home lies in (i, j] */
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            slots[i] = slots[j];
            slots[j] = NULL;
            i = j;
        }
    }
    return 1;
}

/* The mpi_minimum_memory_alignment hint (MPI-4.1), when it is a power of
 * two we honour; otherwise the default (hints may be ignored). */
static size_t alignment_of(MPI_Info info)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    if (info == MPI_INFO_NULL ||
        PMPI_Info_get(info, "mpi_minimum_memory_alignment", MPI_MAX_INFO_VAL, v, &flag) !=
            MPI_SUCCESS ||
        !flag)
        return ALIGN_DEFAULT;
    char *end;
    errno = 0;
    unsigned long long a = strtoull(v, &end, 10);
    if (errno || end == v || *end || a == 0 || (a & (a - 1)) || a > ALIGN_MAX)
        return ALIGN_DEFAULT;
    return a > ALIGN_DEFAULT ? (size_t)a : ALIGN_DEFAULT;
}

#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    FM_API_LOCK();
    const char *call = "MPI_Alloc_mem";
    FM_CHECK_INIT(call);
    if (size < 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_SIZE, "size=%lld must be >= 0",
                        (long long)size);
    if (info != MPI_INFO_NULL && !fm_info_valid(info))
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_INFO, "info is not a valid info object");
    if (!baseptr)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "baseptr=NULL");
    size_t align = alignment_of(info);
    void *p = NULL;
    /* size 0 still gets a block of its own: a distinct pointer to free */
    if ((uint64_t)size > SIZE_MAX_BLOCK ||
        posix_memalign(&p, align, size ? (size_t)size : 1) != 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_NO_MEM,
                        "cannot allocate %lld bytes (aligned to %zu)", (long long)size, align);
    pthread_mutex_lock(&reg_lock);
    int rc = reg_add(p);
    pthread_mutex_unlock(&reg_lock);
    if (rc != FM_OK) {
        free(p);
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_NO_MEM,
                        "no memory to record the allocation of %lld bytes", (long long)size);
    }
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

/* NULL is accepted and ignored, as free(NULL) is. */
#pragma weak MPI_Free_mem = PMPI_Free_mem
int PMPI_Free_mem(void *base)
{
    FM_API_LOCK();
    const char *call = "MPI_Free_mem";
    FM_CHECK_INIT(call);
    if (!base)
        return MPI_SUCCESS;
    pthread_mutex_lock(&reg_lock);
    int found = reg_remove(base);
    pthread_mutex_unlock(&reg_lock);
    if (!found)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_BASE,
                        "base=%p was not returned by MPI_Alloc_mem (or is already freed)", base);
    free(base);
    return MPI_SUCCESS;
}
