/* win_rma_api.c — MPI_Put / Get / Accumulate / Get_accumulate /
 * Fetch_and_op / Compare_and_swap and their request-based forms, with the
 * MPI-4.0 large-count variants (MPI_Put_c: MPI_Count counts) of each that
 * has counts.  A call and its variant share one body taking MPI_Count.
 *
 * On a node every operation completes before it returns, so the request
 * forms hand back requests that are already complete (the standard allows
 * completion at any time before the wait). */
#include <string.h>

#include "core/request.h"
#include "coll/op.h"
#include "dtype/dtype.h"
#include "mpi/win_api.h"
#include "util/copy.h"
#include "util/pvar.h"

/* An access epoch to trank is open: a fence's, a lock's, or a Win_start
 * group that holds it (MPI-4.0 12.5: RMA calls outside one are
 * erroneous; on a node they would otherwise just work, and then fail
 * across nodes). */
static inline int in_access_epoch(MPI_Win win, int trank)
{
    return win->epoch_all | win->reach[trank];
}

/* Everything Put/Get/Accumulate check about the origin and target
 * arguments; MPI_SUCCESS or the raised code. */
/* obuf / what: the origin-side buffer and its argument name, checked when
 * check_origin (NULL with data in it is MPI_ERR_BUFFER, as FM_CHECK_BUF). */
static int check_xfer(const char *call, MPI_Win win, const void *obuf, const char *what,
                      MPI_Count ocount, MPI_Datatype odt, int trank, MPI_Aint tdisp,
                      MPI_Count tcount, MPI_Datatype tdt, int check_origin)
{
    if (check_origin) {
        if (ocount < 0)
            return fm_win_raise(win, call, MPI_ERR_COUNT, "origin_count=%lld must be >= 0",
                                (long long)ocount);
        if (!fm_dt_valid(odt) || !fm_dt_usable(odt))
            return fm_win_raise(win, call, MPI_ERR_TYPE, "origin_datatype is %s",
                                fm_dt_valid(odt) ? "not committed" : "not a valid datatype");
        if (!obuf && ocount > 0 && odt->size > 0 && odt->true_lb <= 0)
            return fm_win_raise(win, call, MPI_ERR_BUFFER,
                                "%s=NULL with count=%lld (MPI_BOTTOM needs a datatype of "
                                "absolute addresses)", what, (long long)ocount);
    }
    if (tcount < 0)
        return fm_win_raise(win, call, MPI_ERR_COUNT, "target_count=%lld must be >= 0",
                            (long long)tcount);
    if (!fm_dt_valid(tdt) || !fm_dt_usable(tdt))
        return fm_win_raise(win, call, MPI_ERR_TYPE, "target_datatype is %s",
                            fm_dt_valid(tdt) ? "not committed" : "not a valid datatype");
    FM_CHECK_WIN_RANK(call, win, trank);
    if (trank != MPI_PROC_NULL && !in_access_epoch(win, trank))
        return fm_win_raise(win, call, MPI_ERR_RMA_SYNC,
                            "no access epoch to rank %d is open (MPI_Win_fence, MPI_Win_lock, "
                            "MPI_Win_lock_all or MPI_Win_start opens one)", trank);
    if (check_origin && ocount * odt->size != tcount * tdt->size)
        return fm_win_raise(win, call, MPI_ERR_TYPE,
                            "origin carries %lld bytes but target %lld: type signatures differ",
                            (long long)ocount * (long long)odt->size,
                            (long long)tcount * (long long)tdt->size);
    if (trank == MPI_PROC_NULL || win->flavor == MPI_WIN_FLAVOR_DYNAMIC || tcount == 0)
        return MPI_SUCCESS;
    MPI_Aint lo, hi, off = tdisp * win->peer[trank].disp_unit;
    fm_rma_span(tcount, tdt, &lo, &hi);
    if (tdisp < 0 || off + lo < 0 || off + hi > win->peer[trank].size)
        return fm_win_raise(win, call, MPI_ERR_RMA_RANGE,
                            "target_disp=%lld: bytes [%lld, %lld) lie outside rank %d's window "
                            "of %lld bytes",
                            (long long)tdisp, (long long)(off + lo), (long long)(off + hi), trank,
                            (long long)win->peer[trank].size);
    return MPI_SUCCESS;
}

/* Predefined op, defined for the target's kind; origin of the same kind. */
static int check_acc(const char *call, MPI_Win win, MPI_Datatype odt, MPI_Datatype tdt, MPI_Op op)
{
    if (!fm_op_valid(op))
        return fm_win_raise(win, call, MPI_ERR_OP, "op=%s is not valid",
                            op == MPI_OP_NULL ? "MPI_OP_NULL" : "<invalid>");
    if (!op->predefined)
        return fm_win_raise(win, call, MPI_ERR_OP,
                            "user-defined ops are not allowed in RMA accumulates");
    if (tdt->basic == FM_BK_NONE || fm_op_check(op, tdt) != FM_OK)
        return fm_win_raise(win, call, MPI_ERR_OP, "op %s is not defined for target datatype %s",
                            op->name, tdt->name[0] ? tdt->name : "(derived)");
    if (op != MPI_NO_OP && odt && odt->basic != tdt->basic)
        return fm_win_raise(win, call, MPI_ERR_TYPE,
                            "origin and target datatypes are built from different basic types");
    return MPI_SUCCESS;
}

/* The operation to trank is complete when this returns: on a node it
 * already is; an OFI target is flushed (blocking, but what the standard
 * allows for request-based operations). */
static int done_request(MPI_Win win, int trank, const char *call, MPI_Request *request)
{
    if (!request)
        return fm_win_raise(win, call, MPI_ERR_ARG, "request=NULL");
    if (trank >= 0 && trank < win->size && win->peer[trank].remote) {
        int rc = fm_rma_flush(win, trank);
        if (rc != FM_OK)
            return fm_win_raise_status(win, call, rc);
    }
    struct fm_request *r = fm_req_alloc(FM_REQ_DONE);
    if (!r)
        return fm_win_raise(win, call, MPI_ERR_NO_MEM, "no memory for the request");
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    r->status.MPI_ERROR = MPI_SUCCESS;
    fm_req_complete(r);
    *request = r;
    return MPI_SUCCESS;
}

/* The common case — same contiguous committed type on both sides, a
 * mapped target, in range — is one memcpy with no further checks.
 * Returns the address to copy at, or 0 to take the general path. */
static inline uintptr_t fast_target(MPI_Win win, const void *obuf, MPI_Count ocount,
                                    MPI_Datatype odt, int trank, MPI_Aint tdisp, MPI_Count tcount,
                                    MPI_Datatype tdt, size_t *n)
{
    const int ok = FM_DT_COMMITTED | FM_DT_CONTIG;
    if (fm_mpi_state != 1 || !fm_win_valid(win) || (unsigned)trank >= (unsigned)win->size ||
        odt != tdt || ocount != tcount || ocount < 0 || !odt ||
        odt->magic != FM_MAGIC_DTYPE || (odt->flags & ok) != ok)
        return 0;
    if (!in_access_epoch(win, trank)) /* the checked path refuses it */
        return 0;
    const fm_rma_peer *p = &win->peer[trank];
    size_t bytes = (size_t)ocount * (size_t)odt->size;
    MPI_Aint off = tdisp * p->disp_unit + odt->true_lb;
    if (!p->direct || win->flavor == MPI_WIN_FLAVOR_DYNAMIC || tdisp < 0 || off < 0 ||
        (size_t)off + bytes > (size_t)p->size || !bytes || !obuf)
        return 0; /* (a NULL origin goes to the checked path, which refuses it) */
    *n = bytes;
    return p->base + (uintptr_t)off;
}

static int put(const char *call, const void *obuf, MPI_Count ocount, MPI_Datatype odt,
               int trank, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype tdt, MPI_Win win)
{
    size_t n;
    uintptr_t t = fast_target(win, obuf, ocount, odt, trank, tdisp, tcount, tdt, &n);
    if (t) {
        FM_PV_INC(rma_loadstore);
        fm_copy((void *)t, (const char *)obuf + odt->true_lb, n);
        return MPI_SUCCESS;
    }
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    int rc = check_xfer(call, win, obuf, "origin_addr", ocount, odt, trank, tdisp, tcount, tdt, 1);
    if (rc != MPI_SUCCESS || trank == MPI_PROC_NULL)
        return rc;
    rc = fm_rma_put(win, obuf, ocount, odt, trank, tdisp, tcount, tdt);
    return rc == FM_OK ? MPI_SUCCESS : fm_win_raise_status(win, call, rc);
}

static int get(const char *call, void *obuf, MPI_Count ocount, MPI_Datatype odt, int trank,
               MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype tdt, MPI_Win win)
{
    size_t n;
    uintptr_t t = fast_target(win, obuf, ocount, odt, trank, tdisp, tcount, tdt, &n);
    if (t) {
        FM_PV_INC(rma_loadstore);
        fm_copy((char *)obuf + odt->true_lb, (const void *)t, n);
        return MPI_SUCCESS;
    }
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    int rc = check_xfer(call, win, obuf, "origin_addr", ocount, odt, trank, tdisp, tcount, tdt, 1);
    if (rc != MPI_SUCCESS || trank == MPI_PROC_NULL)
        return rc;
    rc = fm_rma_get(win, obuf, ocount, odt, trank, tdisp, tcount, tdt);
    return rc == FM_OK ? MPI_SUCCESS : fm_win_raise_status(win, call, rc);
}

/* res == NULL: Accumulate; otherwise Get_accumulate. */
static int acc(const char *call, const void *obuf, MPI_Count ocount, MPI_Datatype odt,
               void *res, MPI_Count rcount, MPI_Datatype rdt, int trank, MPI_Aint tdisp,
               MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win)
{
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    int noop = fm_op_valid(op) && op == MPI_NO_OP;
    int rc = check_xfer(call, win, obuf, "origin_addr", ocount, odt, trank, tdisp, tcount, tdt,
                        !noop);
    if (rc != MPI_SUCCESS)
        return rc;
    if (rdt && (rc = check_xfer(call, win, res, "result_addr", rcount, rdt, trank, tdisp, tcount,
                                tdt, 1)) != MPI_SUCCESS)
        return rc;
    if (rdt && !res) /* nothing to fetch into; fm_rma_acc reads res != NULL as "fetch" */
        res = (void *)&rcount;
    /* No data on any side (zero counts or empty types): nothing is
     * combined, so there are no kinds to match; the call does nothing. */
    MPI_Count bytes = tcount * tdt->size + (noop ? 0 : ocount * odt->size) +
                      (rdt ? rcount * rdt->size : 0);
    if (bytes == 0 && fm_op_valid(op))
        return MPI_SUCCESS;
    if ((rc = check_acc(call, win, noop ? NULL : odt, tdt, op)) != MPI_SUCCESS)
        return rc;
    if (trank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    rc = fm_rma_acc(win, obuf, ocount, odt, res, rcount, rdt, trank, tdisp, tcount, tdt, op);
    return rc == FM_OK ? MPI_SUCCESS : fm_win_raise_status(win, call, rc);
}

#pragma weak MPI_Put = PMPI_Put
int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count,
            MPI_Datatype target_datatype, MPI_Win win)
{
    FM_API_LOCK();
    return put("MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, win);
}

#pragma weak MPI_Put_c = PMPI_Put_c
int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    FM_API_LOCK();
    return put("MPI_Put_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, win);
}

#pragma weak MPI_Get = PMPI_Get
int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    FM_API_LOCK();
    return get("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, win);
}

#pragma weak MPI_Get_c = PMPI_Get_c
int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    FM_API_LOCK();
    return get("MPI_Get_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, win);
}

#pragma weak MPI_Accumulate = PMPI_Accumulate
int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    FM_API_LOCK();
    return acc("MPI_Accumulate", origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
               target_rank, target_disp, target_count, target_datatype, op, win);
}

#pragma weak MPI_Accumulate_c = PMPI_Accumulate_c
int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count,
                      MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                      MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                      MPI_Win win)
{
    FM_API_LOCK();
    return acc("MPI_Accumulate_c", origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
               target_rank, target_disp, target_count, target_datatype, op, win);
}

static int get_acc(const char *call, const void *origin_addr, MPI_Count origin_count,
                   MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                   MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                   MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    /* NULL is fine for a result of no bytes (an empty datatype too). */
    if (!result_addr && result_count > 0 && fm_win_valid(win) &&
        !(fm_dt_valid(result_datatype) && result_datatype->size == 0))
        return fm_win_raise(win, call, MPI_ERR_BUFFER, "result_addr=NULL");
    /* a non-NULL marker for zero-sized results keeps the Get_ semantics */
    return acc(call, origin_addr, origin_count, origin_datatype, result_addr, result_count,
               result_datatype, target_rank, target_disp, target_count, target_datatype, op, win);
}

#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate
int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    FM_API_LOCK();
    return get_acc("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr,
                   result_count, result_datatype, target_rank, target_disp, target_count,
                   target_datatype, op, win);
}

#pragma weak MPI_Get_accumulate_c = PMPI_Get_accumulate_c
int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr,
                          MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    FM_API_LOCK();
    return get_acc("MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype,
                   result_addr, result_count, result_datatype, target_rank, target_disp,
                   target_count, target_datatype, op, win);
}

#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op
int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    FM_API_LOCK();
    if (!result_addr && fm_win_valid(win))
        return fm_win_raise(win, "MPI_Fetch_and_op", MPI_ERR_BUFFER, "result_addr=NULL");
    return acc("MPI_Fetch_and_op", origin_addr, 1, datatype, result_addr, 1, datatype,
               target_rank, target_disp, 1, datatype, op, win);
}

#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Win win)
{
    FM_API_LOCK();
    const char *call = "MPI_Compare_and_swap";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    int rc = check_xfer(call, win, origin_addr, "origin_addr", 1, datatype, target_rank,
                        target_disp, 1, datatype, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (fm_op_cas_check(datatype) != FM_OK)
        return fm_win_raise(win, call, MPI_ERR_TYPE,
                            "datatype must be a predefined integer, logical or byte type");
    if (!origin_addr || !compare_addr || !result_addr)
        return fm_win_raise(win, call, MPI_ERR_BUFFER,
                            "origin_addr, compare_addr and result_addr must not be NULL");
    if (target_rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    rc = fm_rma_cas(win, origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp);
    return rc == FM_OK ? MPI_SUCCESS : fm_win_raise_status(win, call, rc);
}

#pragma weak MPI_Rput = PMPI_Rput
int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    FM_API_LOCK();
    int rc = put("MPI_Rput", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                 target_count, target_datatype, win);
    return rc != MPI_SUCCESS ? rc : done_request(win, target_rank, "MPI_Rput", request);
}

#pragma weak MPI_Rput_c = PMPI_Rput_c
int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    FM_API_LOCK();
    int rc = put("MPI_Rput_c", origin_addr, origin_count, origin_datatype, target_rank,
                 target_disp, target_count, target_datatype, win);
    return rc != MPI_SUCCESS ? rc : done_request(win, target_rank, "MPI_Rput_c", request);
}

#pragma weak MPI_Rget = PMPI_Rget
int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request)
{
    FM_API_LOCK();
    int rc = get("MPI_Rget", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                 target_count, target_datatype, win);
    return rc != MPI_SUCCESS ? rc : done_request(win, target_rank, "MPI_Rget", request);
}

#pragma weak MPI_Rget_c = PMPI_Rget_c
int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    FM_API_LOCK();
    int rc = get("MPI_Rget_c", origin_addr, origin_count, origin_datatype, target_rank,
                 target_disp, target_count, target_datatype, win);
    return rc != MPI_SUCCESS ? rc : done_request(win, target_rank, "MPI_Rget_c", request);
}

#pragma weak MPI_Raccumulate = PMPI_Raccumulate
int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                    MPI_Request *request)
{
    FM_API_LOCK();
    int rc = acc("MPI_Raccumulate", origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                 target_rank, target_disp, target_count, target_datatype, op, win);
    return rc != MPI_SUCCESS ? rc : done_request(win, target_rank, "MPI_Raccumulate", request);
}

#pragma weak MPI_Raccumulate_c = PMPI_Raccumulate_c
int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                       MPI_Win win, MPI_Request *request)
{
    FM_API_LOCK();
    int rc = acc("MPI_Raccumulate_c", origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                 target_rank, target_disp, target_count, target_datatype, op, win);
    return rc != MPI_SUCCESS ? rc : done_request(win, target_rank, "MPI_Raccumulate_c", request);
}

#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate
int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, void *result_addr, int result_count,
                        MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                        MPI_Request *request)
{
    FM_API_LOCK();
    int rc = get_acc("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype,
                     result_addr, result_count, result_datatype, target_rank, target_disp,
                     target_count, target_datatype, op, win);
    return rc != MPI_SUCCESS ? rc : done_request(win, target_rank, "MPI_Rget_accumulate", request);
}

#pragma weak MPI_Rget_accumulate_c = PMPI_Rget_accumulate_c
int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void *result_addr,
                           MPI_Count result_count, MPI_Datatype result_datatype,
                           int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                           MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                           MPI_Request *request)
{
    FM_API_LOCK();
    int rc = get_acc("MPI_Rget_accumulate_c", origin_addr, origin_count, origin_datatype,
                     result_addr, result_count, result_datatype, target_rank, target_disp,
                     target_count, target_datatype, op, win);
    return rc != MPI_SUCCESS ? rc
                             : done_request(win, target_rank, "MPI_Rget_accumulate_c", request);
}
