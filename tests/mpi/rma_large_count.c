/* rma_large_count: the MPI-4.0 large-count one-sided calls.  Windows made
 * by MPI_Win_create_c, MPI_Win_allocate_c and MPI_Win_allocate_shared_c
 * (an MPI_Aint displacement unit, which MPI_Win_shared_query_c gives
 * back), then Put_c, Get_c, Accumulate_c, Get_accumulate_c and their
 * request forms between every pair, with exact results; counts past
 * INT_MAX through a type of no bytes; a displacement unit past INT_MAX and
 * negative counts refused with the call and value named. */
#include <limits.h>

#include "testutil.h"

enum { N = 64 };
static int rank, size;
static const MPI_Count BIG = ((MPI_Count)1 << 31) + 1024;

/* Block `to` of rank `from`'s window after the exchange below. */
static int val(int from, int to, int i) { return from * 10000 + to * 100 + i; }

/* An epoch in either synchronization: fences around the calls (request 0),
 * or a passive one (lock_all ... unlock_all) for the request forms, whose
 * requests are only valid there; `phase` runs the operations. */
static void epoch(MPI_Win win, int passive, void (*phase)(MPI_Win, int, void *), void *arg)
{
    if (passive) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* the targets' stores are done */
        CHECK_MPI(MPI_Win_lock_all(0, win));
        phase(win, 1, arg);
        CHECK_MPI(MPI_Win_unlock_all(win));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every origin's operations are done */
    } else {
        CHECK_MPI(MPI_Win_fence(0, win));
        phase(win, 0, arg);
        CHECK_MPI(MPI_Win_fence(0, win));
    }
}

static void wait_if(int req, MPI_Request *rq)
{
    if (req)
        CHECK_MPI(MPI_Wait(rq, MPI_STATUS_IGNORE));
}

/* Block `rank` of every target gets val(rank, target, i). */
static void put_phase(MPI_Win win, int req, void *arg)
{
    int *mine = arg; /* a block per target: none is reused before the epoch ends */
    for (int t = 0; t < size; t++) {
        MPI_Request rq;
        for (int i = 0; i < N; i++)
            mine[t * N + i] = val(rank, t, i);
        if (req)
            CHECK_MPI(MPI_Rput_c(mine + t * N, N, MPI_INT, t, (MPI_Aint)rank * N, N, MPI_INT, win,
                                 &rq));
        else
            CHECK_MPI(MPI_Put_c(mine + t * N, N, MPI_INT, t, (MPI_Aint)rank * N, N, MPI_INT,
                                win));
        wait_if(req, &rq);
    }
}

/* got[t] = block `rank` of target t. */
static void get_phase(MPI_Win win, int req, void *arg)
{
    int *got = arg;
    for (int t = 0; t < size; t++) {
        MPI_Request rq;
        if (req)
            CHECK_MPI(MPI_Rget_c(got + t * N, N, MPI_INT, t, (MPI_Aint)rank * N, N, MPI_INT, win,
                                 &rq));
        else
            CHECK_MPI(MPI_Get_c(got + t * N, N, MPI_INT, t, (MPI_Aint)rank * N, N, MPI_INT, win));
        wait_if(req, &rq);
    }
}

/* Block 0 of every target += rank + i. */
static void acc_phase(MPI_Win win, int req, void *arg)
{
    (void)arg;
    /* Static: the origin buffer must live until the epoch ends, after this
     * returns (a provider may read it only when it runs the atomic). */
    static int mine[N];
    for (int i = 0; i < N; i++)
        mine[i] = rank + i;
    for (int t = 0; t < size; t++) {
        MPI_Request rq;
        if (req)
            CHECK_MPI(MPI_Raccumulate_c(mine, N, MPI_INT, t, 0, N, MPI_INT, MPI_SUM, win, &rq));
        else
            CHECK_MPI(MPI_Accumulate_c(mine, N, MPI_INT, t, 0, N, MPI_INT, MPI_SUM, win));
        wait_if(req, &rq);
    }
}

/* Block 0 of every target += 1, fetching what was there into got[t]. */
static void get_acc_phase(MPI_Win win, int req, void *arg)
{
    int *got = arg;
    static int one[N]; /* lives until the epoch ends, as in acc_phase */
    for (int i = 0; i < N; i++)
        one[i] = 1;
    for (int t = 0; t < size; t++) {
        MPI_Request rq;
        if (req)
            CHECK_MPI(MPI_Rget_accumulate_c(one, N, MPI_INT, got + t * N, N, MPI_INT, t, 0, N,
                                            MPI_INT, MPI_SUM, win, &rq));
        else
            CHECK_MPI(MPI_Get_accumulate_c(one, N, MPI_INT, got + t * N, N, MPI_INT, t, 0, N,
                                           MPI_INT, MPI_SUM, win));
        wait_if(req, &rq);
    }
}

/* Counts past INT_MAX, of a type of no bytes: nothing moves. */
static void nothing_phase(MPI_Win win, int req, void *arg)
{
    MPI_Datatype none = *(MPI_Datatype *)arg;
    int x = 3, right = (rank + 1) % size;
    MPI_Request rq[3];
    if (req) {
        CHECK_MPI(MPI_Rput_c(&x, BIG, none, right, 0, BIG, none, win, &rq[0]));
        CHECK_MPI(MPI_Rget_c(&x, BIG, none, right, 0, BIG, none, win, &rq[1]));
        CHECK_MPI(MPI_Raccumulate_c(&x, BIG, none, right, 0, BIG, none, MPI_SUM, win, &rq[2]));
        CHECK_MPI(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    } else {
        CHECK_MPI(MPI_Put_c(&x, BIG, none, right, 0, BIG, none, win));
        CHECK_MPI(MPI_Get_c(&x, BIG, none, right, 0, BIG, none, win));
        CHECK_MPI(MPI_Accumulate_c(&x, BIG, none, right, 0, BIG, none, MPI_SUM, win));
    }
    CHECK(x == 3);
}

static void exercise(MPI_Win win, int *base)
{
    int *got = tu_malloc(sizeof(int) * N * (size_t)size);
    const int ranks = size * (size - 1) / 2;
    MPI_Datatype none;
    CHECK_MPI(MPI_Type_contiguous_c(0, MPI_INT, &none));
    CHECK_MPI(MPI_Type_commit(&none));
    for (int passive = 0; passive < 2; passive++) {
        for (int i = 0; i < N * size; i++)
            base[i] = -1;
        epoch(win, passive, put_phase, got);
        for (int f = 0; f < size; f++)
            for (int i = 0; i < N; i++)
                CHECKF(base[f * N + i] == val(f, rank, i), "put%s block %d [%d] = %d",
                       passive ? " (requests)" : "", f, i, base[f * N + i]);
        epoch(win, passive, get_phase, got);
        for (int t = 0; t < size; t++)
            for (int i = 0; i < N; i++)
                CHECKF(got[t * N + i] == val(rank, t, i), "get%s from %d [%d] = %d",
                       passive ? " (requests)" : "", t, i, got[t * N + i]);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every get is done before block 0 changes */
        for (int i = 0; i < N; i++)
            base[i] = 0;
        epoch(win, passive, acc_phase, NULL);
        for (int i = 0; i < N; i++)
            CHECKF(base[i] == ranks + size * i, "accumulate%s [%d] = %d",
                   passive ? " (requests)" : "", i, base[i]);
        epoch(win, passive, get_acc_phase, got);
        /* Each fetch saw the sums plus the ones of the ranks before it. */
        for (int t = 0; t < size; t++)
            for (int i = 0; i < N; i++)
                CHECKF(got[t * N + i] >= ranks + size * i &&
                           got[t * N + i] < ranks + size * i + size,
                       "get_accumulate%s from %d [%d] = %d", passive ? " (requests)" : "", t, i,
                       got[t * N + i]);
        for (int i = 0; i < N; i++)
            CHECKF(base[i] == ranks + size * i + size, "after get_accumulate [%d] = %d", i,
                   base[i]);
        epoch(win, passive, nothing_phase, &none);
        CHECK(base[0] == ranks + size);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Type_free(&none));
    free(got);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const MPI_Aint bytes = (MPI_Aint)sizeof(int) * N * size;
    MPI_Win win;
    int *base;

    CHECK_MPI(MPI_Win_allocate_c(bytes, (MPI_Aint)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &base, &win));
    exercise(win, base);
    CHECK_MPI(MPI_Win_free(&win));

    int *mem = tu_malloc((size_t)bytes);
    CHECK_MPI(MPI_Win_create_c(mem, bytes, (MPI_Aint)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                               &win));
    exercise(win, mem);
    int *unit, flag;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
    CHECK(flag && *unit == (int)sizeof(int));
    CHECK_MPI(MPI_Win_free(&win));
    free(mem);

    /* Shared memory: each rank's segment, and its unit, from the query. */
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nrank, nsize;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    CHECK_MPI(MPI_Win_allocate_shared_c((nrank + 1) * 8, 8 + nrank, MPI_INFO_NULL, node, &base,
                                        &win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < (nrank + 1) * 2; i++)
        base[i] = nrank * 100 + i;
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int r = 0; r < nsize; r++) {
        MPI_Aint sz, du;
        int *peer;
        CHECK_MPI(MPI_Win_shared_query_c(win, r, &sz, &du, &peer));
        CHECK_EQ(sz, (r + 1) * 8);
        CHECK_EQ(du, 8 + r);
        for (int i = 0; i < (r + 1) * 2; i++)
            CHECKF(peer[i] == r * 100 + i, "shared segment of %d [%d] = %d", r, i, peer[i]);
        int idu;
        CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &idu, &peer));
        CHECK_EQ(idu, 8 + r);
    }
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Comm_free(&node));

    /* Errors name the call and the value. */
    char s[MPI_MAX_ERROR_STRING];
    int len, code;
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_ERR(code = MPI_Win_allocate_c(64, (MPI_Aint)INT_MAX + 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                        &base, &win), MPI_ERR_DISP);
    MPI_Error_string(code, s, &len);
    CHECKF(strstr(s, "MPI_Win_allocate_c") && strstr(s, "disp_unit=2147483648"), "\"%s\"", s);
    CHECK_ERR(code = MPI_Win_create_c(NULL, 0, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
              MPI_ERR_DISP);
    CHECK_MPI(MPI_Win_allocate_c(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_fence(0, win));
    int x = 0;
    CHECK_ERR(code = MPI_Put_c(&x, -BIG, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
    MPI_Error_string(code, s, &len);
    CHECKF(strstr(s, "MPI_Put_c") && strstr(s, "origin_count=-2147484672"), "\"%s\"", s);
    CHECK_ERR(code = MPI_Get_accumulate_c(&x, 1, MPI_INT, &x, 1, MPI_INT, 0, 0, -1, MPI_INT,
                                          MPI_SUM, win), MPI_ERR_COUNT);
    MPI_Error_string(code, s, &len);
    CHECKF(strstr(s, "MPI_Get_accumulate_c") && strstr(s, "target_count=-1"), "\"%s\"", s);
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
