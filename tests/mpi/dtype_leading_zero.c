/* dtype_leading_zero: indexed and hindexed types whose first blocks have
 * length zero (MPICH's datatype/indexed_misc case, issue 12 #10) pack,
 * unpack and travel exactly, alone and inside a struct, and a type built
 * right after another was freed is the new type (a stale handle never
 * leaks into it). */
#include "testutil.h"

#define N 16

static void check_pack(MPI_Datatype t, const int *src, const int *want, int nwant, const char *what)
{
    int size = 0, pos = 0;
    MPI_Type_size(t, &size);
    CHECKF(size == nwant * (int)sizeof(int), "%s: size %d, expected %d", what, size,
           nwant * (int)sizeof(int));
    int packed[N];
    CHECK_MPI(MPI_Pack(src, 1, t, packed, sizeof packed, &pos, MPI_COMM_SELF));
    CHECKF(pos == size, "%s: packed %d bytes", what, pos);
    for (int i = 0; i < nwant; i++)
        CHECKF(packed[i] == want[i], "%s: packed[%d] = %d, expected %d", what, i, packed[i], want[i]);
    int back[N];
    for (int i = 0; i < N; i++)
        back[i] = -1;
    pos = 0;
    CHECK_MPI(MPI_Unpack(packed, sizeof packed, &pos, back, 1, t, MPI_COMM_SELF));
    for (int i = 0; i < N; i++) {
        int inside = 0;
        for (int k = 0; k < nwant; k++)
            inside |= src[i] == want[k];
        CHECKF(back[i] == (inside ? src[i] : -1), "%s: unpacked[%d] = %d", what, i, back[i]);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int src[N];
    for (int i = 0; i < N; i++)
        src[i] = 100 + i;

    /* blocks: (0 at 0) (0 at 3) (2 at 5) (0 at 9) (3 at 10) */
    int lens[5] = {0, 0, 2, 0, 3}, disps[5] = {0, 3, 5, 9, 10};
    const int want[5] = {105, 106, 110, 111, 112};
    MPI_Datatype idx, hidx, st;
    CHECK_MPI(MPI_Type_indexed(5, lens, disps, MPI_INT, &idx));
    CHECK_MPI(MPI_Type_commit(&idx));
    check_pack(idx, src, want, 5, "indexed");

    MPI_Aint hdisps[5];
    for (int i = 0; i < 5; i++)
        hdisps[i] = (MPI_Aint)disps[i] * (MPI_Aint)sizeof(int);
    CHECK_MPI(MPI_Type_free(&idx));
    CHECK_MPI(MPI_Type_create_hindexed(5, lens, hdisps, MPI_INT, &hidx));
    CHECK_MPI(MPI_Type_commit(&hidx));
    check_pack(hidx, src, want, 5, "hindexed");

    int one = 1;
    MPI_Aint zero = 0;
    CHECK_MPI(MPI_Type_create_struct(1, &one, &zero, &hidx, &st));
    CHECK_MPI(MPI_Type_commit(&st));
    check_pack(st, src, want, 5, "struct of hindexed");

    /* And over the wire: ring, one element of the type each way. */
    if (size > 1) {
        int recv[N];
        for (int i = 0; i < N; i++)
            recv[i] = -1;
        int to = (rank + 1) % size, from = (rank + size - 1) % size;
        CHECK_MPI(MPI_Sendrecv(src, 1, st, to, 0, recv, 1, st, from, 0, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++) {
            int inside = i == 5 || i == 6 || (i >= 10 && i <= 12);
            CHECKF(recv[i] == (inside ? 100 + i : -1), "received[%d] = %d", i, recv[i]);
        }
    }
    MPI_Type_free(&st);
    MPI_Type_free(&hidx);
    if (rank == 0)
        printf("dtype_leading_zero: ok\n");
    MPI_Finalize();
    return 0;
}
