/* sched.c — playing collective schedules (sched.h): starting, advancing
 * and completing them, the direct form, replay.  Recording is
 * sched_record.c's. */
#include "coll/sched_impl.h"

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
    if (rc == FM_OK && s->nreq == s->reqcap && fm_sched_grow_reqs(s, 2 * s->reqcap + 4) != FM_OK) {
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
        fm_sched_drop(parked[i], 0);
    parked[i] = s;
    s->comm->refcount--;
}

static void complete(struct fm_sched *s)
{
    struct fm_request *r = s->req;
    r->coll_status = s->rc;
    if (s->persistent) { /* its status stays the empty one (fm_sched_persist, take_result) */
        r->status.MPI_ERROR = s->rc == FM_OK ? MPI_SUCCESS : fm_status_to_mpi_class(s->rc);
        r->done = 1;
        return;
    }
    if (s->p2p) {
        r->status = s->rstatus;
    } else {
        r->status.MPI_SOURCE = MPI_ANY_SOURCE;
        r->status.MPI_TAG = MPI_ANY_TAG;
        r->status.fm_count = 0;
    }
    r->status.MPI_ERROR = s->rc == FM_OK ? MPI_SUCCESS : fm_status_to_mpi_class(s->rc);
    r->sched = NULL;
    if (s->reusable)
        park(s);
    else
        fm_sched_free(s);
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
        case FM_STEP_HOLD:
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
    *rc = fm_sched_finish_recording(cc);
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
        fm_sched_drop(s, 0);
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
    s->tag = (int)fm_sched_next_tag(comm);
    s->req = r;
    *req = r;
    start(s);
    return FM_OK;
}

void fm_sched_comm_destroyed(MPI_Comm comm)
{
    for (int i = 0; i < FM_SCHED_PARKED; i++)
        if (parked[i] && parked[i]->comm == comm) {
            fm_sched_drop(parked[i], 0);
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
    fm_sched_free(req->sched);
    req->sched = NULL;
    fm_req_free(req);
}

int fm_sched_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, int dest, int stag,
                      void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int src, int rtag,
                      MPI_Comm comm, int replace, struct fm_request **req)
{
    struct fm_sched *s = fm_sched_new(comm);
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
