/* sched_impl.h — what sched.c (playing) and sched_record.c (recording)
 * share: a schedule's layout and the few calls between the two halves.
 * Private to them; everything else goes through coll/sched.h. */
#ifndef FM_COLL_SCHED_IMPL_H
#define FM_COLL_SCHED_IMPL_H

#include <stdint.h>

#include "coll/sched.h"

enum fm_step_kind {
    FM_STEP_SEND,
    FM_STEP_RECV,
    FM_STEP_WAIT,
    FM_STEP_COPY,
    FM_STEP_REDUCE,
    FM_STEP_CALL,
    FM_STEP_YIELD,
    FM_STEP_POLL,
    FM_STEP_HOLD, /* nothing to play: holds dt and dt2 for a later step's state */
};

/* One recorded step.  send: (src, count, dt) to peer; recv: (dst, count,
 * dt) from peer; copy: (src, count, dt) into (dst, count2, dt2); reduce:
 * dst = src op dst over (count, dt). */
struct fm_step {
    uint8_t kind;
    int peer;
    MPI_Comm comm; /* send/recv: the schedule's, or an intercommunicator's local_comm */
    int tag;   /* point-to-point schedules: the caller's tag */
    const void *src;
    void *dst;
    MPI_Count count, count2;
    MPI_Datatype dt, dt2;
    MPI_Op op;
    fm_sched_fn *fn; /* call: fn(cc, dst) */
    fm_sched_poll_fn *poll; /* poll: poll(cc, dst) until it returns 1 */
};

struct fm_sched {
    MPI_Comm comm;            /* holds a reference */
    int tag;
    int rc0;                  /* error found while recording: every run starts with it */
    int broken;               /* a step could not be recorded: the schedule cannot run */
    struct fm_step *steps;
    int nsteps, cap;
    int max_round;            /* most sends + receives between two waits */
    /* One run. */
    int rc;
    int pos;                  /* next step to play */
    struct fm_request **reqs; /* posted and not yet completed, with the bytes a */
    long long *want;          /* receive posted (-1 for a send) */
    int nreq, reqcap;
    void **keep;              /* buffers freed with the schedule */
    int nkeep, keepcap;
    size_t scratch_used;      /* bytes of `scratch` handed out (fm_sched_alloc) */
    struct fm_request *req;   /* the user's request */
    int persistent;
    int p2p;                  /* Isendrecv: user context, step tags, receive status kept */
    int yielded;              /* at a yield step: the poll that stopped there has passed */
    MPI_Status rstatus;       /* p2p: the receive's status */
    struct fm_sched *next;    /* running schedules (fm_vci0.sched_running) */
    int reusable;             /* parked on its communicator when it ends (sched.h) */
    int parked_at;            /* the slot it was replayed from, or -1 */
    fm_sched_key key;
    unsigned long param_writes; /* fm_param_writes when recorded */
    fm_sched_direct_fn *direct; /* the whole schedule as one call (sched.h) */
    void *direct_arg;
    int direct_run;           /* this run began by `direct` and goes on by it */
    /* Last, so that a recycled schedule clears only what comes before it
     * (fm_sched_alloc zeroes what it hands out). */
    _Alignas(16) unsigned char scratch[FM_SCHED_SCRATCH];
};

/* A schedule for comm (a recycled one when there is), holding a
 * reference to comm; NULL when out of memory. */
struct fm_sched *fm_sched_new(MPI_Comm comm);
/* The tag of the next nonblocking or persistent collective on comm. */
uint32_t fm_sched_next_tag(MPI_Comm comm);
/* Give back what the steps hold and the schedule itself (kept for reuse,
 * up to a few); holds_comm: it still has its reference to the
 * communicator (a parked one has not). */
void fm_sched_drop(struct fm_sched *s, int holds_comm);
static inline void fm_sched_free(struct fm_sched *s) { fm_sched_drop(s, 1); }
/* Room for n requests in flight. */
int fm_sched_grow_reqs(struct fm_sched *s, int n);
/* End recording: size the request arrays for the largest round and take
 * the recording's error as every run's first. */
int fm_sched_finish_recording(fm_coll_call *cc);

#endif
