/* flat.c — small allreduce and barrier among members that map each other's
 * segments (the shm backend): every member publishes its contribution in
 * its OWN segment, raises its own flag, then reads every other member's
 * and reduces them all itself, in rank order.
 *
 * One round of flags instead of log2(p) rounds of sends (recursive
 * doubling, dissemination).  That matters most when ranks outnumber cores:
 * a round can only finish once every process it waits for has been
 * scheduled, so fewer rounds means fewer trips through the scheduler.  The
 * price is p reads per member, so select.c uses it for small messages and
 * small communicators only.
 *
 * Every member folds the same bytes in the same order
 * (c0 op (c1 op (... op c[p-1]))), so all get bitwise identical results,
 * non-commutative ops included.
 *
 * Lanes: each member publishes in its own segment's flat lanes, which no
 * other algorithm touches (the ring regions and flag sets the others use
 * are freed by their owner's `done` word alone, which says nothing about
 * members still reading the owner's bytes).  Flat calls alternate between
 * two lanes, and that needs no waiting: a member in flat call f has seen
 * every member publish flat call f-1, and each published f-1 only after
 * finishing f-2, reads of everyone's lane f % 2 included.  The flag holds
 * the call's seq, which only grows, so "flag >= seq" means "published for
 * this call". */
#include "coll/rma/cache.h"

#include <string.h>

#include "coll/op.h"
#include "dtype/dtype.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

/* Publish `bytes` packed bytes of (buf, count, dt) (none when bytes is 0)
 * for call seq and wait until every member has published too.  Returns the
 * offset of the data in every segment; *flag_off is the lane's flag. */
static size_t publish_and_gather(fm_crma *c, uint64_t seq, const void *buf, MPI_Count count,
                                 MPI_Datatype dt, size_t bytes, size_t *flag_off)
{
    const int lane = (int)(c->flat_calls++ % FM_CRMA_FLAT_LANES);
    const size_t flag = FM_CRMA_OFF_FLAT(lane);
    const size_t off = bytes <= FM_CRMA_INLINE ? flag + FM_CRMA_INLINE_OFF
                                               : flag + offsetof(fm_crma_flat, data);
    if (bytes)
        fm_dt_pack(buf, count, dt, 0, c->self + off, bytes);
    fm_crma_word *own = (fm_crma_word *)(void *)(c->self + flag);
    own->pad = bytes; /* the stamp (cache.h): readers compare it with their own count */
    atomic_store_explicit(&own->v, seq, memory_order_release);

    /* Wait for all the others, looking at each flag until it is up. */
    for (int p = 0; p < c->size; p++)
        if (p != c->rank)
            fm_wait_until(c->be->peek(c, p, flag) >= seq);
    *flag_off = flag;
    return off;
}

int fm_crma_barrier_flat(fm_crma *c)
{
    const uint64_t seq = ++c->seq;
    size_t flag;
    publish_and_gather(c, seq, NULL, 0, MPI_BYTE, 0, &flag);
    fm_crma_finish(c, seq);
    return FM_OK;
}

int fm_crma_allreduce_flat(fm_crma *c, const void *sbuf, void *rbuf, MPI_Count count,
                           MPI_Datatype dt, MPI_Op op)
{
    const uint64_t seq = ++c->seq;
    const size_t bytes = (size_t)count * (size_t)dt->size;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    size_t flag;
    const size_t off = publish_and_gather(c, seq, mine, count, dt, bytes, &flag);

    /* dt is contiguous (select.c): packed bytes are its typed layout, and
     * a typed view of them starts true_lb before the first byte. */
    int rc = FM_OK;
    const int last = c->size - 1;
    /* A member whose count differs from ours: the same outcome as the
     * two-sided allreduce (coll/coll_call.h), and no reading past its bytes. */
    for (int p = 0; p < c->size; p++) {
        const fm_crma_word *w = c->be->direct(c, p, flag);
        if (w->pad != bytes && rc != FM_ERR_TRUNCATE)
            rc = w->pad > bytes ? FM_ERR_TRUNCATE : FM_ERR_COLL_PEER;
    }
    if (rc != FM_OK) {
        fm_crma_finish(c, seq);
        return rc;
    }
    memcpy((char *)rbuf + dt->true_lb, c->be->direct(c, last, off), bytes);
    for (int p = last - 1; p >= 0 && rc == FM_OK; p--) {
        const char *in = (const char *)c->be->direct(c, p, off) - dt->true_lb;
        rc = fm_op_apply(op, in, rbuf, count, dt); /* rbuf = c[p] op rbuf */
    }
    fm_crma_finish(c, seq);
    return rc;
}
