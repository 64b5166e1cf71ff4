/* p2p_many: many operations in flight at once.
 *
 * 1. Every rank exchanges 8 rendezvous messages with each neighbour in both
 *    directions at once (Isend before Irecv, so both sides' data waits for
 *    the other's pull), one of them from the same buffer under two tags,
 *    received in the reverse tag order.
 * 2. A rendezvous message into a smaller receive: MPI_ERR_TRUNCATE, the
 *    prefix delivered, the tail untouched.
 * 3. A rendezvous message into a strided (non-contiguous) receive.
 * 4. Rank 1 posts NPOST receives (named source and tag, ANY_TAG and
 *    ANY_SOURCE ones interleaved) before rank 0 sends; every message must
 *    land in the earliest posted receive it matches (MPI ordering), which
 *    the test knows exactly. */
#include "testutil.h"

#define BIG (256 * 1024 + 13)
#define NBIG 8
#define NPOST 5000

static unsigned char pat(unsigned seed, size_t i) { return (unsigned char)(seed * 131 + i * 7 + (i >> 9)); }

static void fill(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pat(seed, i);
}

static long bad_at(const unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pat(seed, i))
            return (long)i;
    return -1;
}

static void exchange(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *s = malloc((size_t)NBIG * BIG), *r = malloc((size_t)NBIG * BIG * 2);
    CHECK(s && r);
    MPI_Request req[4 * NBIG + 2];
    int n = 0;
    for (int i = 0; i < NBIG; i++)
        fill(s + (size_t)i * BIG, BIG, (unsigned)(rank * 100 + i));
    /* Send to both neighbours, then receive from both. */
    for (int i = 0; i < NBIG; i++) {
        CHECK_MPI(MPI_Isend(s + (size_t)i * BIG, BIG, MPI_BYTE, right, i, MPI_COMM_WORLD, &req[n++]));
        if (size > 2)
            CHECK_MPI(MPI_Isend(s + (size_t)i * BIG, BIG, MPI_BYTE, left, 100 + i, MPI_COMM_WORLD,
                                &req[n++]));
    }
    /* The same buffer again, tag 50, to the right; received before tag 0..7. */
    CHECK_MPI(MPI_Isend(s, BIG, MPI_BYTE, right, 50, MPI_COMM_WORLD, &req[n++]));
    unsigned char *again = malloc(BIG);
    CHECK(again);
    MPI_Status st;
    CHECK_MPI(MPI_Recv(again, BIG, MPI_BYTE, left, 50, MPI_COMM_WORLD, &st));
    CHECK_EQ(bad_at(again, BIG, (unsigned)(left * 100)), -1);
    for (int i = NBIG - 1; i >= 0; i--) {
        CHECK_MPI(MPI_Irecv(r + (size_t)i * BIG, BIG, MPI_BYTE, left, i, MPI_COMM_WORLD, &req[n++]));
        if (size > 2)
            CHECK_MPI(MPI_Irecv(r + (size_t)(NBIG + i) * BIG, BIG, MPI_BYTE, right, 100 + i,
                                MPI_COMM_WORLD, &req[n++]));
    }
    CHECK_MPI(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NBIG; i++) {
        long b = bad_at(r + (size_t)i * BIG, BIG, (unsigned)(left * 100 + i));
        CHECKF(b < 0, "from left, message %d: wrong byte at %ld", i, b);
        if (size > 2) {
            b = bad_at(r + (size_t)(NBIG + i) * BIG, BIG, (unsigned)(right * 100 + i));
            CHECKF(b < 0, "from right, message %d: wrong byte at %ld", i, b);
        }
    }
    free(again);
    free(s);
    free(r);
}

static void truncated_and_strided(int rank)
{
    MPI_Status st;
    int cnt;
    if (rank == 0) {
        unsigned char *s = malloc(BIG);
        CHECK(s);
        fill(s, BIG, 7);
        CHECK_MPI(MPI_Send(s, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(s, BIG / 2 * 2, MPI_BYTE, 1, 2, MPI_COMM_WORLD));
        free(s);
    } else if (rank == 1) {
        size_t cap = BIG / 3;
        unsigned char *r = malloc(cap + 64);
        CHECK(r);
        memset(r, 0xEE, cap + 64);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Recv(r, (int)cap, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK_EQ(cls, MPI_ERR_TRUNCATE);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        CHECK_EQ(bad_at(r, cap, 7), -1);
        for (size_t i = cap; i < cap + 64; i++)
            CHECKF(r[i] == 0xEE, "byte %zu past a truncated receive was written", i);
        free(r);
        /* Every other byte of a 2x buffer. */
        int half = BIG / 2;
        MPI_Datatype vec;
        CHECK_MPI(MPI_Type_vector(half * 2, 1, 2, MPI_BYTE, &vec));
        CHECK_MPI(MPI_Type_commit(&vec));
        unsigned char *v = malloc((size_t)half * 4);
        CHECK(v);
        memset(v, 0xEE, (size_t)half * 4);
        CHECK_MPI(MPI_Recv(v, 1, vec, 0, 2, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &cnt));
        CHECK_EQ(cnt, half * 2);
        for (size_t i = 0; i < (size_t)half * 2; i++) {
            CHECKF(v[2 * i] == pat(7, i), "strided byte %zu", i);
            CHECKF(v[2 * i + 1] == 0xEE, "gap byte %zu written", i);
        }
        MPI_Type_free(&vec);
        free(v);
    }
}

/* Receive i of rank 1: kind 0 = (0, tag i), 1 = ANY_TAG from 0,
 * 2 = ANY_SOURCE with tag i; the sender sends tags 0..NPOST-1 in order.
 * A named receive for tag i matches message i unless an earlier wildcard
 * took it; wildcards take the earliest message not yet taken.  Since the
 * messages arrive in tag order and every receive is posted first, receive
 * i gets message i exactly. */
static int kind_of(int i) { return i % 7 == 3 ? 1 : i % 11 == 5 ? 2 : 0; }

static void many_posted(int rank)
{
    int *buf = malloc(NPOST * sizeof *buf);
    MPI_Request *req = malloc(NPOST * sizeof *req);
    MPI_Status *st = malloc(NPOST * sizeof *st);
    CHECK(buf && req && st);
    if (rank == 1) {
        for (int i = 0; i < NPOST; i++) {
            buf[i] = -1;
            int k = kind_of(i);
            CHECK_MPI(MPI_Irecv(&buf[i], 1, MPI_INT, k == 2 ? MPI_ANY_SOURCE : 0,
                                k == 1 ? MPI_ANY_TAG : i, MPI_COMM_WORLD, &req[i]));
        }
        CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, 0, 77777, MPI_COMM_WORLD)); /* all posted */
        CHECK_MPI(MPI_Waitall(NPOST, req, st));
        for (int i = 0; i < NPOST; i++) {
            CHECKF(buf[i] == i * 3 + 1, "receive %d (kind %d) got %d, expected %d", i, kind_of(i),
                   buf[i], i * 3 + 1);
            CHECKF(st[i].MPI_TAG == i && st[i].MPI_SOURCE == 0, "receive %d: status %d/%d", i,
                   st[i].MPI_SOURCE, st[i].MPI_TAG);
        }
    } else if (rank == 0) {
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, 1, 77777, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < NPOST; i++) {
            buf[i] = i * 3 + 1;
            CHECK_MPI(MPI_Isend(&buf[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &req[i]));
        }
        CHECK_MPI(MPI_Waitall(NPOST, req, MPI_STATUSES_IGNORE));
    }
    free(buf);
    free(req);
    free(st);
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);
    exchange(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    truncated_and_strided(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    many_posted(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_many: ok\n");
    CHECK_MPI(MPI_Finalize());
    return 0;
}
