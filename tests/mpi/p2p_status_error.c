/* p2p_status_error — single-completion calls leave a status's MPI_ERROR
 * field as the program set it (MPI-3.1 section 3.2.5: only the calls that
 * return several statuses write it, and only with MPI_ERR_IN_STATUS):
 * Recv, Wait and Test of receives and sends, Probe, Iprobe, Improbe and
 * Mrecv, Sendrecv, and receives from MPI_PROC_NULL. */
#include "testutil.h"

#define MARK 777

int main(int argc, char **argv)
{
    int rank, size, v = 0, flag = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Status st;
    MPI_Request req, sreq;
    MPI_Message msg;

    st.MPI_ERROR = MARK;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 1, &v, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
    CHECKF(st.MPI_ERROR == MARK && v == left, "sendrecv: MPI_ERROR %d", st.MPI_ERROR);

    MPI_Isend(&rank, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &sreq);
    st.MPI_ERROR = MARK;
    MPI_Probe(left, 2, MPI_COMM_WORLD, &st);
    CHECKF(st.MPI_ERROR == MARK && st.MPI_SOURCE == left, "probe: MPI_ERROR %d", st.MPI_ERROR);
    st.MPI_ERROR = MARK;
    MPI_Iprobe(left, 2, MPI_COMM_WORLD, &flag, &st);
    CHECKF(flag && st.MPI_ERROR == MARK, "iprobe: MPI_ERROR %d", st.MPI_ERROR);
    st.MPI_ERROR = MARK;
    MPI_Recv(&v, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &st);
    CHECKF(st.MPI_ERROR == MARK, "recv: MPI_ERROR %d", st.MPI_ERROR);
    st.MPI_ERROR = MARK;
    MPI_Wait(&sreq, &st);
    CHECKF(st.MPI_ERROR == MARK, "wait (send): MPI_ERROR %d", st.MPI_ERROR);

    MPI_Isend(&rank, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &sreq);
    MPI_Irecv(&v, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &req);
    st.MPI_ERROR = MARK;
    MPI_Wait(&req, &st);
    CHECKF(st.MPI_ERROR == MARK, "wait (recv): MPI_ERROR %d", st.MPI_ERROR);
    st.MPI_ERROR = MARK;
    do
        MPI_Test(&sreq, &flag, &st);
    while (!flag);
    CHECKF(st.MPI_ERROR == MARK, "test (send): MPI_ERROR %d", st.MPI_ERROR);

    MPI_Isend(&rank, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &sreq);
    st.MPI_ERROR = MARK;
    do
        MPI_Improbe(left, 4, MPI_COMM_WORLD, &flag, &msg, &st);
    while (!flag);
    CHECKF(st.MPI_ERROR == MARK, "improbe: MPI_ERROR %d", st.MPI_ERROR);
    st.MPI_ERROR = MARK;
    MPI_Mrecv(&v, 1, MPI_INT, &msg, &st);
    CHECKF(st.MPI_ERROR == MARK && v == left, "mrecv: MPI_ERROR %d", st.MPI_ERROR);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);

    st.MPI_ERROR = MARK;
    MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st);
    CHECKF(st.MPI_ERROR == MARK && st.MPI_SOURCE == MPI_PROC_NULL,
           "recv from MPI_PROC_NULL: MPI_ERROR %d", st.MPI_ERROR);
    MPI_Finalize();
    return 0;
}
