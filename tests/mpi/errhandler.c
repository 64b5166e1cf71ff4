/* errhandler: user error handlers — Comm_create_errhandler, called with the
 * communicator and the code the failing call then returns; inherited by
 * Comm_dup; Comm_call_errhandler; Comm_get_errhandler returns what was set;
 * Errhandler_free while still attached keeps it working; switching back to
 * MPI_ERRORS_RETURN stops the calls. */
#include "testutil.h"

static int rank, size;
static int ncalls_a, ncalls_b, last_code;
static MPI_Comm last_comm;

static void handler_a(MPI_Comm *comm, int *code, ...)
{
    ncalls_a++;
    last_comm = *comm;
    last_code = *code;
}

static void handler_b(MPI_Comm *comm, int *code, ...)
{
    ncalls_b++;
    last_comm = *comm;
    last_code = *code;
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

    MPI_Errhandler ea = MPI_ERRHANDLER_NULL, eb = MPI_ERRHANDLER_NULL, got;
    CHECK_MPI(MPI_Comm_create_errhandler(handler_a, &ea));
    CHECK_MPI(MPI_Comm_create_errhandler(handler_b, &eb));
    CHECK(ea != MPI_ERRHANDLER_NULL && eb != MPI_ERRHANDLER_NULL && ea != eb);

    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_errhandler(c, ea));
    CHECK_MPI(MPI_Comm_get_errhandler(c, &got));
    CHECK(got == ea);
    CHECK_MPI(MPI_Errhandler_free(&got));

    /* A failing call invokes the handler once, then returns the same code. */
    int buf = 0;
    int rc = MPI_Send(&buf, 1, MPI_INT, size, 0, c);
    CHECK(rc != MPI_SUCCESS);
    CHECK_EQ(ncalls_a, 1);
    CHECK(last_comm == c);
    CHECK_EQ(last_code, rc);
    int cls = -1;
    CHECK_MPI(MPI_Error_class(last_code, &cls));
    CHECK_EQ(cls, MPI_ERR_RANK);

    rc = MPI_Bcast(&buf, 1, MPI_INT, size, c);
    CHECK(rc != MPI_SUCCESS);
    CHECK_EQ(ncalls_a, 2);
    CHECK_EQ(last_code, rc);
    CHECK_MPI(MPI_Error_class(last_code, &cls));
    CHECK_EQ(cls, MPI_ERR_ROOT);

    /* Successful calls do not invoke it. */
    CHECK_MPI(MPI_Barrier(c));
    CHECK_EQ(ncalls_a, 2);

    /* Comm_call_errhandler passes the code through and returns success. */
    rc = MPI_Comm_call_errhandler(c, MPI_ERR_OTHER);
    CHECK_EQ(rc, MPI_SUCCESS);
    CHECK_EQ(ncalls_a, 3);
    CHECK_EQ(last_code, MPI_ERR_OTHER);
    CHECK(last_comm == c);

    /* Freeing the handle while attached: still attached and working. */
    CHECK_MPI(MPI_Errhandler_free(&ea));
    CHECK(ea == MPI_ERRHANDLER_NULL);
    rc = MPI_Recv(&buf, 1, MPI_INT, 0, -77, c, MPI_STATUS_IGNORE);
    CHECK_EQ(ncalls_a, 4);
    CHECK_MPI(MPI_Error_class(rc, &cls));
    CHECK_EQ(cls, MPI_ERR_TAG);

    /* Inherited by a dup; called with the dup. */
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(c, &d));
    rc = MPI_Send(&buf, -1, MPI_INT, 0, 0, d);
    CHECK_EQ(ncalls_a, 5);
    CHECK(last_comm == d);
    CHECK_MPI(MPI_Error_class(rc, &cls));
    CHECK_EQ(cls, MPI_ERR_COUNT);

    /* Replace with b on the dup; c keeps a. */
    CHECK_MPI(MPI_Comm_set_errhandler(d, eb));
    CHECK_MPI(MPI_Comm_get_errhandler(d, &got));
    CHECK(got == eb);
    CHECK_MPI(MPI_Errhandler_free(&got));
    rc = MPI_Send(&buf, 1, MPI_DATATYPE_NULL, 0, 0, d);
    CHECK_EQ(ncalls_b, 1);
    CHECK_EQ(ncalls_a, 5);
    CHECK_MPI(MPI_Error_class(rc, &cls));
    CHECK_EQ(cls, MPI_ERR_TYPE);
    CHECK_MPI(MPI_Comm_call_errhandler(c, MPI_ERR_ARG));
    CHECK_EQ(ncalls_a, 6);
    CHECK_EQ(last_code, MPI_ERR_ARG);

    /* Back to ERRORS_RETURN: no more calls, codes still returned. */
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_get_errhandler(c, &got));
    CHECK(got == MPI_ERRORS_RETURN);
    rc = MPI_Send(&buf, 1, MPI_INT, size, 0, c);
    CHECK_MPI(MPI_Error_class(rc, &cls));
    CHECK_EQ(cls, MPI_ERR_RANK);
    CHECK_EQ(ncalls_a, 6);

    /* A user handler on MPI_COMM_WORLD also catches errors on
     * MPI_COMM_NULL. */
    MPI_Errhandler ew;
    CHECK_MPI(MPI_Comm_create_errhandler(handler_a, &ew));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, ew));
    CHECK_MPI(MPI_Errhandler_free(&ew));
    rc = MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
    CHECK_MPI(MPI_Error_class(rc, &cls));
    CHECK_EQ(cls, MPI_ERR_COMM);
    CHECK_EQ(ncalls_a, 7);
    CHECK_EQ(last_code, rc);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Errhandler_free(&eb));
    CHECK(eb == MPI_ERRHANDLER_NULL);
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
