/* vci.h — a virtual communication interface: the mutable communication
 * state that one thread making progress owns (transport instances, the
 * context-id → matching-queue table, request pool, progress hooks and
 * deferred operations, parked sends, unexpected-message records, and the
 * lock that guards them).
 *
 * fabmpi has one VCI, fm_vci0, and every communicator points at it; the
 * threads work adds more (a communicator per VCI, its own transport
 * endpoints and matching queues) and takes `lock` at MPI_THREAD_MULTIPLE.
 * Below that level `locking` stays 0 and fm_vci_lock is one predictable
 * branch, so single-threaded programs pay nothing for it. */
#ifndef FM_CORE_VCI_H
#define FM_CORE_VCI_H

#include <pthread.h>

#include "core/progress.h"
#include "match/ctx_table.h"
#include "net/net.h"

struct fm_request;
struct fm_message;
struct fm_pending;
struct fm_sched;

#define FM_VCI_MAX_HOOKS 8

struct fm_vci {
    /* core/transports.c: the transports this VCI polls, and where their
     * messages go (fm_deliver).  Polled first by every fm_progress(). */
    fm_net *nets[4];
    int nnets;
    fm_net_deliver_fn *deliver;
    /* pt2pt/pending.c: drains parked sends; fm_progress() calls it while
     * pend_nactive says some peer has any (a load and a branch otherwise). */
    int (*pend_drain)(void);
    /* match/ctx_table.h: the matching queues of its communicators' contexts
     * (fm_deliver looks them up; communicators keep pointers). */
    fm_ctx_table ctx;
    /* core/request.c: requests ready for reuse (chunks are never freed:
     * request addresses travel in headers as cookies). */
    struct fm_request *req_free;
    /* core/progress.c: poll hooks, and operations a transport refused
     * (FM_ERR_AGAIN) waiting in order for their retry. */
    fm_progress_hook *hooks[FM_VCI_MAX_HOOKS];
    int nhooks;
    int ndeferred;
    fm_deferred *dhead, **dtail;
    /* pt2pt/recv.c: unexpected-message records ready for reuse. */
    struct fm_message *msg_free;
    /* pt2pt/pending.c: sends parked per world rank (FIFO), the peers that
     * have any, and entries ready for reuse. */
    struct fm_pending **pend_head, **pend_tail, *pend_free;
    int *pend_active, pend_nactive;
    /* coll/sched.c: collective schedules waiting for their requests (a
     * progress hook runs while there are any). */
    struct fm_sched *sched_running;
    struct fm_sched *sched_spare; /* finished ones kept for reuse, nsched_spare of them */
    int nsched_spare;
    /* Taken by fm_vci_lock only while `locking` is set. */
    int locking;
    pthread_mutex_t lock;
};

/* The one VCI. */
extern struct fm_vci fm_vci0;

static inline void fm_vci_lock(struct fm_vci *v)
{
    if (__builtin_expect(v->locking, 0))
        pthread_mutex_lock(&v->lock);
}

static inline void fm_vci_unlock(struct fm_vci *v)
{
    if (__builtin_expect(v->locking, 0))
        pthread_mutex_unlock(&v->lock);
}

#endif
