/* errors_null_buf: a NULL buffer with count > 0 (issue 12 #5).  MPI_BOTTOM
 * is NULL, so NULL is only legal with a datatype of absolute addresses:
 * basic types give MPI_ERR_BUFFER from every point-to-point call (and no
 * message goes out, so the job stays usable); a struct type built from
 * MPI_Get_address of real buffers moves exact data from MPI_BOTTOM.  The
 * same in collectives (every member passes NULL, so all refuse alike) and
 * in one-sided calls' origin and result buffers. */
#include "testutil.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Request req = MPI_REQUEST_NULL;

    CHECK_ERR(MPI_Send(NULL, 10, MPI_INT, peer, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Send(NULL, 20000, MPI_INT, peer, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Ssend(NULL, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Isend(NULL, 10, MPI_INT, peer, 1, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
    CHECK(req == MPI_REQUEST_NULL);
    CHECK_ERR(MPI_Bsend(NULL, 10, MPI_INT, peer, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Send_init(NULL, 10, MPI_INT, peer, 1, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Recv(NULL, 10, MPI_INT, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Irecv(NULL, 10, MPI_INT, from, 1, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Recv_init(NULL, 10, MPI_INT, from, 1, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);

    /* Zero count or an empty type: NULL is fine. */
    CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_INT, peer, 2, NULL, 0, MPI_INT, from, 2, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));

    /* MPI_BOTTOM with absolute addresses. */
    int out[3] = {rank * 10 + 1, rank * 10 + 2, rank * 10 + 3}, in[3] = {-1, -1, -1};
    MPI_Aint aout, ain;
    MPI_Get_address(out, &aout);
    MPI_Get_address(in, &ain);
    int three = 3;
    MPI_Datatype tout, tin, ti = MPI_INT;
    CHECK_MPI(MPI_Type_create_struct(1, &three, &aout, &ti, &tout));
    CHECK_MPI(MPI_Type_create_struct(1, &three, &ain, &ti, &tin));
    MPI_Type_commit(&tout);
    MPI_Type_commit(&tin);
    CHECK_MPI(MPI_Sendrecv(MPI_BOTTOM, 1, tout, peer, 3, MPI_BOTTOM, 1, tin, from, 3, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    for (int i = 0; i < 3; i++)
        CHECKF(in[i] == from * 10 + i + 1, "in[%d] = %d, expected %d", i, in[i], from * 10 + i + 1);
    MPI_Type_free(&tout);
    MPI_Type_free(&tin);

    /* Nothing was sent by the failed calls: the next message is this one. */
    int v = -1, w = rank + 100;
    CHECK_MPI(MPI_Sendrecv(&w, 1, MPI_INT, peer, 1, &v, 1, MPI_INT, from, 1, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECKF(v == from + 100, "got %d, expected %d", v, from + 100);

    /* Collectives. */
    int buf[8] = {0}, res[8 * 64];
    CHECK_ERR(MPI_Bcast(NULL, 4, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Allreduce(NULL, buf, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Allreduce(buf, NULL, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Reduce(NULL, buf, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Gather(NULL, 2, MPI_INT, res, 2, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Allgather(buf, 2, MPI_INT, NULL, 2, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Alltoall(NULL, 1, MPI_INT, res, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Scan(NULL, buf, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD));

    /* One-sided: origin and result buffers. */
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_fence(0, win));
    int one = 1;
    CHECK_ERR(MPI_Put(NULL, 4, MPI_INT, peer, 0, 4, MPI_INT, win), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Get(NULL, 4, MPI_INT, peer, 0, 4, MPI_INT, win), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Accumulate(NULL, 4, MPI_INT, peer, 0, 4, MPI_INT, MPI_SUM, win), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Get_accumulate(&one, 1, MPI_INT, NULL, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_SUM,
                                 win), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Fetch_and_op(&one, NULL, MPI_INT, peer, 0, MPI_SUM, win), MPI_ERR_BUFFER);
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < 8; i++)
        CHECKF(buf[i] == 0, "window word %d = %d after refused one-sided calls", i, buf[i]);
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
