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

#include "util/cma.h"
#include "util/log.h"
#include "util/status.h"
#include "util/pvar.h"

static int read_from(int pid, void *local, uint64_t remote, size_t len, fm_cma_fail *f)
{
    struct iovec l = {local, len};
    struct iovec r = {(void *)(uintptr_t)remote, len};
    return fm_cma_copy(pid, 0, &l, 1, &r, 1, f);
}

int fm_shm_cma_works(char *why, size_t whylen)
{
    fm_shm_state *s = &fm_shm;
    for (int i = 0; i < s->nlocal; i++) {
        fm_shm_peer *p = &s->local[i];
        if (i == s->me || !p->mapped)
            continue;
        uint64_t v = 0;
        fm_cma_fail f;
        int failed = read_from(p->pid, &v, p->probe_addr, sizeof v, &f);
        if (failed || v != p->probe_val) {
            snprintf(why, whylen, "process_vm_readv from rank %d (pid %d) %s", p->rank, p->pid,
                     failed ? strerror(f.err) : "read the wrong word (another pid namespace?)");
            return 0;
        }
    }
    return 1;
}

/* Copy len bytes between `local` and the peer's remote_addr:
 * process_vm_readv when pulling, process_vm_writev when pushing. */
static int cma_copy(struct fm_pv *pv, int peer, void *local, uint64_t remote_addr, size_t len,
                    int push)
{
    fm_shm_state *s = &fm_shm;
    int i = peer >= 0 && peer < s->size ? s->local_of[peer] : -1;
    if (i < 0)
        return FM_ERR_ARG;
    int pid = s->local[i].pid;
    struct iovec l = {local, len};
    struct iovec r = {(void *)(uintptr_t)remote_addr, len};
    fm_cma_fail f;
    if (fm_cma_copy(pid, push, &l, 1, &r, 1, &f) == 0) {
        FM_PV_INC_AT(pv, shm_cma_copies);
        FM_PV_ADD_AT(pv, shm_cma_bytes, len);
        return FM_OK;
    }
    fm_error_msg("shm: %s of %zu bytes at 0x%llx %s rank %d (pid %d): %s",
                 push ? "process_vm_writev" : "process_vm_readv", f.bytes,
                 (unsigned long long)f.remote, push ? "to" : "from", peer, pid, strerror(f.err));
    return f.err == ESRCH ? FM_ERR_PEER_DEAD : FM_ERR_NET;
}

int fm_shm_cma_pull(struct fm_pv *pv, int peer, void *local, uint64_t remote_addr, size_t len)
{
    return cma_copy(pv, peer, local, remote_addr, len, 0);
}

int fm_shm_cma_push(struct fm_pv *pv, int peer, uint64_t remote_addr, const void *local,
                    size_t len)
{
    /* process_vm_writev only reads the local side. */
    return cma_copy(pv, peer, (void *)local, remote_addr, len, 1);
}
