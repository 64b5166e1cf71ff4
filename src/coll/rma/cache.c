/* cache.c — the per-communicator cache: layout, setup on first use, release,
 * and the helpers the algorithms use to move data and flags through the
 * backend. */
#include "coll/rma/cache.h"

#include <stdlib.h>
#include <string.h>

#include "coll/rma/coll_rma.h"
#include "boot/boot.h"
#include "core/world.h"
#include "dtype/dtype.h"
#include "core/comm.h"
#include "net/net.h"
#include "pt2pt/pt2pt.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"
#include "util/copy.h"

/* Stands for "setup failed on some member" so the communicator never tries
 * again (a retry by some members only would leave the others waiting). */
static fm_crma fm_crma_broken = {.disabled = 1};

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

static size_t large_len(int all_shm)
{
    /* Over OFI a registration may pin every page, so no area that is meant
     * to stay untouched. */
    return all_shm ? (size_t)fm_param.COLL_CACHE_LARGE_PAGES * FM_CRMA_PAGE : 0;
}

static void layout(fm_crma *c, int size, int all_shm)
{
    c->dir_off = round_up(sizeof(fm_crma_reserved), 64);
    c->ring[0].off = round_up(c->dir_off + (size_t)size * sizeof(fm_crma_dirent), FM_CRMA_PAGE);
    c->ring[0].len = (size_t)fm_param.COLL_CACHE_PAGES * FM_CRMA_PAGE;
    c->ring[1].off = c->ring[0].off + c->ring[0].len;
    c->ring[1].len = large_len(all_shm);
    c->taken_len = c->ring[1].off;
    c->seg_len = c->ring[1].off + c->ring[1].len;
    c->reduce_piece =
        fm_crma_reduce_piece(c->ring[0].len > c->ring[1].len ? c->ring[0].len : c->ring[1].len);
}

size_t fm_crma_area_max(MPI_Comm comm)
{
    size_t small = (size_t)fm_param.COLL_CACHE_PAGES * FM_CRMA_PAGE;
    size_t large = large_len(fm_crma_all_shm(comm));
    return large > small ? large : small;
}

void fm_crma_stamp(fm_crma *c)
{
    fm_crma_reserved *res = fm_crma_res(c);
    res->magic = FM_CRMA_MAGIC;
    res->version = FM_CRMA_VERSION;
    res->size = (uint32_t)c->size;
    res->pages = (uint32_t)fm_param.COLL_CACHE_PAGES;
    c->dir = (fm_crma_dirent *)(void *)(c->self + c->dir_off);
}

int fm_crma_all_shm(MPI_Comm comm)
{
    /* Asked by every one-sided choice (select.c): a cache, once set up,
     * knows (its backend), and the members stay where they are. */
    const fm_crma *c = comm->coll_rma;
    if (c && c->be)
        return c->be == &fm_crma_shm;
    /* No cache runs on an intercommunicator, whose `world` names the
     * remote group's members, not comm->size of them. */
    if (fm_comm_is_inter(comm))
        return 0;
    for (int i = 0; i < comm->size; i++) {
        if (!(fm_peer_net[comm->world[i]]->caps & FM_NET_CAP_MAPPED))
            return 0;
    }
    return 1;
}

fm_crma *fm_crma_get(MPI_Comm comm)
{
    fm_crma *c = comm->coll_rma;
    if (c)
        return c->disabled ? NULL : c;
    /* A member that cannot even allocate the state still takes part in the
     * setup collectives (with a stack copy that reports failure), so the
     * others learn about it instead of waiting. */
    fm_crma local = {0}, *heap = calloc(1, sizeof *heap);
    uint64_t *known = calloc((size_t)comm->size * (1 + FM_CRMA_FLAT_LANES), sizeof *known);
    if (!known) {
        free(heap);
        heap = NULL;
    }
    c = heap ? heap : &local;
    c->known_done = known;
    c->known_read = known ? known + comm->size : NULL;
    /* Members all on this node map each other's segments; otherwise every
     * segment is reached through OFI, this node's members' too (one path
     * per communicator keeps the flags' ordering rules simple). */
    const int all_shm = fm_crma_all_shm(comm);
    c->be = all_shm ? &fm_crma_shm : &fm_crma_net;
    c->rank = comm->rank;
    c->size = comm->size;
    c->comm = comm;
    c->flat_push = comm->size == 2 && !fm_coll_crowded(comm);
    c->disabled = heap == NULL;
    layout(c, comm->size, all_shm);
    char why[256] = "";
    int rc = c->be->attach(c, comm, why);
    if (rc != FM_OK || !heap) {
        if (why[0])
            fm_log(1, "one-sided collectives disabled on communicator %s (ctx %u): %s",
                   comm->name[0] ? comm->name : "<unnamed>", comm->ctx, why);
        free(heap);
        free(known);
        comm->coll_rma = &fm_crma_broken;
        return NULL;
    }
    comm->coll_rma = heap;
    return heap;
}

void fm_crma_release(MPI_Comm comm)
{
    fm_crma *c = comm->coll_rma;
    comm->coll_rma = NULL;
    if (!c || c == &fm_crma_broken)
        return;
    c->be->detach(c);
    free(c->known_done);
    free(c->ahead);
    free(c);
}

/* Room for finished calls up to `gap` past done: a window of bits indexed
 * by seq modulo its size, grown (rarely: a nonblocking call left unpolled
 * while blocking ones go on) by moving the set bits over. */
static void ahead_room(fm_crma *c, uint64_t gap)
{
    if (gap < c->ahead_bits)
        return;
    uint64_t bits = c->ahead_bits ? c->ahead_bits : 256;
    while (bits <= gap)
        bits *= 2;
    uint64_t *w = calloc(bits / 64, sizeof *w);
    if (!w)
        fm_boot_abort(1, "fabmpi: out of memory recording the order in which collectives "
                         "finished (one-sided collective cache)");
    for (uint64_t s = c->done + 1; c->ahead && s <= c->done + c->ahead_bits; s++)
        if (c->ahead[s % c->ahead_bits / 64] >> (s % 64) & 1)
            w[s % bits / 64] |= 1ull << (s % 64);
    free(c->ahead);
    c->ahead = w;
    c->ahead_bits = bits;
}

void fm_crma_finish_late(fm_crma *c, uint64_t seq)
{
    ahead_room(c, seq - c->done);
    c->ahead[seq % c->ahead_bits / 64] |= 1ull << (seq % 64);
    c->nahead++;
    uint64_t s = c->done + 1;
    for (; c->nahead && c->ahead[s % c->ahead_bits / 64] >> (s % 64) & 1; s++) {
        c->ahead[s % c->ahead_bits / 64] &= ~(1ull << (s % 64));
        c->nahead--;
    }
    if (s - 1 == c->done)
        return;
    c->done = s - 1;
    fm_crma_word *w = (fm_crma_word *)(void *)(c->self + FM_CRMA_OFF_DONE);
    atomic_store_explicit(&w->v, c->done, memory_order_release);
}

fm_crma_region fm_crma_take(fm_crma *c, uint64_t seq, size_t need, int inl)
{
    fm_crma_region r;
    r.lane = (int)(seq % FM_CRMA_FLAGSETS);
    r.inl = inl;
    r.off = r.len = 0;
    r.after = seq > FM_CRMA_FLAGSETS ? seq - FM_CRMA_FLAGSETS : 0; /* flag set's last use */
    for (int i = 0; i < 2; i++)
        if (c->ring[i].forced > r.after)
            r.after = c->ring[i].forced;
    if (inl)
        return r;
    /* Past half the data area, the large area when it holds the call
     * (callers keep need within the larger of the two). */
    fm_crma_ring *g = &c->ring[need > c->ring[0].len / 2 && need <= c->ring[1].len];
    const uint64_t D = g->len;
    uint64_t len = need ? round_up(need, 256) : 256, v = g->vcur;
    if (len > D) /* callers keep need <= the area, a multiple of pages */
        len = D;
    if (v % D + len > D) /* no room before the end: start over at the area's start */
        v += D - v % D;
    r.off = g->off + (size_t)(v % D);
    r.len = (size_t)len;
    /* Laps: the bytes taken in one pass over the area, from its start (a
     * call that does not fit before the end starts the next lap), so in
     * the current lap [0, this call's end) is taken by this lap's calls.
     * An earlier lap's region overlaps this one where their bytes meet; it
     * is superseded once this lap has taken all its bytes, and only then
     * leaves the history.  Regions are kept in the order taken, so the
     * scan stops at this lap's regions and at the previous lap's first
     * region past our end.  (Dropping every region a call merely
     * overlapped lost the rest of a region to the next call, whose writer
     * then overwrote bytes a reader was still copying: the last 512 bytes
     * of a 32 KiB bcast in coll_rma.) */
    const uint64_t lap = v / D, p = v % D, pe = p + len;
    for (unsigned i = 0; i < g->hcount; i++) {
        const unsigned at = (g->hhead + i) % FM_CRMA_HIST;
        if (g->hist[at].lap == lap || (g->hist[at].lap + 1 == lap && g->hist[at].start >= pe))
            break;
        if (g->hist[at].start < pe && p < g->hist[at].end && g->hist[at].seq > r.after)
            r.after = g->hist[at].seq;
    }
    while (g->hcount && g->hist[g->hhead].lap < lap && g->hist[g->hhead].end <= pe) {
        g->hhead = (g->hhead + 1) % FM_CRMA_HIST;
        g->hcount--;
    }
    if (g->hcount == FM_CRMA_HIST) { /* forget the oldest, but keep waiting for it */
        g->forced = g->hist[g->hhead].seq;
        if (g->forced > r.after)
            r.after = g->forced;
        g->hhead = (g->hhead + 1) % FM_CRMA_HIST;
        g->hcount--;
    }
    unsigned tail = (g->hhead + g->hcount) % FM_CRMA_HIST;
    g->hist[tail].lap = lap;
    g->hist[tail].start = p;
    g->hist[tail].end = pe;
    g->hist[tail].seq = seq;
    g->hcount++;
    g->vcur = v + len;
    return r;
}

void fm_crma_wait_peer(fm_crma *c, int peer, uint64_t after)
{
    fm_wait_until(fm_crma_peer_done(c, peer, after));
}

void fm_crma_wait(fm_crma *c, size_t off, uint64_t seq)
{
    /* Two-sided traffic of other communicators (or a peer's parked sends to
     * us) may be what the writer is stuck behind, so keep progressing. */
    fm_wait_until(fm_crma_test(c, off, seq));
}

int fm_crma_signal_stamped_put(fm_crma *c, int peer, size_t off, uint64_t seq, uint64_t stamp)
{
    /* put() then flag(): the flag is ordered after the stamp (backend
     * contract), and flag() has finished with the source before returning. */
    int rc = c->be->put(c, peer, off + offsetof(fm_crma_word, pad), &stamp, sizeof stamp);
    return rc != FM_OK ? rc : c->be->flag(c, peer, off, seq);
}

int fm_crma_check_stamp(const fm_crma *c, size_t off, uint64_t want)
{
    const fm_crma_word *w = (const fm_crma_word *)(const void *)(c->self + off);
    const uint64_t got = w->pad; /* after the flag's acquire load */
    if (got == want)
        return FM_OK;
    if (got != FM_CRMA_STAMP_ERR && (got >> 32) > (want >> 32))
        return FM_ERR_TRUNCATE;
    return FM_ERR_COLL_PEER;
}

void fm_crma_claim(fm_crma *c, size_t off, size_t len)
{
    unsigned char *p = c->self + off;
    for (size_t at = 0; at < len; at += 64)
        atomic_store_explicit((_Atomic uint64_t *)(void *)(p + at), 0, memory_order_relaxed);
}

int fm_crma_write_general(fm_crma *c, int peer, size_t off, const void *buf, MPI_Count count,
                         MPI_Datatype dt)
{
    size_t n = (size_t)count * (size_t)dt->size;
    if (n == 0)
        return FM_OK;
    const char *src = (const char *)buf + dt->true_lb;
    void *d = c->be->direct(c, peer, off);
    if (d) {
        if (fm_dt_is_contig(dt))
            fm_copy(d, src, n);
        else
            fm_dt_pack(buf, count, dt, 0, d, n);
        return FM_OK;
    }
    if (fm_dt_is_contig(dt))
        return c->be->put(c, peer, off, src, n);
    /* Transports without load/store access take packed bytes. */
    void *stage = malloc(n);
    if (!stage)
        return FM_ERR_NOMEM;
    fm_dt_pack(buf, count, dt, 0, stage, n);
    int rc = c->be->put(c, peer, off, stage, n);
    if (c->be->sync) { /* the put may still read stage */
        int e = c->be->sync(c, peer);
        if (rc == FM_OK)
            rc = e;
    }
    free(stage);
    return rc;
}

int fm_crma_forward(fm_crma *c, int peer, size_t off, size_t src_off, size_t len)
{
    if (len == 0)
        return FM_OK;
    void *d = c->be->direct(c, peer, off);
    if (d) {
        fm_copy(d, c->self + src_off, len);
        return FM_OK;
    }
    return c->be->put(c, peer, off, c->self + src_off, len);
}
