/* progress.c — transport bring-up, the progress loop, blocking waits and
 * the blocking helpers the collectives use. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"
#include "core/world.h"
#include "mpi/comm.h"
#include "pt2pt/internal.h"
#include "pt2pt/ofi_engine.h"
#include "pt2pt/pt2pt.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"

int fm_pending_setup(int world_size);
void fm_pending_teardown(void);
int fm_pending_any(void);

static fm_net_ops *nets[4];
static int nnets;
static size_t *eager_lim; /* per world rank */

size_t fm_eager_limit(int peer) { return eager_lim[peer]; }

/* A cgroup v2 CPU quota, in whole CPUs (0 when unlimited). */
static int cgroup_cpus(void)
{
    int n = 0;
    FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
    if (f) {
        char quota[32];
        long period;
        if (fscanf(f, "%31s %ld", quota, &period) == 2 && strcmp(quota, "max") != 0 && period > 0)
            n = (int)((atol(quota) + period - 1) / period);
        fclose(f);
    }
    return n;
}

/* CPUs the ranks of this node may use together: the union of their affinity
 * masks (ranks bound one per core each see one CPU, yet do not share it),
 * reduced by a cgroup quota.  Masks are published before the transports'
 * init (whose fences make them visible), read after. */
static int node_cpus(int world_size)
{
    cpu_set_t all, set;
    CPU_ZERO(&all);
    for (int p = 0; p < world_size; p++) {
        size_t len = sizeof set;
        if (p != fm_world_rank && !fm_net_shm.reaches(p))
            continue;
        if (fm_boot_get(p, "fm.cpus", &set, &len) == FM_OK && len == sizeof set)
            CPU_OR(&all, &all, &set);
    }
    int n = CPU_COUNT(&all);
    if (n <= 0)
        n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int q = cgroup_cpus();
    if (q > 0 && q < n)
        n = q;
    return n > 0 ? n : 1;
}

int fm_pt2pt_init(int world_rank, int world_size)
{
    int rc;
    fm_peer_net = calloc((size_t)world_size, sizeof *fm_peer_net);
    eager_lim = calloc((size_t)world_size, sizeof *eager_lim);
    if (!fm_peer_net || !eager_lim || fm_pending_setup(world_size) != FM_OK)
        return FM_ERR_NOMEM;
    nnets = 0;
    cpu_set_t mine;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        CPU_ZERO(&mine);
    fm_boot_put("fm.cpus", &mine, sizeof mine);
    if ((rc = fm_net_self.init()) != FM_OK)
        return rc;
    nets[nnets++] = &fm_net_self;
    /* Every rank runs the shm setup (it fences), even alone on its node. */
    if ((rc = fm_net_shm.init()) != FM_OK)
        return rc;
    nets[nnets++] = &fm_net_shm;
    /* OFI only when asked for or when some rank is off this node; either is
     * the same on every rank, so its init (which fences) runs on all or none. */
    int use_ofi = fm_param.NET == FM_NET_OFI;
    for (int p = 0; p < world_size; p++)
        if (fm_param.NET == FM_NET_AUTO && p != world_rank && !fm_net_shm.reaches(p))
            use_ofi = 1;
    if (use_ofi) {
        if ((rc = fm_net_ofi.init()) != FM_OK)
            return rc;
        nets[nnets++] = &fm_net_ofi;
    }
    for (int p = 0; p < world_size; p++) {
        if (p == world_rank)
            fm_peer_net[p] = &fm_net_self;
        else if (fm_param.NET != FM_NET_OFI && fm_net_shm.reaches(p))
            fm_peer_net[p] = &fm_net_shm;
        else if (use_ofi && fm_net_ofi.reaches(p))
            fm_peer_net[p] = &fm_net_ofi;
        else {
            fm_error_msg("no transport reaches rank %d: it is on another node and FABMPI_NET=shm "
                         "allows only shared memory (set FABMPI_NET=auto or ofi)", p);
            return FM_ERR_NET;
        }
        size_t lim = fm_peer_net[p] == &fm_net_ofi ? fm_param.OFI_EAGER_LIMIT
                                                   : fm_param.EAGER_LIMIT;
        size_t room = fm_peer_net[p]->max_msg - sizeof(fm_hdr_rndv);
        eager_lim[p] = lim < room ? lim : room;
    }
    if ((rc = fm_ofi_engine_init(use_ofi)) != FM_OK)
        return rc;
    int cpus = node_cpus(world_size);
    fm_oversubscribed = fm_param.YIELD == FM_YIELD_ALWAYS ||
                        (fm_param.YIELD == FM_YIELD_AUTO && fm_local_size > cpus);
    fm_log(1, "%d ranks on this node, %d usable CPUs: blocking waits %s", fm_local_size, cpus,
           fm_oversubscribed ? "yield at once" : "spin, then yield");
    return FM_OK;
}

void fm_pt2pt_finalize(void)
{
    /* Let parked control messages (FIN, ACK) reach their peers first. */
    for (int i = 0; i < 100000 && fm_pending_any(); i++)
        fm_progress();
    fm_ofi_engine_finalize();
    for (int i = nnets - 1; i >= 0; i--)
        nets[i]->finalize();
    nnets = 0;
    fm_pending_teardown();
    free(fm_peer_net);
    free(eager_lim);
    fm_peer_net = NULL;
    eager_lim = NULL;
}

int fm_progress(void)
{
    int n = 0;
    for (int i = 0; i < nnets; i++)
        n += nets[i]->poll(fm_deliver);
    if (fm_pending_any())
        n += fm_pending_drain();
    if (fm_pt2pt_engine_ofi)
        n += fm_ofi_engine_progress();
    return n;
}

/* Between empty polls of a spinning waiter: a pause keeps it from pulling
 * the ring line the sender is writing back and forth (each poll of a line
 * under write costs the sender a coherence round trip). */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#endif
}

/* Empty polls after which a waiter that is yielding starts to nap: a rank
 * idle this long (a few milliseconds of yields) is waiting for something
 * slow, and its yields cost the ranks doing work on the same core. */
#define FM_NAP_AFTER 5000

void fm_progress_backoff(unsigned *spins)
{
    if (fm_param.YIELD == FM_YIELD_NEVER) {
        cpu_relax();
        return;
    }
    unsigned n = ++*spins;
    if (!fm_oversubscribed && n <= (unsigned)fm_param.SPIN_COUNT) {
        cpu_relax();
        return;
    }
    if (n > (unsigned)fm_param.SPIN_COUNT + FM_NAP_AFTER) {
        struct timespec nap = {0, 50 * 1000}; /* 50 us: wake-up cost stays small */
        nanosleep(&nap, NULL);
        *spins = (unsigned)fm_param.SPIN_COUNT + FM_NAP_AFTER; /* no wrap-around */
    } else {
        sched_yield();
    }
}

int fm_wait(struct fm_request *r, MPI_Status *status)
{
    unsigned spins = 0;
    while (!r->done) {
        if (!fm_progress())
            fm_progress_backoff(&spins);
    }
    int err = r->status.MPI_ERROR;
    if (status)
        *status = r->status;
    fm_req_free(r);
    return err == MPI_SUCCESS ? FM_OK : err == MPI_ERR_TRUNCATE ? FM_ERR_TRUNCATE : FM_ERR_OTHER;
}

int fm_waitall(int n, struct fm_request **reqs)
{
    int rc = FM_OK;
    for (int i = 0; i < n; i++) {
        if (!reqs[i])
            continue;
        int e = fm_wait(reqs[i], NULL);
        reqs[i] = NULL;
        if (e != FM_OK && rc == FM_OK)
            rc = e;
    }
    return rc;
}

int fm_coll_send(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    struct fm_request *r;
    int rc = fm_isend(buf, count, dt, dest, tag, comm, 1, FM_SEND_STD, &r);
    if (rc != FM_OK)
        return rc;
    return fm_wait(r, NULL);
}

int fm_coll_recv(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm)
{
    struct fm_request *r;
    int rc = fm_irecv(buf, count, dt, src, tag, comm, 1, &r);
    if (rc != FM_OK)
        return rc;
    return fm_wait(r, NULL);
}

int fm_coll_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, int dest,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int src, int tag,
                     MPI_Comm comm)
{
    struct fm_request *rq[2];
    int rc = fm_irecv(rbuf, rcount, rdt, src, tag, comm, 1, &rq[0]);
    if (rc != FM_OK)
        return rc;
    rc = fm_isend(sbuf, scount, sdt, dest, tag, comm, 1, FM_SEND_STD, &rq[1]);
    if (rc != FM_OK) {
        fm_wait(rq[0], NULL);
        return rc;
    }
    return fm_waitall(2, rq);
}
