/* sched.h — collective schedules: a nonblocking or persistent collective
 * is a recorded list of sends, receives, waits and local steps that the
 * progress engine plays back.
 *
 * The algorithms are written once (coll_call.h): a blocking collective
 * runs them with a call whose `sched` is NULL, so each fm_cc_* helper acts
 * at once; a nonblocking one runs the same code with a schedule attached,
 * so each helper appends a step instead.  Nothing an algorithm decides may
 * depend on data received (none does: counts and partners come from the
 * arguments), so the recording is the whole algorithm.
 *
 * Playing a schedule posts every send and receive up to the next wait,
 * then returns; the progress hook (fm_progress) continues it once all of
 * them completed, running the local copies and reductions that follow.
 * Errors follow coll_call.h: after the first one, sends become zero-byte
 * markers and local steps are skipped, so no peer is left waiting.
 *
 * Tags: every member starts a communicator's nonblocking and persistent
 * collectives (the _init calls) in the same order, so a per-communicator
 * sequence number gives each one its own tag on the collective context,
 * above the blocking collectives' tags; two in flight never match each
 * other, nor a blocking collective, nor user messages (another context). */
#ifndef FM_COLL_SCHED_H
#define FM_COLL_SCHED_H

#include <mpi.h>

#include "coll/coll_call.h"

struct fm_sched;
struct fm_request;

/* Begin recording into a new schedule for comm: *cc is a call in
 * recording mode with the schedule's tag.  FM_ERR_NOMEM if no memory. */
int fm_sched_begin(fm_coll_call *cc, MPI_Comm comm);

/* End recording and start the schedule: *req is a new request (kind
 * FM_REQ_COLL) that completes when the schedule has run; the schedule
 * frees itself then.  On error nothing is started and *req is untouched. */
int fm_sched_start_new(fm_coll_call *cc, struct fm_request **req);

/* End recording and keep the schedule under a persistent request (*req,
 * inactive); fm_sched_restart plays it again for each MPI_Start. */
int fm_sched_persist(fm_coll_call *cc, struct fm_request **req);
int fm_sched_restart(struct fm_request *req);
/* MPI_Wait of a collective request: a run its direct form began
 * (fm_sched_set_direct) is looked at by that form between progress polls,
 * which then completes it without the steps' round through the progress
 * hook; any other waits as every request does. */
void fm_sched_wait(struct fm_request *req);
/* Free the schedule of an inactive persistent collective request and the
 * request itself. */
void fm_sched_free_persistent(struct fm_request *req);

/* MPI_Isendrecv / MPI_Isendrecv_replace (replace: the send data is
 * packed aside at once and the receive lands in rbuf): a schedule on the
 * user's context with the caller's tags, not a collective one — it takes
 * no tag from the communicator's sequence.  *req (FM_REQ_SENDRECV) gets
 * the receive's status. */
int fm_sched_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, int dest, int stag,
                      void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int src, int rtag,
                      MPI_Comm comm, int replace, struct fm_request **req);

/* MPI_Cancel of an Isendrecv: cancel each half that still can be. */
int fm_sched_cancel_p2p(struct fm_request *req);

/* Replay.  A program that starts the same nonblocking collective in a
 * loop (MPI_Iallreduce on the same buffers, an overlap benchmark, a
 * solver's residual) pays for recording it each time: at 2 members an
 * MPI_Iallreduce of 4 KiB ran about 460 instructions more than the
 * blocking call and took 1.13-1.26x its time, where MPI_Start of the same
 * schedule took 0.96-1.05x.  So a schedule whose recording depends on
 * nothing but its key, its communicator and the knobs can be marked
 * reusable; when it ends it is parked (up to 8, one per communicator and
 * key) instead of recycled, and a later call on the same communicator
 * with an equal key starts it again as MPI_Start would, under a new tag.
 * Keys compare handles by address.  The steps hold every datatype and op
 * they use and the key holds its op, so while a schedule is parked no
 * object it depends on can be freed and its address given to another; a
 * datatype it does not use (a count of 0, an argument this member
 * ignores) changes nothing if it is. */
enum fm_sched_key_kind {
    FM_SK_BARRIER = 1, FM_SK_ALLREDUCE, FM_SK_BCAST, FM_SK_REDUCE, FM_SK_GATHER, FM_SK_SCATTER,
    FM_SK_ALLGATHER, FM_SK_ALLTOALL, FM_SK_REDUCE_SCATTER_BLOCK, FM_SK_SCAN, FM_SK_EXSCAN
};
typedef struct fm_sched_key {
    int kind;              /* which collective: fm_sched_key_kind */
    const void *sbuf;
    void *rbuf;
    MPI_Count count;       /* the send side's (count, dt), or the only one */
    MPI_Datatype dt;
    MPI_Op op;
    MPI_Count count2;      /* the receive side's, where it has its own */
    MPI_Datatype dt2;
    int root;
} fm_sched_key;
void fm_sched_reusable(fm_coll_call *cc, const fm_sched_key *key);
/* Start the schedule parked on comm if its key equals *key and no knob
 * changed since it was recorded: FM_OK with *req, else FM_ERR_AGAIN. */
int fm_sched_start_parked(MPI_Comm comm, const fm_sched_key *key, struct fm_request **req);
/* fm_sched_start_parked unless FABMPI_COLL_VERBOSE asks every call to be
 * recorded (each prints its line): 1 when it started one. */
int fm_sched_replay(MPI_Comm comm, const fm_sched_key *key, struct fm_request **req);
/* Communicator destroy hook: drop its parked schedule. */
void fm_sched_comm_destroyed(MPI_Comm comm);

/* Drop a schedule being recorded (an argument error found late). */
void fm_sched_abandon(fm_coll_call *cc);

/* Free the schedules kept for reuse (MPI_Finalize). */
void fm_sched_finalize(void);

/* Recording helpers, called by fm_cc_* when cc->sched is set. */
void fm_sched_add_send(fm_coll_call *cc, const void *buf, MPI_Count count, MPI_Datatype dt,
                       int dest);
void fm_sched_add_recv(fm_coll_call *cc, void *buf, MPI_Count count, MPI_Datatype dt, int src);
void fm_sched_add_wait(fm_coll_call *cc);
void fm_sched_add_copy(fm_coll_call *cc, const void *src, MPI_Count scount, MPI_Datatype sdt,
                       void *dst, MPI_Count rcount, MPI_Datatype rdt);
void fm_sched_add_reduce(fm_coll_call *cc, MPI_Op op, const void *in, void *inout,
                         MPI_Count count, MPI_Datatype dt);
/* A step that runs fn(cc, arg) when the schedule reaches it (after the
 * wait before it): it sees cc->rc and may record more steps into cc, run
 * next — a schedule whose later rounds depend on what earlier ones
 * received (MPI_Comm_idup's context-id agreement).  For schedules that run
 * once, never persistent ones. */
typedef void fm_sched_fn(fm_coll_call *cc, void *arg);
void fm_sched_add_call(fm_coll_call *cc, fm_sched_fn *fn, void *arg);
/* A step that polls: poll(cc, arg) runs when the schedule reaches it and
 * at every progress poll after, until it returns non-zero: 1 goes on with
 * the next step, 1 + n skips the n steps after it (a choice made at each
 * start).  It may fail cc (not record into it).  Nothing else waits
 * meanwhile, so a poll looks, it does not spin.  The schedule holds dt and
 * op (either may be NULL) for it.  Fit for persistent schedules: arg keeps
 * its state across starts. */
typedef int fm_sched_poll_fn(fm_coll_call *cc, void *arg);
void fm_sched_add_poll(fm_coll_call *cc, fm_sched_poll_fn *poll, void *arg, MPI_Datatype dt,
                       MPI_Op op);
/* The whole schedule as one direct call, made at each start (MPI_Start,
 * or the nonblocking call, recorded or replayed) before any step is
 * played: fn(arg, &rc) returns 1 when the collective ended (its
 * outcome in rc), 0 when it began and the schedule's steps go on from
 * where it stopped, -1 when it does not apply this time (the steps run
 * as recorded).  Only from the schedule's first step, whose recorder
 * knows what the whole schedule does. */
typedef int fm_sched_direct_fn(void *arg, int *rc);
void fm_sched_set_direct(fm_coll_call *cc, fm_sched_direct_fn *fn, void *arg);
/* Hold datatypes (either may be NULL) that a poll step's state uses
 * beyond the one fm_sched_add_poll holds, for the schedule's life: a step
 * that plays as nothing. */
void fm_sched_hold_dts(fm_coll_call *cc, MPI_Datatype a, MPI_Datatype b);
/* Steps recorded so far (where the next one goes). */
int fm_sched_steps(const fm_coll_call *cc);
/* A step that lets one progress poll pass before the schedule goes on: a
 * call step that tries the same thing again (waiting for its turn, say)
 * records one first, so other schedules get to run in between. */
void fm_sched_add_yield(fm_coll_call *cc);
/* A buffer the schedule's steps use: freed with the schedule. */
void fm_sched_keep(fm_coll_call *cc, void *raw);
/* Zeroed memory for the state of a schedule's steps, freed with it: from
 * FM_SCHED_SCRATCH bytes inside the schedule while they last (schedules
 * are recycled, so a collective called in a loop allocates nothing), else
 * allocated.  NULL when out of memory. */
#define FM_SCHED_SCRATCH 256
void *fm_sched_alloc(fm_coll_call *cc, size_t bytes);

#endif
