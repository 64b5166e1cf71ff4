/* rma_errors: error classes from window calls under MPI_ERRORS_RETURN
 * (RMA calls outside an access epoch, or to a rank it does not reach, and
 * a lock inside a Win_start epoch, are MPI_ERR_RMA_SYNC), a user window
 * error handler, and the default (MPI_ERRORS_ARE_FATAL) being
 * replaceable. */
#include "testutil.h"

static int handler_calls, handler_class;

static void on_error(MPI_Win *win, int *code, ...)
{
    (void)win;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Win_get_errhandler(win, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL);
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int v = 1;
    /* No access epoch yet: RMA calls are refused (MPI_ERR_RMA_SYNC). */
    CHECK_ERR(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    CHECK_ERR(MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    CHECK_ERR(MPI_Fetch_and_op(&v, &v, MPI_INT, 0, 0, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    /* A lock opens one to its rank only; a Win_start group to its members. */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    CHECK_MPI(MPI_Get(&v, 1, MPI_INT, rank, 0, 1, MPI_INT, win));
    if (size > 1)
        CHECK_ERR(MPI_Get(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win),
                  MPI_ERR_RMA_SYNC);
    CHECK_MPI(MPI_Win_unlock(rank, win));
    CHECK_ERR(MPI_Accumulate(&v, 1, MPI_INT, rank, 0, 1, MPI_INT, MPI_SUM, win),
              MPI_ERR_RMA_SYNC);
    MPI_Group world, self;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &rank, &self);
    CHECK_MPI(MPI_Win_post(self, 0, win));
    CHECK_MPI(MPI_Win_start(self, 0, win));
    CHECK_MPI(MPI_Get(&v, 1, MPI_INT, rank, 0, 1, MPI_INT, win));
    if (size > 1)
        CHECK_ERR(MPI_Get(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win),
                  MPI_ERR_RMA_SYNC);
    /* ... and no lock inside it: access epochs of two kinds do not nest. */
    CHECK_ERR(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win), MPI_ERR_RMA_SYNC);
    CHECK_ERR(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    CHECK_MPI(MPI_Win_complete(win));
    CHECK_MPI(MPI_Win_wait(win));
    MPI_Group_free(&self);
    MPI_Group_free(&world);
    /* A fence opens one to every rank, unless it says MPI_MODE_NOSUCCEED. */
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_ERR(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_ERR(MPI_Put(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    CHECK_ERR(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    CHECK_ERR(MPI_Put(&v, -1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Put(&v, 1, MPI_INT, 0, 0, 2, MPI_INT, win), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP);
    CHECK_ERR(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_MINLOC, win), MPI_ERR_OP);
    double d = 1;
    CHECK_ERR(MPI_Compare_and_swap(&d, &d, &d, MPI_DOUBLE, 0, 0, win), MPI_ERR_TYPE);
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 99, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_ERR(MPI_Win_lock(12345, 0, 0, win), MPI_ERR_LOCKTYPE);
    CHECK_ERR(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
    CHECK_ERR(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    CHECK_ERR(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    CHECK_ERR(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    CHECK_ERR(MPI_Win_attach(win, mem, 4), MPI_ERR_RMA_FLAVOR);
    void *x;
    int flag;
    CHECK_ERR(MPI_Win_get_attr(win, 77, &x, &flag), MPI_ERR_KEYVAL);
    /* no window to report on: the error goes to MPI_COMM_WORLD's handler */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_ERR(MPI_Win_free(NULL), MPI_ERR_ARG);
    MPI_Win bad = MPI_WIN_NULL;
    CHECK_ERR(MPI_Win_fence(0, bad), MPI_ERR_WIN);

    /* user handler */
    MPI_Errhandler mine;
    CHECK_MPI(MPI_Win_create_errhandler(on_error, &mine));
    CHECK_MPI(MPI_Win_set_errhandler(win, mine));
    CHECK_MPI(MPI_Errhandler_free(&mine));
    int rc = MPI_Win_unlock(0, win);
    CHECK(rc != MPI_SUCCESS);
    CHECK_EQ(handler_calls, 1);
    CHECK_EQ(handler_class, MPI_ERR_RMA_SYNC);
    CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK_EQ(handler_calls, 2);
    CHECK_MPI(MPI_Win_free(&win));

    /* a Win_create window's memory is not shared */
    MPI_Win w2;
    int buf[2];
    CHECK_MPI(MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w2));
    CHECK_MPI(MPI_Win_set_errhandler(w2, MPI_ERRORS_RETURN));
    MPI_Aint sz;
    int du;
    CHECK_ERR(MPI_Win_shared_query(w2, 0, &sz, &du, &x), MPI_ERR_RMA_FLAVOR);
    CHECK_MPI(MPI_Win_free(&w2));
    MPI_Finalize();
    return 0;
}
