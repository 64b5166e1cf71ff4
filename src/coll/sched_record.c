/* sched_record.c — recording collective schedules (coll/sched.h): the
 * steps, the memory they hold, and the pool of finished schedules kept
 * for the next collective.  Playing them is sched.c's. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_util.h"
#include "coll/op.h"
#include "coll/sched_impl.h"
#include "core/comm.h"
#include "core/vci.h"
#include "dtype/dtype.h"
#include "util/status.h"

/* ---- recording ------------------------------------------------------------ */

uint32_t fm_sched_next_tag(MPI_Comm comm)
{
    /* 2^16 tags above the blocking collectives' (coll_util.h): a schedule
     * only meets one of the same tag 65,536 collectives later. */
    return FM_TAG_SCHED_FIRST + (comm->sched_seq++ & 0xffffu);
}

/* Finished schedules are kept, arrays and all, for the next collective:
 * a program calling MPI_Iallreduce in a loop then records into memory it
 * already has instead of allocating four blocks per call. */
#define FM_SCHED_KEEP 16

struct fm_sched *fm_sched_new(MPI_Comm comm)
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
    struct fm_sched *s = fm_sched_new(comm);
    if (!s)
        return FM_ERR_NOMEM;
    s->tag = (int)fm_sched_next_tag(comm);
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

void fm_sched_hold_dts(fm_coll_call *cc, MPI_Datatype a, MPI_Datatype b)
{
    struct fm_step *st = add_step(cc, FM_STEP_HOLD);
    if (!st)
        return;
    st->dt = a;
    st->dt2 = b;
    hold_dt(a);
    hold_dt(b);
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
void fm_sched_drop(struct fm_sched *s, int holds_comm)
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

void fm_sched_abandon(fm_coll_call *cc)
{
    fm_sched_free(cc->sched);
    cc->sched = NULL;
}

/* Room for n requests in flight (more when a call step records a larger
 * round than the recording had). */
int fm_sched_grow_reqs(struct fm_sched *s, int n)
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
int fm_sched_finish_recording(fm_coll_call *cc)
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
    return fm_sched_grow_reqs(s, s->max_round);
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
