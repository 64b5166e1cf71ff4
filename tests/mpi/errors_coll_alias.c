/* errors_coll_alias: send and receive buffers of a collective that
 * overlap give MPI_ERR_BUFFER (MPI-4.0 2.3; MPI_IN_PLACE is the way to use
 * one buffer), before anything is sent, so a rank that alone makes the
 * mistake (a root) returns instead of waiting in the collective (MPICH's
 * errors/coll/noalias* hung here).  Checked at every rooted, all-to-all,
 * reducing and neighbourhood collective, blocking and nonblocking, and
 * MPI_Reduce_local;
 * then what is legal and must still work: pieces of one array that
 * interleave without overlapping (alltoallv with one base pointer), a send
 * buffer just past the receive range, and a non-contiguous receive layout
 * around a send slot it never writes. */
#include "testutil.h"

#define N 2

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int *b = tu_malloc(4 * N * size * sizeof *b);
    int *cnt = tu_malloc(size * sizeof *cnt), *dsp = tu_malloc(size * sizeof *dsp);
    MPI_Datatype *types = tu_malloc(size * sizeof *types);
    for (int i = 0; i < size; i++) {
        cnt[i] = N;
        dsp[i] = i * N;
        types[i] = MPI_INT;
    }
    MPI_Request rq = MPI_REQUEST_NULL;

    /* Rooted: only the root sees both buffers, so only it calls. */
    if (rank == 0) {
        CHECK_ERR(MPI_Gather(b, N, MPI_INT, b, N, MPI_INT, 0, comm), MPI_ERR_BUFFER);
        CHECK_ERR(MPI_Gather(b + N * size - 1, N, MPI_INT, b, N, MPI_INT, 0, comm),
                  MPI_ERR_BUFFER); /* one element shared at the end */
        CHECK_ERR(MPI_Gatherv(b, N, MPI_INT, b, cnt, dsp, MPI_INT, 0, comm), MPI_ERR_BUFFER);
        CHECK_ERR(MPI_Scatter(b, N, MPI_INT, b + 1, N, MPI_INT, 0, comm), MPI_ERR_BUFFER);
        CHECK_ERR(MPI_Scatterv(b, cnt, dsp, MPI_INT, b, N, MPI_INT, 0, comm), MPI_ERR_BUFFER);
        CHECK_ERR(MPI_Reduce(b, b, N, MPI_INT, MPI_SUM, 0, comm), MPI_ERR_BUFFER);
        CHECK_ERR(MPI_Igather(b, N, MPI_INT, b, N, MPI_INT, 0, comm, &rq), MPI_ERR_BUFFER);
        CHECK_ERR(MPI_Iscatterv(b, cnt, dsp, MPI_INT, b, N, MPI_INT, 0, comm, &rq),
                  MPI_ERR_BUFFER);
        CHECK_ERR(MPI_Ireduce(b + 1, b, N, MPI_INT, MPI_SUM, 0, comm, &rq), MPI_ERR_BUFFER);
        CHECK(rq == MPI_REQUEST_NULL);
    }
    /* Every rank passes overlapping buffers: every rank refuses. */
    CHECK_ERR(MPI_Allgather(b + rank, 1, MPI_INT, b, 1, MPI_INT, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Allgatherv(b + rank * N, N, MPI_INT, b, cnt, dsp, MPI_INT, comm),
              MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Alltoall(b, N, MPI_INT, b + N * size - 1, N, MPI_INT, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Alltoallv(b, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, comm), MPI_ERR_BUFFER);
    int *bdsp = tu_malloc(size * sizeof *bdsp);
    for (int i = 0; i < size; i++)
        bdsp[i] = i * N * (int)sizeof(int);
    CHECK_ERR(MPI_Alltoallw(b, cnt, bdsp, types, b, cnt, bdsp, types, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Allreduce(b, b + 1, N, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Reduce_scatter(b, b, cnt, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Reduce_scatter_block(b, b + 1, N, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Scan(b, b, N, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Exscan(b, b, N, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Iallgather(b + rank, 1, MPI_INT, b, 1, MPI_INT, comm, &rq), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Ialltoallv(b, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, comm, &rq),
              MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Iallreduce(b, b, N, MPI_INT, MPI_SUM, comm, &rq), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Allreduce_init(b, b, N, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &rq),
              MPI_ERR_BUFFER);
    CHECK(rq == MPI_REQUEST_NULL);
    CHECK_ERR(MPI_Reduce_local(b, b + 1, N, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    /* Neighbourhood collectives on a ring (two neighbours each). */
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    CHECK_MPI(MPI_Cart_create(comm, 1, dims, periods, 0, &ring));
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    int two[2] = {N, N}, at[2] = {0, N};
    CHECK_ERR(MPI_Neighbor_allgather(b + 1, 1, MPI_INT, b, 1, MPI_INT, ring), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Neighbor_allgatherv(b + N, N, MPI_INT, b, two, at, MPI_INT, ring),
              MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Neighbor_alltoall(b, N, MPI_INT, b + 1, N, MPI_INT, ring), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Neighbor_alltoallv(b, two, at, MPI_INT, b, two, at, MPI_INT, ring),
              MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Ineighbor_alltoall(b, N, MPI_INT, b, N, MPI_INT, ring, &rq), MPI_ERR_BUFFER);
    CHECK(rq == MPI_REQUEST_NULL);
    MPI_Comm_free(&ring);

    /* Legal: one array, pieces interleaved (send to peer i from slot 2i,
     * receive from peer i into slot 2i+1, N ints each). */
    int *sd = tu_malloc(size * sizeof *sd), *rd = tu_malloc(size * sizeof *rd);
    for (int i = 0; i < size; i++) {
        sd[i] = 2 * i * N;
        rd[i] = (2 * i + 1) * N;
        for (int k = 0; k < N; k++)
            b[sd[i] + k] = 1000 * rank + 10 * i + k;
    }
    CHECK_MPI(MPI_Alltoallv(b, cnt, sd, MPI_INT, b, cnt, rd, MPI_INT, comm));
    for (int i = 0; i < size; i++)
        for (int k = 0; k < N; k++)
            CHECKF(b[rd[i] + k] == 1000 * i + 10 * rank + k, "alltoallv piece %d[%d]=%d", i, k,
                   b[rd[i] + k]);
    /* Legal: the send buffer right after the receive range. */
    int *recv = b, *send = b + N * size;
    for (int k = 0; k < N; k++)
        send[k] = 100 * rank + k;
    CHECK_MPI(MPI_Allgather(send, N, MPI_INT, recv, N, MPI_INT, comm));
    for (int i = 0; i < size; i++)
        CHECKF(recv[i * N] == 100 * i && recv[i * N + N - 1] == 100 * i + N - 1,
               "allgather from %d: %d", i, recv[i * N]);
    /* Legal: receive into the even slots of b (a resized type), send from
     * an odd slot: the regions interleave, the bytes do not. */
    MPI_Datatype even;
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &even));
    CHECK_MPI(MPI_Type_commit(&even));
    for (int i = 0; i < 2 * size; i++)
        b[i] = -1;
    b[2 * rank + 1] = 7 + rank;
    CHECK_MPI(MPI_Allgather(b + 2 * rank + 1, 1, MPI_INT, b, 1, even, comm));
    for (int i = 0; i < size; i++)
        CHECKF(b[2 * i] == 7 + i, "even slot %d: %d", i, b[2 * i]);
    CHECK(b[2 * rank + 1] == 7 + rank);
    MPI_Type_free(&even);

    free(sd), free(rd), free(bdsp), free(types), free(dsp), free(cnt), free(b);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
