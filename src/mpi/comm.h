/* comm.h — communicators, groups, error handlers, attributes, context ids. */
#ifndef FM_MPI_COMM_H
#define FM_MPI_COMM_H

#include <mpi.h>
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
    char name[MPI_MAX_OBJECT_NAME];
};

/* Context ids: every communicator owns two (ctx even: pt2pt, ctx+1:
 * collectives).  FM_MAX_CONTEXTS / 2 live communicators at most. */
#define FM_MAX_CONTEXTS (1u << 18)

/* Matching queue for context id ctx; created on first use (a message can
 * arrive before this process has built the communicator). */
fm_match_queue *fm_ctx_queue(uint32_t ctx);

/* Build a communicator over `group` (retained) with context `ctx` (even),
 * matching queues attached, MPI_ERRORS_ARE_FATAL inherited from `parent`'s
 * handler (or fatal if parent is NULL). */
int fm_comm_build(struct fm_group *group, uint32_t ctx, MPI_Comm parent, MPI_Comm *out);
/* Drop a reference; frees attributes, group and context id at zero. */
void fm_comm_release(MPI_Comm comm);

/* Agree on a fresh context id among all members of comm (one collective
 * round over comm). */
int fm_ctx_alloc(MPI_Comm comm, uint32_t *ctx);
void fm_ctx_free(uint32_t ctx);

/* Set up MPI_COMM_WORLD / MPI_COMM_SELF after the transports are up. */
int fm_comm_init(int world_rank, int world_size);
void fm_comm_finalize(void);

int fm_comm_valid(MPI_Comm comm);
int fm_group_valid(MPI_Group g);
struct fm_group *fm_group_new(int size, const int *world); /* refcount 1 */
void fm_group_release(struct fm_group *g);

/* Attributes: copy on dup (copy callbacks), delete callbacks on free. */
int fm_attr_copy_all(MPI_Comm oldcomm, MPI_Comm newcomm);
int fm_attr_delete_all(MPI_Comm comm);

#endif
