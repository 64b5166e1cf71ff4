/* p2p_types: MPI_Get_count / MPI_Get_elements(_x) on full and partial
 * receives; the predefined pair types (MPI_FLOAT_INT ... MPI_LONG_DOUBLE_INT)
 * with padding left untouched, and MPI_Type_contiguous of them, at eager and
 * rendezvous sizes; truncation reported as MPI_ERR_TRUNCATE (Recv, Wait,
 * Waitall with MPI_ERR_IN_STATUS) with the sender unaffected and the pair
 * still usable afterwards. */
#include "testutil.h"

static int rank, size;

/* A pair type is defined (MPI-3.1 5.9.4) as a struct of two basic types, so
 * MPI_Get_elements counts 2 per pair.  Open MPI counts 1; only when this test
 * is built against Open MPI for cross-checking do we accept its answer. */
#ifdef OPEN_MPI
#define TU_PAIR_ELEMS 1
#else
#define TU_PAIR_ELEMS 2
#endif

#define PAIR_TYPES(X)                                \
    X(MPI_FLOAT_INT, float, v)                       \
    X(MPI_DOUBLE_INT, double, v)                     \
    X(MPI_LONG_INT, long, v)                         \
    X(MPI_2INT, int, v)                              \
    X(MPI_SHORT_INT, short, v)                       \
    X(MPI_LONG_DOUBLE_INT, long double, v)

/* Send n pairs from `from` to `to` with type dt (extent ext) built as
 * contiguous blocks of `blk` pairs; verify values, padding, counts. */
#define DEFINE_PAIR_TEST(DT, VT, V)                                                      \
    static void test_##DT(int from, int to, int n, int blk)                              \
    {                                                                                    \
        typedef struct { VT v; int i; } pair_t;                                          \
        MPI_Datatype t = DT;                                                             \
        int sz = -1;                                                                     \
        MPI_Aint lb = -1, ext = -1;                                                      \
        CHECK_MPI(MPI_Type_size(DT, &sz));                                               \
        CHECK_EQ(sz, (int)(sizeof(VT) + sizeof(int)));                                   \
        CHECK_MPI(MPI_Type_get_extent(DT, &lb, &ext));                                   \
        CHECK_EQ(lb, 0);                                                                 \
        CHECK_EQ(ext, (MPI_Aint)sizeof(pair_t));                                         \
        if (blk > 1) {                                                                   \
            CHECK_MPI(MPI_Type_contiguous(blk, DT, &t));                                 \
            CHECK_MPI(MPI_Type_commit(&t));                                              \
            CHECK_MPI(MPI_Type_size(t, &sz));                                            \
            CHECK_EQ(sz, blk * (int)(sizeof(VT) + sizeof(int)));                         \
            CHECK_MPI(MPI_Type_get_extent(t, &lb, &ext));                                \
            CHECK_EQ(ext, (MPI_Aint)(blk * sizeof(pair_t)));                             \
        }                                                                                \
        /* calloc: padding (a long double's 6 bytes) is defined, for memcheck */      \
        pair_t *b = calloc((size_t)n, sizeof(pair_t));                                   \
        CHECK(b != NULL);                                                                \
        MPI_Request sreq = MPI_REQUEST_NULL;                                             \
        if (rank == from) {                                                              \
            for (int k = 0; k < n; k++) {                                                \
                b[k].v = (VT)((k % 1000) + from);                                        \
                b[k].i = k * 3 + 1;                                                      \
            }                                                                            \
            CHECK_MPI(MPI_Isend(b, n / blk, t, to, 21, MPI_COMM_WORLD, &sreq));          \
        }                                                                                \
        if (rank == to) {                                                                \
            pair_t *r = tu_malloc(sizeof(pair_t) * (size_t)n + 64);                      \
            MPI_Status st;                                                               \
            int cnt = -1;                                                                \
            memset(r, 0xEE, sizeof(pair_t) * (size_t)n + 64);                            \
            /* Receive as single pairs, room for more than sent. */                      \
            CHECK_MPI(MPI_Recv(r, n + 2, DT, from, 21, MPI_COMM_WORLD, &st));            \
            CHECK_MPI(MPI_Get_count(&st, DT, &cnt));                                     \
            CHECK_EQ(cnt, n);                                                            \
            CHECK_MPI(MPI_Get_elements(&st, DT, &cnt));                                  \
            CHECK_EQ(cnt, TU_PAIR_ELEMS * n);                                            \
            MPI_Count ec = -1;                                                           \
            CHECK_MPI(MPI_Get_elements_x(&st, DT, &ec));                                 \
            CHECK_EQ(ec, TU_PAIR_ELEMS * (MPI_Count)n);                                  \
            if (blk > 1) {                                                               \
                CHECK_MPI(MPI_Get_count(&st, t, &cnt));                                  \
                CHECK_EQ(cnt, n / blk);                                                  \
            }                                                                            \
            for (int k = 0; k < n; k++) {                                                \
                CHECKF(r[k].v == (VT)((k % 1000) + from) && r[k].i == k * 3 + 1,         \
                       #DT " pair %d of %d wrong (i=%d)", k, n, r[k].i);                 \
                /* Bytes between the end of the int and the next pair. */                \
                size_t endi = offsetof(pair_t, i) + sizeof(int);                         \
                for (size_t q = endi; q < sizeof(pair_t); q++)                           \
                    CHECKF(((unsigned char *)&r[k])[q] == 0xEE,                          \
                           #DT " pair %d: padding byte %zu written", k, q);              \
            }                                                                            \
            CHECK(((unsigned char *)&r[n])[0] == 0xEE);                                  \
            free(r);                                                                     \
        }                                                                                \
        CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));                                   \
        if (blk > 1)                                                                     \
            CHECK_MPI(MPI_Type_free(&t));                                                \
        CHECK(blk == 1 || t == MPI_DATATYPE_NULL);                                       \
        free(b);                                                                         \
    }
PAIR_TYPES(DEFINE_PAIR_TEST)

static void pair_tests(int from, int to)
{
    static const int ns[][2] = {{1, 1}, {6, 3}, {1000, 1}, {120000, 4}};
    for (int k = 0; k < 4; k++) {
#define RUN(DT, VT, V) test_##DT(from, to, ns[k][0], ns[k][1]);
        PAIR_TYPES(RUN)
#undef RUN
    }
}

/* Partial receives: Get_count undefined, Get_elements counts basic items. */
static void partial(int from, int to)
{
    MPI_Datatype two;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &two));
    CHECK_MPI(MPI_Type_commit(&two));
    int s[3] = {7, 8, 9}, r[8] = {0};
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (rank == from) {
        CHECK_MPI(MPI_Isend(s, 3, MPI_INT, to, 31, MPI_COMM_WORLD, &req[0]));
        CHECK_MPI(MPI_Isend(s, 0, MPI_INT, to, 32, MPI_COMM_WORLD, &req[1]));
    }
    if (rank == to) {
        MPI_Status st;
        int cnt = -1;
        CHECK_MPI(MPI_Recv(r, 4, two, from, 31, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, two, &cnt));
        CHECK_EQ(cnt, MPI_UNDEFINED);
        CHECK_MPI(MPI_Get_elements(&st, two, &cnt));
        CHECK_EQ(cnt, 3);
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK_EQ(cnt, 3);
        CHECK(r[0] == 7 && r[1] == 8 && r[2] == 9 && r[3] == 0);
        CHECK_MPI(MPI_Recv(r, 4, two, from, 32, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, two, &cnt));
        CHECK_EQ(cnt, 0);
        CHECK_MPI(MPI_Get_elements(&st, two, &cnt));
        CHECK_EQ(cnt, 0);
    }
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Type_free(&two));
}

/* Truncation at eager and rendezvous sizes. */
static void truncation(int from, int to, MPI_Comm comm)
{
    /* 40 B, 16 KB (eager everywhere), 80 KB (segmented on tcp;ofi_rxm),
     * 1.2 MB (rendezvous) */
    static const int ns[] = {10, 4000, 20000, 300000};
    for (int k = 0; k < 4; k++) {
        int n = ns[k];
        int *s = tu_malloc(sizeof(int) * (size_t)n), *r = tu_malloc(sizeof(int) * (size_t)n);
        MPI_Request sr[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        for (int i = 0; i < n; i++)
            s[i] = i;
        if (rank == from) {
            CHECK_MPI(MPI_Isend(s, n, MPI_INT, to, 41, comm, &sr[0]));
            CHECK_MPI(MPI_Isend(s, n, MPI_INT, to, 42, comm, &sr[1]));
            CHECK_MPI(MPI_Isend(s, n, MPI_INT, to, 43, comm, &sr[2]));
        }
        if (rank == to) {
            MPI_Status st;
            MPI_Request rr;
            /* Blocking receive with one element too few. */
            CHECK_ERR(MPI_Recv(r, n - 1, MPI_INT, from, 41, comm, &st), MPI_ERR_TRUNCATE);
            /* Nonblocking receive, error delivered by Wait; wildcard source. */
            CHECK_MPI(MPI_Irecv(r, n / 2, MPI_INT, MPI_ANY_SOURCE, 42, comm, &rr));
            CHECK_ERR(MPI_Wait(&rr, &st), MPI_ERR_TRUNCATE);
            CHECK(rr == MPI_REQUEST_NULL);
            CHECK_EQ(st.MPI_SOURCE, from);
            CHECK_EQ(st.MPI_TAG, 42);
            /* In a Waitall with a good receive: MPI_ERR_IN_STATUS. */
            MPI_Request two[2];
            MPI_Status sts[2];
            int ok = -1;
            CHECK_MPI(MPI_Irecv(r, 0, MPI_INT, from, 43, comm, &two[0]));
            CHECK_MPI(MPI_Irecv(&ok, 1, MPI_INT, to, 44, comm, &two[1]));
            int one = 5;
            MPI_Request selfreq;
            CHECK_MPI(MPI_Isend(&one, 1, MPI_INT, to, 44, comm, &selfreq));
            sts[0].MPI_ERROR = sts[1].MPI_ERROR = -12345;
            CHECK_ERR(MPI_Waitall(2, two, sts), MPI_ERR_IN_STATUS);
            int c0 = -1;
            MPI_Error_class(sts[0].MPI_ERROR, &c0);
            CHECK_EQ(c0, MPI_ERR_TRUNCATE);
            CHECK_EQ(sts[1].MPI_ERROR, MPI_SUCCESS);
            CHECK_EQ(ok, 5);
            CHECK_MPI(MPI_Wait(&selfreq, MPI_STATUS_IGNORE));
        }
        /* Senders complete normally. */
        CHECK_MPI(MPI_Waitall(3, sr, MPI_STATUSES_IGNORE));
        /* The channel still works: a full-size message gets through intact. */
        MPI_Request fr = MPI_REQUEST_NULL;
        if (rank == from)
            CHECK_MPI(MPI_Isend(s, n, MPI_INT, to, 45, comm, &fr));
        if (rank == to) {
            memset(r, 0, sizeof(int) * (size_t)n);
            CHECK_MPI(MPI_Recv(r, n, MPI_INT, from, 45, comm, MPI_STATUS_IGNORE));
            for (int i = 0; i < n; i++)
                CHECKF(r[i] == i, "after truncation: r[%d] = %d", i, r[i]);
        }
        CHECK_MPI(MPI_Wait(&fr, MPI_STATUS_IGNORE));
        free(s);
        free(r);
    }
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));

    /* Pairs (0,1),(2,3)...; unpaired last rank sends to itself. */
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size)
        peer = rank;
    int lo = rank < peer ? rank : peer, hi = rank < peer ? peer : rank;

    pair_tests(lo, hi);
    if (lo != hi)
        pair_tests(hi, lo);
    partial(lo, hi);
    truncation(lo, hi, comm);
    if (lo != hi)
        truncation(hi, lo, comm);

    CHECK_MPI(MPI_Comm_free(&comm));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
