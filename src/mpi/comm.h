/* comm.h — what the MPI layer adds to communicators (src/core/comm.h):
 * attribute caching, the collective agreement on a new context id, and
 * shutting the predefined communicators down. */
#ifndef FM_MPI_COMM_H
#define FM_MPI_COMM_H

#include "coll/coll_call.h"
#include "core/comm.h"

/* Set up MPI_COMM_WORLD / MPI_COMM_SELF after the transports are up, and
 * register the MPI layer's per-communicator clean-up. */
int fm_comm_init(int world_rank, int world_size);
void fm_comm_finalize(void);

/* Agree on a fresh context id among all members of comm (one collective
 * round over comm). */
int fm_ctx_alloc(MPI_Comm comm, uint32_t *ctx);
/* The same agreement recorded into a schedule (cc->sched set, on
 * cc->comm), for MPI_Comm_idup: when it ends, done(cc, ctx, arg) runs from
 * the schedule — with cc->rc set and ctx 0 if it failed.  It keeps the
 * window of ids it is agreeing on reserved here meanwhile (core/comm.h),
 * so communicators created in between cannot make the members disagree. */
typedef void fm_ctx_done_fn(fm_coll_call *cc, uint32_t ctx, void *arg);
/* Whose turn it is to reserve ids among the agreements of one kind in
 * flight here (ctx.c says why): enter when one starts (tag: its schedule's,
 * -1 for a blocking agreement), leave when it ends.
 * fm_ctx_turn_window fills reserved[0..n) (reserved if it is this one's
 * turn, else zeros) and win[0..n] (the same, plus a took-part word) for
 * the members' AND; fm_ctx_turn_pick gives back the window, keeping the
 * lowest id free at all if all took part (ok: no error so far), and says
 * whether all may move to the next window. */
struct fm_ctx_turn {
    uint32_t ctx;
    int tag;
    struct fm_ctx_turn *next;
};
/* The windows an agreement walks, of FM_CTX_WINDOW_WORDS words each:
 * blocking agreements (nonblocking 0) the even ones first, nonblocking ones
 * the odd ones, each from the window holding word `start` (ctx.c says
 * why).  fm_ctx_next_window gives the next one of the same kind, then the
 * other kind's (*pass, 0 at the start, becomes 1), then FM_CTX_ID_WORDS:
 * none left. */
#define FM_CTX_WINDOW_WORDS 16
uint64_t fm_ctx_first_window(uint64_t start, int nonblocking);
uint64_t fm_ctx_next_window(uint64_t start, uint64_t w0, int nonblocking, int *pass);
/* A reserved window after the members' AND (win): keep the lowest id
 * both in win and in `reserved` (if ok), give the rest back; the id or -1. */
int fm_ctx_window_take(uint64_t w0, const uint64_t *win, const uint64_t *reserved, int n,
                       int ok);
void fm_ctx_turn_enter(struct fm_ctx_turn *t, MPI_Comm comm, int tag);
void fm_ctx_turn_leave(struct fm_ctx_turn *t);
int fm_ctx_turn_mine(const struct fm_ctx_turn *t);
void fm_ctx_turn_window(const struct fm_ctx_turn *t, uint64_t w0, uint64_t *reserved,
                        uint64_t *win, int n);
int fm_ctx_turn_pick(uint64_t w0, const uint64_t *reserved, const uint64_t *win, int n,
                     int ok, int *advance);
int fm_ctx_alloc_sched(fm_coll_call *cc, fm_ctx_done_fn *done, void *arg);
/* Like fm_ctx_alloc, but agreed only among the members of `group` (a
 * subset of comm's group that includes this process), by point-to-point on
 * comm's collective context with tags FM_TAG_CTX_AGREE | (tag & FM_TAG_CTX_MASK).
 * For MPI_Comm_create_group. */
int fm_ctx_alloc_group(MPI_Comm comm, struct fm_group *group, int tag, uint32_t *ctx);
/* Raise an fm_ctx_alloc* failure on comm, naming the context-id limit when
 * ids ran out. */
int fm_ctx_raise(MPI_Comm comm, const char *call, int rc);
#define FM_TAG_CTX_AGREE 0x7f000000
#define FM_TAG_CTX_MASK 0x00ffffff
/* Duplicate intercommunicator ic (same groups, a new context agreed by
 * both, a new local intracommunicator); attributes are the caller's. */
int fm_intercomm_dup(MPI_Comm ic, MPI_Comm *out);
/* The same recorded into a schedule on ic (cc->comm, MPI_Comm_idup): when
 * it ends, done(cc, newcomm, arg) runs, newcomm MPI_COMM_NULL and cc->rc
 * set if it failed. */
typedef void fm_inter_done_fn(fm_coll_call *cc, MPI_Comm newcomm, void *arg);
int fm_intercomm_dup_sched(fm_coll_call *cc, fm_inter_done_fn *done, void *arg);
/* MPI_Comm_split on an intercommunicator: members of each group with the
 * same color, ordered by key, form an intercommunicator with the other
 * group's members of that color (MPI_COMM_NULL if either side is empty). */
int fm_intercomm_split(MPI_Comm ic, int color, int key, MPI_Comm *newcomm);
/* MPI_Comm_split after its argument checks (also MPI_Cart_sub's path).
 * Errors are raised on comm under `call`; returns an MPI error code. */
int fm_comm_split(const char *call, MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
/* Collective over parent: a new communicator of parent's ranks 0..n-1 in
 * that order (n <= parent's size), MPI_COMM_NULL at the other ranks; the
 * error handler is inherited, nothing else (the topology constructors:
 * reorder stays identity).  Errors are raised on parent under `call`. */
int fm_comm_first_ranks(const char *call, MPI_Comm parent, int n, MPI_Comm *newcomm);
/* A private duplicate of comm for the library's own traffic (a window's),
 * with MPI_ERRORS_RETURN: errors there are reported through the owner. */
int fm_comm_dup_private(MPI_Comm comm, MPI_Comm *out);

/* MPI_Comm_dup's work, errors raised on comm as `call`: an agreed context,
 * the attributes copied, and a copy of `hints` (a plain dup passes
 * comm->info) as the new communicator's info.  comm_api.c */
int fm_comm_dup_hinted(const char *call, MPI_Comm comm, MPI_Info hints, MPI_Comm *newcomm);
/* The same, nonblocking (MPI_Comm_idup): *newcomm is set when *request
 * completes; the hints are copied at the call. */
int fm_comm_idup_hinted(const char *call, MPI_Comm comm, MPI_Info hints, MPI_Comm *newcomm,
                        MPI_Request *request);
/* Communicator hints (comm_info.c): comm's info becomes a copy of `hints`
 * (none for MPI_INFO_NULL); FM_OK or FM_ERR_NOMEM.  The destroy hook
 * frees them. */
int fm_comm_info_adopt(MPI_Comm comm, MPI_Info hints);
void fm_comm_info_on_destroy(MPI_Comm comm);

/* Attributes (attr.c): copy on dup (copy callbacks), delete callbacks on
 * free; FM_OK, FM_ERR_NOMEM, or FM_ERR_OTHER when a callback failed. */
int fm_attr_copy_all(MPI_Comm oldcomm, MPI_Comm newcomm);
int fm_attr_delete_all(MPI_Comm comm);
int fm_attr_type_dup(MPI_Datatype oldtype, MPI_Datatype newtype); /* none copied on failure */
int fm_attr_type_free(MPI_Datatype dt);
int fm_attr_win_free(MPI_Win win);
/* MPI_Win_get_attr of a user keyval (win_api.c answers the predefined ones). */
int fm_attr_win_get(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
/* Release the keyval table (MPI_Finalize, after the last communicator). */
void fm_attr_finalize(void);
/* When fm_attr_copy_all / fm_attr_delete_all return FM_ERR_OTHER, a user
 * callback failed: its keyval and returned code. */
int fm_attr_last_failure(int *keyval);
/* Value of the MPI_LASTUSEDCODE attribute (error.c raises it as codes are added). */
extern int fm_attr_lastusedcode;

#endif
