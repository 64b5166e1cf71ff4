/* barrier_bcast.c — barrier through the reserved area and broadcast as an
 * n-way fan-out tree of one-sided writes into the children's data areas. */
#include "coll/rma/cache.h"

#include "dtype/dtype.h"
#include "util/param.h"
#include "util/status.h"

/* Dissemination: in round k a member raises bar[k] of member rank + 2^k
 * and waits for its own bar[k], raised by rank - 2^k.  Each word has that
 * one writer, and a writer already in a later barrier has passed this one,
 * so "bar[k] >= seq" is exactly "rank - 2^k reached round k". */
int fm_crma_barrier(fm_crma *c)
{
    const uint64_t seq = ++c->seq;
    const int size = c->size, rank = c->rank;
    int k = 0, rc = FM_OK;
    for (int dist = 1; dist < size && rc == FM_OK; dist <<= 1, k++) {
        rc = fm_crma_signal(c, (rank + dist) % size, FM_CRMA_OFF_BAR(k), seq);
        fm_crma_wait(c, FM_CRMA_OFF_BAR(k), seq);
    }
    fm_crma_finish(c, seq);
    return rc;
}

/* Raise child's data flag, stamped as an error when rc says one happened;
 * returns the first error. */
static int raise_child(fm_crma *c, int child, size_t flag, uint64_t seq, int rc, uint64_t stamp)
{
    int src = fm_crma_signal_stamped(c, child, flag, seq, rc == FM_OK ? stamp : FM_CRMA_STAMP_ERR);
    return rc != FM_OK ? rc : src;
}

/* Tree over ranks relative to the root: member v's children are
 * v*F+1 .. v*F+F, its parent (v-1)/F.
 *
 * A member waits for the call's data flag, writes the bytes into each
 * child's region once that child has finished the region's previous use,
 * raises the child's flag, and only then unpacks into the user's buffer, so
 * the children start as early as possible.  The root packs straight from
 * the user's buffer into its children's regions.  Every flag carries a
 * stamp (cache.h): a member whose parent's stamp differs from its own (its
 * count differs from the root's) or whose parent failed writes no data and
 * passes FM_CRMA_STAMP_ERR on, so its whole subtree returns an error. */
int fm_crma_bcast(fm_crma *c, void *buf, MPI_Count count, MPI_Datatype dt, int root, int err)
{
    const uint64_t seq = ++c->seq;
    const int size = c->size, rank = c->rank;
    const long fan = fm_param.COLL_FANOUT;
    const int vr = (rank - root + size) % size;
    const size_t bytes = (size_t)count * (size_t)dt->size;
    const fm_crma_region r = fm_crma_take(c, seq, bytes, bytes <= FM_CRMA_INLINE);
    const size_t off = r.inl ? FM_CRMA_OFF_DATA(r.lane) + FM_CRMA_INLINE_OFF : r.off;
    const size_t flag = FM_CRMA_OFF_DATA(r.lane);
    const uint64_t stamp = fm_crma_call_stamp(bytes, &r);
    int rc = err;

    if (vr != 0) {
        fm_crma_wait(c, flag, seq);
        if (rc == FM_OK)
            rc = fm_crma_check_stamp(c, flag, stamp);
    }
    /* Stores (shm) are done when written: raise each child's flag at once.
     * Writes that complete later (OFI: a flag waits for its data's
     * completion) go to every child first, so the children's completion
     * round trips overlap instead of adding up.  After an error the
     * children still get their flag, stamped as an error. */
    const int batch = c->be->sync != NULL;
    int nchild = 0;
    for (long j = 1; j <= fan && (long)vr * fan + j < size; j++) {
        int child = (int)(((long)vr * fan + j + root) % size);
        nchild++;
        fm_crma_wait_peer(c, child, r.after);
        if (rc == FM_OK)
            rc = vr == 0 ? fm_crma_write(c, child, off, buf, count, dt)
                         : fm_crma_forward(c, child, off, off, bytes);
        if (!batch)
            rc = raise_child(c, child, flag, seq, rc, stamp);
    }
    for (long k = 1; batch && k <= nchild; k++)
        rc = raise_child(c, (int)(((long)vr * fan + k + root) % size), flag, seq, rc, stamp);
    if (rc == FM_OK && vr != 0)
        fm_dt_unpack(buf, count, dt, 0, c->self + off, bytes);
    if (vr != 0 && !r.inl)
        fm_crma_claim(c, off, bytes);
    fm_crma_finish(c, seq);
    return rc;
}
