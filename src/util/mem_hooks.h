/* mem_hooks.h — a callback for address ranges leaving the address space
 * (munmap, mremap, madvise dropping pages, mmap over them), which
 * util/mem_hooks.c intercepts.  One watcher at a time: the OFI registration
 * cache, while it holds registrations. */
#ifndef FM_UTIL_MEM_HOOKS_H
#define FM_UTIL_MEM_HOOKS_H

#include <stdint.h>

/* [lo, hi) is about to be unmapped or to lose its pages.  May run on any
 * thread, inside any library's call; must not call back into libfabric or
 * MPI. */
typedef void fm_mem_gone_fn(uintptr_t lo, uintptr_t hi);

/* Start (fn) or stop (NULL) hearing of such ranges. */
void fm_mem_hooks_watch(fm_mem_gone_fn *fn);

#endif
