/* comm.h — communicators, groups, error handlers, attributes, context ids. */
#ifndef FM_MPI_COMM_H
#define FM_MPI_COMM_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "match/match.h"

#define FM_MAGIC_COMM 0x434f4d4du
#define FM_MAGIC_GROUP 0x47525550u
#define FM_MAGIC_ERRH 0x45525248u

struct fm_group {
    uint32_t magic;
    int refcount;
    int predefined;
    int size;
    int rank;        /* this process's rank in the group, or MPI_UNDEFINED */
    int *world;      /* world rank of each member */
};

enum fm_errh_kind { FM_ERRH_FATAL, FM_ERRH_RETURN, FM_ERRH_USER };
struct fm_errhandler {
    uint32_t magic;
    int refcount;
    int predefined;
    enum fm_errh_kind kind;
    MPI_Comm_errhandler_function *fn;
};

struct fm_attr; /* per-communicator attribute list entry (src/mpi/attr.c) */

struct fm_comm {
    uint32_t magic;
    int refcount;
    int predefined;
    int rank, size;
    uint32_t ctx;               /* point-to-point context id; collectives use ctx + 1 */
    struct fm_group *group;
    const int *world;           /* == group->world: comm rank -> world rank */
    fm_match_queue *mq;         /* matching queue of ctx */
    fm_match_queue *mq_coll;    /* matching queue of ctx + 1 */
    struct fm_errhandler *errh;
    struct fm_attr *attrs;
    void *coll_rma;             /* one-sided collectives' cache, set up on first use (src/coll/rma) */
    char name[MPI_MAX_OBJECT_NAME];
};

/* Context ids: every communicator owns two (ctx even: pt2pt, ctx+1:
 * collectives).  FM_MAX_CONTEXTS / 2 live communicators at most. */
#define FM_MAX_CONTEXTS (1u << 18)

/* Matching queue for context id ctx; created on first use (a message can
 * arrive before this process has built the communicator). */
fm_match_queue *fm_ctx_queue(uint32_t ctx);

/* The queues of the first FM_CTX_DIRECT contexts (the first 512
 * communicators: nearly every program's all) sit in a fixed table, so
 * delivery finds one with a load and a test per message. */
#define FM_CTX_DIRECT 1024u
extern _Atomic(fm_match_queue *) fm_ctx_direct[FM_CTX_DIRECT];

static inline fm_match_queue *fm_ctx_queue_fast(uint32_t ctx)
{
    if (ctx < FM_CTX_DIRECT) {
        fm_match_queue *q = atomic_load_explicit(&fm_ctx_direct[ctx], memory_order_acquire);
        if (q)
            return q;
    }
    return fm_ctx_queue(ctx);
}

/* Build a communicator over `group` (retained) with context `ctx` (even),
 * matching queues attached, MPI_ERRORS_ARE_FATAL inherited from `parent`'s
 * handler (or fatal if parent is NULL). */
int fm_comm_build(struct fm_group *group, uint32_t ctx, MPI_Comm parent, MPI_Comm *out);
/* Drop a reference; frees attributes, group and context id at zero
 * (fm_comm_destroy).  Inline: every request holds one. */
void fm_comm_destroy(MPI_Comm comm);
static inline void fm_comm_release(MPI_Comm comm)
{
    if (--comm->refcount <= 0)
        fm_comm_destroy(comm);
}

/* Agree on a fresh context id among all members of comm (one collective
 * round over comm). */
int fm_ctx_alloc(MPI_Comm comm, uint32_t *ctx);
void fm_ctx_free(uint32_t ctx);

/* Set up MPI_COMM_WORLD / MPI_COMM_SELF after the transports are up. */
int fm_comm_init(int world_rank, int world_size);
void fm_comm_finalize(void);

/* Inline: every MPI call checks its communicator. */
static inline int fm_comm_valid(MPI_Comm comm)
{
    return comm != NULL && comm->magic == FM_MAGIC_COMM;
}
int fm_group_valid(MPI_Group g);
struct fm_group *fm_group_new(int size, const int *world); /* refcount 1 */
void fm_group_release(struct fm_group *g);

/* Attributes: copy on dup (copy callbacks), delete callbacks on free. */
int fm_attr_copy_all(MPI_Comm oldcomm, MPI_Comm newcomm);
int fm_attr_delete_all(MPI_Comm comm);
/* Release the keyval table (MPI_Finalize, after the last communicator). */
void fm_attr_finalize(void);
/* When fm_attr_copy_all / fm_attr_delete_all return FM_ERR_OTHER, a user
 * callback failed: its keyval and returned code. */
int fm_attr_last_failure(int *keyval);
/* Value of the MPI_LASTUSEDCODE attribute (error.c raises it as codes are added). */
extern int fm_attr_lastusedcode;

/* ---- context ids (ctx.c) ------------------------------------------------ */
/* Mark every id free except the predefined ones (0: WORLD, 2: SELF); called
 * by fm_comm_init. */
void fm_ctx_init(void);
/* Drop every matching queue (MPI_Finalize). */
void fm_ctx_finalize(void);
/* Live context ids held by this process (pairs), for diagnostics. */
int fm_ctx_live(void);
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

/* ---- groups (group.c) ----------------------------------------------------
 * Internal operations return FM_OK or an FM_ERR_* status.  On an argument
 * error they write into `why` (FM_WHY_LEN bytes, may be NULL) which argument
 * is wrong and its value, so the API layer can raise a precise message.
 * Results that would be empty are &fm_group_empty.  Output parameters are
 * set only on success. */
#define FM_WHY_LEN 192
/* This process's world rank, so new groups know their own `rank`. */
void fm_group_set_self(int world_rank);
static inline void fm_group_retain(struct fm_group *g) { g->refcount++; }
/* Rank of world rank `wr` in g, or MPI_UNDEFINED. */
int fm_group_rank_of(const struct fm_group *g, int wr);
int fm_group_incl(struct fm_group *g, int n, const int *ranks, struct fm_group **out, char *why);
int fm_group_excl(struct fm_group *g, int n, const int *ranks, struct fm_group **out, char *why);
/* ranges[i] = {first, last, stride}; excl = 0 for Group_range_incl, 1 for _excl. */
int fm_group_range(struct fm_group *g, int n, int ranges[][3], int excl, struct fm_group **out,
                   char *why);
int fm_group_union(struct fm_group *a, struct fm_group *b, struct fm_group **out);
int fm_group_intersection(struct fm_group *a, struct fm_group *b, struct fm_group **out);
int fm_group_difference(struct fm_group *a, struct fm_group *b, struct fm_group **out);
/* MPI_IDENT (same members, same order), MPI_SIMILAR or MPI_UNEQUAL. */
int fm_group_compare(const struct fm_group *a, const struct fm_group *b);
/* ranks2[i] = rank in b of a's ranks1[i]; MPI_UNDEFINED if not a member,
 * MPI_PROC_NULL for MPI_PROC_NULL. */
int fm_group_translate(const struct fm_group *a, int n, const int *ranks1,
                       const struct fm_group *b, int *ranks2, char *why);

/* Release the errhandler reference a communicator holds. */
void fm_comm_errh_release(struct fm_errhandler *e);

#endif
