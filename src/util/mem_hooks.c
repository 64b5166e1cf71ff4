/* mem_hooks.c — hears of memory leaving the address space, for the one
 * owner that caches what was true of it (the OFI registration cache).
 *
 * A registration pins the pages behind a range of addresses; when the
 * program unmaps that range and maps something else at the same place, a
 * cache that still trusts the registration would move the old pages (the
 * ibv conduit README's firehose bug).  A cache can validate every use or
 * intercept every change; Linux offers no cheap way to validate (page
 * frame numbers are for root only), so we intercept: this file defines
 * munmap, mremap, madvise and mmap (and mmap64), and libfabmpi.so exports
 * them, so calls from the program and from every library bound to these
 * names come here first, tell the watcher which range goes, and then make
 * the system call themselves.  glibc's own malloc and free reach the kernel
 * by internal names this cannot see; the cache tells malloc never to give
 * memory back while pinned registrations exist (net/ofi/mr_cache.c).
 *
 * Without a watcher each hook costs one load and a branch. */
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/mem_hooks.h"

static fm_mem_gone_fn *watcher;

void fm_mem_hooks_watch(fm_mem_gone_fn *fn)
{
    __atomic_store_n(&watcher, fn, __ATOMIC_RELEASE);
}

static inline void gone(void *addr, size_t len)
{
    fm_mem_gone_fn *w = __atomic_load_n(&watcher, __ATOMIC_ACQUIRE);
    if (__builtin_expect(w != NULL, 0) && len)
        w((uintptr_t)addr, (uintptr_t)addr + len);
}

/* Told before the call: the pages may be someone else's the moment after. */
__attribute__((visibility("default"))) int munmap(void *addr, size_t len)
{
    gone(addr, len);
    return (int)syscall(SYS_munmap, addr, len);
}

__attribute__((visibility("default"))) void *mremap(void *old, size_t old_len, size_t new_len,
                                                    int flags, ...)
{
    void *to = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        to = va_arg(ap, void *);
        va_end(ap);
    }
    /* The old range moves or shrinks; a fixed target loses what it held. */
    gone(old, old_len);
    if (flags & MREMAP_FIXED)
        gone(to, new_len);
    return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, to);
}

__attribute__((visibility("default"))) int madvise(void *addr, size_t len, int advice)
{
    /* These drop the pages: the next touch gets fresh ones. */
    if (advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE)
        gone(addr, len);
    return (int)syscall(SYS_madvise, addr, len, advice);
}

static void *hook_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    /* MAP_FIXED replaces whatever was mapped there. */
    if (flags & MAP_FIXED)
        gone(addr, len);
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* With 64-bit file offsets (our build) <sys/mman.h> names this mmap64;
 * programs built either way call one of the two, so both are here. */
__attribute__((visibility("default"))) void *mmap(void *addr, size_t len, int prot, int flags,
                                                  int fd, off_t off)
{
    return hook_mmap(addr, len, prot, flags, fd, off);
}

void *fm_mmap_plain(void *addr, size_t len, int prot, int flags, int fd, off_t off)
    __asm__("mmap");
__attribute__((visibility("default"))) void *fm_mmap_plain(void *addr, size_t len, int prot,
                                                           int flags, int fd, off_t off)
{
    return hook_mmap(addr, len, prot, flags, fd, off);
}
