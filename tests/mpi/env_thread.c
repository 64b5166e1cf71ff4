/* env_thread: MPI_Init_thread with every requested level; the provided
 * level is reported back consistently by MPI_Query_thread, and the caller is
 * the main thread.  The requested level comes from argv[1] (default
 * MPI_THREAD_MULTIPLE); the run list uses the default. */
#include "testutil.h"

int main(int argc, char **argv)
{
    int required = MPI_THREAD_MULTIPLE;
    if (argc > 1)
        required = atoi(argv[1]);
    int provided = -1;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, required, &provided));
    CHECKF(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
           "provided = %d", provided);
    /* Monotonic levels, as the standard requires. */
    CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED);
    CHECK(MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED);
    CHECK(MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE);

    int q = -1;
    CHECK_MPI(MPI_Query_thread(&q));
    CHECK_EQ(q, provided);
    int flag = 0;
    CHECK_MPI(MPI_Is_thread_main(&flag));
    CHECK_EQ(flag, 1);
    flag = 0;
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK_EQ(flag, 1);

    /* The provided level is the same everywhere (same binary, same env). */
    int mn = -1, mx = -1;
    CHECK_MPI(MPI_Allreduce(&provided, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(&provided, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK_EQ(mn, mx);

    CHECK_MPI(MPI_Finalize());
    flag = 0;
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK_EQ(flag, 1);
    return 0;
}
