/* omp_detach: MPIX_Request_detach fulfils OpenMP detach events.  On rank 0
 * a task per message posts MPI_Irecv and detaches the request with its
 * task's event; a second task per message depends on the first and checks
 * the payload, so it may run only once the receive has completed.  The
 * other ranks send the messages in reverse order, after a pause, so the
 * receive tasks really wait.  Also: a request complete already when
 * detached (a send to self), and the errors (MPI_REQUEST_NULL, a
 * persistent request).  Needs MPI_THREAD_MULTIPLE (tasks call MPI on any
 * thread) and FABMPI_PROGRESS_THREAD=on (the threads wait in OpenMP, not
 * in MPI, so nothing else progresses the receives). */
#include <omp.h>
#include <time.h>

#include "testutil.h"

#define N 16

int main(int argc, char **argv)
{
    int provided, rank, size;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK_EQ(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);

    if (rank == 0) {
        int bufs[N], checked = 0;
        for (int i = 0; i < N; i++)
            bufs[i] = -1;
#pragma omp parallel num_threads(2) shared(bufs, checked)
#pragma omp single
        {
            for (int i = 0; i < N; i++) {
                omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : bufs[i]) firstprivate(i)
                {
                    MPI_Request r;
                    CHECK_MPI(MPI_Irecv(&bufs[i], 1, MPI_INT, 1 + i % (size - 1), i,
                                        MPI_COMM_WORLD, &r));
                    CHECK_MPI(MPIX_Request_detach(&r, (uintptr_t)ev));
                    CHECK(r == MPI_REQUEST_NULL);
                }
#pragma omp task depend(in : bufs[i]) firstprivate(i)
                {
                    CHECKF(bufs[i] == i * 3 + 1, "message %d: %d before its receive completed?",
                           i, bufs[i]);
#pragma omp atomic
                    checked++;
                }
            }
#pragma omp taskwait
        }
        CHECK_EQ(checked, N);

        /* Complete already when detached: fulfilled at once. */
        int x = 42, y = -1;
        MPI_Request s, r;
        CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, 0, 99, MPI_COMM_SELF, &s));
        CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, 0, 99, MPI_COMM_SELF, MPI_STATUS_IGNORE));
        CHECK_EQ(y, 42);
#pragma omp parallel num_threads(2)
#pragma omp single
        {
            omp_event_handle_t ev;
#pragma omp task detach(ev)
            CHECK_MPI(MPIX_Request_detach(&s, (uintptr_t)ev));
#pragma omp taskwait
        }
        CHECK(s == MPI_REQUEST_NULL);

        /* Errors. */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int cls = -1;
        MPI_Request null = MPI_REQUEST_NULL;
        MPI_Error_class(MPIX_Request_detach(&null, 0), &cls);
        CHECK_EQ(cls, MPI_ERR_REQUEST);
        CHECK_MPI(MPI_Recv_init(&y, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r));
        MPI_Error_class(MPIX_Request_detach(&r, 0), &cls);
        CHECK_EQ(cls, MPI_ERR_REQUEST);
        CHECK(r != MPI_REQUEST_NULL); /* still the caller's */
        CHECK_MPI(MPI_Request_free(&r));
    } else {
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
        for (int i = N - 1; i >= 0; i--)
            if (1 + i % (size - 1) == rank) {
                int v = i * 3 + 1;
                CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, i, MPI_COMM_WORLD));
            }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
