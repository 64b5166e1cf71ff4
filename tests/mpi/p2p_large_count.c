/* p2p_large_count: the MPI-4.0 large-count point-to-point calls
 * (MPI_Send_c & co.).  Every send mode, blocking, nonblocking and
 * persistent, every receive form (Recv_c, Irecv_c, Mrecv_c, Imrecv_c,
 * Recv_init_c), Sendrecv(_replace)_c and Isendrecv(_replace)_c carry exact
 * payloads around a ring, eager and rendezvous sized, contiguous and
 * strided, and MPI_Get_count_c / MPI_Get_elements_c read their statuses.
 *
 * Counts beyond INT_MAX: a message of that many elements needs over 2 GB
 * on both sides (minutes here, just to touch the pages), so the count
 * itself is carried with a datatype of no bytes (every send and receive
 * form takes it, and a count above INT_MAX is what reaches the engine), and
 * statuses holding more than INT_MAX elements are made with
 * MPI_Status_set_elements_x.  Errors name the _c call and the value. */
#include <limits.h>
#include <sys/mman.h>

#include "testutil.h"

static int rank, size, right, left;
static const MPI_Count BIG = (MPI_Count)INT_MAX + 12345;

/* The error string of code must name the call and contain `what`. */
static void check_message(int code, const char *call, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(code, s, &len);
    CHECKF(strstr(s, call) && strstr(s, what), "error string \"%s\" lacks \"%s\" or \"%s\"", s,
           call, what);
}

static void check_status(const MPI_Status *st, MPI_Datatype dt, MPI_Count count,
                         MPI_Count elements, int src)
{
    MPI_Count n;
    CHECK_MPI(MPI_Get_count_c(st, dt, &n));
    CHECK_EQ(n, count);
    CHECK_MPI(MPI_Get_elements_c(st, dt, &n));
    CHECK_EQ(n, elements);
    CHECK_EQ(st->MPI_SOURCE, src);
}

/* Every send mode to the right, a receive form from the left, for a
 * contiguous byte message of n bytes (seed picks the pattern). */
enum { RECV, IRECV, MRECV, IMRECV };

static void recv_form(int form, void *buf, MPI_Count n, MPI_Datatype dt, int tag, MPI_Status *st)
{
    MPI_Request rq;
    MPI_Message msg;
    int flag = 0;
    switch (form) {
    case RECV: CHECK_MPI(MPI_Recv_c(buf, n, dt, left, tag, MPI_COMM_WORLD, st)); break;
    case IRECV:
        CHECK_MPI(MPI_Irecv_c(buf, n, dt, left, tag, MPI_COMM_WORLD, &rq));
        CHECK_MPI(MPI_Wait(&rq, st));
        break;
    case MRECV:
        CHECK_MPI(MPI_Mprobe(left, tag, MPI_COMM_WORLD, &msg, st));
        CHECK_MPI(MPI_Mrecv_c(buf, n, dt, &msg, st));
        break;
    default:
        while (!flag)
            CHECK_MPI(MPI_Improbe(left, tag, MPI_COMM_WORLD, &flag, &msg, st));
        CHECK_MPI(MPI_Imrecv_c(buf, n, dt, &msg, &rq));
        CHECK_MPI(MPI_Wait(&rq, st));
        break;
    }
}

static void ring_modes(MPI_Count n)
{
    unsigned char *sbuf = tu_malloc((size_t)n), *rbuf = tu_malloc((size_t)n);
    /* Room for two buffered messages: the space of one is taken back only
     * once its send completed, which may be after the next one starts. */
    int bsize = 2 * ((int)n + MPI_BSEND_OVERHEAD);
    void *attach = tu_malloc((size_t)bsize), *got;
    MPI_Count gotsize;
    CHECK_MPI(MPI_Buffer_attach_c(attach, bsize));
    for (int mode = 0; mode < 8; mode++) {
        /* The receive form of the modes that do not post theirs early. */
        int form = mode == 0 ? RECV : mode == 1 ? IRECV : mode == 3 ? MRECV : IMRECV;
        int tag = 100 + mode;
        unsigned seed = (unsigned)(mode * 31 + rank);
        tu_fill(sbuf, (size_t)n, seed);
        memset(rbuf, 0, (size_t)n);
        MPI_Request sr = MPI_REQUEST_NULL, pre = MPI_REQUEST_NULL;
        MPI_Status st;
        /* Ready sends need the receive posted first: post it, then agree. */
        if (mode == 2 || mode == 6) {
            CHECK_MPI(MPI_Irecv_c(rbuf, n, MPI_BYTE, left, tag, MPI_COMM_WORLD, &pre));
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        }
        switch (mode) {
        case 0: CHECK_MPI(MPI_Isend_c(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &sr)); break;
        case 1: CHECK_MPI(MPI_Issend_c(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &sr)); break;
        case 2: CHECK_MPI(MPI_Irsend_c(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &sr)); break;
        case 3: CHECK_MPI(MPI_Ibsend_c(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &sr)); break;
        case 7: CHECK_MPI(MPI_Bsend_c(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD)); break;
        default: break; /* 4..6: blocking sends, after the receive below is posted */
        }
        if (mode >= 4 && mode <= 6) {
            /* A blocking send to the right while the left one waits for
             * us: post the receive first (nonblocking) so the ring moves. */
            if (pre == MPI_REQUEST_NULL)
                CHECK_MPI(MPI_Irecv_c(rbuf, n, MPI_BYTE, left, tag, MPI_COMM_WORLD, &pre));
            if (mode == 4)
                CHECK_MPI(MPI_Send_c(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD));
            else if (mode == 5)
                CHECK_MPI(MPI_Ssend_c(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD));
            else
                CHECK_MPI(MPI_Rsend_c(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD));
        }
        if (pre != MPI_REQUEST_NULL)
            CHECK_MPI(MPI_Wait(&pre, &st));
        else
            recv_form(form, rbuf, n, MPI_BYTE, tag, &st);
        CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        check_status(&st, MPI_BYTE, n, n, left);
        CHECK_PATTERN(rbuf, (size_t)n, (unsigned)(mode * 31 + left));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* ready sends of the next mode */
    }
    CHECK_MPI(MPI_Buffer_detach_c(&got, &gotsize));
    CHECK(got == attach);
    CHECK_EQ(gotsize, bsize);
    free(attach);
    free(rbuf);
    free(sbuf);
}

/* A strided message: every other int of 2n, sent with MPI_Type_vector_c
 * and received as n contiguous ints (and the other way round). */
static void ring_strided(MPI_Count n)
{
    int *wide = tu_malloc(sizeof(int) * 2 * (size_t)n), *dense = tu_malloc(sizeof(int) * (size_t)n);
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector_c(n, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    for (MPI_Count i = 0; i < 2 * n; i++)
        wide[i] = (int)(i % 2 ? -1 : rank * 1000003 + i / 2);
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv_c(wide, 1, vec, right, 5, dense, n, MPI_INT, left, 5, MPI_COMM_WORLD,
                             &st));
    check_status(&st, MPI_INT, n, n, left);
    for (MPI_Count i = 0; i < n; i++)
        CHECKF(dense[i] == left * 1000003 + i, "dense[%lld] = %d", (long long)i, dense[i]);
    /* Back: contiguous ints into the strided slots; the holes stay -1. */
    for (MPI_Count i = 0; i < n; i++)
        dense[i] = (int)(rank * 7 + i);
    CHECK_MPI(MPI_Sendrecv_c(dense, n, MPI_INT, left, 6, wide, 1, vec, right, 6, MPI_COMM_WORLD,
                             &st));
    check_status(&st, vec, 1, n, right);
    for (MPI_Count i = 0; i < 2 * n; i++)
        CHECKF(wide[i] == (i % 2 ? -1 : right * 7 + i / 2), "wide[%lld] = %d", (long long)i,
               wide[i]);
    /* In place, the strided layout kept. */
    CHECK_MPI(MPI_Sendrecv_replace_c(wide, 1, vec, right, 7, left, 7, MPI_COMM_WORLD, &st));
    check_status(&st, vec, 1, n, left);
    int from = (left + 1) % size; /* left received from its own right: us */
    for (MPI_Count i = 0; i < 2 * n; i++)
        CHECKF(wide[i] == (i % 2 ? -1 : from * 7 + i / 2), "replaced wide[%lld] = %d",
               (long long)i, wide[i]);
    /* The nonblocking pair, both ways at once. */
    MPI_Request rq[2];
    for (MPI_Count i = 0; i < n; i++)
        dense[i] = (int)(rank + 3 * i);
    int *back = tu_malloc(sizeof(int) * (size_t)n);
    CHECK_MPI(MPI_Isendrecv_c(dense, n, MPI_INT, right, 8, back, n, MPI_INT, left, 8,
                              MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Isendrecv_replace_c(wide, 1, vec, right, 9, left, 9, MPI_COMM_WORLD, &rq[1]));
    MPI_Status sts[2];
    CHECK_MPI(MPI_Waitall(2, rq, sts));
    check_status(&sts[0], MPI_INT, n, n, left);
    check_status(&sts[1], vec, 1, n, left);
    for (MPI_Count i = 0; i < n; i++)
        CHECKF(back[i] == left + 3 * i, "isendrecv back[%lld] = %d", (long long)i, back[i]);
    free(back);
    CHECK_MPI(MPI_Type_free(&vec));
    free(dense);
    free(wide);
}

/* Persistent sends of every mode and a persistent receive, started twice. */
static void ring_persistent(MPI_Count n)
{
    unsigned char *sbuf = tu_malloc((size_t)n), *rbuf = tu_malloc((size_t)n);
    int bsize = 2 * ((int)n + MPI_BSEND_OVERHEAD);
    void *attach = tu_malloc((size_t)bsize), *got;
    CHECK_MPI(MPI_Buffer_attach(attach, bsize));
    for (int mode = 0; mode < 4; mode++) {
        MPI_Request sr, rr;
        int tag = 200 + mode;
        CHECK_MPI(MPI_Recv_init_c(rbuf, n, MPI_BYTE, left, tag, MPI_COMM_WORLD, &rr));
        MPI_Comm w = MPI_COMM_WORLD;
        switch (mode) {
        case 0: CHECK_MPI(MPI_Send_init_c(sbuf, n, MPI_BYTE, right, tag, w, &sr)); break;
        case 1: CHECK_MPI(MPI_Ssend_init_c(sbuf, n, MPI_BYTE, right, tag, w, &sr)); break;
        case 2: CHECK_MPI(MPI_Rsend_init_c(sbuf, n, MPI_BYTE, right, tag, w, &sr)); break;
        default: CHECK_MPI(MPI_Bsend_init_c(sbuf, n, MPI_BYTE, right, tag, w, &sr)); break;
        }
        for (int round = 0; round < 2; round++) {
            unsigned seed = (unsigned)(1000 + 10 * mode + round);
            tu_fill(sbuf, (size_t)n, seed + (unsigned)rank);
            memset(rbuf, 0, (size_t)n);
            CHECK_MPI(MPI_Start(&rr));
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* receives posted: ready sends may go */
            CHECK_MPI(MPI_Start(&sr));
            MPI_Status st;
            CHECK_MPI(MPI_Wait(&rr, &st));
            CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
            check_status(&st, MPI_BYTE, n, n, left);
            CHECK_PATTERN(rbuf, (size_t)n, seed + (unsigned)left);
        }
        CHECK_MPI(MPI_Request_free(&sr));
        CHECK_MPI(MPI_Request_free(&rr));
    }
    int gotsize;
    CHECK_MPI(MPI_Buffer_detach(&got, &gotsize));
    free(attach);
    free(rbuf);
    free(sbuf);
}

/* A count above INT_MAX reaches the engine through every form, carried by
 * a type of no bytes; statuses say 0 elements of it, as MPI says. */
static void beyond_int_max(void)
{
    MPI_Datatype none;
    CHECK_MPI(MPI_Type_contiguous_c(0, MPI_INT, &none));
    CHECK_MPI(MPI_Type_commit(&none));
    char b = 0;
    MPI_Status st;
    MPI_Request rq[2];
    CHECK_MPI(MPI_Irecv_c(&b, BIG, none, left, 300, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Isend_c(&b, BIG, none, right, 300, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Irecv_c(&b, BIG, none, left, 301, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Issend_c(&b, BIG, none, right, 301, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Sendrecv_c(&b, BIG, none, right, 302, &b, BIG, none, left, 302, MPI_COMM_WORLD,
                             &st));
    check_status(&st, none, 0, 0, left);
    CHECK_MPI(MPI_Sendrecv_replace_c(&b, BIG, none, right, 303, left, 303, MPI_COMM_WORLD, &st));
    check_status(&st, none, 0, 0, left);
    CHECK_MPI(MPI_Send_init_c(&b, BIG, none, right, 304, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Recv_init_c(&b, BIG, none, left, 304, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Startall(2, rq));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Request_free(&rq[0]));
    CHECK_MPI(MPI_Request_free(&rq[1]));
    CHECK_MPI(MPI_Type_free(&none));

    /* Statuses beyond INT_MAX: the _c queries answer in full, the int
     * ones say MPI_UNDEFINED. */
    memset(&st, 0, sizeof st);
    int ic;
    MPI_Count c;
    CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_BYTE, BIG));
    CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &c));
    CHECK_EQ(c, BIG);
    CHECK_MPI(MPI_Get_elements_c(&st, MPI_BYTE, &c));
    CHECK_EQ(c, BIG);
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &ic));
    CHECK_EQ(ic, MPI_UNDEFINED);
    MPI_Datatype four;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &four));
    CHECK_MPI(MPI_Type_commit(&four));
    CHECK_MPI(MPI_Status_set_elements_x(&st, four, 4 * BIG));
    CHECK_MPI(MPI_Get_count_c(&st, four, &c));
    CHECK_EQ(c, BIG);
    CHECK_MPI(MPI_Get_elements_c(&st, four, &c));
    CHECK_EQ(c, 4 * BIG);
    CHECK_MPI(MPI_Get_elements(&st, four, &ic));
    CHECK_EQ(ic, MPI_UNDEFINED);
    CHECK_MPI(MPI_Status_set_elements_x(&st, four, 4 * BIG + 1)); /* not whole */
    CHECK_MPI(MPI_Get_count_c(&st, four, &c));
    CHECK_EQ(c, MPI_UNDEFINED);
    CHECK_MPI(MPI_Type_free(&four));
}

static void errors(void)
{
    char b[8];
    MPI_Request rq;
    int code;
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_ERR(code = MPI_Send_c(b, -1, MPI_BYTE, right, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    check_message(code, "MPI_Send_c", "count=-1");
    CHECK_ERR(code = MPI_Irecv_c(b, -(MPI_Count)5000000000LL, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                                 &rq), MPI_ERR_COUNT);
    check_message(code, "MPI_Irecv_c", "count=-5000000000");
    CHECK_ERR(code = MPI_Isend_c(b, 1, MPI_BYTE, size, 0, MPI_COMM_WORLD, &rq), MPI_ERR_RANK);
    check_message(code, "MPI_Isend_c", "dest=");
    CHECK_ERR(code = MPI_Recv_init_c(b, -2, MPI_BYTE, left, 0, MPI_COMM_WORLD, &rq),
              MPI_ERR_COUNT);
    check_message(code, "MPI_Recv_init_c", "count=-2");
    CHECK_ERR(code = MPI_Buffer_attach_c(b, -3), MPI_ERR_ARG);
    check_message(code, "MPI_Buffer_attach_c", "size=-3");

    /* An attached buffer larger than an int: the int detach refuses and
     * keeps it attached; MPI_Buffer_detach_c gives it back.  (Reserved,
     * never touched: no memory is used.) */
    void *huge = mmap(NULL, (size_t)BIG, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(huge != MAP_FAILED);
    CHECK_MPI(MPI_Buffer_attach_c(huge, BIG));
    void *got;
    int isize;
    MPI_Count csize;
    CHECK_ERR(code = MPI_Buffer_detach(&got, &isize), MPI_ERR_COUNT);
    check_message(code, "MPI_Buffer_detach", "does not fit an int");
    CHECK_MPI(MPI_Buffer_detach_c(&got, &csize));
    CHECK(got == huge);
    CHECK_EQ(csize, BIG);
    munmap(huge, (size_t)BIG);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank - 1 + size) % size;
    ring_modes(64);          /* eager */
    ring_modes(300000);      /* rendezvous (and split copies) */
    ring_strided(100);
    ring_strided(150000);
    ring_persistent(100);
    ring_persistent(200000);
    beyond_int_max();
    errors();
    MPI_Finalize();
    return 0;
}
