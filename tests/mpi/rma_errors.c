/* rma_errors: error classes from window calls under MPI_ERRORS_RETURN,
 * a user window error handler, and the default (MPI_ERRORS_ARE_FATAL)
 * being replaceable. */
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
