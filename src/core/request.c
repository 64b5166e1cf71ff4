/* request.c — request pool: requests are recycled through a free list so
 * the message path never calls malloc once warmed up. */
#include "core/request.h"

#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "core/vci.h"
#include "dtype/dtype.h"

#define FM_REQ_CHUNK 64

struct fm_request fm_req_sent = {.magic = FM_MAGIC_REQ, .kind = FM_REQ_SEND, .done = 1};

static inline __attribute__((always_inline)) struct fm_request *alloc_on(struct fm_vci *v,
                                                                         int kind)
{
    struct fm_request *r = v->req_free;
    if (!r) {
        /* Chunks are never returned to the system: requests live as long as
         * the process and their addresses travel in headers as cookies. */
        struct fm_request *chunk = calloc(FM_REQ_CHUNK, sizeof *chunk);
        if (!chunk)
            return NULL;
        for (int i = FM_REQ_CHUNK - 1; i >= 0; i--) {
            chunk[i].next = v->req_free;
            v->req_free = &chunk[i];
        }
        r = v->req_free;
    }
    v->req_free = r->next;
    memset(r, 0, sizeof *r);
    r->magic = FM_MAGIC_REQ;
    r->kind = (uint8_t)kind;
    r->vci = (uint8_t)v->index;
    return r;
}

struct fm_request *fm_req_alloc(int kind) { return alloc_on(&fm_vci0, kind); }

struct fm_request *fm_req_alloc_on(struct fm_vci *v, int kind) { return alloc_on(v, kind); }

/* Datatypes are shared by every lane: released under the library lock.
 * Out of line, so the common free keeps its short frame. */
static __attribute__((noinline, cold)) void release_dt(MPI_Datatype dt)
{
    struct fm_vci *lane = fm_lane_escape();
    fm_dt_release(dt);
    fm_lane_back(lane);
}

void fm_req_free(struct fm_request *r)
{
    if (r == &fm_req_sent)
        return;
    if (r->tmp)
        free(r->tmp);
    if (r->dt && !(r->dt->flags & FM_DT_PREDEFINED))
        release_dt(r->dt);
    if (r->comm)
        fm_comm_release(r->comm);
    r->magic = 0;
    r->comm = NULL;
    r->dt = NULL;
    r->tmp = NULL;
    struct fm_vci *v = fm_vci_at(r->vci);
    r->next = v->req_free;
    v->req_free = r;
}

/* Copy a finished inner request's result into its persistent parent. */
static void hand_up(struct fm_request *p, struct fm_request *inner)
{
    p->status = inner->status;
    p->msg_bytes = inner->msg_bytes;
    p->bytes = inner->bytes;
    p->inner = NULL;
    inner->parent = NULL;
    fm_req_free(inner);
    p->done = 1;
    if (p->flags & FM_REQF_FREED) {
        /* p is fm_vci0's (persistent), inner may have completed on a lane. */
        struct fm_vci *lane = fm_lane_escape();
        fm_req_free(p);
        fm_lane_back(lane);
    }
}

void fm_req_complete(struct fm_request *r)
{
    if (r->parent) {
        hand_up(r->parent, r);
        return;
    }
    r->done = 1;
    if (r->flags & FM_REQF_FREED)
        fm_req_free(r);
}

void fm_req_adopt(struct fm_request *p, struct fm_request *inner)
{
    p->flags |= FM_REQF_ACTIVE;
    if (inner->done) {
        hand_up(p, inner);
        return;
    }
    p->done = 0;
    p->inner = inner;
    inner->parent = p;
}
