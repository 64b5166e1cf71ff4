/* sched.c — recording and playing collective schedules (sched.h). */
#include "coll/sched.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_util.h"
#include "coll/op.h"
#include "core/comm.h"
#include "core/progress.h"
#include "core/request.h"
#include "core/task.h"
#include "core/vci.h"
#include "dtype/dtype.h"
#include "pt2pt/pt2pt.h"
#include "util/param.h"
#include "util/pvar.h"
#include "util/status.h"

enum fm_step_kind {
    FM_STEP_SEND,
    FM_STEP_RECV,
    FM_STEP_WAIT,
    FM_STEP_COPY,
    FM_STEP_REDUCE,
    FM_STEP_CALL,
    FM_STEP_YIELD,
    FM_STEP_POLL,
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

/* ---- recording ------------------------------------------------------------ */

static uint32_t next_tag(MPI_Comm comm)
{
    /* 2^16 tags above the blocking collectives' (coll_util.h): a schedule
     * only meets one of the same tag 65,536 collectives later. */
    return FM_TAG_SCHED_FIRST + (comm->sched_seq++ & 0xffffu);
}

/* Finished schedules are kept, arrays and all, for the next collective:
 * a program calling MPI_Iallreduce in a loop then records into memory it
 * already has instead of allocating four blocks per call. */
#define FM_SCHED_KEEP 16

static struct fm_sched *sched_new(MPI_Comm comm)
{
    struct fm_vci *v = &fm_vci0; /* schedules run under the library lock */
    struct fm_sched *s = v->sched_spare;
    if (s) {
        v->sched_spare = s->next;
        v->nsched_spare--;
        struct fm_step *steps = s->steps;
        struct fm_request **reqs = s->reqs;
        long long *want = s->want;
        void **keep = s->keep;
        int cap = s->cap, reqcap = s->reqcap, keepcap = s->keepcap;
        memset(s, 0, offsetof(struct fm_sched, scratch));
        s->steps = steps, s->cap = cap;
        s->reqs = reqs, s->want = want, s->reqcap = reqcap;
        s->keep = keep, s->keepcap = keepcap;
    } else if (!(s = calloc(1, sizeof *s))) {
        return NULL;
    }
    s->comm = comm;
    comm->refcount++;
    return s;
}

int fm_sched_begin(fm_coll_call *cc, MPI_Comm comm)
{
    struct fm_sched *s = sched_new(comm);
    if (!s)
        return FM_ERR_NOMEM;
    s->tag = (int)next_tag(comm);
    *cc = FM_COLL_CALL(comm, s->tag);
    cc->sched = s;
    return FM_OK;
}

static struct fm_step *add_step(fm_coll_call *cc, int kind)
{
    struct fm_sched *s = cc->sched;
    if (s->nsteps == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        struct fm_step *n = realloc(s->steps, sizeof *n * (size_t)cap);
        if (!n) {
            s->broken = 1;
            return NULL;
        }
        s->steps = n;
        s->cap = cap;
    }
    struct fm_step *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof *st);
    st->kind = (uint8_t)kind;
    return st;
}

/* Steps hold references to user datatypes and ops: the program may free
 * its handles while the collective runs. */
static void hold_dt(MPI_Datatype dt)
{
    if (dt && !(dt->flags & FM_DT_PREDEFINED))
        fm_dt_retain(dt);
}

static void drop_dt(MPI_Datatype dt)
{
    if (dt && !(dt->flags & FM_DT_PREDEFINED))
        fm_dt_release(dt);
}

void fm_sched_add_send(fm_coll_call *cc, const void *buf, MPI_Count count, MPI_Datatype dt,
                       int dest)
{
    struct fm_step *st = add_step(cc, FM_STEP_SEND);
    if (!st)
        return;
    *st = (struct fm_step){.kind = FM_STEP_SEND, .peer = dest, .src = buf, .count = count,
                           .dt = dt, .comm = cc->comm};
    hold_dt(dt);
}

void fm_sched_add_recv(fm_coll_call *cc, void *buf, MPI_Count count, MPI_Datatype dt, int src)
{
    struct fm_step *st = add_step(cc, FM_STEP_RECV);
    if (!st)
        return;
    *st = (struct fm_step){.kind = FM_STEP_RECV, .peer = src, .dst = buf, .count = count,
                           .dt = dt, .comm = cc->comm};
    hold_dt(dt);
}

void fm_sched_add_wait(fm_coll_call *cc)
{
    add_step(cc, FM_STEP_WAIT);
}

void fm_sched_add_copy(fm_coll_call *cc, const void *src, MPI_Count scount, MPI_Datatype sdt,
                       void *dst, MPI_Count rcount, MPI_Datatype rdt)
{
    struct fm_step *st = add_step(cc, FM_STEP_COPY);
    if (!st)
        return;
    *st = (struct fm_step){.kind = FM_STEP_COPY, .src = src, .count = scount, .dt = sdt,
                           .dst = dst, .count2 = rcount, .dt2 = rdt};
    hold_dt(sdt);
    hold_dt(rdt);
}

void fm_sched_add_reduce(fm_coll_call *cc, MPI_Op op, const void *in, void *inout,
                         MPI_Count count, MPI_Datatype dt)
{
    struct fm_step *st = add_step(cc, FM_STEP_REDUCE);
    if (!st)
        return;
    *st = (struct fm_step){.kind = FM_STEP_REDUCE, .src = in, .dst = inout, .count = count,
                           .dt = dt, .op = op};
    hold_dt(dt);
    fm_op_retain(op);
}

void fm_sched_add_call(fm_coll_call *cc, fm_sched_fn *fn, void *arg)
{
    struct fm_step *st = add_step(cc, FM_STEP_CALL);
    if (st) {
        st->fn = fn;
        st->dst = arg;
        st->comm = cc->comm; /* the call it was recorded in: an intercommunicator's local side, say */
    }
}

void fm_sched_add_poll(fm_coll_call *cc, fm_sched_poll_fn *poll, void *arg, MPI_Datatype dt,
                       MPI_Op op)
{
    struct fm_step *st = add_step(cc, FM_STEP_POLL);
    if (!st)
        return;
    st->poll = poll;
    st->dst = arg;
    st->comm = cc->comm;
    st->dt = dt;
    st->op = op;
    hold_dt(dt);
    if (op)
        fm_op_retain(op);
}

int fm_sched_steps(const fm_coll_call *cc) { return cc->sched->nsteps; }

void fm_sched_set_direct(fm_coll_call *cc, fm_sched_direct_fn *fn, void *arg)
{
    struct fm_sched *s = cc->sched;
    if (s->nsteps == 0) {
        s->direct = fn;
        s->direct_arg = arg;
    }
}

void fm_sched_add_yield(fm_coll_call *cc)
{
    add_step(cc, FM_STEP_YIELD);
}

void *fm_sched_alloc(fm_coll_call *cc, size_t bytes)
{
    struct fm_sched *s = cc->sched;
    size_t at = (s->scratch_used + 15) & ~(size_t)15;
    if (bytes <= FM_SCHED_SCRATCH - at) {
        s->scratch_used = at + bytes;
        return memset(s->scratch + at, 0, bytes);
    }
    void *p = calloc(1, bytes);
    if (p)
        fm_sched_keep(cc, p);
    return p;
}

void fm_sched_keep(fm_coll_call *cc, void *raw)
{
    struct fm_sched *s = cc->sched;
    if (s->nkeep == s->keepcap) {
        int cap = s->keepcap ? 2 * s->keepcap : 4;
        void **n = realloc(s->keep, sizeof *n * (size_t)cap);
        if (!n)
            return; /* the buffer outlives the schedule: a leak, not a fault */
        s->keep = n;
        s->keepcap = cap;
    }
    s->keep[s->nkeep++] = raw;
}

/* Give back what the steps hold and the schedule itself; holds_comm: it
 * still has its reference to the communicator (a parked one has not). */
static void sched_drop(struct fm_sched *s, int holds_comm)
{
    for (int i = 0; i < s->nsteps; i++) {
        drop_dt(s->steps[i].dt);
        drop_dt(s->steps[i].dt2);
        if (s->steps[i].kind == FM_STEP_REDUCE ||
            (s->steps[i].kind == FM_STEP_POLL && s->steps[i].op))
            fm_op_release(s->steps[i].op);
    }
    if (s->reusable) {
        if (s->key.op && s->key.op != MPI_OP_NULL)
            fm_op_release(s->key.op);
        s->reusable = 0;
    }
    for (int i = 0; i < s->nkeep; i++)
        fm_coll_tmp_free(s->keep[i]);
    struct fm_vci *v = &fm_vci0;
    if (holds_comm)
        fm_comm_release(s->comm);
    if (v->nsched_spare < FM_SCHED_KEEP) {
        s->next = v->sched_spare;
        v->sched_spare = s;
        v->nsched_spare++;
        return;
    }
    free(s->keep);
    free(s->steps);
    free(s->reqs);
    free(s->want);
    free(s);
}

static void sched_free(struct fm_sched *s) { sched_drop(s, 1); }

void fm_sched_abandon(fm_coll_call *cc)
{
    sched_free(cc->sched);
    cc->sched = NULL;
}

/* Room for n requests in flight (more when a call step records a larger
 * round than the recording had). */
static int grow_reqs(struct fm_sched *s, int n)
{
    if (n <= s->reqcap)
        return FM_OK;
    struct fm_request **r = realloc(s->reqs, sizeof *r * (size_t)n);
    if (r)
        s->reqs = r;
    long long *w = realloc(s->want, sizeof *w * (size_t)n);
    if (w)
        s->want = w;
    if (!r || !w)
        return FM_ERR_NOMEM;
    s->reqcap = n;
    return FM_OK;
}

/* Size the request arrays for the largest round. */
static int finish_recording(fm_coll_call *cc)
{
    struct fm_sched *s = cc->sched;
    if (s->broken)
        return FM_ERR_NOMEM;
    int round = 0;
    for (int i = 0; i < s->nsteps; i++) {
        if (s->steps[i].kind == FM_STEP_SEND || s->steps[i].kind == FM_STEP_RECV)
            round++;
        else if (s->steps[i].kind == FM_STEP_WAIT)
            round = 0;
        if (round > s->max_round)
            s->max_round = round;
    }
    s->rc0 = cc->rc;
    return grow_reqs(s, s->max_round);
}

/* ---- playing ----------------------------------------------------------------- */

static int sched_poll(void);
/* sched_poll is running (a user op may call MPI from a reduction step):
 * schedules do not advance then. */
static int sched_busy;
/* Zero bytes move in a marker; the layer below still gets a real address. */
static char marker;

static void fail(struct fm_sched *s, int rc)
{
    if (rc != FM_OK && s->rc == FM_OK)
        s->rc = rc;
}

static void post(struct fm_sched *s, const struct fm_step *st)
{
    struct fm_request *r;
    int rc;
    long long want = -1;
    if (st->kind == FM_STEP_SEND) {
        const void *buf = st->src;
        MPI_Count count = st->count;
        MPI_Datatype dt = st->dt;
        if (s->rc != FM_OK) {
            buf = &marker;
            count = 0;
            dt = MPI_BYTE;
        } else if (s->p2p ? fm_isend_eager_now(buf, count, dt, st->peer, st->tag, s->comm) == FM_OK
                          : fm_coll_send_now(buf, count, dt, st->peer, s->tag, st->comm) == FM_OK) {
            return; /* gone at once: nothing to wait for */
        }
        rc = s->p2p ? fm_isend(buf, count, dt, st->peer, st->tag, s->comm, 0, FM_SEND_STD, &r)
                    : fm_isend(buf, count, dt, st->peer, s->tag, st->comm, 1, FM_SEND_STD, &r);
    } else {
        void *buf = st->dst;
        MPI_Count count = st->count;
        MPI_Datatype dt = st->dt;
        want = s->p2p ? 0 : (long long)count * (long long)dt->size;
        if (!buf) { /* scratch that could not be allocated: take the message into nothing */
            buf = &marker;
            count = 0;
            dt = MPI_BYTE;
        }
        rc = s->p2p ? fm_irecv(buf, count, dt, st->peer, st->tag, s->comm, 0, &r)
                    : fm_irecv(buf, count, dt, st->peer, s->tag, st->comm, 1, &r);
    }
    if (rc == FM_OK && s->nreq == s->reqcap && grow_reqs(s, 2 * s->reqcap + 4) != FM_OK) {
        fm_wait(r, NULL); /* nowhere to track it: finish it here */
        rc = FM_ERR_NOMEM;
    }
    if (rc != FM_OK) {
        fail(s, rc);
        return;
    }
    s->reqs[s->nreq] = r;
    s->want[s->nreq++] = want;
}

/* The posted requests, if all are complete: take their results. */
static int round_done(struct fm_sched *s)
{
    for (int i = 0; i < s->nreq; i++)
        if (!s->reqs[i]->done)
            return 0;
    for (int i = 0; i < s->nreq; i++) {
        MPI_Status st;
        int rc = fm_wait(s->reqs[i], &st);
        if (s->p2p && s->want[i] >= 0)
            s->rstatus = st;
        if (rc == FM_OK && s->want[i] >= 0 && st.fm_count < s->want[i])
            rc = FM_ERR_COLL_PEER;
        fail(s, rc);
    }
    s->nreq = 0;
    return 1;
}

/* Parked schedules: up to FM_SCHED_PARKED, at most one per
 * (communicator, key).  A table here rather than a field of the
 * communicator, whose size is part of the ABI (MPI_COMM_WORLD is copied
 * into programs).  Under the library lock, as every schedule. */
#define FM_SCHED_PARKED 8
static struct fm_sched *parked[FM_SCHED_PARKED];
static unsigned parked_next; /* the slot to reuse when none is free */

static int same_key(const fm_sched_key *a, const fm_sched_key *b)
{
    return a->kind == b->kind && a->sbuf == b->sbuf && a->rbuf == b->rbuf &&
           a->count == b->count && a->dt == b->dt && a->op == b->op && a->count2 == b->count2 &&
           a->dt2 == b->dt2 && a->root == b->root;
}

static unsigned parked_last; /* the slot replayed last: looked at first */

static int parked_find(MPI_Comm comm, const fm_sched_key *key)
{
    const unsigned h = parked_last;
    if (parked[h] && parked[h]->comm == comm && same_key(&parked[h]->key, key))
        return (int)h;
    for (int i = 0; i < FM_SCHED_PARKED; i++)
        if (parked[i] && parked[i]->comm == comm && same_key(&parked[i]->key, key))
            return i;
    return -1;
}

/* Keep an ended reusable schedule for replay, in place of one parked for
 * the same call, else in a free slot, else in each slot in turn.  It gives up its
 * reference to the communicator (whose destroy hook drops it): the request
 * it completes still holds one, so this is never the last. */
static void park(struct fm_sched *s)
{
    /* Back where it was replayed from, when still free: the loop that
     * replays it finds it there at once.  (Another schedule of the same
     * call parked meanwhile may then stay too; one of them is replayed.) */
    int i = s->parked_at >= 0 && !parked[s->parked_at] ? s->parked_at
                                                       : parked_find(s->comm, &s->key);
    for (int k = 0; i < 0 && k < FM_SCHED_PARKED; k++)
        if (!parked[k])
            i = k;
    if (i < 0)
        i = (int)(parked_next++ % FM_SCHED_PARKED);
    if (parked[i])
        sched_drop(parked[i], 0);
    parked[i] = s;
    s->comm->refcount--;
}

static void complete(struct fm_sched *s)
{
    struct fm_request *r = s->req;
    if (s->p2p) {
        r->status = s->rstatus;
    } else {
        r->status.MPI_SOURCE = MPI_ANY_SOURCE;
        r->status.MPI_TAG = MPI_ANY_TAG;
        r->status.fm_count = 0;
    }
    r->status.MPI_ERROR = s->rc == FM_OK ? MPI_SUCCESS : fm_status_to_mpi_class(s->rc);
    r->coll_status = s->rc;
    if (s->persistent) {
        r->done = 1;
        return;
    }
    r->sched = NULL;
    if (s->reusable)
        park(s);
    else
        sched_free(s);
    fm_req_complete(r);
}

/* Play from s->pos until a wait finds requests still running (returns 0)
 * or the schedule ends (completes it and returns 1). */
static int advance(struct fm_sched *s)
{
    if (s->nreq && !round_done(s))
        return 0;
    while (s->pos < s->nsteps) {
        const struct fm_step *st = &s->steps[s->pos++];
        switch (st->kind) {
        case FM_STEP_SEND:
        case FM_STEP_RECV:
            post(s, st);
            break;
        case FM_STEP_WAIT:
            if (s->nreq && !round_done(s))
                return 0;
            break;
        case FM_STEP_COPY:
            if (s->rc == FM_OK)
                fail(s, fm_dt_copy(st->src, st->count, st->dt, st->dst, st->count2, st->dt2));
            break;
        case FM_STEP_REDUCE:
            if (s->rc == FM_OK)
                fail(s, fm_op_apply(st->op, st->src, st->dst, st->count, st->dt));
            break;
        case FM_STEP_YIELD:
            if (!s->yielded) { /* come back at the next poll */
                s->yielded = 1;
                s->pos--;
                return 0;
            }
            s->yielded = 0;
            break;
        case FM_STEP_POLL: {
            fm_coll_call cc = {.comm = st->comm, .tag = s->tag, .rc = s->rc, .sched = NULL};
            int go = st->poll(&cc, st->dst);
            s->rc = cc.rc;
            if (!go) {
                s->pos--; /* again at the next poll */
                return 0;
            }
            s->pos += go - 1; /* past the steps it skips */
            break;
        }
        case FM_STEP_CALL: {
            fm_coll_call cc = {.comm = st->comm, .tag = s->tag, .rc = s->rc, .sched = s};
            st->fn(&cc, st->dst); /* may append steps: st is not used after */
            s->rc = cc.rc;
            if (s->broken)
                fail(s, FM_ERR_NOMEM);
            break;
        }
        }
    }
    if (s->nreq && !round_done(s))
        return 0;
    complete(s);
    return 1;
}

static void run(struct fm_sched *s)
{
    s->rc = s->rc0;
    s->pos = 0;
    s->nreq = 0;
    if (advance(s))
        return;
    struct fm_vci *v = &fm_vci0;
    if (!v->sched_running)
        fm_progress_add(sched_poll);
    s->next = v->sched_running;
    v->sched_running = s;
}

/* Start a run: by the schedule's direct form where it has one (sched.h,
 * fm_sched_set_direct), which often ends the collective at once.  Where it
 * does not, the steps take over from where it stopped.  What it saves is
 * the steps' bookkeeping and the progress hook's round, on the path from
 * the last flag seen to the next call's publishing: at 2 members, a
 * persistent 8 B allreduce's MPI_Start + MPI_Wait ran 679 instructions
 * through the steps, 438 direct (with the op resolved at recording and
 * no hang record in a Wait that does not block), and took 0.87-0.92 of
 * the blocking call's time where it took 0.99-1.08. */
static void start(struct fm_sched *s)
{
    s->direct_run = 0;
    if (s->direct && s->rc0 == FM_OK) {
        int rc = FM_OK;
        int d = s->direct(s->direct_arg, &rc);
        if (d > 0) {
            FM_PV_INC(coll_sched_direct);
            s->rc = rc;
            complete(s);
            return;
        }
        s->direct_run = d == 0;
        if (d == 0)
            FM_PV_INC(coll_sched_direct);
    }
    run(s);
}

/* One look by the direct form at a run it began: 1 when that ended the
 * collective (then it is off the running list and complete). */
static int direct_poll(struct fm_sched *s)
{
    int rc = FM_OK;
    if (s->direct(s->direct_arg, &rc) <= 0)
        return 0;
    struct fm_vci *v = &fm_vci0;
    for (struct fm_sched **p = &v->sched_running; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    if (!v->sched_running)
        fm_progress_remove(sched_poll);
    fail(s, rc);
    complete(s);
    return 1;
}

void fm_sched_wait(struct fm_request *r)
{
    struct fm_sched *s = r->sched;
    if (r->done || !s || !s->direct_run || sched_busy || r->vci || fm_task_level) {
        fm_request_block(r);
        return;
    }
    /* r->done first: once done, a nonblocking call's s may be parked or
     * recycled. */
    fm_wait_until(r->done || direct_poll(s));
}

/* The progress hook while any schedule runs: advance each.  A user op may
 * call MPI (and so fm_progress) from inside a reduction step: not again. */
static int sched_poll(void)
{
    if (sched_busy)
        return 0;
    sched_busy = 1;
    struct fm_vci *v = &fm_vci0;
    int n = 0;
    for (struct fm_sched **p = &v->sched_running; *p;) {
        struct fm_sched *s = *p;
        *p = s->next; /* unlinked first: completing frees s */
        if (advance(s)) {
            n++;
            continue;
        }
        s->next = *p;
        *p = s;
        p = &s->next;
    }
    if (!v->sched_running)
        fm_progress_remove(sched_poll);
    sched_busy = 0;
    return n;
}

static struct fm_request *coll_request(struct fm_sched *s)
{
    struct fm_request *r = fm_req_alloc(s->p2p ? FM_REQ_SENDRECV : FM_REQ_COLL);
    if (!r)
        return NULL;
    r->comm = s->comm;
    s->comm->refcount++;
    r->tag = s->tag;
    r->sched = s;
    return r;
}

/* End recording: the request the schedule completes (NULL, the schedule
 * dropped and *rc set, on failure). */
static struct fm_request *close_recording(fm_coll_call *cc, int *rc)
{
    struct fm_sched *s = cc->sched;
    *rc = finish_recording(cc);
    struct fm_request *r = *rc == FM_OK ? coll_request(s) : NULL;
    if (!r) {
        fm_sched_abandon(cc);
        if (*rc == FM_OK)
            *rc = FM_ERR_NOMEM;
        return NULL;
    }
    cc->sched = NULL;
    s->req = r;
    return r;
}

int fm_sched_start_new(fm_coll_call *cc, struct fm_request **req)
{
    int rc;
    struct fm_request *r = close_recording(cc, &rc);
    if (!r)
        return rc;
    *req = r;
    start(r->sched);
    return FM_OK;
}

void fm_sched_reusable(fm_coll_call *cc, const fm_sched_key *key)
{
    struct fm_sched *s = cc->sched;
    s->reusable = 1;
    s->parked_at = -1;
    s->key = *key;
    s->param_writes = fm_param_writes;
    /* The key's op too, not only the steps': a member whose steps never
     * use it (a leaf of a reduce) would otherwise match a new op at a
     * freed one's address, whose commutativity may give another tree.
     * (Every call with an op checked it, on every member.)  Datatypes need
     * not be held: whatever moves bytes holds its own, and a datatype the
     * steps do not use may be an argument the call ignores here. */
    if (key->op && key->op != MPI_OP_NULL)
        fm_op_retain(key->op);
}

int fm_sched_replay(MPI_Comm comm, const fm_sched_key *key, struct fm_request **req)
{
    /* FABMPI_COLL_VERBOSE records every call, so that each prints its line. */
    return !fm_param.COLL_VERBOSE && fm_sched_start_parked(comm, key, req) == FM_OK;
}

int fm_sched_start_parked(MPI_Comm comm, const fm_sched_key *key, struct fm_request **req)
{
    int i = parked_find(comm, key);
    if (i < 0)
        return FM_ERR_AGAIN;
    struct fm_sched *s = parked[i];
    if (s->param_writes != fm_param_writes) { /* recorded under other knobs */
        parked[i] = NULL;
        sched_drop(s, 0);
        return FM_ERR_AGAIN;
    }
    struct fm_request *r = coll_request(s);
    if (!r)
        return FM_ERR_AGAIN; /* recording anew says why */
    parked[i] = NULL;
    parked_last = (unsigned)i;
    s->parked_at = i;
    comm->refcount++; /* the schedule's own reference again */
    FM_PV_INC(coll_sched_replayed);
    /* Every member takes a tag per started collective, replayed or not,
     * so the sequence stays the same everywhere. */
    s->tag = (int)next_tag(comm);
    s->req = r;
    *req = r;
    start(s);
    return FM_OK;
}

void fm_sched_comm_destroyed(MPI_Comm comm)
{
    for (int i = 0; i < FM_SCHED_PARKED; i++)
        if (parked[i] && parked[i]->comm == comm) {
            sched_drop(parked[i], 0);
            parked[i] = NULL;
        }
}

int fm_sched_persist(fm_coll_call *cc, struct fm_request **req)
{
    int rc;
    struct fm_request *r = close_recording(cc, &rc);
    if (!r)
        return rc;
    r->sched->persistent = 1;
    r->flags |= FM_REQF_PERSISTENT;
    r->done = 1; /* inactive */
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    *req = r;
    return FM_OK;
}

int fm_sched_restart(struct fm_request *req)
{
    req->flags |= FM_REQF_ACTIVE;
    req->done = 0;
    start(req->sched);
    return FM_OK;
}

void fm_sched_free_persistent(struct fm_request *req)
{
    sched_free(req->sched);
    req->sched = NULL;
    fm_req_free(req);
}

int fm_sched_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, int dest, int stag,
                      void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int src, int rtag,
                      MPI_Comm comm, int replace, struct fm_request **req)
{
    struct fm_sched *s = sched_new(comm);
    if (!s)
        return FM_ERR_NOMEM;
    s->p2p = 1;
    fm_coll_call cc = FM_COLL_CALL(comm, 0);
    cc.sched = s;
    if (replace) { /* what goes out is the buffer as it is now */
        size_t bytes = (size_t)scount * (size_t)sdt->size;
        void *packed = malloc(bytes ? bytes : 1);
        if (!packed) {
            fm_sched_abandon(&cc);
            return FM_ERR_NOMEM;
        }
        fm_dt_pack(sbuf, scount, sdt, 0, packed, bytes);
        fm_sched_keep(&cc, packed);
        sbuf = packed;
        scount = (MPI_Count)bytes;
        sdt = MPI_BYTE;
    }
    fm_sched_add_recv(&cc, rbuf, rcount, rdt, src);
    fm_sched_add_send(&cc, sbuf, scount, sdt, dest);
    if (!s->broken) {
        s->steps[0].tag = rtag;
        s->steps[1].tag = stag;
    }
    fm_sched_add_wait(&cc);
    return fm_sched_start_new(&cc, req);
}

int fm_sched_cancel_p2p(struct fm_request *req)
{
    struct fm_sched *s = req->sched;
    if (!s || req->done)
        return FM_OK; /* complete already: nothing to cancel */
    /* The halves not yet complete; each is cancelled if it still can be
     * (an unmatched receive, a send not yet taken), else completes. */
    for (int i = 0; i < s->nreq; i++)
        if (!s->reqs[i]->done) {
            int rc = fm_cancel(s->reqs[i]);
            if (rc != FM_OK)
                return rc;
        }
    return FM_OK;
}

void fm_sched_finalize(void)
{
    struct fm_vci *v = &fm_vci0;
    while (v->sched_spare) {
        struct fm_sched *s = v->sched_spare;
        v->sched_spare = s->next;
        free(s->keep);
        free(s->steps);
        free(s->reqs);
        free(s->want);
        free(s);
    }
    v->nsched_spare = 0;
}
