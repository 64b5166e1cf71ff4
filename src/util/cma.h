/* cma.h — Cross Memory Attach: copies between this process and another
 * one's memory with process_vm_readv / process_vm_writev, the one place
 * fabmpi calls them (shared-memory rendezvous, windows reached by CMA). */
#ifndef FM_UTIL_CMA_H
#define FM_UTIL_CMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Where a copy failed, for the caller's message. */
typedef struct fm_cma_fail {
    int err;           /* errno of the failed call (EIO: it moved nothing) */
    size_t bytes;      /* bytes that call was to move */
    uintptr_t remote;  /* remote address it started at */
} fm_cma_fail;

/* Copy between local and pid's remote memory, each given as an iovec list
 * of the same total length (the lists are walked as one byte stream each):
 * remote -> local with write = 0, local -> remote with write = 1.  Short
 * transfers (the kernel stops at a page it cannot reach, or at its size
 * limit) and EINTR resume where they stopped; lists longer than one call
 * takes go in batches.  0, or -1 with *fail filled. */
int fm_cma_copy(int pid, int write, const struct iovec *local, size_t nl,
                const struct iovec *remote, size_t nr, fm_cma_fail *fail);

#endif
