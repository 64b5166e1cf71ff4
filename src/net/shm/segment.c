/* segment.c — create, exchange, map and unlink the per-rank segments.
 *
 * Sequence (identical on every rank so the fences pair up):
 *   1. publish a card: host identity, pid, CMA probe word;      fence
 *   2. find the ranks on this host; create our segment sized for them,
 *      format our inbound rings, publish its name;               fence
 *   3. map every local peer's segment;                           fence
 *   4. unlink every local rank's name: from here on only mappings keep the
 *      memory alive, so nothing is left in /dev/shm whatever way the job
 *      ends.
 *
 * In steps 2 and 3 each process also writes once to every page of the
 * rings it reads (ours) and writes (one in each peer's segment), unless
 * FABMPI_SHM_PREFAULT=0 (fm_shm_touch says why): the first pass through a
 * fresh 256 KiB ring moved 8 B messages at 5 M/s and every later pass at
 * 14 M/s, a quarter of OSU's default osu_mbw_mr run.  The price is init
 * time: 2 x (ranks per node) x 65 page writes per rank. */
#include "net/shm/shm.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"
#include "boot/world.h"
#include "util/log.h"
#include "util/shm_segment.h"
#include "util/param.h"
#include "util/status.h"

static_assert(sizeof(fm_shm_seg_hdr) == 64, "segment header is one cache line");
static_assert(offsetof(fm_shm_seg_hdr, rings_off) == 32, "segment header layout is pinned");
static_assert(offsetof(fm_shm_seg_hdr, owner_pid) == 44, "segment header layout is pinned");
static_assert(sizeof(fm_shm_seg_hdr) <= FM_SHM_RINGS_OFF, "rings start after the header");
static_assert(sizeof(((fm_shm_state *)0)->own_name) == 128, "segment names travel in a 128-byte field");

fm_shm_state fm_shm;
volatile uint64_t fm_shm_probe_word;

/* Published under "fm.shm.card" before anything else. */
typedef struct shm_card {
    char host[64];   /* hostname ... */
    char bootid[40]; /* ... and kernel boot id: same pair = same machine */
    int32_t pid;
    int32_t pad;
    uint64_t probe_addr, probe_val;
} shm_card;

/* Published under "fm.shm.seg" once our segment exists. */
typedef struct shm_seg_card {
    char name[128];
    uint64_t size;
    int32_t ok; /* 0: creation failed here; peers must not look for it */
    int32_t pad;
} shm_seg_card;

static void host_identity(shm_card *c)
{
    if (gethostname(c->host, sizeof c->host - 1) != 0)
        strcpy(c->host, "?");
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, c->bootid, sizeof c->bootid - 1);
        if (n > 0 && c->bootid[n - 1] == '\n')
            c->bootid[n - 1] = 0;
        close(fd);
    }
}

static size_t ring_stride(size_t ring_size)
{
    return (fm_ring_footprint(ring_size) + 4095) & ~(size_t)4095;
}

/* Step 2: our segment with one formatted ring per local rank. */
static int create_own(size_t ring_size)
{
    fm_shm_state *s = &fm_shm;
    fm_shm_seg_name(s->own_name, sizeof s->own_name, "", s->rank);
    size_t stride = ring_stride(ring_size);
    int nrings = s->nlocal * (1 + s->nlanes);
    size_t size = FM_SHM_RINGS_OFF + (size_t)nrings * stride;

    const char *failed;
    void *base = fm_shm_seg_create(s->own_name, size, &failed);
    if (!base && failed[0] == 'c') {
        fm_error_msg("shm: cannot create /dev/shm%s: %s%s", s->own_name, strerror(errno),
                     errno == EEXIST ? " (left over from a job with the same FABMPI_JOBID? remove it)"
                                     : "");
        return FM_ERR_NET;
    }
    if (!base && failed[0] == 's') {
        fm_error_msg("shm: cannot size /dev/shm%s to %zu bytes (%d rings of FABMPI_SHM_RING_SIZE=%zu): %s; "
                     "free space in /dev/shm or lower FABMPI_SHM_RING_SIZE",
                     s->own_name, size, nrings, ring_size, strerror(errno));
        return FM_ERR_NET;
    }
    if (!base) {
        fm_error_msg("shm: cannot map /dev/shm%s (%zu bytes): %s", s->own_name, size, strerror(errno));
        return FM_ERR_NET;
    }
    s->own_linked = 1;
    s->own = base;
    s->own_size = size;
    /* ftruncate gave zeroed pages; only the control blocks need writing */
    fm_shm_seg_hdr *h = base;
    h->version = FM_SHM_VERSION;
    h->nrings = (uint32_t)nrings;
    h->ring_size = ring_size;
    h->ring_stride = stride;
    h->rings_off = FM_SHM_RINGS_OFF;
    h->owner_rank = s->rank;
    h->owner_pid = (int32_t)getpid();
    for (int i = 0; i < nrings; i++) {
        uint8_t *ring = (uint8_t *)base + FM_SHM_RINGS_OFF + (size_t)i * stride;
        fm_ring_format(ring, ring_size);
        if (fm_param.SHM_PREFAULT)
            fm_shm_touch(ring, fm_ring_footprint(ring_size));
    }
    h->magic = FM_SHM_MAGIC; /* last: a peer seeing it sees the rest (the fence orders us) */
    return FM_OK;
}

static void *ring_in(void *seg, int index)
{
    fm_shm_seg_hdr *h = seg;
    return (uint8_t *)seg + h->rings_off + (size_t)index * h->ring_stride;
}

/* Our rings in a segment: the first lane's, and each further lane's. */
static int attach_tx(fm_shm_peer *p, void *seg)
{
    fm_shm_state *s = &fm_shm;
    int rc = fm_ring_tx_attach(&p->tx, ring_in(seg, s->me));
    if (rc != FM_OK || !s->nlanes)
        return rc;
    p->lane_tx = calloc((size_t)s->nlanes + 1, sizeof *p->lane_tx);
    if (!p->lane_tx)
        return FM_ERR_NOMEM;
    for (int l = 1; l <= s->nlanes && rc == FM_OK; l++)
        rc = fm_ring_tx_attach(&p->lane_tx[l], ring_in(seg, l * s->nlocal + s->me));
    return rc;
}

/* Step 3: map peer i's segment and attach to our ring in it. */
static int map_peer(int i)
{
    fm_shm_state *s = &fm_shm;
    fm_shm_peer *p = &s->local[i];
    shm_seg_card sc;
    size_t len = sizeof sc;
    if (fm_boot_get(p->rank, "fm.shm.seg", &sc, &len) != FM_OK || len != sizeof sc || !sc.ok)
        return FM_ERR_NET; /* that rank failed and said why */
    sc.name[sizeof sc.name - 1] = 0;
    const char *failed;
    size_t seg_len = (size_t)sc.size;
    void *base = sc.size > FM_SHM_RINGS_OFF ? fm_shm_seg_map(sc.name, &seg_len, &failed) : NULL;
    if (!base && sc.size > FM_SHM_RINGS_OFF && failed[0] == 'o') {
        /* Same host name and boot id but another /dev/shm (containers):
         * that peer is not reachable through shared memory. */
        fm_warn("shm: rank %d looks local (same host) but /dev/shm%s is not visible here: %s; "
                "using another transport for it",
                p->rank, sc.name, strerror(errno));
        return FM_OK;
    }
    if (!base) {
        fm_error_msg("shm: cannot map rank %d's /dev/shm%s (%llu bytes): %s", p->rank, sc.name,
                     (unsigned long long)sc.size, strerror(errno));
        return FM_ERR_NET;
    }
    p->seg = base;
    p->seg_size = sc.size;
    fm_shm_seg_hdr *h = base;
    int rc = FM_OK;
    if (h->magic != FM_SHM_MAGIC || h->version != FM_SHM_VERSION)
        rc = FM_ERR_NET;
    else if (h->nrings != (uint32_t)(s->nlocal * (1 + s->nlanes)) || h->owner_rank != p->rank ||
             h->rings_off + (uint64_t)h->nrings * h->ring_stride > sc.size)
        rc = FM_ERR_NET;
    else
        rc = attach_tx(p, base);
    if (rc == FM_OK && fm_param.SHM_PREFAULT)
        for (int l = 0; l <= s->nlanes; l++) /* checked to lie in the mapping */
            fm_shm_touch(ring_in(base, l * s->nlocal + s->me), h->ring_stride);
    if (rc != FM_OK) {
        fm_error_msg("shm: rank %d's segment /dev/shm%s is not what this fabmpi expects "
                     "(magic %llx version %u rings %u owner %d; expected version %d, %d rings, owner %d): "
                     "are all ranks running the same fabmpi with the same FABMPI_VCIS?",
                     p->rank, sc.name, (unsigned long long)h->magic, h->version, h->nrings,
                     h->owner_rank, FM_SHM_VERSION, s->nlocal * (1 + s->nlanes), p->rank);
        return rc;
    }
    p->mapped = 1;
    return FM_OK;
}

/* Step 1 and the local-rank table. */
static int find_local_ranks(const shm_card *mine)
{
    fm_shm_state *s = &fm_shm;
    s->local_of = malloc((size_t)s->size * sizeof *s->local_of);
    s->tx = calloc((size_t)s->size, sizeof *s->tx);
    shm_card *cards = malloc((size_t)s->size * sizeof *cards);
    if (!s->local_of || !s->tx || !cards) {
        free(cards);
        fm_error_msg("shm: out of memory for %d ranks' tables", s->size);
        return FM_ERR_NOMEM;
    }
    int rc = FM_OK;
    s->nlocal = 0;
    for (int r = 0; r < s->size; r++) {
        size_t len = sizeof cards[r];
        s->local_of[r] = -1;
        if (r == s->rank) {
            cards[r] = *mine;
        } else if (fm_boot_get(r, "fm.shm.card", &cards[r], &len) != FM_OK || len != sizeof cards[r]) {
            fm_error_msg("shm: rank %d published no shared-memory card (bootstrap key fm.shm.card)", r);
            rc = FM_ERR_NET;
            continue;
        }
        if (strncmp(cards[r].host, mine->host, sizeof mine->host) == 0 &&
            strncmp(cards[r].bootid, mine->bootid, sizeof mine->bootid) == 0)
            s->local_of[r] = s->nlocal++;
    }
    s->local = calloc((size_t)s->nlocal, sizeof *s->local);
    if (!s->local) {
        free(cards);
        return FM_ERR_NOMEM;
    }
    for (int r = 0; r < s->size; r++) {
        int i = s->local_of[r];
        if (i < 0)
            continue;
        s->local[i].rank = r;
        s->local[i].pid = cards[r].pid;
        s->local[i].probe_addr = cards[r].probe_addr;
        s->local[i].probe_val = cards[r].probe_val;
    }
    s->me = s->local_of[s->rank];
    free(cards);
    return rc;
}

/* Ring sizes and the eager limit for this node, where the knobs are left
 * at their defaults; an eager message is at most an eighth of a ring.
 *
 * Up to 8 ranks on a node the rings are 512 KiB and the eager limit 64 KiB
 * (256 KiB and 32 KiB from 9 ranks: n * (n - 1) rings).  A 64 KiB message
 * sent eagerly is two memcpys on two cores; by rendezvous it was a split
 * CMA copy, each half paying a system call (about 1.5 us): bench/OSU.md's
 * 64 KiB dip.  OMB 7.4, 2 ranks bound, 3 rounds alternated, 256 KiB rings
 * and 32 KiB eager -> 512 KiB and 64 KiB: osu_latency 64 KiB 6.66 ->
 * 5.47 us (Open MPI 6.51), osu_bw 13.0 -> 19.5 GB/s (11.4), osu_bibw
 * 21.6 -> 24.3 (18.4); 128 KiB sent eagerly took 10.35 us against 7.56
 * by rendezvous, so 64 KiB it is.  Small messages did not move
 * (bench/msgrate.c, 6 alternated rounds, 8 B-4 KiB within 3%).
 *
 * On a crowded node (more ranks than CPUs, boot/world.h) a rendezvous
 * costs scheduling round trips: the receiver must get a core to answer or
 * pull, then the sender to finish, and a split copy needs both at once.
 * With 4 ranks on 2 cores osu_bcast of 64 KiB took 23-33 us by rendezvous
 * against 5-6 us sent eagerly through 1 MiB rings (Open MPI 9.5-10).  So
 * there rings grow further while their total stays small (prefaulting
 * them is MPI_Init time: 1 MiB rings took a 4-rank hello from 10 to 18 ms,
 * an 8-rank one from 24 to 56), and no copy is split. */
static void size_rings(void)
{
    fm_shm_state *s = &fm_shm;
    int *ranks = malloc((size_t)s->nlocal * sizeof *ranks);
    if (!ranks)
        return; /* not crowded as far as anyone knows: the defaults stand */
    for (int i = 0; i < s->nlocal; i++)
        ranks[i] = s->local[i].rank;
    fm_node_cpus_decide(ranks, s->nlocal);
    free(ranks);
    if (fm_param.NET == FM_NET_OFI) /* OFI carries every message */
        return;
    const int crowded = fm_node_crowded;
    size_t ring = s->nlocal <= 4 && crowded ? (size_t)1 << 20
                  : s->nlocal <= 8          ? (size_t)512 << 10
                                            : 0;
    if (ring && fm_param_is_default(&fm_param.SHM_RING_SIZE))
        fm_param.SHM_RING_SIZE = ring;
    size_t eager = fm_ring_round_size(fm_param.SHM_RING_SIZE) / 8;
    if (fm_param_is_default(&fm_param.EAGER_LIMIT) && eager > fm_param.EAGER_LIMIT)
        fm_param.EAGER_LIMIT = eager;
    if (crowded && fm_param_is_default(&fm_param.SHM_SPLIT_MIN))
        fm_param.SHM_SPLIT_MIN = 0;
    fm_log(1, "shm: %d ranks on %d usable CPUs: rings of %zu bytes, eager up to %zu, %s "
           "(where FABMPI_SHM_RING_SIZE, FABMPI_EAGER_LIMIT, FABMPI_SHM_SPLIT_MIN are not set)",
           s->nlocal, fm_node_cpus_usable, fm_ring_round_size(fm_param.SHM_RING_SIZE),
           fm_param.EAGER_LIMIT, fm_param.SHM_SPLIT_MIN ? "split copies" : "no split copies");
}

int fm_shm_segments_setup(void)
{
    fm_shm_state *s = &fm_shm;
    memset(s, 0, sizeof *s);
    s->rank = fm_world_rank;
    s->size = fm_world_size;

    shm_card mine;
    memset(&mine, 0, sizeof mine);
    host_identity(&mine);
    mine.pid = (int32_t)getpid();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    /* A value a stranger's memory will not hold at that address: catches
     * a pid that means another process in another pid namespace. */
    fm_shm_probe_word = ((uint64_t)mine.pid << 32) ^ (uint64_t)ts.tv_nsec ^ 0x5a5a5a5a00000000ULL ^
                        (uint64_t)(uintptr_t)&mine;
    mine.probe_addr = (uint64_t)(uintptr_t)&fm_shm_probe_word;
    mine.probe_val = fm_shm_probe_word;

    int rc = fm_boot_put("fm.shm.card", &mine, sizeof mine);
    int frc = fm_boot_fence();
    if (rc == FM_OK)
        rc = frc != FM_OK ? frc : find_local_ranks(&mine);
    if (rc == FM_OK)
        size_rings();
    /* Lanes' rings when shared memory carries messages to a peer (one rank
     * alone has no segment); OFI gives the lanes endpoints of their own for
     * the others (core/transports.c).  Ranks of one node decide alike. */
    if (rc == FM_OK && fm_param.VCIS > 1 && fm_param.NET != FM_NET_OFI &&
        (s->nlocal > 1 || fm_param.NET == FM_NET_SHM))
        s->nlanes = (int)fm_param.VCIS - 1;

    /* Step 2.  A segment is needed when someone may write to us: a local
     * peer, or ourselves when FABMPI_NET=shm routes self-sends here too. */
    size_t ring_size = fm_ring_round_size(fm_param.SHM_RING_SIZE);
    shm_seg_card sc;
    memset(&sc, 0, sizeof sc);
    if (rc == FM_OK && (s->nlocal > 1 || fm_param.NET == FM_NET_SHM)) {
        rc = create_own(ring_size);
        if (rc == FM_OK) {
            memcpy(sc.name, s->own_name, sizeof sc.name);
            sc.size = s->own_size;
            sc.ok = 1;
        }
    }
    int prc = fm_boot_put("fm.shm.seg", &sc, sizeof sc);
    if (rc == FM_OK)
        rc = prc;
    frc = fm_boot_fence();
    if (rc == FM_OK)
        rc = frc;

    /* Step 3: map peers, and point our own ring at our own segment. */
    if (rc == FM_OK && s->own) {
        for (int i = 0; i < s->nlocal && rc == FM_OK; i++) {
            fm_shm_peer *p = &s->local[i];
            if (i == s->me) {
                if (fm_param.NET == FM_NET_SHM && attach_tx(p, s->own) == FM_OK)
                    p->mapped = 1;
            } else {
                rc = map_peer(i);
            }
        }
    }
    frc = fm_boot_fence();
    if (rc == FM_OK)
        rc = frc;

    /* Step 4, for every local rank's name, not only ours: a rank killed
     * between the fence and its own unlink would leave its name behind
     * where the launcher sweeps nothing (MPICH's hydra, when another rank
     * calls MPI_Abort at once: the launch tests found two such names in
     * /dev/shm).  Any rank getting here removes them all. */
    if (s->own_linked) {
        shm_unlink(s->own_name);
        s->own_linked = 0;
    }
    for (int i = 0; rc == FM_OK && i < s->nlocal; i++) {
        char name[sizeof s->own_name];
        if (i != s->me && fm_shm_seg_name(name, sizeof name, "", s->local[i].rank))
            shm_unlink(name); /* ENOENT once its owner got here first */
    }
    return rc;
}

void fm_shm_segments_teardown(void)
{
    fm_shm_state *s = &fm_shm;
    for (int i = 0; s->local && i < s->nlocal; i++) {
        if (s->local[i].seg)
            munmap(s->local[i].seg, s->local[i].seg_size);
        free(s->local[i].lane_tx);
    }
    for (int l = 1; s->lanes && l <= s->nlanes; l++) {
        free(s->lanes[l].tx);
        free(s->lanes[l].rx);
        free(s->lanes[l].rx_peer);
    }
    free(s->lanes);
    if (s->own)
        munmap(s->own, s->own_size);
    if (s->own_linked)
        shm_unlink(s->own_name);
    free(s->local);
    free(s->local_of);
    free(s->tx);
    free(s->rx);
    free(s->rx_peer);
    free(s->rx_of_local);
    free(s->bell_to);
    memset(s, 0, sizeof *s);
}
