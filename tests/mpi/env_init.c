/* env_init: MPI_Init / MPI_Initialized / MPI_Finalized / MPI_Finalize, the
 * calls allowed before init and after finalize, version queries, processor
 * name, MPI_Wtime and MPI_Wtick. */
#include "testutil.h"
#include <time.h>

int main(int argc, char **argv)
{
    int flag = -1, v = -1, sv = -1;

    /* Allowed before MPI_Init. */
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK_EQ(flag, 0);
    flag = -1;
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK_EQ(flag, 0);
    CHECK_MPI(MPI_Get_version(&v, &sv));
    CHECK_EQ(v, MPI_VERSION);
    CHECK_EQ(sv, MPI_SUBVERSION);
    CHECK(v > 3 || (v == 3 && sv >= 1));
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = -1;
    memset(lib, 0x7f, sizeof lib);
    CHECK_MPI(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING);
#ifdef OPEN_MPI
    /* Open MPI counts the terminating NUL in resultlen; MPI-3.1 8.1.1 says
     * the NUL is stored at version[resultlen].  Accepted only there. */
    if (len == (int)strnlen(lib, sizeof lib) + 1)
        len--;
#endif
    CHECK_EQ((int)strnlen(lib, sizeof lib), len);
    CHECK(lib[len] == '\0');

    CHECK_MPI(MPI_Init(&argc, &argv));

    flag = 0;
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK_EQ(flag, 1);
    flag = -1;
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK_EQ(flag, 0);

    int rank, size;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 1);
    CHECK(rank >= 0 && rank < size);
    int srank = -1, ssize = -1;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &srank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_SELF, &ssize));
    CHECK_EQ(srank, 0);
    CHECK_EQ(ssize, 1);

    /* Default thread level of MPI_Init, and this is the main thread. */
    int provided = -1;
    CHECK_MPI(MPI_Query_thread(&provided));
    CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE);
    flag = 0;
    CHECK_MPI(MPI_Is_thread_main(&flag));
    CHECK_EQ(flag, 1);

    v = sv = -1;
    CHECK_MPI(MPI_Get_version(&v, &sv));
    CHECK_EQ(v, MPI_VERSION);
    CHECK_EQ(sv, MPI_SUBVERSION);

    char name[MPI_MAX_PROCESSOR_NAME];
    memset(name, 0x7f, sizeof name);
    len = -1;
    CHECK_MPI(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME);
    CHECK_EQ((int)strnlen(name, sizeof name), len);

    /* Wtick: positive resolution no coarser than 10 ms. */
    double tick = MPI_Wtick();
    CHECKF(tick > 0.0 && tick <= 0.01, "MPI_Wtick() = %g", tick);

    /* Wtime: never goes backwards, and measures a 20 ms sleep. */
    double t0 = MPI_Wtime(), prev = t0;
    for (int i = 0; i < 100000; i++) {
        double t = MPI_Wtime();
        CHECKF(t >= prev, "MPI_Wtime went backwards: %.9f < %.9f", t, prev);
        prev = t;
    }
    t0 = MPI_Wtime();
    struct timespec ts = {0, 20 * 1000 * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ;
    double dt = MPI_Wtime() - t0;
    CHECKF(dt >= 0.019 && dt < 10.0, "20 ms sleep measured as %g s", dt);

    /* Everyone gets here before anyone finalizes. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    CHECK_MPI(MPI_Finalize());

    /* Allowed after MPI_Finalize. */
    flag = -1;
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK_EQ(flag, 1);
    flag = -1;
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK_EQ(flag, 1);
    v = sv = -1;
    CHECK_MPI(MPI_Get_version(&v, &sv));
    CHECK_EQ(v, MPI_VERSION);
    len = -1;
    CHECK_MPI(MPI_Get_library_version(lib, &len));
    CHECK(len > 0);
    return 0;
}
