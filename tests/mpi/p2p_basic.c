/* p2p_basic: exact payloads for every send mode (Send, Ssend, Rsend, Isend,
 * Issend, Irsend) at sizes from 0 bytes to 8 MiB, i.e. across eager and
 * rendezvous protocols; statuses and counts; receive buffers larger than the
 * message keep their tail; self-sends; MPI_PROC_NULL; Sendrecv and
 * Sendrecv_replace around a ring. */
#include "testutil.h"

enum { M_SEND, M_SSEND, M_RSEND, M_ISEND, M_ISSEND, M_IRSEND, M_COUNT };
static const char *mode_name[M_COUNT] = {"Send", "Ssend", "Rsend", "Isend", "Issend", "Irsend"};
static const size_t sizes[] = {0, 1, 8, 1024, 16384, 65536, 1 << 20, 8 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define GUARD 64
#define TAG_READY 999

static int rank, size;

static int send_mode(int mode, const void *buf, int n, int dest, int tag, MPI_Request *req)
{
    *req = MPI_REQUEST_NULL;
    switch (mode) {
    case M_SEND: return MPI_Send(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
    case M_SSEND: return MPI_Ssend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
    case M_RSEND: return MPI_Rsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
    case M_ISEND: return MPI_Isend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, req);
    case M_ISSEND: return MPI_Issend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, req);
    default: return MPI_Irsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, req);
    }
}

static void check_recv(const unsigned char *rbuf, size_t n, unsigned seed, const MPI_Status *st,
                       int src, int tag, int mode)
{
    int cnt = -1;
    CHECKF(st->MPI_SOURCE == src, "%s %zu B: status source %d, expected %d", mode_name[mode], n,
           st->MPI_SOURCE, src);
    CHECKF(st->MPI_TAG == tag, "%s %zu B: status tag %d, expected %d", mode_name[mode], n,
           st->MPI_TAG, tag);
    CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &cnt));
    CHECKF((size_t)cnt == n, "%s %zu B: count %d", mode_name[mode], n, cnt);
    long bad = tu_verify(rbuf, n, seed);
    CHECKF(bad < 0, "%s %zu B: payload differs at byte %ld", mode_name[mode], n, bad);
    for (int i = 0; i < GUARD; i++)
        CHECKF(rbuf[n + i] == 0xA5, "%s %zu B: byte %zu past the message overwritten",
               mode_name[mode], n, n + i);
}

/* One message from `from` to `to` with the given mode; ready modes get a
 * zero-byte handshake so the receive is posted first.  Works for from==to. */
static void one_way(int mode, size_t n, int from, int to, unsigned char *sbuf,
                    unsigned char *rbuf, int si)
{
    int tag = 100 + mode * 16 + si;
    unsigned seed = (unsigned)(from * 1000 + mode * 50 + si);
    int ready = (mode == M_RSEND || mode == M_IRSEND);
    MPI_Request rreq = MPI_REQUEST_NULL, sreq = MPI_REQUEST_NULL;
    MPI_Status st;

    if (rank == to) {
        memset(rbuf, 0xA5, n + GUARD);
        CHECK_MPI(MPI_Irecv(rbuf, (int)n + GUARD, MPI_BYTE, from, tag, MPI_COMM_WORLD, &rreq));
        if (ready && from != to)
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, from, TAG_READY, MPI_COMM_WORLD));
    }
    if (rank == from) {
        tu_fill(sbuf, n, seed);
        if (ready && from != to)
            CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, to, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (from == to && (mode == M_SEND || mode == M_SSEND || mode == M_RSEND)) {
            /* A blocking send to self could deadlock (Ssend must); use the
             * immediate variant of the same mode. */
            int imode = mode == M_SEND ? M_ISEND : mode == M_SSEND ? M_ISSEND : M_IRSEND;
            CHECK_MPI(send_mode(imode, sbuf, (int)n, to, tag, &sreq));
        } else {
            CHECK_MPI(send_mode(mode, sbuf, (int)n, to, tag, &sreq));
        }
    }
    if (rank == to) {
        CHECK_MPI(MPI_Wait(&rreq, &st));
        CHECK(rreq == MPI_REQUEST_NULL);
        check_recv(rbuf, n, seed, &st, from, tag, mode);
    }
    if (sreq != MPI_REQUEST_NULL) {
        CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        CHECK(sreq == MPI_REQUEST_NULL);
    }
}

/* Blocking Recv (not Irecv) path: partner pairs exchange in a fixed order. */
static void blocking_pair(size_t n, int peer, int first, unsigned char *sbuf,
                          unsigned char *rbuf, int si)
{
    MPI_Status st;
    int tag = 7;
    unsigned myseed = (unsigned)(rank * 7919 + si), peerseed = (unsigned)(peer * 7919 + si);
    tu_fill(sbuf, n, myseed);
    memset(rbuf, 0xA5, n + GUARD);
    if (first) {
        CHECK_MPI(MPI_Send(sbuf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Recv(rbuf, (int)n + GUARD, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
    } else {
        CHECK_MPI(MPI_Recv(rbuf, (int)n + GUARD, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Send(sbuf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
    }
    check_recv(rbuf, n, peerseed, &st, peer, tag, M_SEND);
}

static void proc_null(void)
{
    int buf[4] = {1, 2, 3, 4}, cnt = -1;
    MPI_Status st;
    MPI_Request req;

    CHECK_MPI(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Rsend(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));

    st.MPI_SOURCE = st.MPI_TAG = 12345;
    CHECK_MPI(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK_EQ(cnt, 0);
    CHECK(buf[0] == 1 && buf[3] == 4);

    CHECK_MPI(MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &req));
    st.MPI_SOURCE = st.MPI_TAG = 12345;
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL);
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    cnt = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK_EQ(cnt, 0);

    int flag = 0;
    CHECK_MPI(MPI_Isend(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    CHECK_EQ(flag, 1);
    CHECK(req == MPI_REQUEST_NULL);
    CHECK_MPI(MPI_Issend(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Irsend(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

    /* Sendrecv with both sides PROC_NULL: completes, recv status as above. */
    int out[2] = {9, 9};
    st.MPI_SOURCE = st.MPI_TAG = 12345;
    CHECK_MPI(MPI_Sendrecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, out, 2, MPI_INT, MPI_PROC_NULL, 1,
                           MPI_COMM_WORLD, &st));
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    CHECK(out[0] == 9 && out[1] == 9);
}

static void ring_sendrecv(size_t n, unsigned char *sbuf, unsigned char *rbuf, int si)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    MPI_Status st;
    int cnt = -1;

    tu_fill(sbuf, n, (unsigned)(rank * 31 + si));
    memset(rbuf, 0xA5, n + GUARD);
    CHECK_MPI(MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, right, 40 + si, rbuf, (int)n + GUARD, MPI_BYTE,
                           left, 40 + si, MPI_COMM_WORLD, &st));
    CHECK_EQ(st.MPI_SOURCE, left);
    CHECK_EQ(st.MPI_TAG, 40 + si);
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK_EQ(cnt, (int)n);
    CHECK_PATTERN(rbuf, n, (unsigned)(left * 31 + si));
    CHECK(rbuf[n] == 0xA5);

    /* Sendrecv_replace with ANY_SOURCE / ANY_TAG on the receive side. */
    tu_fill(sbuf, n, (unsigned)(rank * 37 + si));
    CHECK_MPI(MPI_Sendrecv_replace(sbuf, (int)n, MPI_BYTE, right, 60 + si, MPI_ANY_SOURCE,
                                   MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    /* Only the left neighbour sends to us, and its earlier messages are
     * already received, so non-overtaking makes this the tag-60 one. */
    CHECK_EQ(st.MPI_SOURCE, left);
    CHECK_EQ(st.MPI_TAG, 60 + si);
    cnt = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK_EQ(cnt, (int)n);
    CHECK_PATTERN(sbuf, n, (unsigned)(left * 37 + si));

    /* Typed Sendrecv_replace: ints. */
    int ni = (int)(n / sizeof(int));
    int *ib = (int *)sbuf;
    for (int i = 0; i < ni; i++)
        ib[i] = rank * 1000003 + i;
    CHECK_MPI(MPI_Sendrecv_replace(ib, ni, MPI_INT, right, 80, left, 80, MPI_COMM_WORLD, &st));
    for (int i = 0; i < ni; i++)
        CHECKF(ib[i] == left * 1000003 + i, "int %d of %d: %d", i, ni, ib[i]);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

    size_t maxn = sizes[NSIZES - 1];
    unsigned char *sbuf = tu_malloc(maxn + GUARD), *rbuf = tu_malloc(maxn + GUARD);

    /* Pairs (0,1), (2,3), ...; an unpaired last rank talks to itself. */
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size)
        peer = rank;

    for (size_t si = 0; si < NSIZES; si++) {
        size_t n = sizes[si];
        if (peer != rank)
            blocking_pair(n, peer, rank % 2 == 0, sbuf, rbuf, (int)si);
        for (int mode = 0; mode < M_COUNT; mode++) {
            /* even -> odd, then odd -> even (or self -> self). */
            int lo = rank < peer ? rank : peer, hi = rank < peer ? peer : rank;
            one_way(mode, n, lo, hi, sbuf, rbuf, (int)si);
            if (lo != hi)
                one_way(mode, n, hi, lo, sbuf, rbuf, (int)si);
        }
    }

    /* Explicit self-send through Isend + blocking Recv, eager and large. */
    for (size_t si = 0; si < NSIZES; si++) {
        size_t n = sizes[si];
        MPI_Request req;
        MPI_Status st;
        int cnt = -1;
        tu_fill(sbuf, n, (unsigned)(500 + si));
        memset(rbuf, 0xA5, n + GUARD);
        CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, rank, 3, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Recv(rbuf, (int)n, MPI_BYTE, rank, 3, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK_EQ(st.MPI_SOURCE, rank);
        CHECK_EQ(st.MPI_TAG, 3);
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &cnt));
        CHECK_EQ(cnt, (int)n);
        CHECK_PATTERN(rbuf, n, (unsigned)(500 + si));
        /* Also on MPI_COMM_SELF. */
        CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, 0, 4, MPI_COMM_SELF, &req));
        memset(rbuf, 0xA5, n + GUARD);
        CHECK_MPI(MPI_Recv(rbuf, (int)n, MPI_BYTE, 0, 4, MPI_COMM_SELF, &st));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK_EQ(st.MPI_SOURCE, 0);
        CHECK_PATTERN(rbuf, n, (unsigned)(500 + si));
    }

    proc_null();

    static const size_t rsizes[] = {0, 4, 1024, 65536, 1 << 20};
    for (int i = 0; i < 5; i++)
        ring_sendrecv(rsizes[i], sbuf, rbuf, i);

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    free(sbuf);
    free(rbuf);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
