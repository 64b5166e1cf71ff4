/* win_sync_api.c — epochs: fence, lock/unlock (+ _all), flush, sync,
 * post/start/complete/wait/test.  The bookkeeping here only catches
 * misuse (MPI_ERR_RMA_SYNC); src/rma/sync.c moves the shared words. */
#include <stdatomic.h>
#include <stdlib.h>

#include "mpi/win_api.h"

static int any_lock(MPI_Win w)
{
    if (w->lock_all)
        return 1;
    for (int i = 0; i < w->size; i++)
        if (w->held[i])
            return 1;
    return 0;
}

#pragma weak MPI_Win_fence = PMPI_Win_fence
int PMPI_Win_fence(int assert, MPI_Win win)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_fence";
    /* Every fence is a barrier (cheap on a node, and always right); the
     * assertion says only whether an epoch follows. */
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (any_lock(win) || win->naccess >= 0 || win->nexpose >= 0)
        return fm_win_raise(win, call, MPI_ERR_RMA_SYNC,
                            "a lock or post/start epoch is open on the window");
    win->epoch_all = assert & MPI_MODE_NOSUCCEED ? 0 : 1;
    int rc = fm_rma_fence(win);
    return rc == FM_OK ? MPI_SUCCESS : fm_win_raise_status(win, call, rc);
}

#pragma weak MPI_Win_lock = PMPI_Win_lock
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_lock";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return fm_win_raise(win, call, MPI_ERR_LOCKTYPE,
                            "lock_type=%d; use MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE", lock_type);
    FM_CHECK_WIN_RANK(call, win, rank);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (win->lock_all || win->held[rank])
        return fm_win_raise(win, call, MPI_ERR_RMA_SYNC, "rank %d is already locked", rank);
    if (win->naccess >= 0) /* access epochs of two kinds do not nest (MPI-4.0 12.5) */
        return fm_win_raise(win, call, MPI_ERR_RMA_SYNC, "an MPI_Win_start epoch is open");
    int excl = lock_type == MPI_LOCK_EXCLUSIVE;
    if (assert & MPI_MODE_NOCHECK) {
        win->held[rank] = FM_RMA_HELD_NOCHECK; /* the user vouches no one else locks it */
        win->reach[rank] = 1;
        return MPI_SUCCESS;
    }
    fm_rma_lock(win, excl, rank);
    win->held[rank] = excl ? FM_RMA_HELD_EXCL : FM_RMA_HELD_SHARED;
    win->reach[rank] = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_unlock = PMPI_Win_unlock
int PMPI_Win_unlock(int rank, MPI_Win win)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_unlock";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    FM_CHECK_WIN_RANK(call, win, rank);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int h = win->held[rank];
    if (!h)
        return fm_win_raise(win, call, MPI_ERR_RMA_SYNC, "rank %d is not locked", rank);
    win->reach[rank] = 0;
    if (h == FM_RMA_HELD_NOCHECK) {
        int rc = fm_rma_flush(win, rank);
        atomic_thread_fence(memory_order_seq_cst);
        if (rc != FM_OK) {
            win->held[rank] = FM_RMA_HELD_NONE;
            return fm_win_raise_status(win, call, rc);
        }
    }
    else
        fm_rma_unlock(win, h == FM_RMA_HELD_EXCL, rank);
    win->held[rank] = FM_RMA_HELD_NONE;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all
int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_lock_all";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (any_lock(win))
        return fm_win_raise(win, call, MPI_ERR_RMA_SYNC, "the window is already locked");
    if (win->naccess >= 0)
        return fm_win_raise(win, call, MPI_ERR_RMA_SYNC, "an MPI_Win_start epoch is open");
    if (assert & MPI_MODE_NOCHECK) {
        win->lock_all = 2;
        win->epoch_all |= 2;
        return MPI_SUCCESS;
    }
    for (int i = 0; i < win->size; i++)
        fm_rma_lock(win, 0, i);
    win->lock_all = 1;
    win->epoch_all |= 2;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
int PMPI_Win_unlock_all(MPI_Win win)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_unlock_all";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (!win->lock_all)
        return fm_win_raise(win, call, MPI_ERR_RMA_SYNC, "no MPI_Win_lock_all epoch is open");
    int rc = fm_rma_flush(win, -1);
    atomic_thread_fence(memory_order_seq_cst);
    if (win->lock_all == 1)
        for (int i = 0; i < win->size; i++)
            fm_rma_unlock(win, 0, i);
    win->lock_all = 0;
    win->epoch_all &= ~2;
    return rc == FM_OK ? MPI_SUCCESS : fm_win_raise_status(win, call, rc);
}

static int flush(const char *call, int rank, MPI_Win win)
{
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (rank != -1000) {
        FM_CHECK_WIN_RANK(call, win, rank);
        if (rank != MPI_PROC_NULL && !win->lock_all && !win->held[rank])
            return fm_win_raise(win, call, MPI_ERR_RMA_SYNC, "rank %d is not locked", rank);
    } else if (!any_lock(win)) {
        return fm_win_raise(win, call, MPI_ERR_RMA_SYNC, "no passive-target epoch is open");
    }
    /* On a node operations are complete when they return; OFI targets
     * count theirs (local completion is not tracked apart: wait for all). */
    int rc = fm_rma_flush(win, rank == -1000 || rank == MPI_PROC_NULL ? -1 : rank);
    atomic_thread_fence(memory_order_seq_cst);
    return rc == FM_OK ? MPI_SUCCESS : fm_win_raise_status(win, call, rc);
}

#pragma weak MPI_Win_flush = PMPI_Win_flush
int PMPI_Win_flush(int rank, MPI_Win win)
{
    FM_API_LOCK();
    return flush("MPI_Win_flush", rank, win);
}
#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    FM_API_LOCK();
    return flush("MPI_Win_flush_local", rank, win);
}
#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
int PMPI_Win_flush_all(MPI_Win win)
{
    FM_API_LOCK();
    return flush("MPI_Win_flush_all", -1000, win);
}
#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
int PMPI_Win_flush_local_all(MPI_Win win)
{
    FM_API_LOCK();
    return flush("MPI_Win_flush_local_all", -1000, win);
}

#pragma weak MPI_Win_sync = PMPI_Win_sync
int PMPI_Win_sync(MPI_Win win)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Win_sync");
    FM_CHECK_WIN("MPI_Win_sync", win);
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}

/* The window ranks of group's members into out (win->size entries). */
static int group_ranks(const char *call, MPI_Win win, MPI_Group group, int *out, int *n)
{
    if (!fm_group_valid(group))
        return fm_win_raise(win, call, MPI_ERR_GROUP, "group is not a valid group");
    int *r1 = malloc(((size_t)group->size + 1) * sizeof *r1);
    if (!r1)
        return fm_win_raise(win, call, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < group->size; i++)
        r1[i] = i;
    char why[FM_WHY_LEN];
    int rc = group->size > win->size ? FM_ERR_GROUP
                                     : fm_group_translate(group, group->size, r1,
                                                          win->comm->group, out, why);
    free(r1);
    if (rc != FM_OK)
        return fm_win_raise(win, call, MPI_ERR_GROUP, "group is not a subset of the window's");
    for (int i = 0; i < group->size; i++)
        if (out[i] == MPI_UNDEFINED)
            return fm_win_raise(win, call, MPI_ERR_GROUP,
                                "member %d of group is not in the window's group", i);
    *n = group->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_post = PMPI_Win_post
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_post";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (win->nexpose >= 0)
        return fm_win_raise(win, call, MPI_ERR_RMA_SYNC, "an exposure epoch is already open");
    int n, *ranks = malloc(((size_t)win->size + 1) * sizeof *ranks);
    if (!ranks)
        return fm_win_raise(win, call, MPI_ERR_NO_MEM, "out of memory");
    int rc = group_ranks(call, win, group, ranks, &n);
    if (rc == MPI_SUCCESS) {
        if (assert & MPI_MODE_NOCHECK)
            win->nexpose = n; /* the origins' matching starts do not wait */
        else
            fm_rma_post(win, ranks, n);
    }
    free(ranks);
    return rc;
}

#pragma weak MPI_Win_start = PMPI_Win_start
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_start";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (win->naccess >= 0)
        return fm_win_raise(win, call, MPI_ERR_RMA_SYNC, "an access epoch is already open");
    int n, rc = group_ranks(call, win, group, win->access, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!(assert & MPI_MODE_NOCHECK))
        fm_rma_start(win, win->access, n);
    win->naccess = n;
    for (int i = 0; i < n; i++)
        win->reach[win->access[i]] = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_complete = PMPI_Win_complete
int PMPI_Win_complete(MPI_Win win)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Win_complete");
    FM_CHECK_WIN("MPI_Win_complete", win);
    if (win->naccess < 0)
        return fm_win_raise(win, "MPI_Win_complete", MPI_ERR_RMA_SYNC,
                            "no MPI_Win_start epoch is open");
    for (int i = 0; i < win->naccess; i++)
        win->reach[win->access[i]] = 0;
    fm_rma_complete(win);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_wait = PMPI_Win_wait
int PMPI_Win_wait(MPI_Win win)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Win_wait");
    FM_CHECK_WIN("MPI_Win_wait", win);
    if (win->nexpose < 0)
        return fm_win_raise(win, "MPI_Win_wait", MPI_ERR_RMA_SYNC, "no MPI_Win_post epoch is open");
    fm_rma_wait(win);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_test = PMPI_Win_test
int PMPI_Win_test(MPI_Win win, int *flag)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Win_test");
    FM_CHECK_WIN("MPI_Win_test", win);
    if (!flag)
        return fm_win_raise(win, "MPI_Win_test", MPI_ERR_ARG, "flag=NULL");
    if (win->nexpose < 0)
        return fm_win_raise(win, "MPI_Win_test", MPI_ERR_RMA_SYNC, "no MPI_Win_post epoch is open");
    *flag = fm_rma_test(win);
    return MPI_SUCCESS;
}
