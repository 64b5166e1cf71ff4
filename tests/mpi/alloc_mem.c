/* alloc_mem: MPI_Alloc_mem and MPI_Free_mem, and windows over such memory.
 *
 *   - blocks of 0, 1, 100 bytes and 1 MiB, with MPI_INFO_NULL and with an
 *     info: every byte writable, distinct blocks (size 0 too), each freed;
 *     (fabmpi) the MPI-4.1 hint mpi_minimum_memory_alignment=4096 is
 *     honoured, and a block is at least 64-byte aligned;
 *   - 3000 blocks live at once, freed in a scattered order: each frees
 *     once, and a second free of any is MPI_ERR_BASE;
 *   - MPI_Free_mem(NULL) is accepted; a pointer MPI_Alloc_mem did not
 *     return (stack, malloc, a block freed already) is MPI_ERR_BASE, a size
 *     no machine has MPI_ERR_NO_MEM, a negative one MPI_ERR_SIZE;
 *   - MPI_Win_create over MPI_Alloc_mem memory: Put, Get and Accumulate
 *     between fences and under passive locks give the expected values
 *     (TESTLIST also runs it over OFI). */
#include "testutil.h"

#define N 1024

static int rank, size;

static void blocks(void)
{
    const MPI_Aint sizes[] = {0, 1, 100, 1 << 20};
    enum { NS = sizeof sizes / sizeof *sizes };
    unsigned char *p[2][NS];
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "mpi_minimum_memory_alignment", "4096"));
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < NS; i++) {
            CHECK_MPI(MPI_Alloc_mem(sizes[i], k ? info : MPI_INFO_NULL, &p[k][i]));
            CHECKF(p[k][i] != NULL, "MPI_Alloc_mem(%ld) gave NULL", (long)sizes[i]);
            uintptr_t align = k ? 4096 : 64;
            CHECKF((uintptr_t)p[k][i] % align == 0, "MPI_Alloc_mem(%ld) at %p: not %lu-aligned",
                   (long)sizes[i], (void *)p[k][i], (unsigned long)align);
            tu_fill(p[k][i], (size_t)sizes[i], (unsigned)(k * NS + i));
        }
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < NS; i++) {
            for (int l = 0; l < 2; l++)
                for (int j = 0; j < NS; j++)
                    CHECKF((l == k && j == i) || p[k][i] != p[l][j],
                           "MPI_Alloc_mem gave %p twice", (void *)p[k][i]);
            CHECK_PATTERN(p[k][i], (size_t)sizes[i], (unsigned)(k * NS + i));
            CHECK_MPI(MPI_Free_mem(p[k][i]));
        }
    CHECK_MPI(MPI_Info_free(&info));
}

/* Many live blocks, freed out of allocation order, so the library's
 * record of them grows and loses entries from everywhere. */
static void many(void)
{
    enum { M = 3000 };
    void **b = tu_malloc(M * sizeof *b);
    for (int i = 0; i < M; i++) {
        CHECK_MPI(MPI_Alloc_mem(1 + i % 40, MPI_INFO_NULL, &b[i]));
        memset(b[i], i & 0xff, 1 + i % 40);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int pass = 0; pass < 3; pass++) /* i = 7k + pass: every 7th, three times over */
        for (int i = pass; i < M; i += 7) {
            CHECK_MPI(MPI_Free_mem(b[i]));
            CHECK_ERR(MPI_Free_mem(b[i]), MPI_ERR_BASE);
        }
    for (int i = M - 1; i >= 0; i--)
        if (i % 7 > 2) {
            CHECK_EQ(((unsigned char *)b[i])[i % 40], i & 0xff);
            CHECK_MPI(MPI_Free_mem(b[i]));
        }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(b);
}

static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Free_mem(NULL));
    int on_stack = 0;
    CHECK_ERR(MPI_Free_mem(&on_stack), MPI_ERR_BASE);
    void *m = tu_malloc(64);
    CHECK_ERR(MPI_Free_mem(m), MPI_ERR_BASE);
    free(m);
    void *b;
    CHECK_MPI(MPI_Alloc_mem(32, MPI_INFO_NULL, &b));
    CHECK_ERR(MPI_Free_mem((char *)b + 8), MPI_ERR_BASE); /* inside a block is not one */
    CHECK_MPI(MPI_Free_mem(b));
    CHECK_ERR(MPI_Free_mem(b), MPI_ERR_BASE); /* freed twice */
    void *q = &on_stack;
    CHECK_ERR(MPI_Alloc_mem(INTPTR_MAX, MPI_INFO_NULL, &q), MPI_ERR_NO_MEM);
    CHECK_ERR(MPI_Alloc_mem(-1, MPI_INFO_NULL, &q), MPI_ERR_SIZE);
    CHECKF(q == &on_stack, "a failed MPI_Alloc_mem set baseptr");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

static void window(void)
{
    int *mem;
    MPI_Win win;
    CHECK_MPI(MPI_Alloc_mem(N * sizeof(int), MPI_INFO_NULL, &mem));
    for (int i = 0; i < N; i++)
        mem[i] = -1;
    CHECK_MPI(MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                             &win));
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int row[N], got[N], one = 1;
    for (int i = 0; i < N; i++)
        row[i] = rank * N + i;

    /* fence: my row into the next rank's first half, +1 into everyone's last slot */
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(row, N / 2, MPI_INT, next, 0, N / 2, MPI_INT, win));
    for (int t = 0; t < size; t++)
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, t, N - 1, 1, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < N / 2; i++)
        CHECKF(mem[i] == prev * N + i, "Put into MPI_Alloc_mem window: [%d] = %d, want %d", i,
               mem[i], prev * N + i);
    CHECKF(mem[N - 1] == size - 1, "Accumulate into MPI_Alloc_mem window: %d, want %d",
           mem[N - 1], size - 1);
    CHECK_MPI(MPI_Get(got, N / 2, MPI_INT, prev, 0, N / 2, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    int pp = (prev + size - 1) % size;
    for (int i = 0; i < N / 2; i++)
        CHECKF(got[i] == pp * N + i, "Get from MPI_Alloc_mem window: [%d] = %d, want %d", i,
               got[i], pp * N + i);

    /* passive target: the second half of the previous rank's window */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, prev, 0, win));
    CHECK_MPI(MPI_Put(row + N / 2, N / 2 - 1, MPI_INT, prev, N / 2, N / 2 - 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(prev, win));
    CHECK_MPI(MPI_Get(got, N / 2 - 1, MPI_INT, prev, N / 2, N / 2 - 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(prev, win));
    for (int i = 0; i < N / 2 - 1; i++)
        CHECKF(got[i] == row[N / 2 + i], "locked Put/Get: [%d] = %d, want %d", i, got[i],
               row[N / 2 + i]);
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = N / 2; i < N - 1; i++)
        CHECKF(mem[i] == next * N + i, "locked Put into MPI_Alloc_mem window: [%d] = %d, want %d",
               i, mem[i], next * N + i);
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Free_mem(mem));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    blocks();
    many();
    errors();
    window();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("alloc_mem: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
