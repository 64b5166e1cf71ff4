/* p2p_cancel_send: MPI_Cancel of sends.  A send nobody receives — a large
 * one (rendezvous: its data still waits here), a synchronous one, a
 * persistent synchronous one — is cancelled: the wait returns,
 * MPI_Test_cancelled says true, and the receiver never sees the message
 * (a later message with the same envelope is the one it gets).  A plain
 * small send may be complete already: its cancel has no effect, and then
 * the receiver must get it intact.  Rank pairs (0,1), (2,3), ...; an odd
 * rank out talks to itself. */
#include <string.h>

#include "testutil.h"

static int rank, size;
static MPI_Comm comm, ctl;

enum { BIG = 1 << 20, SMALL = 4 };

static void go(int to) { CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, to, 0, ctl)); }
static void wait_go(int from) { CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, from, 0, ctl, MPI_STATUS_IGNORE)); }

static int cancelled(MPI_Request *rq)
{
    MPI_Status st;
    int flag = -1;
    MPI_Request keep = *rq;
    CHECK_MPI(MPI_Cancel(rq));
    CHECK_MPI(MPI_Wait(rq, &st));
    CHECK(*rq == MPI_REQUEST_NULL || *rq == keep); /* persistent: kept */
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0 || flag == 1);
    return flag;
}

/* Sender S cancels a message of n ints to R with `tag`, sent by `kind`
 * (0 Isend, 1 Issend, 2 Ssend_init + Start); then sends n ints of value
 * 1000 + tag with the same envelope, which R must be the one to receive.
 * must_cancel: the cancel has to succeed (the message names its request). */
static void one_case(int S, int R, int kind, int n, int tag, int must_cancel)
{
    int *buf = tu_malloc(sizeof(int) * (size_t)n), *rbuf = tu_malloc(sizeof(int) * (size_t)n);
    int *lbuf = tu_malloc(sizeof(int) * (size_t)n);
    MPI_Request later = MPI_REQUEST_NULL;
    if (rank == S) {
        MPI_Request rq;
        for (int i = 0; i < n; i++)
            buf[i] = i;
        if (kind == 0)
            CHECK_MPI(MPI_Isend(buf, n, MPI_INT, R, tag, comm, &rq));
        else if (kind == 1)
            CHECK_MPI(MPI_Issend(buf, n, MPI_INT, R, tag, comm, &rq));
        else {
            CHECK_MPI(MPI_Ssend_init(buf, n, MPI_INT, R, tag, comm, &rq));
            CHECK_MPI(MPI_Start(&rq));
        }
        MPI_Request keep = rq;
        int c = cancelled(&rq);
        if (must_cancel)
            CHECKF(c == 1, "kind %d, %d ints to rank %d: not cancelled", kind, n, R);
        /* Tell R whether the first message still comes. */
        CHECK_MPI(MPI_Send(&c, 1, MPI_INT, R, 1, ctl));
        if (kind == 2) {
            /* A persistent request stays allocated and is reusable after a
             * cancel; buf is ours again and holds the later message. */
            CHECK(rq == keep);
            for (int i = 0; i < n; i++)
                buf[i] = 1000 + tag;
            CHECK_MPI(MPI_Start(&rq));
            later = rq;
        } else {
            for (int i = 0; i < n; i++)
                lbuf[i] = 1000 + tag;
            CHECK_MPI(MPI_Isend(lbuf, n, MPI_INT, R, tag, comm, &later));
        }
    }
    if (rank == R) {
        int c = -1, flag = -1;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&c, 1, MPI_INT, S, 1, ctl, MPI_STATUS_IGNORE));
        if (!c) {
            /* Not cancelled: the first message arrives whole. */
            CHECK_MPI(MPI_Recv(rbuf, n, MPI_INT, S, tag, comm, &st));
            for (int i = 0; i < n; i++)
                CHECKF(rbuf[i] == i, "uncancelled message: rbuf[%d] = %d", i, rbuf[i]);
        }
        memset(rbuf, 0xff, sizeof(int) * (size_t)n);
        CHECK_MPI(MPI_Recv(rbuf, n, MPI_INT, S, tag, comm, &st));
        int got = -1;
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
        CHECK_EQ(got, n);
        for (int i = 0; i < n; i++)
            CHECKF(rbuf[i] == 1000 + tag, "kind %d: rbuf[%d] = %d, want the later message", kind,
                   i, rbuf[i]);
        CHECK_MPI(MPI_Test_cancelled(&st, &flag));
        CHECK_EQ(flag, 0);
        /* And nothing else is left with that envelope. */
        CHECK_MPI(MPI_Iprobe(S, tag, comm, &flag, MPI_STATUS_IGNORE));
        CHECK_EQ(flag, 0);
    }
    if (kind == 2 && rank == S) {
        CHECK_MPI(MPI_Wait(&later, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Request_free(&later));
    } else if (rank == S) {
        CHECK_MPI(MPI_Wait(&later, MPI_STATUS_IGNORE));
    }
    free(lbuf);
    free(buf);
    free(rbuf);
}

/* A cancelled message among others to the same receiver: the one before
 * and the one after arrive, in order, the cancelled one never. */
static void among_others(int S, int R)
{
    int n = BIG / (int)sizeof(int);
    int *big = tu_malloc(sizeof(int) * (size_t)n);
    int a = 1, b = 2, x = -1;
    MPI_Request rq[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (rank == S) {
        for (int i = 0; i < n; i++)
            big[i] = -i;
        CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, R, 5, comm, &rq[0]));
        CHECK_MPI(MPI_Isend(big, n, MPI_INT, R, 5, comm, &rq[1]));
        CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, R, 5, comm, &rq[2]));
        CHECK_EQ(cancelled(&rq[1]), 1);
        go(R);
    }
    if (rank == R) {
        int flag = -1;
        if (S != R)
            wait_go(S);
        CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, S, 5, comm, MPI_STATUS_IGNORE));
        CHECK_EQ(x, 1);
        CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, S, 5, comm, MPI_STATUS_IGNORE));
        CHECK_EQ(x, 2);
        CHECK_MPI(MPI_Iprobe(S, 5, comm, &flag, MPI_STATUS_IGNORE));
        CHECK_EQ(flag, 0);
    }
    if (S == R)
        wait_go(S);
    /* (With FABMPI_EAGER_LIMIT=0 even a and b complete only once received.) */
    CHECK_MPI(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    free(big);
}

/* Many unmatched synchronous sends (some may wait parked when the
 * transport is full), every one cancelled. */
static void many_sync(int S, int R)
{
    enum { K = 64, LEN = 2048 };
    if (rank == S) {
        static char bufs[K][LEN];
        MPI_Request rq[K];
        for (int k = 0; k < K; k++) {
            memset(bufs[k], k, LEN);
            CHECK_MPI(MPI_Issend(bufs[k], LEN, MPI_CHAR, R, 6, comm, &rq[k]));
        }
        for (int k = K - 1; k >= 0; k--)
            CHECKF(cancelled(&rq[k]) == 1, "synchronous send %d not cancelled", k);
        go(R);
    }
    if (rank == R) {
        int flag = -1;
        if (S != R)
            wait_go(S);
        CHECK_MPI(MPI_Iprobe(S, 6, comm, &flag, MPI_STATUS_IGNORE));
        CHECK_EQ(flag, 0);
    }
    if (S == R)
        wait_go(S);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ctl));

    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size)
        peer = rank;
    int lo = rank < peer ? rank : peer, hi = rank < peer ? peer : rank;
    for (int dir = 0; dir < (lo == hi ? 1 : 2); dir++) {
        int S = dir ? hi : lo, R = dir ? lo : hi;
        one_case(S, R, 0, BIG / (int)sizeof(int), 10, 1); /* rendezvous */
        one_case(S, R, 1, SMALL, 11, 1);                  /* synchronous eager */
        one_case(S, R, 1, BIG / (int)sizeof(int), 12, 1); /* synchronous rendezvous */
        one_case(S, R, 2, SMALL, 13, 1);                  /* persistent synchronous */
        one_case(S, R, 2, BIG / (int)sizeof(int), 14, 1);
        one_case(S, R, 0, SMALL, 15, 0); /* plain eager: may be complete already */
        among_others(S, R);
        many_sync(S, R);
    }

    CHECK_MPI(MPI_Comm_free(&comm));
    CHECK_MPI(MPI_Comm_free(&ctl));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
