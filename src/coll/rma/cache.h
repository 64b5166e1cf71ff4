/* cache.h — private to src/coll/rma: the per-communicator registered cache
 * that the one-sided collectives write into, and the narrow backend that
 * moves bytes into a peer's cache.
 *
 * Every member of a communicator owns one cache segment, laid out as
 *
 *   [ reserved: header line | bar[32] | done | data[32] | slot[32][2] ]
 *   [ directory: one entry per member ]                    pad to a page
 *   [ data area: FABMPI_COLL_CACHE_PAGES pages ]
 *   [ large area: FABMPI_COLL_CACHE_LARGE_PAGES pages; shared memory only ]
 *
 * Everything up to the large area is allocated and touched at setup, so
 * the first calls run at full speed; the large area takes calls larger
 * than half the data area and gets its pages only as they touch them
 * (a 4 KiB page fault costs about 16 us here: ~2 ms the first time a
 * 128 KiB reduce fills it, nothing for a program that never makes one).
 *
 * Offsets only, so the same layout works when a peer's segment is reached
 * by fi_write at (address or offset, key) instead of being mapped here.
 *
 * Synchronisation is by 64-bit flag words holding a sequence number: every
 * member numbers the one-sided collectives it runs on the communicator 1, 2,
 * 3, ... (all members run them in the same order), a writer stores the
 * current number after its data, and a reader waits for "flag >= number".
 * Numbers only grow, so no round ever resets a flag.
 *
 * Flow control without handshakes: every member stores in its own `done`
 * word the number up to which it has finished every call (a nonblocking
 * call may end after later ones: fm_crma_finish).  Each call takes the next
 * bytes of its area, used as a ring (a call that does not fit before the
 * end starts again at the area's start).  Every member sees the same calls with
 * the same sizes, so all agree which earlier calls used the bytes a call is
 * about to reuse; before writing into a peer's area a member waits until the
 * peer's `done` has reached the newest of them.  Small calls can thus run
 * many calls ahead of a slow peer instead of in lockstep.  Each call also
 * uses flag set seq % FM_CRMA_FLAGSETS, and reusing a set waits for the
 * call that used it before, so "flag >= s" means exactly "call s's data is
 * there". */
#ifndef FM_COLL_RMA_CACHE_H
#define FM_COLL_RMA_CACHE_H

#include <mpi.h>
#include <stdatomic.h>

#include <stddef.h>
#include <stdint.h>

#include "coll/rma/coll_rma.h"
#include "dtype/dtype.h"
#include "pt2pt/pt2pt.h"
#include "util/copy.h"
#include "util/int_array.h"
#include "util/status.h"

#define FM_CRMA_MAGIC 0x43524d41u /* "CRMA" */
#define FM_CRMA_VERSION 4u
#define FM_CRMA_PAGE 4096u
#define FM_CRMA_ROUNDS 32 /* dissemination barrier rounds: ceil(log2 size) <= 31 */
#define FM_CRMA_FLAGSETS 32 /* calls that may be in flight on one member */
#define FM_CRMA_HIST 64     /* ring regions remembered for reuse checks */

/* One flag word per cache line: words with different writers or readers
 * never share a line.  Messages up to FM_CRMA_INLINE bytes travel in the
 * rest of the flag's line, so the reader fetches one line, not two. */
#define FM_CRMA_INLINE 48
#define FM_CRMA_INLINE_OFF 16 /* 16-byte aligned like any basic type */
typedef struct fm_crma_word {
    _Alignas(64) _Atomic uint64_t v;
    uint64_t pad;
    unsigned char inl[FM_CRMA_INLINE];
} fm_crma_word;

/* Flat allreduce / barrier (flat.c): calls alternate between two lanes.
 * A lane's flag line carries the call's number, its byte count, the
 * publisher's own `read` words as they stood when it published (so a
 * member learns how far the others have read without fetching their
 * `read` lines, flat.c), and up to FM_CRMA_LANE_INLINE bytes of data;
 * larger data (up to FM_CRMA_LANE_MAX) goes in the lane's data area.
 * Pulled flat reductions (crowded nodes) take up to FM_CRMA_FLAT_MAX
 * bytes; the other flat calls, and pushed ones (two members, flat.c), up
 * to the whole lane. */
#define FM_CRMA_FLAT_MAX 1024
#define FM_CRMA_FLAT_LANES 2
#define FM_CRMA_LANE_MAX 4096
#define FM_CRMA_LANE_INLINE 32
#define FM_CRMA_LANE_INLINE_OFF 32 /* 16-byte aligned like any basic type */
typedef struct fm_crma_lane_flag {
    _Alignas(64) _Atomic uint64_t v;     /* number of the call published here */
    uint64_t bytes;                      /* its byte count (the stamp) */
    uint64_t read[FM_CRMA_FLAT_LANES];   /* the publisher's `read` words then */
    unsigned char inl[FM_CRMA_LANE_INLINE];
} fm_crma_lane_flag;
typedef struct fm_crma_flat {
    fm_crma_lane_flag flag;
    fm_crma_word read;  /* seq of the last call on this lane this member has read
                           (written by itself) */
    _Alignas(64) unsigned char data[FM_CRMA_LANE_MAX];
} fm_crma_flat;

/* Scheduled pushed calls (flat.c) of more than 2 KiB run as the blocking
 * pair does (fm_crma_pair: in the cache's ring regions), smaller ones in
 * the lanes.
 * MPI_Iallreduce + MPI_Wait over MPI_Allreduce, 2 ranks bound, 81 rounds
 * alternating the two, median of the rounds' ratios, lanes -> pair:
 * 4 KiB 1.11-1.17 -> 1.08-1.09 (fast machine state), 1.12-1.24 ->
 * 1.02-1.05 (slow); 3 KiB 1.05-1.12 -> 1.06-1.13; 2 KiB 1.14 -> 1.15-1.17;
 * 64 B to 1 KiB 1.10-1.14 -> 1.20-1.28 (taking a ring region costs 185
 * instructions at 4 KiB, callgrind; a lane costs none). */
#define FM_CRMA_PUSH_PAIR_ABOVE 2048

/* Fixed part of the reserved area, at offset 0 of every segment. */
typedef struct fm_crma_reserved {
    _Alignas(64) uint32_t magic;
    uint32_t version;
    uint32_t size;              /* members of the communicator */
    uint32_t pages;             /* data area pages */
    fm_crma_word bar[FM_CRMA_ROUNDS]; /* barrier round k: written by rank - 2^k */
    fm_crma_word done;          /* every call up to it this member has finished
                                   (written by itself; fm_crma_finish) */
    fm_crma_word data[FM_CRMA_FLAGSETS];    /* bcast: this call's data has arrived */
    fm_crma_word slot[FM_CRMA_FLAGSETS][2]; /* reduce: child j's partial result is in
                                               slot j (half) of the call's region */
    fm_crma_flat flat[FM_CRMA_FLAT_LANES];  /* flag and data: written by this member
                                               (pulled) or by the other (pushed) */
} fm_crma_reserved;

_Static_assert(sizeof(fm_crma_word) == 64, "flag words fill one cache line");
_Static_assert(offsetof(fm_crma_word, inl) == FM_CRMA_INLINE_OFF, "inline data is aligned");
_Static_assert(sizeof(fm_crma_lane_flag) == 64, "a lane's flag fills one cache line");
_Static_assert(offsetof(fm_crma_lane_flag, inl) == FM_CRMA_LANE_INLINE_OFF, "lane inline data is aligned");
_Static_assert(offsetof(fm_crma_reserved, bar) == 64, "header fits its own line");

/* Directory: how to reach one member's segment.  Lives in our own segment
 * (the seed's "directory cache"); only this process reads it. */
typedef struct fm_crma_dirent {
    uint64_t raddr;  /* OFI: target address of offset 0 (its virtual address, or 0
                        when the provider lacks FI_MR_VIRT_ADDR); shm: unused */
    uint64_t key;    /* OFI: its memory key (FI_MR_PROV_KEY or ours); shm: unused */
    uint64_t local;  /* shm: where its segment is mapped in this process */
    uint64_t len;    /* bytes of its segment */
} fm_crma_dirent;

struct fm_crma;

/* Ring allocation of one area (identical on every member). */
typedef struct fm_crma_ring {
    size_t off, len;       /* the area's bytes in every segment */
    uint64_t vcur;         /* next free byte, counted since setup */
    /* Live regions, oldest first: the lap that took each, its bytes
     * [start, end) within the area, and its call. */
    struct { uint64_t lap, start, end, seq; } hist[FM_CRMA_HIST];
    unsigned hhead, hcount;
    uint64_t forced;       /* newest call whose region left hist before being reused */
} fm_crma_ring;

/* How bytes reach a peer's segment.  Every call is made between matching
 * collective calls of all members; none blocks on a peer. */
typedef struct fm_crma_backend {
    const char *name;
    /* Collective over comm: create and register this member's segment of
     * c->seg_len bytes, exchange directory entries (using comm's two-sided
     * collectives), make every member's segment reachable.  Sets c->self
     * and c->dir.  Every member returns the same verdict: FM_OK, or an
     * error after writing why (256 bytes) when any member failed. */
    int (*attach)(struct fm_crma *c, MPI_Comm comm, char *why);
    /* Undo attach (local; peers' segments stay valid for them). */
    void (*detach)(struct fm_crma *c);
    /* Read the flag word at off of peer's segment (acquire). */
    uint64_t (*peek)(struct fm_crma *c, int peer, size_t off);
    /* Address where this process may store into peer's segment at off, or
     * NULL when the bytes must go through put(). */
    void *(*direct)(struct fm_crma *c, int peer, size_t off);
    /* Copy len bytes into peer's segment at off; visible to the peer once a
     * later flag() to that peer is. */
    int (*put)(struct fm_crma *c, int peer, size_t off, const void *src, size_t len);
    /* Store val into the flag word at off of peer's segment, ordered after
     * every earlier put() and flag() to that peer (release): flags to one
     * peer land in the order they were raised, so a flag word never goes
     * back to an older number. */
    int (*flag)(struct fm_crma *c, int peer, size_t off, uint64_t val);
    /* Optional (NULL: nothing to do).  Wait until no earlier put() to peer
     * still reads its source buffer, so the caller may free it. */
    int (*sync)(struct fm_crma *c, int peer);
    /* A backend with traffic of its own to move (completions, incoming
     * writes on providers with manual progress) registers a progress hook
     * (core/progress.h) while attached, so every wait moves it. */
} fm_crma_backend;

extern const fm_crma_backend fm_crma_shm;
/* backend_net.c: one-sided writes and reads through the network
 * transport (net/net_rma.h; over OFI, fi_write / fi_read); its attach
 * fails, and says why, when no transport offers them. */
extern const fm_crma_backend fm_crma_net;

/* select.c's last choice for one kind of call on this communicator.  A
 * program repeats a call with the same size, and working the choice out
 * again cost 110-170 instructions of a 2-member 8 B call (callgrind); the
 * choice depends on nothing else that can change once the cache is set
 * up but the knobs, which MPI_T may write (fm_param_writes). */
#define FM_CRMA_CHOICES 15
typedef struct fm_crma_choice {
    size_t bytes;
    unsigned long param_writes; /* fm_param_writes when made */
    const char *why;            /* NULL: one-sided; else why two-sided */
    unsigned char set, flat;
} fm_crma_choice;

/* Process-local state of one communicator's cache (comm->coll_rma). */
typedef struct fm_crma {
    const fm_crma_backend *be;
    int rank, size;
    uint64_t seq;          /* number of the last one-sided call; same on all members */
    uint64_t flat_calls;   /* flat calls so far (flat.c picks its lane from it) */
    uint64_t flat_prev[FM_CRMA_FLAT_LANES]; /* seq of the last flat call on each lane */
    unsigned flat_nb;      /* bit 0: the last flat call was a scheduled one, bit 1: the
                              one before */
    int flat_push;         /* flat calls push (two members, node not crowded: flat.c) */
    int disabled;          /* setup failed on some member: two-sided from now on */
    fm_crma_ring ring[2];  /* the data area, and the large area (len 0: none) */
    size_t reduce_piece;   /* reduces larger than it go in pieces (fm_crma_reduce_piece) */
    uint64_t done;         /* our `done` word: every call up to it has finished */
    uint64_t *ahead;       /* calls past done+1 finished already (scheduled calls end
                              in any order): bit seq % ahead_bits; NULL until one does */
    uint64_t ahead_bits, nahead;
    uint64_t *known_done;  /* [size] last `done` seen of each member: peek only when stale */
    uint64_t *known_read;  /* [size * FM_CRMA_FLAT_LANES] last flat `read` words seen */
    size_t dir_off;        /* offsets in every segment */
    size_t taken_len;      /* leading bytes allocated and touched at setup */
    size_t seg_len;
    unsigned char *self;   /* our own segment */
    fm_crma_dirent *dir;   /* [size], inside our segment */
    void *be_state;        /* the backend's own (OFI: registration, ops in flight) */
    MPI_Comm comm;
    fm_crma_choice choice[FM_CRMA_CHOICES]; /* select.c's, by kind; never set when disabled */
} fm_crma;

static inline fm_crma_reserved *fm_crma_res(const fm_crma *c)
{
    return (fm_crma_reserved *)(void *)c->self;
}
/* Member peer's byte `off`, in this process, when its segment is mapped
 * here (the shm backend maps every member's: fm_crma_dirent.local), else
 * NULL.  Flags and small data go through it as plain stores, without the
 * backend's indirect calls: a 2-member 8 B MPI_Allreduce made four of
 * them (123 of its instructions, callgrind). */
static inline void *fm_crma_mapped(const fm_crma *c, int peer, size_t off)
{
    const uint64_t base = c->dir[peer].local;
    return base ? (unsigned char *)(uintptr_t)base + off : NULL;
}
/* Member peer's flag word at off (acquire): a load where it is mapped. */
static inline uint64_t fm_crma_peek(fm_crma *c, int peer, size_t off)
{
    const fm_crma_word *w = fm_crma_mapped(c, peer, off);
    return w ? atomic_load_explicit(&w->v, memory_order_acquire) : c->be->peek(c, peer, off);
}
/* A backend has our own segment at c->self (zeroed): stamp its reserved
 * header (magic, version, size, pages) and point c->dir into it. */
void fm_crma_stamp(fm_crma *c);
#define FM_CRMA_OFF_BAR(k) (offsetof(fm_crma_reserved, bar) + (size_t)(k) * sizeof(fm_crma_word))
#define FM_CRMA_OFF_DONE offsetof(fm_crma_reserved, done)
#define FM_CRMA_OFF_DATA(l) (offsetof(fm_crma_reserved, data) + (size_t)(l) * sizeof(fm_crma_word))
#define FM_CRMA_OFF_FLAT(l) (offsetof(fm_crma_reserved, flat) + (size_t)(l) * sizeof(fm_crma_flat))
#define FM_CRMA_OFF_SLOT(l, j) \
    (offsetof(fm_crma_reserved, slot) + ((size_t)(l) * 2 + (size_t)(j)) * sizeof(fm_crma_word))

/* Where one call's data goes in every member's data area. */
typedef struct fm_crma_region {
    int lane;          /* flag set: seq % FM_CRMA_FLAGSETS */
    int inl;           /* data travels inline in the flag lines; off/len unused */
    size_t off, len;   /* byte range in every segment */
    uint64_t after;    /* a member's area is free once its `done` reaches this */
} fm_crma_region;

/* Byte offset of slot j (0 or 1) of a call's region: inline in its flag
 * line, or half j of the region (cache-line aligned). */
static inline size_t fm_crma_slot_off(const fm_crma_region *r, int j)
{
    if (r->inl)
        return FM_CRMA_OFF_SLOT(r->lane, j) + FM_CRMA_INLINE_OFF;
    return r->off + (size_t)j * (r->len / 2 / 64 * 64);
}
/* Pick the region for call seq needing `need` bytes (at most
 * fm_crma_area_max), or none when `inl` (the data fits in the flag lines),
 * and record its use; every member picks alike. */
fm_crma_region fm_crma_take(fm_crma *c, uint64_t seq, size_t need, int inl);
/* 1 once peer has finished every call up to `after` (its area is free):
 * from what we last saw of its `done`, else by looking again. */
static inline int fm_crma_peer_done(fm_crma *c, int peer, uint64_t after)
{
    return c->known_done[peer] >= after ||
           (c->known_done[peer] = fm_crma_peek(c, peer, FM_CRMA_OFF_DONE)) >= after;
}
/* Wait until it has. */
void fm_crma_wait_peer(fm_crma *c, int peer, uint64_t after);
/* This member finished call seq.  `done` is a watermark: a nonblocking
 * call may still be reading its region while blocking calls started after
 * it finish, and a peer takes `done` >= n to mean that every call up to n
 * is over.  Calls finishing out of that order wait in c->ahead (cache.c);
 * in order, the only cost is the test. */
void fm_crma_finish_late(fm_crma *c, uint64_t seq);
static inline void fm_crma_finish(fm_crma *c, uint64_t seq)
{
    if (__builtin_expect(seq != c->done + 1 || c->nahead, 0)) {
        fm_crma_finish_late(c, seq);
        return;
    }
    c->done = seq;
    fm_crma_word *w = (fm_crma_word *)(void *)(c->self + FM_CRMA_OFF_DONE);
    atomic_store_explicit(&w->v, seq, memory_order_release);
}

/* The largest area comm's cache has or will have (the same on every
 * member): bcasts up to it, reduces up to half of it run one-sided. */
size_t fm_crma_area_max(MPI_Comm comm);

/* 1 when every member of comm is this process or reached through shared
 * memory (then the shm backend maps every segment; else the OFI backend
 * writes into them).  The same on every member: node locality is mutual. */
int fm_crma_all_shm(MPI_Comm comm);

/* The communicator's cache, set up on first use (collective: every member
 * must call it at the same collective).  NULL when setup failed anywhere
 * (then it never retries). */
fm_crma *fm_crma_get(MPI_Comm comm);
/* Free comm's cache if it has one (local). */
void fm_crma_release(MPI_Comm comm);

/* ---- moving data and flags (cache.c) ----------------------------------- */
/* Wait until our own flag word at off reaches seq (acquire), making
 * progress on the two-sided engine and backing off meanwhile. */
void fm_crma_wait(fm_crma *c, size_t off, uint64_t seq);
/* Non-blocking: 1 when our own flag word at off has reached seq. */
static inline int fm_crma_test(const fm_crma *c, size_t off, uint64_t seq)
{
    const fm_crma_word *w = (const fm_crma_word *)(const void *)(c->self + off);
    return atomic_load_explicit(&w->v, memory_order_acquire) >= seq;
}
static inline int fm_crma_signal(fm_crma *c, int peer, size_t off, uint64_t seq)
{
    fm_crma_word *w = fm_crma_mapped(c, peer, off);
    if (!w)
        return c->be->flag(c, peer, off, seq);
    atomic_store_explicit(&w->v, seq, memory_order_release);
    return FM_OK;
}
/* Stamps: a writer of a data or slot flag first stores, in the word after
 * the flag (fm_crma_word.pad), the byte count it wrote and where —
 * fm_crma_call_stamp(bytes, region) — or FM_CRMA_STAMP_ERR when it failed and
 * wrote nothing.  The reader compares it with its own: in a correct
 * program they are equal (matching type signatures, same ring), so a
 * difference means a peer passed another count, failed, or the ring went
 * apart after such an error.  The same outcome as the two-sided path
 * (coll/coll_call.h): more bytes than ours is FM_ERR_TRUNCATE, anything
 * else FM_ERR_COLL_PEER, and the reader passes FM_CRMA_STAMP_ERR on, so
 * every member depending on the failed one returns an error instead of
 * waiting or reading bytes that are not there.  Data areas are at most
 * 65536 pages (param.h), so byte counts and offsets fit 32 bits each. */
#define FM_CRMA_STAMP_ERR UINT64_MAX
static inline uint64_t fm_crma_call_stamp(size_t bytes, const fm_crma_region *r)
{
    return (uint64_t)bytes << 32 | (r->inl ? 0xfffffffeu : (uint32_t)r->off);
}
/* Store stamp after flag word `off` of peer's segment, then raise the flag. */
int fm_crma_signal_stamped_put(fm_crma *c, int peer, size_t off, uint64_t seq, uint64_t stamp);
static inline int fm_crma_signal_stamped(fm_crma *c, int peer, size_t off, uint64_t seq,
                                         uint64_t stamp)
{
    fm_crma_word *w = fm_crma_mapped(c, peer, off);
    if (!w)
        return fm_crma_signal_stamped_put(c, peer, off, seq, stamp);
    w->pad = stamp; /* ordered before the flag by its release store */
    atomic_store_explicit(&w->v, seq, memory_order_release);
    return FM_OK;
}
/* FM_OK when the stamp on our own flag word `off` (already seen raised) is
 * `want`, else the error it means. */
int fm_crma_check_stamp(const fm_crma *c, size_t off, uint64_t want);

/* After the last read of [off, off + len) of our own segment in a call
 * (whole cache lines of a region, not the flag lines), store into each of
 * its lines.  A peer's next write into lines this process only read (held
 * shared in both caches) costs it far more than into lines this process
 * wrote last: here a 32 KiB write took 5.3 us against 2.0 (two processes
 * on the two cores, 128 KiB of rotating areas; /proc/cpuinfo: AMD EPYC).
 * The shm rings get the same from clearing consumed records. */
void fm_crma_claim(fm_crma *c, size_t off, size_t len);

/* Pack (buf, count, dt) into peer's segment at off: fm_crma_write takes
 * a contiguous type into a mapped segment inline, fm_crma_write_general
 * every case. */
int fm_crma_write_general(fm_crma *c, int peer, size_t off, const void *buf, MPI_Count count,
                         MPI_Datatype dt);
static inline int fm_crma_write(fm_crma *c, int peer, size_t off, const void *buf,
                                MPI_Count count, MPI_Datatype dt)
{
    void *d = fm_crma_mapped(c, peer, off);
    if (!d || !fm_dt_is_contig(dt))
        return fm_crma_write_general(c, peer, off, buf, count, dt);
    fm_copy(d, (const char *)buf + dt->true_lb, (size_t)count * (size_t)dt->size);
    return FM_OK;
}
/* Copy len bytes of our own segment at src_off to peer's segment at off. */
int fm_crma_forward(fm_crma *c, int peer, size_t off, size_t src_off, size_t len);

/* ---- algorithms (barrier_bcast.c, reduce.c) ----------------------------- */
int fm_crma_barrier(fm_crma *c);
/* err: this member's error so far (allreduce's reduce step); the root
 * passes it down as FM_CRMA_STAMP_ERR instead of data.  Returns the first
 * error. */
int fm_crma_bcast(fm_crma *c, void *buf, MPI_Count count, MPI_Datatype dt, int root, int err);
/* rbuf significant at root only; sbuf may be MPI_IN_PLACE at root.  A
 * vector larger than fm_crma_reduce_piece runs in pieces of it (reduce.c). */
int fm_crma_reduce(fm_crma *c, const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                   MPI_Op op, int root);
/* The reduce's pieces: FM_CRMA_REDUCE_PIECE bytes, or less where the
 * largest area (`area` bytes) would not hold four, two regions of two
 * slots (one piece written while the other is folded).  Elements larger
 * than a piece are not split.  osu_reduce, 2 ranks bound, 3 alternated
 * rounds, medians, us, pieces of 16 / 32 / 64 / 128 KiB against the whole
 * vector: 256 KiB 17.5 / 15.4 / 12.2 / 12.3 against 13.1, 512 KiB 34.9 /
 * 29.5 / 22.6 / 21.7 against 28-31, 1 MiB (two-sided before: it did not
 * fit half the large area) 72.2 / 62.7 / 44.6 / 42.9 against 87-88, Open
 * MPI 85. */
#define FM_CRMA_REDUCE_PIECE 65536
#define FM_CRMA_REDUCE_PIECE_MIN 1024 /* a quarter of one page's area */
static inline size_t fm_crma_reduce_piece(size_t area)
{
    const size_t most = area / 4 / 64 * 64;
    return most < FM_CRMA_REDUCE_PIECE ? most : FM_CRMA_REDUCE_PIECE;
}
/* The piece a reduce of `bytes` in elements of `unit` bytes runs in, or 0
 * when it runs whole. */
static inline size_t fm_crma_reduce_split(size_t area, size_t bytes, size_t unit)
{
    const size_t piece = fm_crma_reduce_piece(area);
    return bytes > piece && unit <= piece ? piece : 0;
}
/* Two members: each writes `out` (out_count elements: what the other needs
 * of its vector) into the other's slot (its own rank's) and folds what the
 * other wrote with `mine` (count elements) into rbuf, member 0's operand on
 * the left, so both compute the same bytes: one crossing between the
 * processes where reduce + bcast make two.  Allreduce passes its vector as
 * both; reduce_scatter the other's block and its own.  mine may be rbuf
 * (in place) only when it is also out. */
int fm_crma_pair(fm_crma *c, const void *out, MPI_Count out_count, const void *mine,
                 MPI_Count count, void *rbuf, MPI_Datatype dt, MPI_Op op);
/* exchange.c — two members, alltoall(v,w) and allgather(v): each writes
 * `out` (its block
 * for the other) into the other's slot, copies own_from into own_to (none
 * when own_from's buf is NULL: in place) while the other writes, then
 * unpacks the other's block from its own slot into `in`.  In place, out
 * and in may be one buffer: ours leaves before theirs lands.  piece (0:
 * none): blocks larger than it go in two pieces (at most twice it) of a
 * call number each; only where the members map each other's segments. */
int fm_crma_exchange(fm_crma *c, fm_crma_block out, fm_crma_block in, fm_crma_block own_from,
                     fm_crma_block own_to, size_t piece);
/* The same as a step of a nonblocking or persistent call's schedule
 * (count: MPI_T's counter of its kind, bumped at each start); c NULL: the cache is
 * not there yet, so each start chooses, the exchange if it is there by
 * then, else the two-sided steps recorded next (their end told with
 * fm_crma_record_exchange_alt_end).  Returns its state (NULL: no memory,
 * cc failed). */
struct fm_coll_call;
void *fm_crma_record_exchange(struct fm_coll_call *cc, fm_crma *c, fm_crma_block out,
                              fm_crma_block in, fm_crma_block own_from, fm_crma_block own_to,
                              size_t piece, unsigned long long *count);
void fm_crma_record_exchange_alt_end(struct fm_coll_call *cc, void *x, int first_alt);
/* The same in steps, for a schedule to poll (flat.c) and for fm_crma_pair:
 * begin takes the call's number and region (at the call, in call order);
 * publish is 0 until the other member has finished the calls that used
 * its slot before, then writes and raises its flag; once the other's flag
 * (fm_crma_pair_flag) reaches seq, end folds, finishes the call and
 * returns its outcome. */
typedef struct fm_crma_pair_call {
    const void *out, *mine;
    MPI_Count out_count, count;
    void *rbuf;
    MPI_Datatype dt;
    MPI_Op op;
    uint64_t seq;
    fm_crma_region r;
    int rc;       /* publishing's outcome */
} fm_crma_pair_call;
void fm_crma_pair_begin(fm_crma *c, fm_crma_pair_call *p);
int fm_crma_pair_publish(fm_crma *c, fm_crma_pair_call *p);
static inline size_t fm_crma_pair_flag(const fm_crma *c, const fm_crma_pair_call *p)
{
    return FM_CRMA_OFF_SLOT(p->r.lane, 1 - c->rank);
}
int fm_crma_pair_end(fm_crma *c, fm_crma_pair_call *p);
/* flat.c, shm backend only: one round of flags, every member reads all.
 * Allreduce needs a contiguous dt of at most FM_CRMA_FLAT_MAX bytes. */
int fm_crma_barrier_flat(fm_crma *c);
/* Reduce: the root waits and folds, the others publish and leave; the
 * same limits as allreduce. */
int fm_crma_reduce_flat(fm_crma *c, const void *sbuf, void *rbuf, MPI_Count count,
                        MPI_Datatype dt, MPI_Op op, int root);
int fm_crma_allreduce_flat(fm_crma *c, const void *sbuf, void *rbuf, MPI_Count count,
                           MPI_Datatype dt, MPI_Op op);
/* Bcast: the root publishes and leaves, the others copy out of its lane;
 * up to FM_CRMA_LANE_MAX bytes in any layout (packed into the lane). */
int fm_crma_bcast_flat(fm_crma *c, void *buf, MPI_Count count, MPI_Datatype dt, int root);
/* Alltoall, pulled only: size blocks of the send buffer in each lane, so
 * at most FM_CRMA_LANE_MAX bytes in all, in any layout. */
int fm_crma_alltoall_flat(fm_crma *c, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                          void *rbuf, MPI_Count rcount, MPI_Datatype rdt);
/* Allgather (rcounts and displs none) and allgatherv, pulled only, blocks
 * of at most FM_CRMA_LANE_MAX bytes in any layout (packed into the lanes). */
int fm_crma_allgather_flat(fm_crma *c, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                           void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Count rcount,
                           MPI_Datatype rdt);

/* The same as steps of a nonblocking or persistent collective's schedule
 * (coll/sched.h); each start takes the next call number, so every member
 * must record them at the same collective (the choice is the caller's,
 * select.c).  op MPI_OP_NULL: a barrier.  c NULL: the cache is not there
 * yet, so each start chooses — flat if it is there by then, else the
 * two-sided steps the caller records next, from step first_alt, telling
 * their end with fm_crma_record_flat_alt_end.  Returns the flat call's
 * state (NULL: no memory, cc failed). */
struct fm_coll_call;
void *fm_crma_record_flat(struct fm_coll_call *cc, fm_crma *c, const void *sbuf, void *rbuf,
                          MPI_Count count, MPI_Datatype dt, MPI_Op op);
void fm_crma_record_flat_alt_end(struct fm_coll_call *cc, void *flat, int first_alt);

#endif
