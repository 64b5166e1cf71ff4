/* rma.h — one-sided communication windows between ranks of one node.
 *
 * Every rank of a window creates one POSIX shm segment
 * `/fabmpi-<JOBID>-w<id>-<rank>` (0600), maps every peer's, and unlinks its
 * own name as soon as all peers have mapped it:
 *
 *   [ fm_rma_ctl (lock words, PSCW counters) | pad to a page ][ data ]
 *
 * Data: Win_allocate puts each rank's memory in its own segment;
 * Win_allocate_shared puts all of it, contiguous in rank order, in the
 * segment of the window's rank 0; Win_create and Win_create_dynamic keep the
 * user's memory where it is and peers reach it with process_vm_readv/writev
 * (CMA), so those segments hold only the control block.
 *
 * Every operation completes before it returns (loads and stores on mapped
 * memory, a finished CMA syscall, or an accumulate the target applied and
 * answered, handoff.c), so flushes are memory fences and the target never
 * has to take part: passive target progresses by construction (a handoff
 * the target does not pick up in time is taken back and done by CMA).
 *
 * Accumulate atomicity: every accumulate, Get_accumulate, Fetch_and_op and
 * Compare_and_swap on a window reached by load/store or CMA runs under the
 * target rank's stripe locks (fm_rma_ctl.acc) covering the bytes it
 * touches, and applies the op with the vectorized reduction kernels
 * (fm_op_apply).  One path for every size keeps them atomic with respect to
 * each other: a small op and a large one on overlapping bytes share a
 * stripe.  Per-element C11 atomics were the old path for basic types; they
 * cannot be mixed with a locked bulk update (the update's plain read-modify-
 * write would lose the atomic's result), and one uncontended lock costs
 * about as much as one atomic, so a single-element op loses little while a
 * 64 KiB one runs at memory speed instead of ~3 ns per element.  Stripes
 * (FM_RMA_STRIPES of 2^FM_RMA_STRIPE_SHIFT bytes, by offset in the target's
 * window, modulo) let origins working on disjoint parts of one target run
 * in parallel; an op takes its stripes in ascending order, so two ops
 * never deadlock.  Arguments are checked by the API
 * layer (src/mpi/win_*.c); functions here return FM_OK or FM_ERR_*. */
#ifndef FM_RMA_RMA_H
#define FM_RMA_RMA_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "am/region.h"

#define FM_MAGIC_WIN 0x57494e44u

/* Passive-target lock word: number of shared holders, or this bit alone
 * while one exclusive holder has it. */
#define FM_RMA_LOCK_EXCL ((int64_t)1 << 40)

/* Accumulate stripes: bytes [k * 2^SHIFT, (k+1) * 2^SHIFT) of a rank's
 * window memory belong to stripe k mod STRIPES (the mask fits a uint32_t). */
#define FM_RMA_STRIPES 16
#define FM_RMA_STRIPE_SHIFT 14

/* Control block at offset 0 of each rank's window segment.  Words that
 * different ranks hammer sit on separate cache lines. */
typedef struct fm_rma_ctl {
    _Atomic int64_t lock;       /* Win_lock / lock_all on this rank */
    char pad0[56];
    struct {
        _Atomic uint32_t w;     /* held around every accumulate touching the stripe */
        char pad[60];
    } acc[FM_RMA_STRIPES];
    _Atomic uint32_t completes; /* PSCW: access epochs origins completed to us */
    char pad2[60];
    _Atomic uint32_t posted[];  /* PSCW: [t] exposure epochs rank t opened to us */
    /* then, on a line of their own, claim words [t] (fm_rma_claims) */
} fm_rma_ctl;

/* Handed-off operations (handoff.c): this rank's claim word for target t
 * of a window of `size` ranks, after posted[].  FM_RMA_CTL_BYTES: the
 * control block with both arrays. */
#define FM_RMA_CLAIMS_OFF(size) \
    ((offsetof(fm_rma_ctl, posted) + (size_t)(size) * sizeof(uint32_t) + 63) / 64 * 64)
#define FM_RMA_CTL_BYTES(size) (FM_RMA_CLAIMS_OFF(size) + (size_t)(size) * sizeof(uint64_t))
static inline _Atomic uint64_t *fm_rma_claims(fm_rma_ctl *c, int size)
{
    return (_Atomic uint64_t *)((char *)c + FM_RMA_CLAIMS_OFF(size));
}

/* One rank of the window, as seen from here. */
typedef struct fm_rma_peer {
    uintptr_t base;  /* direct: its window memory mapped here; else its address there */
    MPI_Aint size;
    int disp_unit;
    int direct;      /* 1: load/store at base; 0: CMA into process pid */
    int pid;
    fm_rma_ctl *ctl; /* its control block, mapped here */
    void *map;       /* its segment mapping (NULL when none of ours) */
    size_t map_len;
    /* Peers reached over the network (remote.c): nothing mapped, ctl NULL. */
    int remote;      /* 1: every operation goes over the network transport */
    int rma;         /* 1: one-sided writes/reads into its registered memory; 0: active messages */
    int world;       /* its world rank */
    uint64_t key;    /* its registration's key */
    uint64_t raddr;  /* remote address of its displacement 0 (address or 0 for offsets) */
} fm_rma_peer;

/* Memory attached to a dynamic window (local bookkeeping for Win_detach). */
typedef struct fm_rma_region {
    void *base;
    MPI_Aint size;
    struct fm_rma_region *next;
} fm_rma_region;

enum { FM_RMA_HELD_NONE = 0, FM_RMA_HELD_SHARED, FM_RMA_HELD_EXCL, FM_RMA_HELD_NOCHECK };

struct fm_errhandler;

struct fm_attr;

struct fm_win {
    uint32_t magic;
    int flavor;                /* MPI_WIN_FLAVOR_* */
    int rank, size;            /* in the window's group */
    MPI_Comm comm;             /* private duplicate; its handler returns errors */
    fm_rma_peer *peer;         /* [size] */
    void *base;                /* this rank's window memory */
    MPI_Aint win_size;
    int disp_unit;
    struct fm_errhandler *errh;
    MPI_Info info;             /* hints as given (dup), or MPI_INFO_NULL */
    /* Access epochs, for the RMA calls' check: 1 a fence's (one without
     * MPI_MODE_NOSUCCEED), 2 lock_all's, both reaching every rank; reach[t]
     * 1 when a lock or the Win_start group opens one to rank t.  They
     * repeat lock_all, held[] and access[] so that the load/store fast
     * path reads one word and one byte (3 instructions a put; the fields
     * themselves took 13). */
    int epoch_all;
    uint8_t *reach;            /* [size] */
    /* passive target */
    uint8_t *held;             /* [size] FM_RMA_HELD_* taken by Win_lock */
    int lock_all;              /* 1: Win_lock_all epoch (2: with MPI_MODE_NOCHECK) */
    /* PSCW */
    int *access;               /* comm ranks of the Win_start group */
    int naccess;               /* -1: no access epoch */
    int nexpose;               /* origins in the Win_post group; -1: no exposure epoch */
    uint32_t *post_seen;       /* [size] posts from each target consumed by Win_start */
    uint32_t complete_seen;    /* completions consumed by Win_wait/test */
    fm_rma_region *regions;
    char name[MPI_MAX_OBJECT_NAME];
    struct fm_rma_remote *rm;  /* OFI peers' bookkeeping (remote.c), or NULL */
    uint64_t hw_kinds;         /* basic kinds accumulated by provider atomics (bit = kind) */
    unsigned acc_order;        /* FM_RMA_ORDER_* the accumulate_ordering hint asks for */
    int shared_noncontig;      /* allocate_shared with alloc_shared_noncontig=true */
    struct fm_attr *attrs;     /* cached attributes, owned by src/mpi/attr.c */
    struct fm_rma_handoff *ho; /* handoff.c's state, or NULL: nothing is handed off */
};

/* The window info key accumulate_ordering (MPI default "rar,raw,war,waw"):
 * which orderings of accumulates from one origin to one target location
 * are kept.  Only provider atomics can reorder (remote.c); shared memory
 * and active messages apply in issue order anyway. */
#define FM_RMA_ORDER_RAR 1u
#define FM_RMA_ORDER_RAW 2u
#define FM_RMA_ORDER_WAR 4u
#define FM_RMA_ORDER_WAW 8u
#define FM_RMA_ORDER_ALL 15u
/* Parse a value ("none", or a comma list of rar, raw, war, waw); 0 with
 * *out unchanged when it is not one. */
int fm_rma_parse_order(const char *value, unsigned *out);

static inline int fm_win_valid(MPI_Win w) { return w && w->magic == FM_MAGIC_WIN; }

/* ---- creation (win_setup.c) --------------------------------------------- */
/* The info hints window setup acts on. */
struct fm_win_hints {
    unsigned acc_order;   /* FM_RMA_ORDER_* from accumulate_ordering */
    int shared_noncontig; /* alloc_shared_noncontig=true (allocate_shared only) */
};
/* Collective over dup, a private duplicate of the user's communicator
 * (fm_comm_dup_private) that the window owns from here, failure included.
 * base/size/disp_unit: create (user memory) and the
 * sizes of allocate / allocate_shared (base ignored); dynamic: all 0.  On
 * FM_OK *out is the window and w->base this rank's memory
 * (fm_win_segment_base).  Names why in `why` (FM_RMA_WHY bytes) on failure. */
#define FM_RMA_WHY 256
int fm_win_setup(int flavor, void *base, MPI_Aint size, int disp_unit,
                 const struct fm_win_hints *hints, MPI_Comm dup, struct fm_win **out, char *why);
/* The address a program gets for rank's segment (MPI_Win_shared_query, the
 * allocating call's baseptr, MPI_WIN_BASE).  A zero-size segment of a
 * contiguous shared window is where it would start: MPI promises the
 * memory is contiguous across ranks, so programs compute neighbours'
 * addresses from it.  With alloc_shared_noncontig there is no such promise
 * and nothing there to address, so it is NULL. */
static inline void *fm_win_segment_base(const struct fm_win *w, int rank)
{
    const fm_rma_peer *p = &w->peer[rank];
    if (w->shared_noncontig && p->size == 0)
        return NULL;
    return (void *)p->base;
}
/* Unmap and free everything (after the closing barrier). */
void fm_win_teardown(struct fm_win *w);

/* ---- data movement (xfer.c, acc.c) -------------------------------------- */
/* Target location: byte address (in peer terms) of displacement disp. */
static inline uintptr_t fm_rma_target(const struct fm_win *w, int rank, MPI_Aint disp)
{
    const fm_rma_peer *p = &w->peer[rank];
    return p->base + (uintptr_t)(disp * p->disp_unit);
}
int fm_rma_put(struct fm_win *w, const void *obuf, MPI_Count ocount, MPI_Datatype odt, int trank,
               MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype tdt);
int fm_rma_get(struct fm_win *w, void *obuf, MPI_Count ocount, MPI_Datatype odt, int trank,
               MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype tdt);
/* Accumulate (res == NULL) or Get_accumulate (old target contents into
 * res/rcount/rdt).  op MPI_NO_OP ignores the origin. */
int fm_rma_acc(struct fm_win *w, const void *obuf, MPI_Count ocount, MPI_Datatype odt, void *res,
               MPI_Count rcount, MPI_Datatype rdt, int trank, MPI_Aint tdisp, MPI_Count tcount,
               MPI_Datatype tdt, MPI_Op op);
int fm_rma_cas(struct fm_win *w, const void *obuf, const void *cmp, void *res, MPI_Datatype dt,
               int trank, MPI_Aint tdisp);

/* Copy (src, scount, sdt) to (dst, dcount, ddt) in this process. */
void fm_rma_copy(const void *src, MPI_Count scount, MPI_Datatype sdt, void *dst, MPI_Count dcount,
                 MPI_Datatype ddt);
/* Lowest and one-past-highest byte a (count, dt) buffer touches, relative
 * to the buffer pointer. */
void fm_rma_span(MPI_Count count, MPI_Datatype dt, MPI_Aint *lo, MPI_Aint *hi);

/* ---- CMA (cma.c) --------------------------------------------------------- */
/* Move bytes between (lbuf, lcount, ldt) here and (raddr, rcount, rdt) in
 * process pid: write = 1 copies here -> there. */
int fm_rma_cma(int pid, int write, void *lbuf, MPI_Count lcount, MPI_Datatype ldt, uintptr_t raddr,
               MPI_Count rcount, MPI_Datatype rdt);

/* Accumulate into this rank's own memory at t: org and rpk are packed
 * streams of tcount tdt (org NULL for MPI_NO_OP, rpk NULL: no fetch). */
void fm_rma_acc_at(struct fm_win *w, uintptr_t t, const unsigned char *org, unsigned char *rpk,
                   MPI_Count tcount, MPI_Datatype tdt, MPI_Op op);
/* Compare-and-swap of n bytes at t in this rank's own window memory. */
void fm_rma_cas_at(struct fm_win *w, uintptr_t t, const void *val, const void *cmp, void *old,
                   size_t n);

/* ---- accumulates applied by a polling target (handoff.c) ---------------
 * Win_create and dynamic windows keep the target's memory private, so an
 * origin on this node updates it by CMA: a read and a write system call.
 * A small accumulate or compare-and-swap whose target is polling goes to
 * it instead as an active message, applied there under the same stripe
 * locks (fm_rma_acc_at, fm_rma_cas_at), and is taken back and done by CMA
 * when the target does not pick it up in time (FABMPI_RMA_HANDOFF_WAIT):
 * passive target still progresses without the target.  setup: collective, before the window's
 * closing agreement (every rank can take handoffs once any origin may
 * send them); nothing to do for other flavors or with FABMPI_RMA_HANDOFF=0. */
int fm_rma_handoff_setup(struct fm_win *w);
void fm_rma_handoff_teardown(struct fm_win *w);
/* Accumulate (org, rpk packed streams as for fm_rma_acc_at; target
 * address t in the target's terms) by the target: FM_OK when it applied
 * it, FM_ERR_AGAIN when it was not handed off or was taken back (the
 * caller does it by CMA). */
int fm_rma_handoff_acc(struct fm_win *w, int trank, uintptr_t t, const unsigned char *org,
                       unsigned char *rpk, MPI_Count tcount, MPI_Datatype tdt, MPI_Op op);
/* Compare_and_swap the same way (val, cmp, old: dt->size bytes each,
 * true_lb applied; t: the target's address of them). */
int fm_rma_handoff_cas(struct fm_win *w, int trank, uintptr_t t, const void *val,
                       const void *cmp, void *old, MPI_Datatype dt);

/* ---- peers over the network (remote.c, remote_atomic.c; am.c) ----------
 * Put/Get by the transport's one-sided writes and reads (net/net_rma.h;
 * fi_write/fi_read over OFI) when the target registered its memory and the
 * target datatype is contiguous.  Accumulates by transport atomics when the
 * window qualified at creation (fm_rma_hw_*: every rank reaches every other
 * over the network, and the type's every op is validated by the transport); else as
 * active messages, so one path keeps them atomic with the target's own
 * stripe-locked updates.  Everything else goes as an active message too
 * (am.c, on the library's active-message layer), applied by the target
 * with the same code a local origin uses, when the target makes progress
 * in any call.  Every piece but post's and complete's is answered, so
 * completion is counted per target. */
/* Before the setup exchange: make [base, base+len) a region of the
 * active-message layer registered with its one-sided transport (len 0:
 * register nothing) and fill our net card; card->ok = 1 when peers may
 * fi_write. */
void fm_rma_remote_prepare(struct fm_win *w, void *base, size_t len, fm_region_net_card *card);
/* Peer i is reached over OFI: fill its fields from its card. */
void fm_rma_remote_peer(struct fm_win *w, int i, const fm_region_net_card *card);
int fm_rma_remote_setup(struct fm_win *w); /* after every peer is filled */
void fm_rma_remote_teardown(struct fm_win *w);
int fm_rma_remote_put(struct fm_win *w, const void *obuf, MPI_Count ocount, MPI_Datatype odt,
                      int trank, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype tdt);
int fm_rma_remote_get(struct fm_win *w, void *obuf, MPI_Count ocount, MPI_Datatype odt,
                      int trank, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype tdt);
int fm_rma_remote_acc(struct fm_win *w, const void *obuf, MPI_Count ocount, MPI_Datatype odt,
                      void *res, MPI_Count rcount, MPI_Datatype rdt, int trank, MPI_Aint tdisp,
                      MPI_Count tcount, MPI_Datatype tdt, MPI_Op op);
int fm_rma_remote_cas(struct fm_win *w, const void *obuf, const void *cmp, void *res,
                      MPI_Datatype dt, int trank, MPI_Aint tdisp);
/* Provider atomics.  fm_rma_hw_kinds: the kinds this process can do by
 * provider atomics (mask), *why one of FM_RMA_HW_*; fm_rma_hw_self before
 * the setup exchange: our own endpoint, key and address, for accumulates
 * to ourselves (the window then sets w->hw_kinds to what all agreed).  acc/cas: the same contracts as
 * fm_rma_acc/fm_rma_cas, for a kind in w->hw_kinds. */
/* With FM_RMA_HW_QUIRK: why the provider's atomics are not trusted. */
const char *fm_rma_hw_distrust_why(void);
enum { FM_RMA_HW_OK = 0, FM_RMA_HW_KNOB, FM_RMA_HW_PROVIDER, FM_RMA_HW_NODE, FM_RMA_HW_REG,
       FM_RMA_HW_QUIRK };
uint64_t fm_rma_hw_kinds(int *why);
int fm_rma_hw_self(struct fm_win *w, const fm_region_net_card *card);
int fm_rma_hw_acc(struct fm_win *w, const void *obuf, MPI_Count ocount, MPI_Datatype odt,
                  void *res, MPI_Count rcount, MPI_Datatype rdt, int trank, MPI_Aint tdisp,
                  MPI_Count tcount, MPI_Datatype tdt, MPI_Op op);
int fm_rma_hw_cas(struct fm_win *w, const void *obuf, const void *cmp, void *res,
                  MPI_Datatype dt, int trank, MPI_Aint tdisp);
/* Wait until every operation to rank (-1: to all) completed remotely. */
int fm_rma_flush(struct fm_win *w, int rank);
int fm_rma_remote_lock(struct fm_win *w, int exclusive, int rank);
int fm_rma_remote_unlock(struct fm_win *w, int exclusive, int rank);
int fm_rma_remote_post(struct fm_win *w, int origin);
int fm_rma_remote_complete(struct fm_win *w, int target);
/* am.c: windows' active messages, on the library's active-message layer
 * (src/am, internal handlers), both sides.  fm_rma_am_send issues one
 * operation to network peer trank, in pieces; each piece of an answered
 * operation (all but post and complete) counts in w->rm->t[trank].am_out
 * until the target has applied it, which fm_rma_flush waits for. */
enum { FM_RMA_AM_PUT = 1, FM_RMA_AM_GET, FM_RMA_AM_ACC, FM_RMA_AM_CAS, FM_RMA_AM_LOCK,
       FM_RMA_AM_UNLOCK, FM_RMA_AM_POST, FM_RMA_AM_COMPLETE };
#define FM_RMA_AM_FETCH 0x100u /* in aux of an accumulate: answer the old values */
typedef struct fm_rma_am_req {
    int op;              /* FM_RMA_AM_* */
    uint32_t aux;        /* lock, unlock: exclusive; acc: index of the MPI_Op | FETCH */
    MPI_Aint tdisp;
    MPI_Count tcount;    /* of tdt */
    MPI_Datatype tdt;    /* target layout (acc, cas: of its basic kind's elements);
                            NULL for the synchronisation ops */
    const void *data;    /* put, acc, cas: the packed origin stream, else NULL */
    const void *data2;   /* cas: the compare value, travelling beside data */
    void *rbuf;          /* get, fetching acc, cas: answer bytes unpacked here */
    MPI_Count rcount;
    MPI_Datatype rdt;
} fm_rma_am_req;
int fm_rma_am_send(struct fm_win *w, int trank, const fm_rma_am_req *q);
/* Register the handlers (window setup; idempotent): FM_OK or FM_ERR_*. */
int fm_rma_am_init(void);
/* Grant the lock requests queued at w that can be granted now (progress
 * hook: a grant that was not the request's reply is a request itself). */
void fm_rma_am_serve(struct fm_win *w);
MPI_Op fm_rma_am_op(uint32_t index);  /* NULL if out of range */
uint32_t fm_rma_am_op_index(MPI_Op op);
MPI_Datatype fm_rma_kind_dt(int kind); /* predefined datatype of a basic kind */

/* ---- synchronisation (sync.c) ------------------------------------------- */
int fm_rma_try_lock(fm_rma_ctl *c, int exclusive);
/* Stripes of peer p covering its bytes [lo, hi) (addresses as used for p,
 * i.e. from fm_rma_target), as a mask; lock takes them in ascending order. */
uint32_t fm_rma_stripes(const fm_rma_peer *p, uintptr_t lo, uintptr_t hi);
void fm_rma_acc_lock(fm_rma_ctl *c, uint32_t mask);
void fm_rma_acc_unlock(fm_rma_ctl *c, uint32_t mask);
int fm_rma_fence(struct fm_win *w);
void fm_rma_lock(struct fm_win *w, int exclusive, int rank);
void fm_rma_unlock(struct fm_win *w, int exclusive, int rank);
/* PSCW over the control blocks; ranks are the window's. */
void fm_rma_post(struct fm_win *w, const int *origins, int n);
void fm_rma_start(struct fm_win *w, const int *targets, int n);
void fm_rma_complete(struct fm_win *w);
/* wait: block until every origin of the exposure epoch completed; test:
 * the same without blocking, 1 when the epoch ended. */
void fm_rma_wait(struct fm_win *w);
int fm_rma_test(struct fm_win *w);

#endif
