/* rma_fence: fence epochs on every window flavor — Win_allocate,
 * Win_create on malloc'd memory, Win_create_dynamic with attached memory —
 * with Put, Get and Accumulate of contiguous and strided (vector) data to
 * neighbours and to every rank; window attributes, group and name. */
#include "testutil.h"

#define N 64

static int rank, size;

/* Window memory of `bytes` bytes by flavor; displacement base for peers. */
typedef struct tw {
    MPI_Win win;
    int *mem;
    MPI_Aint *disp0; /* [size] displacement of each rank's mem[0] */
    int flavor;
} tw;

static void tw_open(tw *t, int flavor)
{
    MPI_Aint bytes = (MPI_Aint)(N * size) * (MPI_Aint)sizeof(int);
    t->flavor = flavor;
    t->disp0 = tu_malloc((size_t)size * sizeof *t->disp0);
    for (int i = 0; i < size; i++)
        t->disp0[i] = 0;
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
        CHECK_MPI(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &t->mem, &t->win));
    } else if (flavor == MPI_WIN_FLAVOR_CREATE) {
        t->mem = tu_malloc((size_t)bytes);
        CHECK_MPI(MPI_Win_create(t->mem, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &t->win));
    } else {
        t->mem = tu_malloc((size_t)bytes);
        CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &t->win));
        CHECK_MPI(MPI_Win_attach(t->win, t->mem, bytes));
        MPI_Aint a;
        CHECK_MPI(MPI_Get_address(t->mem, &a));
        CHECK_MPI(MPI_Allgather(&a, 1, MPI_AINT, t->disp0, 1, MPI_AINT, MPI_COMM_WORLD));
    }
    for (int i = 0; i < N * size; i++)
        t->mem[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
}

static void tw_close(tw *t)
{
    if (t->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        CHECK_MPI(MPI_Win_detach(t->win, t->mem));
    CHECK_MPI(MPI_Win_free(&t->win));
    CHECK(t->win == MPI_WIN_NULL);
    if (t->flavor != MPI_WIN_FLAVOR_ALLOCATE)
        free(t->mem);
    free(t->disp0);
}

/* Displacement of int index i in rank r's memory. */
static MPI_Aint at(const tw *t, int r, int i)
{
    if (t->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return t->disp0[r] + (MPI_Aint)i * (MPI_Aint)sizeof(int);
    return i;
}

static void t_put_get(tw *t)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int src[N];
    for (int i = 0; i < N; i++)
        src[i] = rank * 1000 + i;
    CHECK_MPI(MPI_Win_fence(0, t->win));
    /* block `rank` of the right neighbour gets our N ints */
    CHECK_MPI(MPI_Put(src, N, MPI_INT, right, at(t, right, rank * N), N, MPI_INT, t->win));
    CHECK_MPI(MPI_Win_fence(0, t->win));
    for (int i = 0; i < N; i++)
        CHECK_EQ(t->mem[left * N + i], left * 1000 + i);

    /* get it back from the right neighbour */
    int back[N];
    CHECK_MPI(MPI_Get(back, N, MPI_INT, right, at(t, right, rank * N), N, MPI_INT, t->win));
    CHECK_MPI(MPI_Win_fence(0, t->win));
    for (int i = 0; i < N; i++)
        CHECK_EQ(back[i], src[i]);

    /* strided: every other int of ours into a contiguous run at the target,
     * then a contiguous run back into every third int here */
    MPI_Datatype every2, every3;
    CHECK_MPI(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every2));
    CHECK_MPI(MPI_Type_commit(&every2));
    CHECK_MPI(MPI_Type_vector(N / 4, 1, 3, MPI_INT, &every3));
    CHECK_MPI(MPI_Type_commit(&every3));
    CHECK_MPI(MPI_Put(src, 1, every2, right, at(t, right, rank * N), N / 2, MPI_INT, t->win));
    CHECK_MPI(MPI_Win_fence(0, t->win));
    for (int i = 0; i < N / 2; i++)
        CHECK_EQ(t->mem[left * N + i], left * 1000 + 2 * i);
    int got[N];
    for (int i = 0; i < N; i++)
        got[i] = -7;
    CHECK_MPI(MPI_Get(got, 1, every3, right, at(t, right, rank * N), N / 4, MPI_INT, t->win));
    /* a strided target too: ints 0,2,4.. of block `rank` at the right */
    int got2[N / 2];
    CHECK_MPI(MPI_Get(got2, N / 2, MPI_INT, right, at(t, right, rank * N), 1, every2, t->win));
    CHECK_MPI(MPI_Win_fence(0, t->win));
    for (int i = 0; i < N; i++)
        CHECK_EQ(got[i], i % 3 == 0 && i / 3 < N / 4 ? rank * 1000 + 2 * (i / 3) : -7);
    for (int i = 0; i < N / 2; i++)
        CHECK_EQ(got2[i], i < N / 4 ? rank * 1000 + 4 * i : rank * 1000 + 2 * i);
    MPI_Type_free(&every2);
    MPI_Type_free(&every3);
}

static void t_accumulate(tw *t)
{
    /* every rank adds (rank+1)*(i+1) into index i of every rank */
    for (int i = 0; i < N; i++)
        t->mem[i] = 0;
    CHECK_MPI(MPI_Win_fence(0, t->win));
    int add[N];
    for (int i = 0; i < N; i++)
        add[i] = (rank + 1) * (i + 1);
    for (int r = 0; r < size; r++)
        CHECK_MPI(MPI_Accumulate(add, N, MPI_INT, r, at(t, r, 0), N, MPI_INT, MPI_SUM, t->win));
    CHECK_MPI(MPI_Win_fence(0, t->win));
    int tri = size * (size + 1) / 2;
    for (int i = 0; i < N; i++)
        CHECK_EQ(t->mem[i], tri * (i + 1));
    /* MPI_MAX with a strided target */
    MPI_Datatype every2;
    CHECK_MPI(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every2));
    CHECK_MPI(MPI_Type_commit(&every2));
    for (int r = 0; r < size; r++)
        CHECK_MPI(MPI_Accumulate(add, N / 2, MPI_INT, r, at(t, r, 0), 1, every2, MPI_MAX, t->win));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, t->win));
    for (int i = 0; i < N; i++) {
        int want = tri * (i + 1);
        if (i % 2 == 0 && size * (i / 2 + 1) > want)
            want = size * (i / 2 + 1);
        CHECK_EQ(t->mem[i], want);
    }
    MPI_Type_free(&every2);
}

static void t_attrs(tw *t)
{
    void *v;
    int flag;
    CHECK_MPI(MPI_Win_get_attr(t->win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
    CHECK(flag);
    CHECK_EQ(*(int *)v, t->flavor);
    CHECK_MPI(MPI_Win_get_attr(t->win, MPI_WIN_MODEL, &v, &flag));
    CHECK(flag && *(int *)v == MPI_WIN_UNIFIED);
    CHECK_MPI(MPI_Win_get_attr(t->win, MPI_WIN_SIZE, &v, &flag));
    CHECK_EQ(*(MPI_Aint *)v, t->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : N * size * (int)sizeof(int));
    CHECK_MPI(MPI_Win_get_attr(t->win, MPI_WIN_BASE, &v, &flag));
    CHECK(v == (t->flavor == MPI_WIN_FLAVOR_DYNAMIC ? NULL : (void *)t->mem));
    CHECK_MPI(MPI_Win_get_attr(t->win, MPI_WIN_DISP_UNIT, &v, &flag));
    CHECK_EQ(*(int *)v, t->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : (int)sizeof(int));
    MPI_Group g, wg;
    int cmp;
    CHECK_MPI(MPI_Win_get_group(t->win, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK_EQ(cmp, MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_MPI(MPI_Win_get_name(t->win, name, &len));
    CHECK_EQ(len, 0);
    CHECK_MPI(MPI_Win_set_name(t->win, "fence window"));
    CHECK_MPI(MPI_Win_get_name(t->win, name, &len));
    CHECK(strcmp(name, "fence window") == 0 && len == 12);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int flavors[] = {MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_DYNAMIC};
    for (int f = 0; f < 3; f++) {
        tw t;
        tw_open(&t, flavors[f]);
        t_attrs(&t);
        t_put_get(&t);
        t_accumulate(&t);
        tw_close(&t);
    }
    MPI_Finalize();
    return 0;
}
