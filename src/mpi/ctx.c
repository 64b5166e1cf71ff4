/* ctx.c — agreeing on a new communicator's context id among its members
 * (the ids free at each process are kept by src/core/ctx_ids.c), and the
 * MPI layer's share of communicator life: setting up and shutting down the
 * predefined communicators, private duplicates for the library's own use.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/rma/coll_rma.h"
#include "coll/sched.h"
#include "core/vci.h"
#include "mpi/api.h"
#include "mpi/type_check.h"
#include "pt2pt/pt2pt.h"

#define NWORDS FM_CTX_ID_WORDS

static uint64_t *snapshot(void)
{
    uint64_t *bits = malloc(FM_CTX_ID_WORDS * sizeof(uint64_t));
    if (bits)
        fm_ctx_ids_snapshot(bits);
    return bits;
}

/* `bits` is the AND over all members: each picks the same lowest id. */
static int finish(uint64_t *bits, uint32_t *ctx)
{
    int id = fm_ctx_ids_take_lowest(0, bits, NWORDS);
    free(bits);
    if (id < 0)
        return FM_ERR_NO_CONTEXT;
    *ctx = (uint32_t)id * 2;
    return FM_OK;
}

/* Ids agreed per round: 1024 (128 bytes of bitmap). */
#define WINDOW_WORDS FM_CTX_WINDOW_WORDS

/* Windows are numbered from 0 (window k: words k * WINDOW_WORDS on).
 * Blocking agreements try the even windows first, nonblocking ones the odd
 * ones, and each kind looks at the other's only when its own are used up.
 * Otherwise an MPI_Comm_idup that reserved window k at one member before
 * it entered MPI_Comm_split, while the split's agreement holds window k at
 * another, empties the split's AND there as the split empties the idup's;
 * both move on to window k + 1 in step, and again, until the ids run out
 * (comm_idup over the provider engine on net).  Giving either kind
 * priority instead would make some correct programs wait forever (a
 * member blocked in a split must still complete the idups others wait
 * for, and the other way round).  Nonblocking agreements among themselves
 * take turns (below). */
uint64_t fm_ctx_first_window(uint64_t start, int odd)
{
    uint64_t k = start / WINDOW_WORDS;
    if ((k & 1) != (uint64_t)odd)
        k++;
    return k * WINDOW_WORDS;
}

uint64_t fm_ctx_next_window(uint64_t start, uint64_t w0, int odd, int *pass)
{
    w0 += 2 * WINDOW_WORDS;
    if (w0 >= NWORDS && *pass == 0) {
        *pass = 1;
        w0 = fm_ctx_first_window(start, !odd);
    }
    return w0 < NWORDS ? w0 : NWORDS;
}

/* The lowest id free at every member in the windows of its kind, found
 * without moving the whole 16 KiB bitmap (over TCP that one message cost a
 * rendezvous per communicator): first agree on the highest of the members'
 * lowest free words — no id below it is free everywhere — then AND windows
 * of WINDOW_WORDS words from there up until one has a common free id.
 * Every member sees the same results, so all walk the same windows and
 * pick the same id. */
int fm_ctx_alloc(MPI_Comm comm, uint32_t *ctx)
{
    if (comm->size == 1) {
        uint64_t *bits = snapshot();
        return bits ? finish(bits, ctx) : FM_ERR_NOMEM;
    }
    uint64_t start = fm_ctx_ids_lowest_free_word();
    int rc = fm_coll_allreduce(MPI_IN_PLACE, &start, 1, MPI_UINT64_T, MPI_MAX, comm);
    /* Other threads' agreements may run while this one waits
     * (MPI_THREAD_MULTIPLE): they take turns as nonblocking ones do. */
    struct fm_ctx_turn turn;
    fm_ctx_turn_enter(&turn, comm, -1);
    int pass = 0, found = -1;
    uint64_t w0 = fm_ctx_first_window(start, 0);
    while (rc == FM_OK && w0 < NWORDS) {
        /* Reserved while the members AND it: an MPI_Comm_idup progressing
         * meanwhile must not take one of these ids here only. */
        uint64_t win[WINDOW_WORDS + 1], mine[WINDOW_WORDS];
        fm_ctx_turn_window(&turn, w0, mine, win, WINDOW_WORDS);
        rc = fm_coll_allreduce(MPI_IN_PLACE, win, WINDOW_WORDS + 1, MPI_UINT64_T, MPI_BAND,
                               comm);
        int advance;
        found = fm_ctx_turn_pick(w0, mine, win, WINDOW_WORDS, rc == FM_OK, &advance);
        if (found >= 0)
            break;
        if (advance) /* every member saw the same AND: all move on */
            w0 = fm_ctx_next_window(start, w0, 0, &pass);
    }
    fm_ctx_turn_leave(&turn);
    if (found >= 0) {
        *ctx = (uint32_t)found * 2;
        return FM_OK;
    }
    return rc != FM_OK ? rc : FM_ERR_NO_CONTEXT;
}

/* Nonblocking agreements in flight at this process, each keyed by its
 * communicator's context and its schedule's tag: the same key at every
 * member.  Only the one with the lowest key may reserve ids; the others
 * offer none and try the same window again.  Without that, two idups whose
 * members start them in different orders (MPICH's comm/idup_with_info)
 * each reserve a window first at some members and find it taken at the
 * others, window after window, until the ids run out.  The lowest key
 * everywhere always gets its window, so every agreement ends (MPICH orders
 * its nonblocking context-id allocations alike). */
/* Blocking agreements (tag -1) take turns among themselves the same way:
 * several are in flight at once only at MPI_THREAD_MULTIPLE, one per
 * thread, each on its own communicator (so the context alone is the key).
 * The two kinds walk different windows and never wait for each other. */
static struct fm_ctx_turn *turns[2]; /* process-wide, as the id bitmap is */

static struct fm_ctx_turn **turn_list(const struct fm_ctx_turn *t)
{
    return &turns[t->tag >= 0];
}

void fm_ctx_turn_enter(struct fm_ctx_turn *t, MPI_Comm comm, int tag)
{
    t->ctx = comm->ctx;
    t->tag = tag;
    t->next = *turn_list(t);
    *turn_list(t) = t;
}

void fm_ctx_turn_leave(struct fm_ctx_turn *t)
{
    for (struct fm_ctx_turn **p = turn_list(t); *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            return;
        }
}

int fm_ctx_turn_mine(const struct fm_ctx_turn *t)
{
    for (const struct fm_ctx_turn *o = *turn_list(t); o; o = o->next)
        if (o->ctx < t->ctx || (o->ctx == t->ctx && o->tag < t->tag))
            return 0;
    return 1;
}

void fm_ctx_turn_window(const struct fm_ctx_turn *t, uint64_t w0, uint64_t *reserved,
                        uint64_t *win, int n)
{
    if (fm_ctx_turn_mine(t)) {
        fm_ctx_ids_reserve(w0, reserved, n);
        win[n] = ~(uint64_t)0;
    } else {
        memset(reserved, 0, sizeof *reserved * (size_t)n);
        win[n] = 0;
    }
    memcpy(win, reserved, sizeof *win * (size_t)n);
}

int fm_ctx_window_take(uint64_t w0, const uint64_t *win, const uint64_t *reserved, int n,
                       int ok)
{
    int id = -1;
    for (int i = 0; ok && id < 0 && i < n; i++)
        if (win[i] & reserved[i])
            id = (int)(w0 + (uint64_t)i) * 64 + __builtin_ctzll(win[i] & reserved[i]);
    fm_ctx_ids_unreserve(w0, reserved, n, id);
    return id;
}

int fm_ctx_turn_pick(uint64_t w0, const uint64_t *reserved, const uint64_t *win, int n,
                     int ok, int *advance)
{
    *advance = ok && win[n] != 0; /* all took part and none was free everywhere */
    return fm_ctx_window_take(w0, win, reserved, n, ok && win[n]);
}

/* The nonblocking agreement: the same rounds as fm_ctx_alloc, each window
 * of ids reserved here while the members AND their copies of it, plus a
 * word that says whether every member took part (fm_ctx_turn_window). */
struct agree {
    uint64_t start, w0;
    int pass; /* fm_ctx_next_window */
    uint64_t win[WINDOW_WORDS + 1], reserved[WINDOW_WORDS];
    struct fm_ctx_turn turn;
    fm_ctx_done_fn *done;
    void *arg;
};

static void agree_window(fm_coll_call *cc, void *arg);

static void agree_end(fm_coll_call *cc, struct agree *a, uint32_t ctx)
{
    fm_ctx_turn_leave(&a->turn);
    a->done(cc, ctx, a->arg);
}

static void agree_pick(fm_coll_call *cc, void *arg)
{
    struct agree *a = arg;
    int advance;
    int id = fm_ctx_turn_pick(a->w0, a->reserved, a->win, WINDOW_WORDS, cc->rc == FM_OK,
                              &advance);
    if (cc->rc != FM_OK || id >= 0) {
        agree_end(cc, a, id >= 0 ? (uint32_t)id * 2 : 0);
        return;
    }
    if (advance) /* every member saw the same AND: all move on */
        a->w0 = fm_ctx_next_window(a->start, a->w0, 1, &a->pass);
    else
        fm_sched_add_yield(cc); /* another agreement's turn: let it run */
    agree_window(cc, a);
}

static void agree_window(fm_coll_call *cc, void *arg)
{
    struct agree *a = arg;
    if (cc->rc == FM_OK && a->w0 >= NWORDS)
        fm_cc_fail(cc, FM_ERR_NO_CONTEXT);
    if (cc->rc != FM_OK) {
        agree_end(cc, a, 0);
        return;
    }
    fm_ctx_turn_window(&a->turn, a->w0, a->reserved, a->win, WINDOW_WORDS);
    fm_cc_allreduce(cc, MPI_IN_PLACE, a->win, WINDOW_WORDS + 1, MPI_UINT64_T, MPI_BAND);
    fm_sched_add_call(cc, agree_pick, a);
}

static void agree_start(fm_coll_call *cc, void *arg)
{
    struct agree *a = arg;
    if (cc->comm->size == 1) { /* nobody to agree with: any id free here */
        uint64_t *bits = snapshot();
        uint32_t ctx = 0;
        if (cc->rc == FM_OK)
            fm_cc_fail(cc, bits ? finish(bits, &ctx) : FM_ERR_NOMEM);
        else
            free(bits);
        a->done(cc, ctx, a->arg);
        return;
    }
    a->w0 = fm_ctx_first_window(a->start, 1);
    fm_ctx_turn_enter(&a->turn, cc->comm, cc->tag);
    agree_window(cc, a);
}

int fm_ctx_alloc_sched(fm_coll_call *cc, fm_ctx_done_fn *done, void *arg)
{
    struct agree *a = fm_sched_alloc(cc, sizeof *a);
    if (!a)
        return FM_ERR_NOMEM;
    a->done = done;
    a->arg = arg;
    a->start = fm_ctx_ids_lowest_free_word();
    fm_cc_allreduce(cc, MPI_IN_PLACE, &a->start, 1, MPI_UINT64_T, MPI_MAX);
    fm_sched_add_call(cc, agree_start, a);
    return FM_OK;
}

/* Binomial-tree AND-reduce of the bitmaps to group rank 0, which picks the
 * id and sends it back down the same tree.  Messages run on comm's
 * collective context with comm ranks, so non-members are not involved. */
int fm_ctx_alloc_group(MPI_Comm comm, struct fm_group *group, int tag, uint32_t *ctx)
{
    int n = group->size, r = group->rank, rc = FM_OK;
    int t = FM_TAG_CTX_AGREE | (tag & FM_TAG_CTX_MASK);
    uint64_t *bits = snapshot();
    uint64_t *tmp = malloc(NWORDS * sizeof(uint64_t));
    if (!bits || !tmp) {
        free(bits);
        free(tmp);
        return FM_ERR_NOMEM;
    }
#define PEER(gr) fm_group_rank_of(comm->group, group->world[gr])
    int mask = 1;
    for (; mask < n; mask <<= 1) {
        if (r & mask) {
            rc = fm_coll_send(bits, NWORDS, MPI_UINT64_T, PEER(r - mask), t, comm);
            break;
        }
        if (r + mask < n) {
            rc = fm_coll_recv(tmp, NWORDS, MPI_UINT64_T, PEER(r + mask), t, comm);
            if (rc != FM_OK)
                break;
            for (int w = 0; w < NWORDS; w++)
                bits[w] &= tmp[w];
        }
    }
    free(tmp);
    /* Root decides: id, or -1 when the members share no free id. */
    int id = -1;
    if (rc == FM_OK && r == 0) {
        id = fm_ctx_ids_take_lowest(0, bits, NWORDS);
    } else if (rc == FM_OK) {
        rc = fm_coll_recv(&id, 1, MPI_INT, PEER(r - mask), t, comm);
    }
    free(bits);
    /* Children of r are r + m for m below r's lowest set bit (all m for 0). */
    for (mask >>= 1; rc == FM_OK && mask > 0; mask >>= 1)
        if (r + mask < n)
            rc = fm_coll_send(&id, 1, MPI_INT, PEER(r + mask), t, comm);
#undef PEER
    if (rc != FM_OK)
        return rc;
    if (id < 0)
        return FM_ERR_NO_CONTEXT;
    if (r != 0) {
        /* The root checked the AND of everyone's bitmaps, so id is free here. */
        fm_ctx_ids_take(id);
    }
    *ctx = (uint32_t)id * 2;
    return FM_OK;
}

int fm_ctx_raise(MPI_Comm comm, const char *call, int rc)
{
    if (rc == FM_ERR_NO_CONTEXT && fm_pt2pt_comm_limit_why())
        return fm_raise(comm, call, MPI_ERR_OTHER, "out of communicator context ids (%d live): %s",
                        fm_ctx_live(), fm_pt2pt_comm_limit_why());
    if (rc == FM_ERR_NO_CONTEXT)
        return fm_raise(comm, call, MPI_ERR_OTHER,
                        "out of communicator context ids (%d live communicators, the most "
                        "fabmpi supports; free some with MPI_Comm_free)",
                        fm_ctx_live());
    return fm_raise_status(comm, call, rc);
}

/* Normally MPI_Comm_free already ran the delete callbacks; this catches a
 * communicator released some other way.  Errors have no one to go to. */
static void attrs_on_destroy(MPI_Comm comm) { fm_attr_delete_all(comm); }

int fm_comm_init(int world_rank, int world_size)
{
    fm_comm_on_destroy(attrs_on_destroy);
    fm_comm_on_destroy(fm_sched_comm_destroyed);
    fm_comm_on_destroy(fm_coll_rma_free);
    fm_comm_on_destroy(fm_comm_info_on_destroy);
    /* Ids the OFI tag's context field cannot carry are never used. */
    return fm_comm_predefined_init(world_rank, world_size, fm_pt2pt_comm_ids());
}

void fm_comm_finalize(void)
{
    /* MPI-3.1 8.7.1: attributes of MPI_COMM_SELF go first, so libraries can
     * hook MPI_Finalize through a delete callback while MPI still works. */
    if (fm_comm_valid(MPI_COMM_SELF)) {
        fm_attr_delete_all(MPI_COMM_SELF);
        fm_comm_release(MPI_COMM_SELF);
    }
    if (fm_comm_valid(MPI_COMM_WORLD)) {
        fm_attr_delete_all(MPI_COMM_WORLD);
        fm_comm_release(MPI_COMM_WORLD);
    }
    fm_type_f90_finalize(); /* their attributes' delete callbacks need the keyvals */
    fm_attr_finalize();
    fm_sched_finalize();
    for (int i = 0; i < FM_VCI_MAX; i++)
        if (fm_vcis[i])
            fm_ctx_table_finalize(&fm_vcis[i]->ctx);
}

int fm_comm_dup_private(MPI_Comm comm, MPI_Comm *out)
{
    uint32_t ctx;
    int rc = fm_ctx_alloc(comm, &ctx);
    if (rc != FM_OK)
        return rc;
    rc = fm_comm_build(comm->group, ctx, NULL, out);
    if (rc != FM_OK) {
        fm_ctx_free(ctx);
        return rc;
    }
    fab_errors_return.refcount++;
    fm_comm_errh_release((*out)->errh);
    (*out)->errh = &fab_errors_return;
    return FM_OK;
}
