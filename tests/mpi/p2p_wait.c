/* p2p_wait: the completion calls (Wait, Waitall, Waitany, Waitsome, Test,
 * Testall, Testany, Testsome, Request_get_status, Request_free) with
 * MPI_REQUEST_NULL entries mixed in: nothing reported complete before the
 * peer has sent, exactly-once completion with the right index and status,
 * empty statuses and MPI_UNDEFINED for all-null arrays, Request_get_status
 * leaving the request alive, and Request_free on an active send. */
#include "testutil.h"

static int rank, size;
static MPI_Comm ctl, comm;

static void check_empty(const MPI_Status *st, const char *what)
{
    int cnt = -1;
    CHECKF(st->MPI_SOURCE == MPI_ANY_SOURCE, "%s: empty status source %d", what, st->MPI_SOURCE);
    CHECKF(st->MPI_TAG == MPI_ANY_TAG, "%s: empty status tag %d", what, st->MPI_TAG);
    CHECK_MPI(MPI_Get_count(st, MPI_INT, &cnt));
    CHECKF(cnt == 0, "%s: empty status count %d", what, cnt);
}

static void null_only(void)
{
    MPI_Request rq[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Request one = MPI_REQUEST_NULL;
    MPI_Status st, sts[3];
    int flag = -1, idx = -1, out = -1, ind[3];

    st.MPI_SOURCE = st.MPI_TAG = 77;
    CHECK_MPI(MPI_Wait(&one, &st));
    check_empty(&st, "Wait(null)");
    st.MPI_SOURCE = st.MPI_TAG = 77;
    CHECK_MPI(MPI_Test(&one, &flag, &st));
    CHECK_EQ(flag, 1);
    check_empty(&st, "Test(null)");
    flag = -1;
    st.MPI_SOURCE = st.MPI_TAG = 77;
    CHECK_MPI(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    CHECK_EQ(flag, 1);
    check_empty(&st, "Request_get_status(null)");

    CHECK_MPI(MPI_Waitany(3, rq, &idx, &st));
    CHECK_EQ(idx, MPI_UNDEFINED);
    check_empty(&st, "Waitany(all null)");
    idx = -1;
    flag = -1;
    CHECK_MPI(MPI_Testany(3, rq, &idx, &flag, &st));
    CHECK_EQ(flag, 1);
    CHECK_EQ(idx, MPI_UNDEFINED);
    CHECK_MPI(MPI_Waitsome(3, rq, &out, ind, sts));
    CHECK_EQ(out, MPI_UNDEFINED);
    out = -1;
    CHECK_MPI(MPI_Testsome(3, rq, &out, ind, sts));
    CHECK_EQ(out, MPI_UNDEFINED);
    flag = -1;
    CHECK_MPI(MPI_Testall(3, rq, &flag, sts));
    CHECK_EQ(flag, 1);
    for (int i = 0; i < 3; i++)
        sts[i].MPI_SOURCE = sts[i].MPI_TAG = 77;
    CHECK_MPI(MPI_Waitall(3, rq, sts));
    for (int i = 0; i < 3; i++)
        check_empty(&sts[i], "Waitall(all null)");

    /* Zero-length arrays. */
    CHECK_MPI(MPI_Waitall(0, NULL, NULL));
    idx = -1;
    CHECK_MPI(MPI_Waitany(0, NULL, &idx, MPI_STATUS_IGNORE));
    CHECK_EQ(idx, MPI_UNDEFINED);
    flag = 0;
    CHECK_MPI(MPI_Testall(0, NULL, &flag, NULL));
    CHECK_EQ(flag, 1);
}

/* Layout of the request array: slots 0, 2, 5 are null; receives for tags
 * 1..4 sit in slots 1, 3, 4, 6. */
static const int slot_of_tag[5] = {-1, 1, 3, 4, 6};
#define NSLOT 7

static void round_trip(int S, int R, int use_test)
{
    int vals[NSLOT], data[5] = {0, 101, 102, 103, 104};
    MPI_Request rq[NSLOT], sr[5];
    MPI_Status sts[NSLOT], st;
    int flag, idx, out, ind[NSLOT], done[NSLOT] = {0};
    int go = 1;
    for (int i = 0; i < 5; i++)
        sr[i] = MPI_REQUEST_NULL;

    if (rank == R) {
        for (int i = 0; i < NSLOT; i++) {
            rq[i] = MPI_REQUEST_NULL;
            vals[i] = -1;
        }
        for (int t = 1; t <= 4; t++)
            CHECK_MPI(MPI_Irecv(&vals[slot_of_tag[t]], 1, MPI_INT, S, t, comm,
                                &rq[slot_of_tag[t]]));
        /* The sender has not sent anything: nothing may complete. */
        flag = -1;
        idx = -2;
        CHECK_MPI(MPI_Testany(NSLOT, rq, &idx, &flag, &st));
        CHECK_EQ(flag, 0);
        CHECK_EQ(idx, MPI_UNDEFINED);
        flag = -1;
        CHECK_MPI(MPI_Testall(NSLOT, rq, &flag, sts));
        CHECK_EQ(flag, 0);
        out = -1;
        CHECK_MPI(MPI_Testsome(NSLOT, rq, &out, ind, sts));
        CHECK_EQ(out, 0);
        flag = -1;
        CHECK_MPI(MPI_Test(&rq[1], &flag, &st));
        CHECK_EQ(flag, 0);
        CHECK(rq[1] != MPI_REQUEST_NULL);
        flag = -1;
        CHECK_MPI(MPI_Request_get_status(rq[3], &flag, &st));
        CHECK_EQ(flag, 0);
        if (S != R) /* on one rank, program order already sequences it */
            CHECK_MPI(MPI_Send(&go, 1, MPI_INT, S, 0, ctl));
    }
    if (rank == S) {
        if (S != R)
            CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, R, 0, ctl, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Isend(&data[3], 1, MPI_INT, R, 3, comm, &sr[3]));
    }
    if (rank == R) {
        /* Only tag 3 is in flight. */
        idx = -1;
        if (use_test) {
            flag = 0;
            while (!flag)
                CHECK_MPI(MPI_Testany(NSLOT, rq, &idx, &flag, &st));
        } else {
            CHECK_MPI(MPI_Waitany(NSLOT, rq, &idx, &st));
        }
        CHECK_EQ(idx, slot_of_tag[3]);
        CHECK(rq[idx] == MPI_REQUEST_NULL);
        CHECK_EQ(st.MPI_TAG, 3);
        CHECK_EQ(st.MPI_SOURCE, S);
        CHECK_EQ(vals[idx], 103);
        done[idx] = 1;
        /* The rest are still pending: Testall says no and frees nothing. */
        flag = -1;
        CHECK_MPI(MPI_Testall(NSLOT, rq, &flag, MPI_STATUSES_IGNORE));
        CHECK_EQ(flag, 0);
        for (int t = 1; t <= 4; t++)
            if (t != 3)
                CHECK(rq[slot_of_tag[t]] != MPI_REQUEST_NULL);
        if (S != R) /* on one rank, program order already sequences it */
            CHECK_MPI(MPI_Send(&go, 1, MPI_INT, S, 0, ctl));
    }
    if (rank == S) {
        if (S != R)
            CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, R, 0, ctl, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Isend(&data[1], 1, MPI_INT, R, 1, comm, &sr[1]));
        CHECK_MPI(MPI_Isend(&data[2], 1, MPI_INT, R, 2, comm, &sr[2]));
        CHECK_MPI(MPI_Isend(&data[4], 1, MPI_INT, R, 4, comm, &sr[4]));
    }
    if (rank == R) {
        /* Request_get_status reports completion without freeing. */
        MPI_Status st2;
        flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Request_get_status(rq[1], &flag, &st));
        CHECK(rq[1] != MPI_REQUEST_NULL);
        CHECK_EQ(st.MPI_TAG, 1);
        CHECK_EQ(st.MPI_SOURCE, S);
        flag = 0;
        CHECK_MPI(MPI_Request_get_status(rq[1], &flag, &st2));
        CHECK_EQ(flag, 1);
        CHECK_EQ(st2.MPI_TAG, 1);
        if (use_test) {
            flag = 0;
            CHECK_MPI(MPI_Test(&rq[1], &flag, &st2));
            CHECK_EQ(flag, 1);
        } else {
            CHECK_MPI(MPI_Wait(&rq[1], &st2));
        }
        CHECK(rq[1] == MPI_REQUEST_NULL);
        CHECK_EQ(st2.MPI_TAG, 1);
        CHECK_EQ(vals[1], 101);
        done[1] = 1;
        /* Collect the remaining two with Waitsome/Testsome. */
        int got = 0;
        for (;;) {
            out = -2;
            for (int i = 0; i < NSLOT; i++)
                sts[i].MPI_TAG = -77;
            if (use_test)
                CHECK_MPI(MPI_Testsome(NSLOT, rq, &out, ind, sts));
            else
                CHECK_MPI(MPI_Waitsome(NSLOT, rq, &out, ind, sts));
            if (out == MPI_UNDEFINED)
                break;
            CHECK(out >= 0 && out <= 2 - got);
            CHECK(use_test || out >= 1);
            for (int k = 0; k < out; k++) {
                int i = ind[k];
                CHECKF(i == slot_of_tag[2] || i == slot_of_tag[4], "Waitsome index %d", i);
                CHECKF(!done[i], "slot %d completed twice", i);
                done[i] = 1;
                CHECK(rq[i] == MPI_REQUEST_NULL);
                CHECK_EQ(sts[k].MPI_TAG, i == slot_of_tag[2] ? 2 : 4);
                CHECK_EQ(sts[k].MPI_SOURCE, S);
                CHECK_EQ(vals[i], i == slot_of_tag[2] ? 102 : 104);
            }
            got += out;
        }
        CHECK_EQ(got, 2);
        for (int i = 0; i < NSLOT; i++)
            CHECK(rq[i] == MPI_REQUEST_NULL);
    }
    if (rank == S) {
        if (use_test) {
            flag = 0;
            while (!flag)
                CHECK_MPI(MPI_Testall(5, sr, &flag, MPI_STATUSES_IGNORE));
        } else {
            CHECK_MPI(MPI_Waitall(5, sr, MPI_STATUSES_IGNORE));
        }
        for (int i = 0; i < 5; i++)
            CHECK(sr[i] == MPI_REQUEST_NULL);
    }
}

/* Waitall/Testall over receives that all complete, statuses per slot. */
static void waitall_statuses(int S, int R)
{
    int v[4] = {-1, -1, -1, -1}, d[4] = {10, 11, 12, 13};
    MPI_Request rq[6] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                         MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Request sr[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status sts[6];
    if (rank == R)
        for (int i = 0; i < 4; i++)
            CHECK_MPI(MPI_Irecv(&v[i], 1, MPI_INT, MPI_ANY_SOURCE, 20 + i, comm, &rq[i + 1]));
    if (rank == S)
        for (int i = 3; i >= 0; i--)
            CHECK_MPI(MPI_Isend(&d[i], 1, MPI_INT, R, 20 + i, comm, &sr[i]));
    if (rank == R) {
        for (int i = 0; i < 6; i++) {
            sts[i].MPI_TAG = sts[i].MPI_SOURCE = 77;
            sts[i].MPI_ERROR = 77;
        }
        CHECK_MPI(MPI_Waitall(6, rq, sts));
        check_empty(&sts[0], "Waitall null slot 0");
        check_empty(&sts[5], "Waitall null slot 5");
        for (int i = 0; i < 4; i++) {
            CHECK_EQ(v[i], 10 + i);
            CHECK_EQ(sts[i + 1].MPI_TAG, 20 + i);
            CHECK_EQ(sts[i + 1].MPI_SOURCE, S);
            int c = -1;
            CHECK_MPI(MPI_Get_count(&sts[i + 1], MPI_INT, &c));
            CHECK_EQ(c, 1);
        }
    }
    CHECK_MPI(MPI_Waitall(4, sr, MPI_STATUSES_IGNORE));
}

/* Request_free on an active (rendezvous-sized) send; the receiver's ack
 * tells the sender the buffer may be reused. */
static void free_active_send(int S, int R)
{
    const int n = 1 << 18;
    int *buf = tu_malloc(sizeof(int) * (size_t)n);
    MPI_Request sr = MPI_REQUEST_NULL, rr = MPI_REQUEST_NULL;
    if (rank == R)
        CHECK_MPI(MPI_Irecv(buf, n, MPI_INT, S, 50, comm, &rr));
    if (rank == S) {
        int *sb = tu_malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++)
            sb[i] = i ^ 0x5a5a;
        CHECK_MPI(MPI_Isend(sb, n, MPI_INT, R, 50, comm, &sr));
        CHECK_MPI(MPI_Request_free(&sr));
        CHECK(sr == MPI_REQUEST_NULL);
        MPI_Request small;
        int x = 3;
        CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, R, 51, comm, &small));
        CHECK_MPI(MPI_Request_free(&small));
        CHECK(small == MPI_REQUEST_NULL);
        if (S == R) {
            CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
            int y = 0;
            CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, S, 51, comm, MPI_STATUS_IGNORE));
            CHECK_EQ(y, 3);
        } else {
            int ack = 0;
            CHECK_MPI(MPI_Recv(&ack, 1, MPI_INT, R, 52, comm, MPI_STATUS_IGNORE));
            CHECK_EQ(ack, 1);
        }
        free(sb);
    }
    if (rank == R) {
        if (S != R) {
            int y = 0, ack = 1;
            CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, S, 51, comm, MPI_STATUS_IGNORE));
            CHECK_EQ(y, 3);
            CHECK_MPI(MPI_Send(&ack, 1, MPI_INT, S, 52, comm));
        }
        for (int i = 0; i < n; i++)
            CHECKF(buf[i] == (i ^ 0x5a5a), "freed send: element %d = %d", i, buf[i]);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ctl));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));

    null_only();
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size)
        peer = rank;
    int lo = rank < peer ? rank : peer, hi = rank < peer ? peer : rank;
    for (int use_test = 0; use_test < 2; use_test++) {
        round_trip(lo, hi, use_test);
        if (lo != hi)
            round_trip(hi, lo, use_test);
    }
    waitall_statuses(lo, hi);
    waitall_statuses(hi, lo);
    free_active_send(lo, hi);
    if (lo != hi)
        free_active_send(hi, lo);

    CHECK_MPI(MPI_Comm_free(&ctl));
    CHECK_MPI(MPI_Comm_free(&comm));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
