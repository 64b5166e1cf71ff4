/* comm.h — communicators and groups: the objects every layer above the
 * transports works with (a communicator maps its ranks to world ranks and
 * owns two matching contexts), and the context ids they are built on.
 *
 * The MPI layer (src/mpi/) adds what only entry points need: attributes,
 * error-handler calls, and the collective agreement on a new context id. */
#ifndef FM_CORE_COMM_H
#define FM_CORE_COMM_H

#include <mpi.h>
#include <stdint.h>

#include "match/ctx_table.h"

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
    /* Set for a handler the Fortran bindings made (fab_f_errhandler_mark,
     * src/mpi/f2c.h): fn is then a Fortran procedure, which only this
     * trampoline calls, with the MPI_Comm or MPI_Win at handle; NULL (a
     * handler from C) costs C programs nothing. */
    void (*fortran)(void (*fn)(void), void *handle, int *code);
};

struct fm_attr; /* per-communicator attribute list entry (src/mpi/attr.c) */
struct fm_vci;  /* core/vci.h */
struct fm_topo; /* core/topo.h */

struct fm_comm {
    uint32_t magic;
    int refcount;
    int predefined;
    int rank, size;
    uint32_t ctx;               /* point-to-point context id; collectives use ctx + 1 */
    struct fm_vci *vci;         /* whose state its point-to-point traffic uses (core/vci.h);
                                 * its collectives' is fm_vci0 */
    struct fm_group *group;
    const int *world;           /* == group->world: comm rank -> world rank */
    fm_match_queue *mq;         /* matching queue of ctx */
    fm_match_queue *mq_coll;    /* matching queue of ctx + 1 */
    struct fm_errhandler *errh;
    struct fm_attr *attrs;      /* owned by src/mpi/attr.c */
    void *coll_rma;             /* one-sided collectives' cache, set up on first use (src/coll/rma) */
    uint32_t sched_seq;         /* nonblocking/persistent collectives started: their tags (coll/sched.c) */
    /* Ranks in point-to-point calls name members of remote_group when it is
     * set (an intercommunicator: world is then remote_group->world, and
     * local_comm is this side's group as an intracommunicator, for the
     * local steps of collectives); otherwise of group. */
    int remote_size;
    struct fm_group *remote_group;
    struct fm_comm *local_comm;
    struct fm_topo *topo;       /* process topology, or NULL (core/topo.h; shared by dups) */
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Info info;              /* hints kept for MPI_Comm_get_info, or MPI_INFO_NULL
                                 * (owned by src/mpi/comm_info.c) */
};

/* ---- communicators (comm.c) ---------------------------------------------- */
/* Build a communicator over `group` (retained) with context `ctx` (even),
 * matching queues attached, the error handler inherited from `parent` (or
 * MPI_ERRORS_ARE_FATAL if parent is NULL). */
int fm_comm_build(struct fm_group *group, uint32_t ctx, MPI_Comm parent, MPI_Comm *out);
/* An intercommunicator between group `local` (this process's) and
 * `remote` (both retained) on context ctx; local_comm (an intracommunicator
 * over `local`) is handed over.  The error handler comes from parent. */
int fm_comm_build_inter(struct fm_group *local, struct fm_group *remote, uint32_t ctx,
                        MPI_Comm parent, MPI_Comm local_comm, MPI_Comm *out);
static inline int fm_comm_is_inter(MPI_Comm comm) { return comm->remote_group != NULL; }
/* Drop a reference; at zero runs the destroy hooks, then frees group,
 * handler reference, topology and context id (fm_comm_destroy).  Inline: every
 * request holds one. */
void fm_comm_destroy(MPI_Comm comm);
static inline void fm_comm_release(MPI_Comm comm)
{
    if (--comm->refcount <= 0)
        fm_comm_destroy(comm);
}
/* Layers above keep per-communicator state (attributes, the one-sided
 * collectives' cache): each registers, once at init, a hook that
 * fm_comm_destroy calls to free it.  Hooks run in registration order. */
typedef void fm_comm_destroy_hook(MPI_Comm comm);
void fm_comm_on_destroy(fm_comm_destroy_hook *hook);
/* Set up MPI_COMM_WORLD and MPI_COMM_SELF; `usable_ids` context ids (pairs)
 * can be carried by the point-to-point engine. */
int fm_comm_predefined_init(int world_rank, int world_size, int usable_ids);

/* Inline: every MPI call checks its communicator. */
static inline int fm_comm_valid(MPI_Comm comm)
{
    return comm != NULL && comm->magic == FM_MAGIC_COMM;
}
/* A zeroed error handler object (NULL when out of memory); the last
 * fm_comm_errh_release gives it back. */
struct fm_errhandler *fm_errh_new(void);
/* Release the errhandler reference a communicator holds. */
void fm_comm_errh_release(struct fm_errhandler *e);

/* ---- context ids (ctx_ids.c) ---------------------------------------------- */
#define FM_CTX_IDS ((int)(FM_MAX_CONTEXTS / 2))
#define FM_CTX_ID_WORDS (FM_CTX_IDS / 64)
/* Mark every id free except the predefined ones (0: WORLD, 1: SELF) and
 * those >= usable. */
void fm_ctx_ids_init(int usable);
/* Copy the free-id bitmap (FM_CTX_ID_WORDS words) into out. */
void fm_ctx_ids_snapshot(uint64_t *out);
/* Index of the lowest bitmap word with a free id here (FM_CTX_ID_WORDS: none). */
uint64_t fm_ctx_ids_lowest_free_word(void);
/* Copy words [w0, w0+n) of the bitmap (0 past its end) into win. */
void fm_ctx_ids_window(uint64_t w0, uint64_t *win, int n);
/* Take the lowest id set both in avail (words [w0, w0+n)) and here;
 * returns it, or -1 if none. */
int fm_ctx_ids_take_lowest(uint64_t w0, const uint64_t *avail, int n);
/* A nonblocking agreement (MPI_Comm_idup) holds the free ids of words
 * [w0, w0+n) aside while it runs, so other communicators made meanwhile
 * cannot take one of them here and leave the members disagreeing:
 * reserve copies them into win and marks them taken; unreserve gives
 * back `reserved` except `keep` (an id, or -1), which stays taken. */
void fm_ctx_ids_reserve(uint64_t w0, uint64_t *win, int n);
void fm_ctx_ids_unreserve(uint64_t w0, const uint64_t *reserved, int n, int keep);
/* Mark id taken (another member checked it is free everywhere). */
void fm_ctx_ids_take(int id);
/* Give back the id of context ctx and drop its queues. */
void fm_ctx_free(uint32_t ctx);
/* Live context ids held by this process (pairs), for diagnostics. */
int fm_ctx_live(void);

/* ---- groups (group.c) ----------------------------------------------------
 * Internal operations return FM_OK or an FM_ERR_* status.  On an argument
 * error they write into `why` (FM_WHY_LEN bytes, may be NULL) which argument
 * is wrong and its value, so the API layer can raise a precise message.
 * Results that would be empty are &fab_group_empty.  Output parameters are
 * set only on success. */
#define FM_WHY_LEN 192
int fm_group_valid(MPI_Group g);
struct fm_group *fm_group_new(int size, const int *world); /* refcount 1 */
void fm_group_release(struct fm_group *g);
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

#endif
