/* pmpi_calls — the profiling interface as a tool sees it.  Run with the
 * profiling library pmpi_counter.c linked before libfabmpi (pmpi_calls) or
 * LD_PRELOADed (pmpi_calls_plain, env in TESTLIST).  The program makes
 * point-to-point, collective, one-sided and communicator calls, then asks
 * the profiler (MPI_Pcontrol) what it saw: exactly the program's own calls
 * with their arguments, and none of the calls fabmpi makes inside (MPI_Mrecv
 * receives through Imrecv, MPI_Win_get_info copies an info with Info_dup,
 * MPI_Sendrecv and the collectives send and receive). */
#include "pmpi_counter.h"
#include "testutil.h"

static void expect(const char *name, long calls, long argsum)
{
    long c = -1, s = -1;
    MPI_Pcontrol(PMPI_COUNTER_QUERY, name, &c, &s);
    if (c == -1)
        tu_fail(__FILE__, __LINE__, "no profiling library answered MPI_Pcontrol: MPI_ calls "
                "were not intercepted");
    CHECKF(c == calls && s == argsum,
           "%s: the profiler saw %ld calls (argument sum %ld), the program made %ld (%ld)", name,
           c, s, calls, argsum);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* point-to-point */
    int sbuf[8], rbuf[8];
    for (int i = 0; i < 8; i++)
        sbuf[i] = 100 * rank + i;
    MPI_Request req[2];
    MPI_Isend(sbuf, 4, MPI_INT, right, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(rbuf, 4, MPI_INT, left, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 4; i++)
        CHECKF(rbuf[i] == 100 * left + i, "ring: rbuf[%d]=%d", i, rbuf[i]);
    MPI_Sendrecv(sbuf, 3, MPI_INT, right, 2, rbuf, 3, MPI_INT, left, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECKF(rbuf[2] == 100 * left + 2, "sendrecv: rbuf[2]=%d", rbuf[2]);
    if (rank == 0) {
        for (int p = 1; p < size; p++)
            MPI_Send(sbuf, 2, MPI_INT, p, 3, MPI_COMM_WORLD);
    } else {
        MPI_Recv(rbuf, 2, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECKF(rbuf[1] == 1, "send/recv: rbuf[1]=%d", rbuf[1]);
    }
    MPI_Message msg;
    MPI_Isend(sbuf, 5, MPI_INT, right, 9, MPI_COMM_WORLD, &req[0]);
    MPI_Mprobe(left, 9, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
    MPI_Mrecv(rbuf, 5, MPI_INT, &msg, MPI_STATUS_IGNORE);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    CHECKF(rbuf[4] == 100 * left + 4, "mrecv: rbuf[4]=%d", rbuf[4]);

    /* collectives */
    int b[3] = {rank, rank, rank};
    MPI_Bcast(b, 3, MPI_INT, size - 1, MPI_COMM_WORLD);
    CHECKF(b[0] == size - 1 && b[2] == size - 1, "bcast: %d %d", b[0], b[2]);
    long in[2] = {rank, 1}, out[2];
    MPI_Allreduce(in, out, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECKF(out[0] == (long)size * (size - 1) / 2 && out[1] == size, "allreduce: %ld %ld",
           out[0], out[1]);
    double x = 1.5, y = 0;
    MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    CHECKF(y == 1.5, "iallreduce: %g", y);
    MPI_Barrier(MPI_COMM_WORLD);

    /* one-sided */
    int winbuf[16] = {0};
    MPI_Win win;
    MPI_Win_create(winbuf, sizeof winbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&sbuf[0], 1, MPI_INT, right, 2, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    int got = -1;
    MPI_Get(&got, 1, MPI_INT, left, 2, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    CHECKF(winbuf[2] == 100 * left, "put: winbuf[2]=%d", winbuf[2]);
    CHECKF(got == 100 * ((left + size - 1) % size), "get: %d", got);
    MPI_Info info;
    MPI_Win_get_info(win, &info);
    MPI_Info_free(&info);
    MPI_Win_free(&win);

    /* communicators */
    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(dup, rank % 2, rank, &half);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);

    expect("MPI_Init", 1, 1);
    expect("MPI_Comm_rank", 1, 0);
    expect("MPI_Comm_size", 1, 0);
    expect("MPI_Isend", 2, 4 + 5);
    expect("MPI_Irecv", 1, 4);
    expect("MPI_Waitall", 1, 2);
    expect("MPI_Sendrecv", 1, 3 + 3);
    expect("MPI_Send", rank == 0 ? size - 1 : 0, rank == 0 ? 2L * (size - 1) : 0);
    expect("MPI_Recv", rank == 0 ? 0 : 1, rank == 0 ? 0 : 2);
    expect("MPI_Mprobe", 1, 9);
    expect("MPI_Mrecv", 1, 5);
    expect("MPI_Imrecv", 0, 0);
    expect("MPI_Wait", 2, 0);
    expect("MPI_Bcast", 1, 3 + 1000L * (size - 1));
    expect("MPI_Allreduce", 1, 2);
    expect("MPI_Iallreduce", 1, 1);
    expect("MPI_Barrier", 1, 0);
    expect("MPI_Win_create", 1, (long)sizeof winbuf);
    expect("MPI_Win_fence", 3, MPI_MODE_NOSUCCEED);
    expect("MPI_Put", 1, 2);
    expect("MPI_Get", 1, 2);
    expect("MPI_Win_get_info", 1, 0);
    expect("MPI_Info_create", 0, 0);
    expect("MPI_Info_dup", 0, 0);
    expect("MPI_Info_free", 1, 0);
    expect("MPI_Win_free", 1, 0);
    expect("MPI_Comm_dup", 1, 0);
    expect("MPI_Comm_split", 1, rank % 2);
    expect("MPI_Comm_free", 2, 0);
    MPI_Finalize();
    return 0;
}
