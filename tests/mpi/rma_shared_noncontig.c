/* rma_shared_noncontig: MPI_Win_allocate_shared with the info hint
 * alloc_shared_noncontig=true and ranks of size 0.  Without contiguity
 * there is no address to give a zero-size segment: its base is NULL from
 * MPI_Win_shared_query, the allocating call and MPI_WIN_BASE, while the
 * other segments stay usable by load/store and MPI_Put.  With the hint
 * "false" (the default) a zero-size segment's base is where it would start
 * in the contiguous memory. */
#include "testutil.h"

enum { NELEM = 8 };
static int rank, size;

static int has_memory(int r) { return r % 2 == 0; }

static MPI_Win make_window(const char *noncontig, int **base)
{
    MPI_Info info;
    MPI_Win win;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "alloc_shared_noncontig", noncontig));
    MPI_Aint bytes = has_memory(rank) ? NELEM * (MPI_Aint)sizeof(int) : 0;
    CHECK_MPI(MPI_Win_allocate_shared(bytes, sizeof(int), info, MPI_COMM_WORLD, base, &win));
    CHECK_MPI(MPI_Info_free(&info));
    return win;
}

static void check_noncontig(void)
{
    int *mine;
    MPI_Win win = make_window("true", &mine);
    if (!has_memory(rank))
        CHECKF(mine == NULL, "zero-size rank got baseptr %p, expected NULL", (void *)mine);
    void *attr;
    int flag = 0;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &attr, &flag));
    CHECK(flag && attr == (void *)mine);

    /* Every rank with memory puts i into element i of the next such rank. */
    int nmem = (size + 1) / 2;
    CHECK_MPI(MPI_Win_fence(0, win));
    if (has_memory(rank) && nmem > 1)
        for (int i = 0; i < NELEM; i++) {
            int v = rank * 100 + i;
            CHECK_MPI(MPI_Put(&v, 1, MPI_INT, (rank + 2) % (2 * nmem), i, 1, MPI_INT, win));
        }
    if (has_memory(rank) && nmem == 1)
        for (int i = 0; i < NELEM; i++)
            mine[i] = rank * 100 + i;
    CHECK_MPI(MPI_Win_fence(0, win));

    for (int r = 0; r < size; r++) {
        MPI_Aint sz;
        int du;
        int *p;
        CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &p));
        CHECK_EQ(du, (int)sizeof(int));
        if (!has_memory(r)) {
            CHECK_EQ(sz, 0);
            CHECKF(p == NULL, "shared_query(rank %d, size 0) gave %p, expected NULL", r, (void *)p);
            continue;
        }
        CHECK_EQ(sz, NELEM * (int)sizeof(int));
        CHECK(p != NULL);
        int from = nmem > 1 ? (r - 2 + 2 * nmem) % (2 * nmem) : r;
        for (int i = 0; i < NELEM; i++)
            CHECKF(p[i] == from * 100 + i, "rank %d element %d: %d, expected %d", r, i, p[i],
                   from * 100 + i);
    }
    MPI_Aint sz;
    int du;
    int *p;
    CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p));
    CHECK(sz == NELEM * (MPI_Aint)sizeof(int) && p != NULL); /* rank 0: the lowest with memory */
    CHECK_MPI(MPI_Win_free(&win));
}

static void check_contig(void)
{
    int *mine;
    MPI_Win win = make_window("false", &mine);
    int *expect = NULL; /* where the next segment starts */
    for (int r = 0; r < size; r++) {
        MPI_Aint sz;
        int du;
        int *p;
        CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &p));
        CHECK(p != NULL);
        if (expect)
            CHECKF(p == expect, "rank %d segment at %p, expected %p (contiguous)", r, (void *)p,
                   (void *)expect);
        if (r == rank)
            CHECK(p == mine);
        expect = p + sz / (MPI_Aint)sizeof(int);
    }
    CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_noncontig();
    check_contig();
    MPI_Finalize();
    return 0;
}
