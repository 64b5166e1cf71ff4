/* p2p_order: non-overtaking between a pair (mixed eager/rendezvous sizes,
 * mixed tags, received with specific and wildcard tags/sources), ANY_SOURCE
 * fan-in with exact statuses, the earliest-posted rule for posted receives
 * and arrival order for unexpected messages, and an all-to-all with 1000
 * outstanding Isends per peer (unexpected and pre-posted). */
#include "testutil.h"

static int rank, size;

static size_t msg_len(int i)
{
    if (i % 97 == 13)
        return 200000; /* rendezvous-sized */
    if (i % 31 == 5)
        return 20000;
    if (i % 23 == 7) /* at the OFI eager limits (8 KiB, or 16 KiB when raised) */
        return i % 2 ? 16384 : 8192;
    return 8 + (size_t)(i % 5) * 12;
}

static void fill_msg(unsigned char *b, size_t n, int src, int i)
{
    int hdr[2] = {src, i};
    memcpy(b, hdr, sizeof hdr);
    tu_fill(b + 8, n - 8, (unsigned)(src * 7 + i));
}

static void check_msg(const unsigned char *b, size_t n, int src, int i, const char *what)
{
    int hdr[2];
    memcpy(hdr, b, sizeof hdr);
    CHECKF(hdr[0] == src && hdr[1] == i, "%s: got message (%d,#%d), expected (%d,#%d)", what,
           hdr[0], hdr[1], src, i);
    long bad = tu_verify(b + 8, n - 8, (unsigned)(src * 7 + i));
    CHECKF(bad < 0, "%s: message #%d payload differs at %ld", what, i, bad);
}

/* Ring: everyone streams N messages to the right neighbour, receives N from
 * the left with the given source/tag selection. */
static void stream(int N, int use_any_source, int use_any_tag, int prepost_half)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    unsigned char **sb = tu_malloc(sizeof(*sb) * (size_t)N);
    MPI_Request *sr = tu_malloc(sizeof(*sr) * (size_t)N);
    unsigned char *rb = tu_malloc(200000);
    MPI_Request *pr = tu_malloc(sizeof(*pr) * (size_t)N);
    unsigned char **pb = tu_malloc(sizeof(*pb) * (size_t)N);
    int npre = prepost_half ? N / 2 : 0;
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));

    /* Pre-post receives for the first half (expected path). */
    for (int i = 0; i < npre; i++) {
        pb[i] = tu_malloc(msg_len(i));
        CHECK_MPI(MPI_Irecv(pb[i], (int)msg_len(i), MPI_BYTE,
                            use_any_source ? MPI_ANY_SOURCE : left,
                            use_any_tag ? MPI_ANY_TAG : i % 7, comm, &pr[i]));
    }
    CHECK_MPI(MPI_Barrier(comm));
    for (int i = 0; i < N; i++) {
        size_t n = msg_len(i);
        sb[i] = tu_malloc(n);
        fill_msg(sb[i], n, rank, i);
        CHECK_MPI(MPI_Isend(sb[i], (int)n, MPI_BYTE, right, i % 7, comm, &sr[i]));
    }
    for (int i = 0; i < npre; i++) {
        MPI_Status st;
        int cnt;
        CHECK_MPI(MPI_Wait(&pr[i], &st));
        CHECK_EQ(st.MPI_SOURCE, left);
        CHECK_EQ(st.MPI_TAG, i % 7);
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &cnt));
        CHECK_EQ(cnt, (int)msg_len(i));
        check_msg(pb[i], msg_len(i), left, i, "pre-posted");
        free(pb[i]);
    }
    for (int i = npre; i < N; i++) {
        MPI_Status st;
        int cnt;
        CHECK_MPI(MPI_Recv(rb, 200000, MPI_BYTE, use_any_source ? MPI_ANY_SOURCE : left,
                           use_any_tag ? MPI_ANY_TAG : i % 7, comm, &st));
        CHECK_EQ(st.MPI_SOURCE, left);
        CHECK_EQ(st.MPI_TAG, i % 7);
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &cnt));
        CHECK_EQ(cnt, (int)msg_len(i));
        check_msg(rb, msg_len(i), left, i, "stream");
    }
    CHECK_MPI(MPI_Waitall(N, sr, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++) {
        CHECK(sr[i] == MPI_REQUEST_NULL);
        free(sb[i]);
    }
    CHECK_MPI(MPI_Comm_free(&comm));
    free(sb);
    free(sr);
    free(rb);
    free(pr);
    free(pb);
}

/* Everyone sends K tagged messages to root; root receives with wildcards. */
static void fan_in(int root, int K)
{
    if (rank != root) {
        for (int i = 0; i < K; i++) {
            int p[2] = {rank, i};
            CHECK_MPI(MPI_Send(p, 2, MPI_INT, root, rank * 100 + i, MPI_COMM_WORLD));
        }
        return;
    }
    int *next = calloc((size_t)size, sizeof(int));
    for (int m = 0; m < (size - 1) * K; m++) {
        int p[3] = {-1, -1, -1}, cnt = -1;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(p, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK_EQ(cnt, 2);
        CHECK(p[0] >= 0 && p[0] < size && p[0] != root);
        CHECK_EQ(st.MPI_SOURCE, p[0]);
        CHECK_EQ(st.MPI_TAG, p[0] * 100 + p[1]);
        CHECKF(p[1] == next[p[0]], "from %d got #%d, expected #%d (overtaken)", p[0], p[1],
               next[p[0]]);
        CHECK_EQ(p[2], -1);
        next[p[0]]++;
    }
    free(next);
}

/* Earliest-posted rule: from `from` to `to` (may be equal). */
static void earliest_posted(int from, int to)
{
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    if (rank == to) {
        MPI_Request r[6];
        int v[6];
        MPI_Status st[6];
        for (int i = 0; i < 6; i++)
            v[i] = -1;
        CHECK_MPI(MPI_Irecv(&v[0], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &r[0]));
        CHECK_MPI(MPI_Irecv(&v[1], 1, MPI_INT, from, 5, comm, &r[1]));
        CHECK_MPI(MPI_Irecv(&v[2], 1, MPI_INT, MPI_ANY_SOURCE, 5, comm, &r[2]));
        CHECK_MPI(MPI_Irecv(&v[3], 1, MPI_INT, from, MPI_ANY_TAG, comm, &r[3]));
        /* r[4] wants tag 6 only; r[5] anything. A tag-7 message must skip
         * r[4] and go to r[5]; the later tag-6 message then goes to r[4]. */
        CHECK_MPI(MPI_Irecv(&v[4], 1, MPI_INT, from, 6, comm, &r[4]));
        CHECK_MPI(MPI_Irecv(&v[5], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &r[5]));
        if (from != to)
            CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, from, 99, comm));
        else {
            MPI_Request s[6];
            int x[6] = {1, 2, 3, 4, 50, 60};
            int tags[6] = {5, 5, 5, 5, 7, 6};
            for (int i = 0; i < 6; i++)
                CHECK_MPI(MPI_Isend(&x[i], 1, MPI_INT, to, tags[i], comm, &s[i]));
            CHECK_MPI(MPI_Waitall(6, s, MPI_STATUSES_IGNORE));
        }
        CHECK_MPI(MPI_Waitall(6, r, st));
        CHECK_EQ(v[0], 1);
        CHECK_EQ(v[1], 2);
        CHECK_EQ(v[2], 3);
        CHECK_EQ(v[3], 4);
        CHECK_EQ(v[4], 60);
        CHECK_EQ(v[5], 50);
        CHECK_EQ(st[5].MPI_TAG, 7);
        CHECK_EQ(st[4].MPI_TAG, 6);
        CHECK_EQ(st[0].MPI_TAG, 5);
        for (int i = 0; i < 6; i++)
            CHECK_EQ(st[i].MPI_SOURCE, from);
    } else if (rank == from) {
        int x[6] = {1, 2, 3, 4, 50, 60};
        int tags[6] = {5, 5, 5, 5, 7, 6};
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, to, 99, comm, MPI_STATUS_IGNORE));
        for (int i = 0; i < 6; i++)
            CHECK_MPI(MPI_Send(&x[i], 1, MPI_INT, to, tags[i], comm));
    }

    /* Unexpected queue: messages are matched in arrival (send) order. */
    int a = 11, b = 22, c = 33, d = 44;
    MPI_Request s[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (rank == from) {
        CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, to, 1, comm, &s[0]));
        CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, to, 2, comm, &s[1]));
        CHECK_MPI(MPI_Isend(&c, 1, MPI_INT, to, 1, comm, &s[2]));
        if (from != to)
            CHECK_MPI(MPI_Ssend(&d, 1, MPI_INT, to, 9, comm)); /* fence */
        else
            CHECK_MPI(MPI_Isend(&d, 1, MPI_INT, to, 9, comm, &s[3]));
    }
    if (rank == to) {
        int v = 0;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, from, 9, comm, &st));
        CHECK_EQ(v, 44);
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, from, 2, comm, &st));
        CHECK_EQ(v, 22);
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
        CHECK_EQ(v, 11);
        CHECK_EQ(st.MPI_TAG, 1);
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, comm, &st));
        CHECK_EQ(v, 33);
        CHECK_EQ(st.MPI_SOURCE, from);
    }
    CHECK_MPI(MPI_Waitall(4, s, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* M messages from every rank to every other rank, all outstanding. */
static void alltoall_many(int M, int prepost)
{
    int npeer = size - 1;
    if (npeer == 0)
        return;
    size_t tot = (size_t)npeer * (size_t)M;
    int *sbuf = tu_malloc(tot * 3 * sizeof(int));
    int *rbuf = tu_malloc(tot * 3 * sizeof(int));
    MPI_Request *sr = tu_malloc(tot * sizeof(MPI_Request));
    MPI_Request *rr = tu_malloc(tot * sizeof(MPI_Request));
    for (size_t k = 0; k < tot * 3; k++)
        rbuf[k] = -1;
    /* Slot layout: peer index p (0..npeer-1) major, message m minor. */
    if (prepost) {
        for (int m = 0; m < M; m++)
            for (int p = 0; p < npeer; p++) {
                int src = (rank + 1 + p) % size;
                size_t k = (size_t)p * M + m;
                CHECK_MPI(MPI_Irecv(&rbuf[k * 3], 3, MPI_INT, src, m % 3, MPI_COMM_WORLD, &rr[k]));
            }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    for (int m = 0; m < M; m++)
        for (int p = 0; p < npeer; p++) {
            int dst = (rank + 1 + p) % size;
            size_t k = (size_t)p * M + m;
            sbuf[k * 3] = rank;
            sbuf[k * 3 + 1] = m;
            sbuf[k * 3 + 2] = dst;
            CHECK_MPI(MPI_Isend(&sbuf[k * 3], 3, MPI_INT, dst, m % 3, MPI_COMM_WORLD, &sr[k]));
        }
    if (!prepost) {
        /* Receive with source-major order interleaved: m-th of each peer. */
        for (int m = 0; m < M; m++)
            for (int p = npeer - 1; p >= 0; p--) {
                int src = (rank + 1 + p) % size;
                size_t k = (size_t)p * M + m;
                CHECK_MPI(MPI_Recv(&rbuf[k * 3], 3, MPI_INT, src, MPI_ANY_TAG, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
            }
    } else {
        CHECK_MPI(MPI_Waitall((int)tot, rr, MPI_STATUSES_IGNORE));
    }
    CHECK_MPI(MPI_Waitall((int)tot, sr, MPI_STATUSES_IGNORE));
    for (int p = 0; p < npeer; p++) {
        int src = (rank + 1 + p) % size;
        for (int m = 0; m < M; m++) {
            size_t k = (size_t)p * M + m;
            CHECKF(rbuf[k * 3] == src && rbuf[k * 3 + 1] == m && rbuf[k * 3 + 2] == rank,
                   "all-to-all slot from %d #%d holds (%d,%d,%d)", src, m, rbuf[k * 3],
                   rbuf[k * 3 + 1], rbuf[k * 3 + 2]);
        }
    }
    free(sbuf);
    free(rbuf);
    free(sr);
    free(rr);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

    stream(1000, 0, 0, 0);
    stream(1000, 0, 1, 1);
    stream(600, 1, 1, 1);
    stream(600, 1, 0, 0);

    fan_in(0, 50);
    fan_in(size - 1, 50);

    earliest_posted(0, size - 1);
    earliest_posted(rank, rank); /* self, on every rank at once */
    if (size > 2)
        earliest_posted(size - 1, 1);

    alltoall_many(1000, 0);
    alltoall_many(1000, 1);

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
