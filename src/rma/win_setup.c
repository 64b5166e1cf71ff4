/* win_setup.c — create, exchange, map and unlink window segments.
 *
 * Sequence (the same on every rank, so the collectives pair up even when
 * one rank fails):
 *   1. duplicate the communicator (private context for the window's own
 *      barriers; the user may free theirs right after creation);
 *   2. allocate_shared: allgather the sizes (rank 0's segment holds all);
 *   3. create our segment; allgather one card per rank (name, sizes,
 *      address, pid, ok);
 *   4. map every peer's segment; allreduce(min) of "mapped everything",
 *      which also tells each rank that all peers have mapped its segment;
 *   5. unlink every mapped name, ours and the peers': from here only
 *      mappings keep the memory, so nothing is left in /dev/shm however the
 *      job ends. */
#include "rma/rma.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coll/coll.h"
#include "core/world.h"
#include "core/comm.h"
#include "net/net.h"
#include "util/log.h"
#include "util/param.h"
#include "util/shm_segment.h"
#include "util/status.h"
#include "util/handle_pool.h"

#define PAGE 4096u

/* What each rank tells the others about its part of the window. */
typedef struct win_card {
    char name[112];
    uint64_t seg_len;   /* bytes of its segment */
    uint64_t addr;      /* create: its window memory, in its address space */
    int64_t size;       /* its window bytes */
    int32_t disp_unit;
    int32_t pid;
    int32_t ok;         /* 0: it failed; nobody maps its segment */
    int32_t pad;
    fm_region_net_card reg; /* OFI: its memory as a registered region */
    uint64_t hw_kinds;  /* OFI: kinds it can accumulate by provider atomics */
    int32_t hw_why, pad2; /* FM_RMA_HW_* why hw_kinds is 0 */
} win_card;

static unsigned next_win_id; /* per process: names carry the rank too */

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* Bytes before the data: the control block with one posted[] and one
 * claim word per rank. */
static size_t ctl_len(int size) { return round_up(FM_RMA_CTL_BYTES(size), PAGE); }

static int make_name(char *out, size_t len)
{
    char what[16];
    snprintf(what, sizeof what, "w%u-", next_win_id++);
    return fm_shm_seg_name(out, len, what, fm_world_rank);
}

/* Step 3: our segment, zero-filled by ftruncate. */
static void *create_own(win_card *c, size_t len, char *why)
{
    if (!make_name(c->name, sizeof c->name)) {
        snprintf(why, FM_RMA_WHY, "window segment name too long (FABMPI_JOBID=%s)", fm_param.JOBID);
        return NULL;
    }
    const char *failed;
    void *m = fm_shm_seg_create(c->name, len, &failed);
    if (!m) {
        if (failed[0] == 'c')
            snprintf(why, FM_RMA_WHY, "cannot create /dev/shm%s: %s", c->name, strerror(errno));
        else if (failed[0] == 's')
            snprintf(why, FM_RMA_WHY, "cannot size /dev/shm%s to %zu bytes: %s; free space in /dev/shm",
                     c->name, len, strerror(errno));
        else
            snprintf(why, FM_RMA_WHY, "cannot map /dev/shm%s (%zu bytes): %s", c->name, len,
                     strerror(errno));
        return NULL;
    }
    c->seg_len = len;
    return m;
}

static void *map_peer(const win_card *c, int rank, char *why)
{
    const char *failed;
    size_t len = c->seg_len;
    void *m = fm_shm_seg_map(c->name, &len, &failed);
    if (!m && failed[0] == 'o')
        snprintf(why, FM_RMA_WHY,
                 "window rank %d is not reachable through shared memory (/dev/shm%s: %s); "
                 "windows across nodes are not supported yet",
                 rank, c->name, strerror(errno));
    else if (!m)
        snprintf(why, FM_RMA_WHY, "cannot map window rank %d's /dev/shm%s: %s", rank, c->name,
                 strerror(errno));
    return m;
}

/* Windows behind user handles (handle_pool.h). */
static fm_handle_pool win_pool = FM_HANDLE_POOL(struct fm_win);

static struct fm_win *win_alloc(int flavor, MPI_Comm dup)
{
    struct fm_win *w = fm_handle_get(&win_pool);
    if (!w)
        return NULL;
    w->flavor = flavor;
    w->comm = dup;
    w->rank = dup->rank;
    w->size = dup->size;
    w->naccess = -1;
    w->nexpose = -1;
    w->info = MPI_INFO_NULL;
    w->peer = calloc((size_t)w->size, sizeof *w->peer);
    w->held = calloc((size_t)w->size, 1);
    w->reach = calloc((size_t)w->size, 1);
    w->post_seen = calloc((size_t)w->size, sizeof *w->post_seen);
    w->access = calloc((size_t)w->size, sizeof *w->access);
    if (!w->peer || !w->held || !w->reach || !w->post_seen || !w->access) {
        free(w->peer);
        free(w->held);
    free(w->reach);
        free(w->reach);
        free(w->post_seen);
        free(w->access);
        fm_handle_put(&win_pool, w);
        return NULL;
    }
    return w;
}

void fm_win_teardown(struct fm_win *w)
{
    fm_rma_handoff_teardown(w);
    fm_rma_remote_teardown(w);
    for (int i = 0; i < w->size; i++)
        if (w->peer[i].map)
            munmap(w->peer[i].map, w->peer[i].map_len);
    while (w->regions) {
        fm_rma_region *r = w->regions;
        w->regions = r->next;
        free(r);
    }
    if (w->comm)
        fm_comm_release(w->comm);
    free(w->peer);
    free(w->held);
    free(w->reach);
    free(w->post_seen);
    free(w->access);
    fm_handle_put(&win_pool, w);
}

/* Peers the transport reaches over OFI get OFI windows too (their memory
 * may be on another node); shared windows need mapped memory, so they
 * keep mapping and fail clearly across nodes. */
static int reached_by_ofi(const struct fm_win *w, int i)
{
    return w->flavor != MPI_WIN_FLAVOR_SHARED && fm_peer_net &&
           (fm_peer_net[w->comm->group->world[i]]->caps & FM_NET_CAP_REMOTE);
}

/* Step 4 for everyone; fills w->peer.  Returns 1 when all mapped. */
static int map_all(struct fm_win *w, const win_card *cards, void *own, const MPI_Aint *shared_off,
                   size_t data_off, char *why)
{
    int ok = 1;
    for (int i = 0; i < w->size && ok; i++) {
        fm_rma_peer *p = &w->peer[i];
        const win_card *c = &cards[i];
        p->size = (MPI_Aint)c->size;
        p->disp_unit = w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : c->disp_unit;
        if (i != w->rank && reached_by_ofi(w, i)) {
            fm_rma_remote_peer(w, i, &c->reg);
            continue;
        }
        p->map = i == w->rank ? own : map_peer(c, i, why);
        if (!p->map) {
            ok = 0;
            break;
        }
        p->map_len = c->seg_len;
        p->ctl = p->map;
        p->size = (MPI_Aint)c->size;
        p->disp_unit = c->disp_unit;
        p->pid = c->pid;
        switch (w->flavor) {
        case MPI_WIN_FLAVOR_ALLOCATE:
            p->direct = 1;
            p->base = (uintptr_t)p->map + data_off;
            break;
        case MPI_WIN_FLAVOR_SHARED:
            p->direct = 1; /* filled below, once rank 0's segment is mapped */
            break;
        case MPI_WIN_FLAVOR_CREATE:
            p->direct = i == w->rank;
            p->base = (uintptr_t)c->addr;
            break;
        default: /* dynamic: displacements are addresses */
            p->direct = i == w->rank;
            p->base = 0;
            p->disp_unit = 1;
            break;
        }
    }
    if (ok && w->flavor == MPI_WIN_FLAVOR_SHARED)
        for (int i = 0; i < w->size; i++)
            w->peer[i].base = (uintptr_t)w->peer[0].map + data_off + (uintptr_t)shared_off[i];
    return ok;
}

int fm_rma_parse_order(const char *value, unsigned *out)
{
    static const char *const names[] = {"rar", "raw", "war", "waw"};
    unsigned m = 0;
    int none = 0;
    for (const char *p = value;;) {
        p += strspn(p, " \t");
        size_t n = strcspn(p, ", \t");
        int k = 0;
        while (k < 4 && !(n == 3 && !strncmp(p, names[k], 3)))
            k++;
        if (k < 4)
            m |= 1u << k;
        else if (n == 4 && !strncmp(p, "none", 4))
            none = 1;
        else
            return 0;
        p += n;
        p += strspn(p, " \t");
        if (!*p)
            break;
        if (*p++ != ',')
            return 0;
    }
    if (none && m) /* "none" stands alone */
        return 0;
    *out = m;
    return 1;
}

/* "none" or the comma list, for log lines. */
static const char *order_name(unsigned m, char *buf, size_t len)
{
    static const char *const names[] = {"rar", "raw", "war", "waw"};
    if (!m)
        return "none";
    buf[0] = 0;
    for (int k = 0; k < 4; k++)
        if (m >> k & 1)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "", names[k]);
    return buf;
}

/* Accumulates over OFI by provider atomics for the kinds every rank can do
 * them on, only if every rank qualified (the cards are the same on every
 * rank, so all decide alike). */
static void agree_atomics(struct fm_win *w, const win_card *cards)
{
    static const char *const whys[] = {
        [FM_RMA_HW_KNOB] = "FABMPI_RMA_ATOMICS=am",
        [FM_RMA_HW_PROVIDER] = "the provider validates no atomic for every op of a type",
        [FM_RMA_HW_NODE] = "some ranks reach each other by shared memory",
        [FM_RMA_HW_REG] = "a rank has no registered window memory (dynamic window, size 0, or "
                          "registration failed)",
        [FM_RMA_HW_QUIRK] = "the provider's atomics are not trusted",
    };
    uint64_t kinds = ~(uint64_t)0;
    int why = FM_RMA_HW_OK;
    for (int i = 0; i < w->size; i++) {
        kinds &= cards[i].hw_kinds;
        if (cards[i].hw_why != FM_RMA_HW_OK && why == FM_RMA_HW_OK)
            why = cards[i].hw_why;
    }
    if (why != FM_RMA_HW_OK || !kinds) {
        kinds = 0;
        if (why == FM_RMA_HW_OK)
            why = FM_RMA_HW_PROVIDER;
    }
    w->hw_kinds = kinds;
    if (w->rank != 0)
        return;
    if (kinds) {
        int n = 0;
        for (int k = 0; k < 64; k++)
            n += (int)(kinds >> k & 1);
        char ord[32];
        fm_log(1, "window (%d ranks): accumulates over OFI by provider atomics for %d basic "
                  "types (mask 0x%llx), active messages for the rest; accumulate_ordering=%s",
               w->size, n, (unsigned long long)kinds, order_name(w->acc_order, ord, sizeof ord));
    } else {
        const char *quirk = why == FM_RMA_HW_QUIRK ? fm_rma_hw_distrust_why() : NULL;
        fm_log(1, "window (%d ranks): accumulates over OFI as active messages at the target: %s%s%s",
               w->size, why > 0 && why <= FM_RMA_HW_QUIRK ? whys[why] : "?", quirk ? ": " : "",
               quirk ? quirk : "");
    }
}

int fm_win_setup(int flavor, void *base, MPI_Aint size, int disp_unit,
                 const struct fm_win_hints *hints, MPI_Comm dup, struct fm_win **out, char *why)
{
    why[0] = 0;
    int rc;
    struct fm_win *w = win_alloc(flavor, dup);
    if (!w) {
        fm_comm_release(dup);
        snprintf(why, FM_RMA_WHY, "out of memory");
        return FM_ERR_NOMEM;
    }
    w->acc_order = hints->acc_order;
    w->shared_noncontig = flavor == MPI_WIN_FLAVOR_SHARED && hints->shared_noncontig;
    size_t data_off = ctl_len(w->size);
    size_t len = data_off;
    MPI_Aint *shared_off = NULL;
    if (flavor == MPI_WIN_FLAVOR_SHARED) {
        /* Contiguous across ranks: rank 0's segment holds everyone's part. */
        shared_off = calloc((size_t)w->size + 1, sizeof *shared_off);
        MPI_Aint *sizes = calloc((size_t)w->size, sizeof *sizes);
        rc = shared_off && sizes ? FM_OK : FM_ERR_NOMEM;
        int r2 = fm_coll_allgather(&size, 1, MPI_AINT, sizes ? sizes : shared_off, 1, MPI_AINT, dup);
        rc = rc != FM_OK ? rc : r2;
        if (rc == FM_OK) {
            for (int i = 0; i < w->size; i++)
                shared_off[i + 1] = shared_off[i] + sizes[i];
            if (w->rank == 0)
                len += round_up((size_t)shared_off[w->size], PAGE);
        }
        free(sizes);
        if (rc != FM_OK) {
            /* every rank got the same allgather result, so all fail alike */
            free(shared_off);
            fm_win_teardown(w);
            snprintf(why, FM_RMA_WHY, "exchanging window sizes: %s", fm_status_msg(rc));
            return rc;
        }
    } else if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
        len += round_up((size_t)size, PAGE);
    }

    win_card me, *cards = calloc((size_t)w->size, sizeof *cards);
    memset(&me, 0, sizeof me);
    void *own = cards ? create_own(&me, len, why) : NULL;
    if (!cards && !why[0])
        snprintf(why, FM_RMA_WHY, "out of memory");
    me.addr = (uint64_t)(uintptr_t)base;
    me.size = (int64_t)size;
    me.disp_unit = disp_unit;
    me.pid = (int32_t)getpid();
    me.ok = own != NULL;
    int any_ofi = 0, all_ofi = 1;
    for (int i = 0; i < w->size; i++)
        if (i != w->rank) {
            any_ofi |= reached_by_ofi(w, i);
            all_ofi &= reached_by_ofi(w, i);
        }
    me.hw_why = FM_RMA_HW_NODE;
    if (own && any_ofi) {
        void *mem = flavor == MPI_WIN_FLAVOR_ALLOCATE ? (char *)own + data_off : base;
        fm_rma_remote_prepare(w, mem, (size_t)size, &me.reg);
        /* Provider atomics only where nothing else updates the memory: no
         * peer of ours reaches it by load/store or CMA (rma.h). */
        if (!all_ofi)
            me.hw_why = FM_RMA_HW_NODE;
        else if (!me.reg.ok)
            me.hw_why = FM_RMA_HW_REG;
        else if ((me.hw_kinds = fm_rma_hw_kinds(&me.hw_why)) &&
                 fm_rma_hw_self(w, &me.reg) != FM_OK)
            me.hw_kinds = 0, me.hw_why = FM_RMA_HW_REG;
    }
    win_card dummy[1];
    rc = fm_coll_allgather(&me, sizeof me, MPI_BYTE, cards ? (void *)cards : (void *)dummy,
                           cards ? (MPI_Count)sizeof me : 0, MPI_BYTE, dup);
    int ok = rc == FM_OK && own && cards;
    for (int i = 0; ok && i < w->size; i++)
        if (!cards[i].ok) {
            ok = 0;
            snprintf(why, FM_RMA_WHY, "window rank %d could not create its segment", i);
        }
    /* Every rank sees the same cards, so all agree whether to go on. */
    if (ok)
        ok = map_all(w, cards, own, shared_off, data_off, why);
    if (ok && fm_rma_remote_setup(w) != FM_OK) {
        ok = 0;
        snprintf(why, FM_RMA_WHY, "out of memory");
    }
    if (ok && w->rm)
        agree_atomics(w, cards);
    if (ok && fm_rma_handoff_setup(w) != FM_OK) {
        ok = 0;
        snprintf(why, FM_RMA_WHY, "out of memory");
    }
    int all = ok;
    rc = fm_coll_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, dup);
    if (own)
        shm_unlink(me.name);
    /* Every mapped member's name too (as net/shm/segment.c, step 4): one
     * killed before its own unlink leaves nothing in /dev/shm. */
    for (int i = 0; rc == FM_OK && all && i < w->size; i++)
        if (i != w->rank && w->peer[i].map)
            shm_unlink(cards[i].name); /* ENOENT once its owner got here first */
    free(cards);
    free(shared_off);
    if (rc != FM_OK || !all) {
        if (own && !w->peer[w->rank].map)
            munmap(own, len);
        if (!why[0])
            snprintf(why, FM_RMA_WHY, "another rank of the window failed to set it up");
        fm_win_teardown(w);
        return rc != FM_OK ? rc : FM_ERR_NET;
    }
    fm_rma_peer *self = &w->peer[w->rank];
    w->base = flavor == MPI_WIN_FLAVOR_DYNAMIC ? NULL : fm_win_segment_base(w, w->rank);
    w->win_size = self->size;
    w->disp_unit = self->disp_unit;
    w->magic = FM_MAGIC_WIN;
    *out = w;
    return FM_OK;
}
