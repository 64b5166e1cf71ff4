/* cma.c — single-copy reads from a peer's memory (Cross Memory Attach).
 *
 * process_vm_readv needs ptrace permission over the peer: refused under
 * Yama ptrace_scope >= 1 between siblings unless the peer opted in with
 * PR_SET_PTRACER (shm.c does), and in containers without CAP_SYS_PTRACE.
 * Hence the probe at init. */
#include "net/shm/shm.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "util/log.h"
#include "util/status.h"

/* Large enough that the syscall cost vanishes, small enough that a partial
 * read (the kernel may stop early) is retried promptly. */
#define CMA_PIECE ((size_t)1 << 30)

static ssize_t read_from(int pid, void *local, uint64_t remote, size_t len)
{
    struct iovec l = {local, len};
    struct iovec r = {(void *)(uintptr_t)remote, len};
    return process_vm_readv(pid, &l, 1, &r, 1, 0);
}

int fm_shm_cma_works(char *why, size_t whylen)
{
    fm_shm_state *s = &fm_shm;
    for (int i = 0; i < s->nlocal; i++) {
        fm_shm_peer *p = &s->local[i];
        if (i == s->me || !p->mapped)
            continue;
        uint64_t v = 0;
        ssize_t n = read_from(p->pid, &v, p->probe_addr, sizeof v);
        if (n != (ssize_t)sizeof v || v != p->probe_val) {
            snprintf(why, whylen, "process_vm_readv from rank %d (pid %d) %s", p->rank, p->pid,
                     n < 0 ? strerror(errno) : "read the wrong word (another pid namespace?)");
            return 0;
        }
    }
    return 1;
}

/* Copy len bytes between `local` and the peer's remote_addr in pieces:
 * process_vm_readv when pulling, process_vm_writev when pushing. */
static int cma_copy(int peer, void *local, uint64_t remote_addr, size_t len, int push)
{
    fm_shm_state *s = &fm_shm;
    int i = peer >= 0 && peer < s->size ? s->local_of[peer] : -1;
    if (i < 0)
        return FM_ERR_ARG;
    int pid = s->local[i].pid;
    uint8_t *mine = local;
    while (len) {
        size_t piece = len < CMA_PIECE ? len : CMA_PIECE;
        struct iovec l = {mine, piece};
        struct iovec r = {(void *)(uintptr_t)remote_addr, piece};
        ssize_t n = push ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                         : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            fm_error_msg("shm: %s of %zu bytes at 0x%llx %s rank %d (pid %d): %s",
                         push ? "process_vm_writev" : "process_vm_readv", piece,
                         (unsigned long long)remote_addr, push ? "to" : "from", peer, pid,
                         strerror(e));
            return e == ESRCH ? FM_ERR_PEER_DEAD : FM_ERR_NET;
        }
        mine += n;
        remote_addr += (uint64_t)n;
        len -= (size_t)n;
    }
    return FM_OK;
}

int fm_shm_cma_pull(int peer, void *local, uint64_t remote_addr, size_t len)
{
    return cma_copy(peer, local, remote_addr, len, 0);
}

int fm_shm_cma_push(int peer, uint64_t remote_addr, const void *local, size_t len)
{
    /* process_vm_writev only reads the local side. */
    return cma_copy(peer, (void *)local, remote_addr, len, 1);
}
