/* comm_live: 65,536 communicators alive at the same time (dups of world),
 * a sample of them used for point-to-point and a collective while all are
 * alive, then all freed. Costly; listed at 2 ranks only. */
#include "testutil.h"

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    const int N = 65536;
    MPI_Comm *c = tu_malloc(sizeof(MPI_Comm) * (size_t)N);
    for (int i = 0; i < N; i++) {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c[i]));
        CHECK(c[i] != MPI_COMM_NULL);
    }
    /* Same tag on many communicators at once: each message lands on its own. */
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    const int stride = 4099;
    int nsample = 0;
    for (int i = 0; i < N; i += stride)
        nsample++;
    MPI_Request *rq = tu_malloc(sizeof(MPI_Request) * 2 * (size_t)nsample);
    int *in = tu_malloc(sizeof(int) * (size_t)nsample), *out = tu_malloc(sizeof(int) * (size_t)nsample);
    int k = 0;
    for (int i = 0; i < N; i += stride, k++) {
        in[k] = -1;
        CHECK_MPI(MPI_Irecv(&in[k], 1, MPI_INT, MPI_ANY_SOURCE, 7, c[i], &rq[2 * k]));
    }
    k = 0;
    for (int i = N - 1 - (N - 1) % stride; i >= 0; i -= stride) {
        k = i / stride;
        out[k] = i;
        CHECK_MPI(MPI_Isend(&out[k], 1, MPI_INT, right, 7, c[i], &rq[2 * k + 1]));
    }
    CHECK_MPI(MPI_Waitall(2 * nsample, rq, MPI_STATUSES_IGNORE));
    for (k = 0; k < nsample; k++)
        CHECKF(in[k] == k * stride, "communicator %d received %d", k * stride, in[k]);
    (void)left;
    int sum = -1;
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c[N - 1]));
    CHECK_EQ(sum, size * (size - 1) / 2);
    CHECK_MPI(MPI_Barrier(c[0]));
    for (int i = N - 1; i >= 0; i--)
        CHECK_MPI(MPI_Comm_free(&c[i]));
    free(c);
    free(rq);
    free(in);
    free(out);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
