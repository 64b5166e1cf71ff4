/* errclass_fatal: MUST die.  A code the program added, with its own
 * string, handed to MPI_Comm_call_errhandler on MPI_COMM_WORLD under the
 * default MPI_ERRORS_ARE_FATAL: the job ends with a non-zero status and
 * stderr carries the program's string.  Listed with expect=fail. */
#include "testutil.h"

int main(int argc, char **argv)
{
    int rank, cls, code;
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Add_error_class(&cls));
    CHECK_MPI(MPI_Add_error_code(cls, &code));
    CHECK_MPI(MPI_Add_error_string(code, "errclass_fatal-message-of-the-program"));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
        printf("errclass_fatal: MPI_Comm_call_errhandler returned under "
               "MPI_ERRORS_ARE_FATAL\n");
    }
    MPI_Finalize();
    return 0;
}
