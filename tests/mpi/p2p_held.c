/* p2p_held: receives posted far beyond what a matching engine keeps ready
 * (the OFI engine holds user receives past FABMPI_OFI_POSTED_MAX in
 * software) must still match out of order, as MPI requires, and keep MPI's
 * ordering.  Rank 0 receives, rank 1 sends; with 3 ranks rank 2 is a
 * second sender in phases 3 and 4.
 *
 * 1. Rank 0 posts NPOST receives with distinct tags; rank 1 sends three
 *    messages nobody has posted for (tag TX, then an Issend with tag TY,
 *    then a large TX by Isend), Ssends to the last posted tag, then sends a
 *    third TX.  Rank 0 waits on the last receive first, then takes the TX
 *    messages with an ANY_SOURCE/ANY_TAG Recv, an Mprobe + Mrecv and a
 *    strided Recv (send order), then TY (completing the Issend); then the
 *    rest, in order.
 * 2. The same with a Send to the last tag followed by a wait for rank 0's
 *    reply; rank 0 finds it with Waitany.
 * 3. A receive already matching in the provider comes before later ones:
 *    rank 0 posts (1, ANY_TAG), NPOST fillers, (ANY_SOURCE, 42), (1, 42),
 *    (other, ANY_TAG); rank 1 sends three tag-42 messages, the other sender
 *    a tag-43 one: they land in exactly that order, waited on in reverse.
 * 4. Messages nobody waits for arrive while receives are held, then all
 *    receives complete: Iprobe, Recv and ANY_TAG Recv still see them in
 *    send order, and a later message with the same tag comes after them. */
#include "testutil.h"

#define NPOST 5000
#define BIGN 100000 /* ints: a large (rendezvous) message */
#define TX (NPOST + 100)
#define TY (NPOST + 200)
#define TR (NPOST + 300)

static int val(int phase, int i) { return phase * 1000000 + i * 7 + 1; }

static void post_all(int *buf, MPI_Request *req, int base)
{
    for (int i = 0; i < NPOST; i++) {
        buf[i] = -1;
        CHECK_MPI(MPI_Irecv(&buf[i], 1, MPI_INT, 1, base + i, MPI_COMM_WORLD, &req[i]));
    }
}

static void send_all(int phase, int base, int n)
{
    for (int i = 0; i < n; i++) {
        int v = val(phase, i);
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, base + i, MPI_COMM_WORLD));
    }
}

/* Wait for the first n receives, check payload and status. */
static void check_all(int phase, int *buf, MPI_Request *req, int base, int n)
{
    MPI_Status *st = tu_malloc((size_t)n * sizeof *st);
    CHECK_MPI(MPI_Waitall(n, req, st));
    for (int i = 0; i < n; i++) {
        CHECKF(buf[i] == val(phase, i), "phase %d receive %d got %d, expected %d", phase, i,
               buf[i], val(phase, i));
        CHECKF(st[i].MPI_SOURCE == 1 && st[i].MPI_TAG == base + i,
               "phase %d receive %d: status %d/%d", phase, i, st[i].MPI_SOURCE, st[i].MPI_TAG);
    }
    free(st);
}

static void check_status(const MPI_Status *st, int src, int tag, int count, MPI_Datatype dt,
                         const char *what)
{
    int n = -1;
    MPI_Get_count(st, dt, &n);
    CHECKF(st->MPI_SOURCE == src && st->MPI_TAG == tag && n == count,
           "%s: source %d tag %d count %d, expected %d/%d/%d", what, st->MPI_SOURCE, st->MPI_TAG,
           n, src, tag, count);
}

static void phase1(int rank, int *buf, MPI_Request *req)
{
    MPI_Status st;
    int *big = tu_malloc((size_t)BIGN * sizeof(int));
    if (rank == 0) {
        post_all(buf, req, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        /* The last receive first: its message is the only one Ssent. */
        CHECK_MPI(MPI_Wait(&req[NPOST - 1], &st));
        CHECK_EQ(buf[NPOST - 1], 777);
        check_status(&st, 1, NPOST - 1, 1, MPI_INT, "last receive");
        /* a: the earliest message not matched yet, for any receive. */
        int a[4] = {-1, -1, -1, -1};
        CHECK_MPI(MPI_Probe(1, TX, MPI_COMM_WORLD, &st));
        check_status(&st, 1, TX, 1, MPI_INT, "probe of a");
        CHECK_MPI(MPI_Recv(a, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        check_status(&st, 1, TX, 1, MPI_INT, "a");
        CHECK_EQ(a[0], 101);
        /* b: large, by Mprobe + Mrecv. */
        MPI_Message m;
        CHECK_MPI(MPI_Mprobe(1, TX, MPI_COMM_WORLD, &m, &st));
        check_status(&st, 1, TX, BIGN, MPI_INT, "mprobe of b");
        memset(big, 0, (size_t)BIGN * sizeof(int));
        CHECK_MPI(MPI_Mrecv(big, BIGN, MPI_INT, &m, &st));
        check_status(&st, 1, TX, BIGN, MPI_INT, "b");
        CHECK_PATTERN(big, (size_t)BIGN * sizeof(int), 102);
        /* c: three ints into every other int. */
        MPI_Datatype vec;
        CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
        CHECK_MPI(MPI_Type_commit(&vec));
        int c[6] = {-1, -1, -1, -1, -1, -1};
        CHECK_MPI(MPI_Recv(c, 1, vec, 1, TX, MPI_COMM_WORLD, &st));
        check_status(&st, 1, TX, 3, MPI_INT, "c");
        CHECKF(c[0] == 103 && c[2] == 104 && c[4] == 105 && c[1] == -1 && c[3] == -1 &&
                   c[5] == -1,
               "c: %d %d %d %d %d %d", c[0], c[1], c[2], c[3], c[4], c[5]);
        MPI_Type_free(&vec);
        /* d: the Issend's message; rank 1 waits for it before going on. */
        int d[2] = {-1, -1};
        CHECK_MPI(MPI_Recv(d, 2, MPI_INT, 1, TY, MPI_COMM_WORLD, &st));
        check_status(&st, 1, TY, 2, MPI_INT, "d");
        CHECK(d[0] == 106 && d[1] == 107);
        check_all(1, buf, req, 0, NPOST - 1);
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        int d[2] = {106, 107}, a = 101, last = 777, c[3] = {103, 104, 105};
        MPI_Request sr[2];
        CHECK_MPI(MPI_Send(&a, 1, MPI_INT, 0, TX, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Issend(d, 2, MPI_INT, 0, TY, MPI_COMM_WORLD, &sr[0]));
        tu_fill(big, (size_t)BIGN * sizeof(int), 102);
        CHECK_MPI(MPI_Isend(big, BIGN, MPI_INT, 0, TX, MPI_COMM_WORLD, &sr[1]));
        CHECK_MPI(MPI_Ssend(&last, 1, MPI_INT, 0, NPOST - 1, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(c, 3, MPI_INT, 0, TX, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));
        send_all(1, 0, NPOST - 1);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(big);
}

static void phase2(int rank, int *buf, MPI_Request *req)
{
    MPI_Status st;
    if (rank == 0) {
        post_all(buf, req, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        int idx = -1;
        CHECK_MPI(MPI_Waitany(NPOST, req, &idx, &st));
        CHECK_EQ(idx, NPOST - 1);
        CHECK_EQ(buf[NPOST - 1], 888);
        check_status(&st, 1, NPOST - 1, 1, MPI_INT, "waitany");
        int reply = 999;
        CHECK_MPI(MPI_Send(&reply, 1, MPI_INT, 1, TR, MPI_COMM_WORLD));
        check_all(2, buf, req, 0, NPOST - 1);
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        int last = 888, reply = -1;
        CHECK_MPI(MPI_Send(&last, 1, MPI_INT, 0, NPOST - 1, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Recv(&reply, 1, MPI_INT, 0, TR, MPI_COMM_WORLD, &st));
        CHECK_EQ(reply, 999);
        send_all(2, 0, NPOST - 1);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static void phase3(int rank, int size, int *buf, MPI_Request *req)
{
    int other = size > 2 ? 2 : 1;
    MPI_Status st;
    if (rank == 0) {
        int p0 = -1, h1 = -1, h2 = -1, h3 = -1;
        MPI_Request rp0, rh[3];
        CHECK_MPI(MPI_Irecv(&p0, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &rp0));
        post_all(buf, req, 1000);
        CHECK_MPI(MPI_Irecv(&h1, 1, MPI_INT, MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &rh[0]));
        CHECK_MPI(MPI_Irecv(&h2, 1, MPI_INT, 1, 42, MPI_COMM_WORLD, &rh[1]));
        CHECK_MPI(MPI_Irecv(&h3, 1, MPI_INT, other, MPI_ANY_TAG, MPI_COMM_WORLD, &rh[2]));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MPI(MPI_Wait(&rh[2], &st));
        check_status(&st, other, 43, 1, MPI_INT, "(other, ANY_TAG)");
        CHECK_EQ(h3, 304);
        CHECK_MPI(MPI_Wait(&rh[1], &st));
        check_status(&st, 1, 42, 1, MPI_INT, "(1, 42)");
        CHECK_EQ(h2, 303);
        CHECK_MPI(MPI_Wait(&rh[0], &st));
        check_status(&st, 1, 42, 1, MPI_INT, "(ANY_SOURCE, 42)");
        CHECK_EQ(h1, 302);
        CHECK_MPI(MPI_Wait(&rp0, &st));
        check_status(&st, 1, 42, 1, MPI_INT, "(1, ANY_TAG) posted first");
        CHECK_EQ(p0, 301);
        MPI_Barrier(MPI_COMM_WORLD);
        check_all(3, buf, req, 1000, NPOST);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            for (int v = 301; v <= 303; v++)
                CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 42, MPI_COMM_WORLD));
        if (rank == other) {
            int w = 304;
            CHECK_MPI(MPI_Send(&w, 1, MPI_INT, 0, 43, MPI_COMM_WORLD));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            send_all(3, 1000, NPOST);
    }
}

static void phase4(int rank, int size, int *buf, MPI_Request *req)
{
    MPI_Status st;
    if (rank == 0) {
        post_all(buf, req, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        check_all(4, buf, req, 0, NPOST);
        int flag = 0, x[3] = {-1, -1, -1};
        while (!flag)
            CHECK_MPI(MPI_Iprobe(1, TX, MPI_COMM_WORLD, &flag, &st));
        check_status(&st, 1, TX, 1, MPI_INT, "iprobe of a");
        CHECK_MPI(MPI_Recv(x, 3, MPI_INT, 1, TX, MPI_COMM_WORLD, &st));
        check_status(&st, 1, TX, 1, MPI_INT, "a");
        CHECK_EQ(x[0], 201);
        CHECK_MPI(MPI_Recv(x, 3, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        check_status(&st, 1, TX, 2, MPI_INT, "b");
        CHECK(x[0] == 202 && x[1] == 203);
        CHECK_MPI(MPI_Recv(x, 3, MPI_INT, 1, TX, MPI_COMM_WORLD, &st));
        check_status(&st, 1, TX, 3, MPI_INT, "c");
        CHECK(x[0] == 204 && x[1] == 205 && x[2] == 206);
        if (size > 2) {
            CHECK_MPI(MPI_Recv(x, 3, MPI_INT, MPI_ANY_SOURCE, TX, MPI_COMM_WORLD, &st));
            check_status(&st, 2, TX, 1, MPI_INT, "from rank 2");
            CHECK_EQ(x[0], 207);
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            int a = 201, b[2] = {202, 203}, c[3] = {204, 205, 206};
            CHECK_MPI(MPI_Send(&a, 1, MPI_INT, 0, TX, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Send(b, 2, MPI_INT, 0, TX, MPI_COMM_WORLD));
            send_all(4, 0, NPOST);
            CHECK_MPI(MPI_Send(c, 3, MPI_INT, 0, TX, MPI_COMM_WORLD));
        } else if (rank == 2) {
            int e = 207;
            CHECK_MPI(MPI_Send(&e, 1, MPI_INT, 0, TX, MPI_COMM_WORLD));
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);
    int *buf = tu_malloc(NPOST * sizeof *buf);
    MPI_Request *req = tu_malloc(NPOST * sizeof *req);
    phase1(rank, buf, req);
    MPI_Barrier(MPI_COMM_WORLD);
    phase2(rank, buf, req);
    MPI_Barrier(MPI_COMM_WORLD);
    phase3(rank, size, buf, req);
    MPI_Barrier(MPI_COMM_WORLD);
    phase4(rank, size, buf, req);
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    free(req);
    if (rank == 0)
        printf("p2p_held: ok\n");
    CHECK_MPI(MPI_Finalize());
    return 0;
}
