/* p2p_probe: Probe / Iprobe leave the message in place and report exact
 * source, tag and count (eager and rendezvous sizes); Mprobe / Improbe remove
 * it from matching so later probes see the next message; Mrecv / Imrecv get
 * exactly the probed message; MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC and the
 * PROC_NULL status; matched-probe fan-in with ANY_SOURCE received in reverse. */
#include "testutil.h"

static int rank, size;
static MPI_Comm comm, ctl;

static void check_status(const MPI_Status *st, int src, int tag, int nbytes)
{
    int c = -1;
    CHECK_EQ(st->MPI_SOURCE, src);
    CHECK_EQ(st->MPI_TAG, tag);
    CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &c));
    CHECK_EQ(c, nbytes);
}

static void proc_null(void)
{
    MPI_Status st;
    MPI_Message m = MPI_MESSAGE_NULL;
    int flag = -1, c = -1, buf[2] = {5, 6};
    MPI_Request rq;

    st.MPI_SOURCE = st.MPI_TAG = 77;
    CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 3, comm, &st));
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &c));
    CHECK_EQ(c, 0);
    st.MPI_SOURCE = st.MPI_TAG = 77;
    CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, comm, &flag, &st));
    CHECK_EQ(flag, 1);
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);

    st.MPI_SOURCE = st.MPI_TAG = 77;
    CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 3, comm, &m, &st));
    CHECK(m == MPI_MESSAGE_NO_PROC);
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    st.MPI_SOURCE = st.MPI_TAG = 77;
    CHECK_MPI(MPI_Mrecv(buf, 2, MPI_INT, &m, &st));
    CHECK(m == MPI_MESSAGE_NULL);
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    c = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &c));
    CHECK_EQ(c, 0);
    CHECK(buf[0] == 5 && buf[1] == 6);

    flag = -1;
    m = MPI_MESSAGE_NULL;
    CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, comm, &flag, &m, &st));
    CHECK_EQ(flag, 1);
    CHECK(m == MPI_MESSAGE_NO_PROC);
    CHECK_MPI(MPI_Imrecv(buf, 2, MPI_INT, &m, &rq));
    CHECK(m == MPI_MESSAGE_NULL);
    st.MPI_SOURCE = st.MPI_TAG = 77;
    CHECK_MPI(MPI_Wait(&rq, &st));
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    CHECK(buf[0] == 5 && buf[1] == 6);
}

/* S sends four messages to R (after a go), R probes them in various ways. */
static void pair(int S, int R, int big)
{
    int n1 = big ? 300000 : 40, n2 = big ? 100000 : 8, n3 = big ? 2000000 : 1, n4 = 0;
    unsigned char *a = tu_malloc((size_t)n1), *b = tu_malloc((size_t)n2);
    unsigned char *c = tu_malloc((size_t)n3), *r = tu_malloc((size_t)n3 + (size_t)n1);
    MPI_Request sr[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st;
    MPI_Message m;
    int flag, go = 1;

    if (rank == R) {
        /* Nothing sent yet. */
        flag = -1;
        CHECK_MPI(MPI_Iprobe(S, MPI_ANY_TAG, comm, &flag, &st));
        CHECK_EQ(flag, 0);
        flag = -1;
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st));
        CHECK_EQ(flag, 0);
        flag = -1;
        m = MPI_MESSAGE_NULL;
        CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, 1, comm, &flag, &m, &st));
        CHECK_EQ(flag, 0);
        if (S != R)
            CHECK_MPI(MPI_Send(&go, 1, MPI_INT, S, 0, ctl));
    }
    if (rank == S) {
        if (S != R)
            CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, R, 0, ctl, MPI_STATUS_IGNORE));
        tu_fill(a, (size_t)n1, 1);
        tu_fill(b, (size_t)n2, 2);
        tu_fill(c, (size_t)n3, 3);
        CHECK_MPI(MPI_Isend(a, n1, MPI_BYTE, R, 1, comm, &sr[0]));
        CHECK_MPI(MPI_Isend(b, n2, MPI_BYTE, R, 2, comm, &sr[1]));
        CHECK_MPI(MPI_Isend(c, n3, MPI_BYTE, R, 3, comm, &sr[2]));
        CHECK_MPI(MPI_Isend(NULL, n4, MPI_BYTE, R, 4, comm, &sr[3]));
    }
    if (rank == R) {
        /* Blocking probe twice: same message (tag 1) both times. */
        CHECK_MPI(MPI_Probe(S, MPI_ANY_TAG, comm, &st));
        check_status(&st, S, 1, n1);
        CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
        check_status(&st, S, 1, n1);
        /* Probe for a later tag specifically. */
        CHECK_MPI(MPI_Probe(S, 3, comm, &st));
        check_status(&st, S, 3, n3);
        /* Iprobe for tag 2 eventually true. */
        flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 2, comm, &flag, &st));
        check_status(&st, S, 2, n2);

        /* Mprobe tag 1: removed from matching; next wildcard probe sees 2. */
        MPI_Message m1 = MPI_MESSAGE_NULL, m2 = MPI_MESSAGE_NULL;
        CHECK_MPI(MPI_Mprobe(S, MPI_ANY_TAG, comm, &m1, &st));
        CHECK(m1 != MPI_MESSAGE_NULL && m1 != MPI_MESSAGE_NO_PROC);
        check_status(&st, S, 1, n1);
        CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
        check_status(&st, S, 2, n2);
        /* Improbe tag 2 (ANY_TAG). */
        flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &m2, &st));
        check_status(&st, S, 2, n2);
        /* A plain receive of ANY_TAG now gets tag 3, not the claimed ones. */
        memset(r, 0, (size_t)n3);
        CHECK_MPI(MPI_Recv(r, n3 + n1, MPI_BYTE, S, MPI_ANY_TAG, comm, &st));
        check_status(&st, S, 3, n3);
        CHECK_PATTERN(r, (size_t)n3, 3);
        /* Imrecv of message 2 and Mrecv of message 1, in that order. */
        MPI_Request rq;
        unsigned char *r2 = tu_malloc((size_t)n2 + 16);
        CHECK_MPI(MPI_Imrecv(r2, n2 + 16, MPI_BYTE, &m2, &rq));
        CHECK(m2 == MPI_MESSAGE_NULL);
        memset(r, 0, (size_t)n1);
        CHECK_MPI(MPI_Mrecv(r, n1, MPI_BYTE, &m1, &st));
        CHECK(m1 == MPI_MESSAGE_NULL);
        check_status(&st, S, 1, n1);
        CHECK_PATTERN(r, (size_t)n1, 1);
        CHECK_MPI(MPI_Wait(&rq, &st));
        check_status(&st, S, 2, n2);
        CHECK_PATTERN(r2, (size_t)n2, 2);
        free(r2);
        /* Zero-byte message via Mprobe/Mrecv with a NULL buffer. */
        CHECK_MPI(MPI_Mprobe(S, 4, comm, &m1, &st));
        check_status(&st, S, 4, 0);
        CHECK_MPI(MPI_Mrecv(NULL, 0, MPI_BYTE, &m1, &st));
        check_status(&st, S, 4, 0);
        /* Queue now empty. */
        flag = -1;
        CHECK_MPI(MPI_Iprobe(S, MPI_ANY_TAG, comm, &flag, &st));
        CHECK_EQ(flag, 0);
    }
    CHECK_MPI(MPI_Waitall(4, sr, MPI_STATUSES_IGNORE));
    free(a);
    free(b);
    free(c);
    free(r);
}

/* Everyone sends one message to root; root claims all with Mprobe(ANY)
 * first, then receives them in reverse order of claiming. */
static void fan_in(int root)
{
    if (rank != root) {
        int v[3] = {rank, rank * 2, rank * 3};
        CHECK_MPI(MPI_Send(v, 1 + rank % 3, MPI_INT, root, 10 + rank, comm));
    } else if (size > 1) {
        MPI_Message *ms = tu_malloc(sizeof(MPI_Message) * (size_t)size);
        int *src = tu_malloc(sizeof(int) * (size_t)size), *seen = calloc((size_t)size, sizeof(int));
        for (int k = 0; k < size - 1; k++) {
            MPI_Status st;
            int c = -1;
            CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &ms[k], &st));
            src[k] = st.MPI_SOURCE;
            CHECK(src[k] >= 0 && src[k] < size && src[k] != root);
            CHECKF(!seen[src[k]], "message from %d claimed twice", src[k]);
            seen[src[k]] = 1;
            CHECK_EQ(st.MPI_TAG, 10 + src[k]);
            CHECK_MPI(MPI_Get_count(&st, MPI_INT, &c));
            CHECK_EQ(c, 1 + src[k] % 3);
        }
        for (int k = size - 2; k >= 0; k--) {
            int v[3] = {-1, -1, -1};
            MPI_Status st;
            CHECK_MPI(MPI_Mrecv(v, 3, MPI_INT, &ms[k], &st));
            CHECK_EQ(st.MPI_SOURCE, src[k]);
            CHECK_EQ(v[0], src[k]);
            if (src[k] % 3 >= 1)
                CHECK_EQ(v[1], src[k] * 2);
            if (src[k] % 3 == 2)
                CHECK_EQ(v[2], src[k] * 3);
            if (src[k] % 3 == 0)
                CHECK_EQ(v[1], -1);
        }
        free(ms);
        free(src);
        free(seen);
    }
    CHECK_MPI(MPI_Barrier(comm));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ctl));

    proc_null();
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size)
        peer = rank;
    int lo = rank < peer ? rank : peer, hi = rank < peer ? peer : rank;
    for (int big = 0; big < 2; big++) {
        pair(lo, hi, big);
        if (lo != hi)
            pair(hi, lo, big);
        /* Keep later phases' wildcard-matchable traffic out of this one. */
        CHECK_MPI(MPI_Barrier(comm));
    }
    fan_in(0);
    fan_in(size - 1);

    CHECK_MPI(MPI_Comm_free(&comm));
    CHECK_MPI(MPI_Comm_free(&ctl));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
