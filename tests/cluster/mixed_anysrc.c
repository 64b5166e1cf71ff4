/* mixed_anysrc.c — MPI_ANY_SOURCE receives whose senders arrive over both
 * transports at once: run with 2 ranks per host, rank 0's peers are one
 * shared-memory neighbour and two OFI ranks on the other host.  Built and
 * run by tests/run-cluster-tests.  Prints "FAIL ..." or "mixed ok". */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 200

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bad = 0;
    if (rank == 0) {
        /* Per sender, messages must come in order even though the wildcard
         * may pick any sender at each step. */
        int next[64] = {0};
        for (int i = 0; i < ROUNDS * (size - 1); i++) {
            int v[2];
            MPI_Status st;
            MPI_Recv(v, 2, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
            if (v[0] != st.MPI_SOURCE || v[1] != next[st.MPI_SOURCE]) {
                printf("FAIL mixed_anysrc: got (%d,%d) from %d, expected (%d,%d)\n", v[0], v[1], st.MPI_SOURCE,
                       st.MPI_SOURCE, next[st.MPI_SOURCE]);
                bad = 1;
                break;
            }
            next[st.MPI_SOURCE]++;
        }
        char host[MPI_MAX_PROCESSOR_NAME];
        int hl;
        MPI_Get_processor_name(host, &hl);
        if (!bad)
            printf("mixed ok: %d messages from %d senders on rank 0 (%s)\n", ROUNDS * (size - 1), size - 1, host);
    } else {
        for (int i = 0; i < ROUNDS; i++) {
            int v[2] = {rank, i};
            MPI_Send(v, 2, MPI_INT, 0, 5, MPI_COMM_WORLD);
        }
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return bad;
}
