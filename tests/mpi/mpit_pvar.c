/* mpit_pvar — MPI_T performance variables: each counter of util/pvar.h is
 * listed with its class and datatype; a session's counters count exactly
 * what this program does between start and stop (5 eager sends: +5 and
 * +5 x bytes; 2 large ones: +2 rendezvous), nothing while stopped, and
 * read, write, reset and readreset change the session's value only; two
 * sessions do not disturb each other; the queue lengths bound to a
 * communicator see the receives posted and the messages waiting on it,
 * and their high-water marks; an allreduce and a put each count once in
 * their families; errors for bad sessions, handles and operations. */
#include <string.h>

#include "testutil.h"
#include "util/pvar.h"

static int rank, size;
static int engine_ofi; /* the provider-matching engine sends (FABMPI_PT2PT=ofi or auto) */

static int pvar(const char *name, int cls)
{
    int i = -1;
    CHECK_MPI(MPI_T_pvar_get_index(name, cls, &i));
    return i;
}

static MPI_T_pvar_handle counter(MPI_T_pvar_session s, const char *name)
{
    MPI_T_pvar_handle h;
    int count = 0;
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, pvar(name, MPI_T_PVAR_CLASS_COUNTER), NULL, &h, &count));
    CHECK_EQ(count, 1);
    return h;
}

static unsigned long long get(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v;
    CHECK_MPI(MPI_T_pvar_read(s, h, &v));
    return v;
}

/* The shared-memory eager limit in effect (FABMPI_EAGER_LIMIT). */
static unsigned long eager_limit(void)
{
    int i, count;
    MPI_T_cvar_handle h;
    unsigned long v = 0;
    CHECK_MPI(MPI_T_cvar_get_index("FABMPI_EAGER_LIMIT", &i));
    CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK_MPI(MPI_T_cvar_read(h, &v));
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    return v;
}

/* n messages of `bytes` to the next rank, n from the previous. */
static void ring(int n, int bytes, int tag)
{
    char *sb = tu_malloc((size_t)bytes * (size_t)n), *rb = tu_malloc((size_t)bytes * (size_t)n);
    MPI_Request *rq = tu_malloc(sizeof *rq * 2 * (size_t)n);
    tu_fill(sb, (size_t)bytes * (size_t)n, (unsigned)rank);
    for (int i = 0; i < n; i++)
        CHECK_MPI(MPI_Irecv(rb + (size_t)i * (size_t)bytes, bytes, MPI_CHAR, (rank + size - 1) % size,
                            tag, MPI_COMM_WORLD, &rq[i]));
    for (int i = 0; i < n; i++)
        CHECK_MPI(MPI_Isend(sb + (size_t)i * (size_t)bytes, bytes, MPI_CHAR, (rank + 1) % size, tag,
                            MPI_COMM_WORLD, &rq[n + i]));
    CHECK_MPI(MPI_Waitall(2 * n, rq, MPI_STATUSES_IGNORE));
    CHECK_PATTERN(rb, (size_t)bytes * (size_t)n, (unsigned)((rank + size - 1) % size));
    free(sb);
    free(rb);
    free(rq);
}

static void check_list(void)
{
    int num = 0;
    CHECK_MPI(MPI_T_pvar_get_num(&num));
#define ONE(name, cls, cat, desc) +1
    CHECK(num >= 0 FM_PVAR_COUNTERS(ONE));
#undef ONE
    for (int i = 0; i < num; i++) {
        char name[128], desc[1024];
        int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, atomic;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_MPI(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &en, desc, &dl, &bind, &ro,
                                      &cont, &atomic));
        CHECK(strlen(desc) > 10);
        CHECK(en == MPI_T_ENUM_NULL);
        CHECK_EQ(pvar(name, cls), i);
        if (cls == MPI_T_PVAR_CLASS_COUNTER || cls == MPI_T_PVAR_CLASS_TIMER) {
            CHECK(dt == (cls == MPI_T_PVAR_CLASS_TIMER ? MPI_DOUBLE : MPI_UNSIGNED_LONG_LONG));
            CHECK_EQ(bind, MPI_T_BIND_NO_OBJECT);
            CHECK(!ro && !cont && atomic);
        } else {
            CHECK(cls == MPI_T_PVAR_CLASS_LEVEL || cls == MPI_T_PVAR_CLASS_HIGHWATERMARK);
            CHECK_EQ(bind, MPI_T_BIND_MPI_COMM);
            CHECK(ro && cont);
        }
    }
    /* Every counter of the table, under its own name and class. */
#define HAS(name, cls, cat, desc) pvar(#name, MPI_T_PVAR_CLASS_##cls);
    FM_PVAR_COUNTERS(HAS)
#undef HAS
    int i;
    CHECK_T(MPI_T_pvar_get_index("pt2pt_eager_sent", MPI_T_PVAR_CLASS_TIMER, &i),
            MPI_T_ERR_INVALID_NAME);
    CHECK_T(MPI_T_pvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
}

static void check_counters(void)
{
    MPI_T_pvar_session s, other;
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    CHECK_MPI(MPI_T_pvar_session_create(&other));
    /* Small messages: eager sends of the software engine, or sends of the
     * provider-matching one. */
    MPI_T_pvar_handle eager = counter(s, engine_ofi ? "pt2pt_ofi_engine_sent" : "pt2pt_eager_sent");
    MPI_T_pvar_handle bytes =
        counter(s, engine_ofi ? "pt2pt_ofi_engine_sent_bytes" : "pt2pt_eager_sent_bytes");
    MPI_T_pvar_handle rndv = counter(s, "pt2pt_rndv_sent");
    MPI_T_pvar_handle rbytes = counter(s, "pt2pt_rndv_sent_bytes");
    MPI_T_pvar_handle polls = counter(s, "progress_polls");
    MPI_T_pvar_handle oeager =
        counter(other, engine_ofi ? "pt2pt_ofi_engine_sent" : "pt2pt_eager_sent");
    MPI_T_pvar_handle wait;
    int count;
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, pvar("progress_wait_time", MPI_T_PVAR_CLASS_TIMER), NULL,
                                      &wait, &count));
    /* Stopped from the start: reads 0 whatever happens. */
    CHECK_EQ(get(s, eager), 0);
    ring(2, 100, 1);
    CHECK_EQ(get(s, eager), 0);

    CHECK_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_MPI(MPI_T_pvar_start(other, oeager));
    ring(5, 100, 2);
    CHECK_MPI(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_EQ(get(s, eager), 5);
    CHECK_EQ(get(s, bytes), 500);
    CHECK_EQ(get(s, rndv), 0);
    /* (Those receives may have been delivered by an earlier wait: whether
     * this ring polled depends on timing.  A test polls once.) */
    unsigned long long p0 = get(s, polls);
    CHECK_MPI(MPI_T_pvar_start(s, polls));
    int flag;
    CHECK_MPI(MPI_Testall(0, NULL, &flag, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_T_pvar_stop(s, polls));
    CHECK(get(s, polls) >= p0 + 1);
    double waited = -1;
    CHECK_MPI(MPI_T_pvar_read(s, wait, &waited));
    CHECK(waited >= 0 && waited < 60);

    /* Stopped: nothing more counts here; the other session still runs. */
    ring(2, 100, 3);
    CHECK_EQ(get(s, eager), 5);
    CHECK_EQ(get(other, oeager), 7);

    /* Rendezvous (software engine): two messages over the eager limit,
     * which is larger on a node with more ranks than CPUs (env_crowded). */
    int big = (int)eager_limit() + 4096;
    CHECK_MPI(MPI_T_pvar_start(s, rndv));
    CHECK_MPI(MPI_T_pvar_start(s, rbytes));
    ring(2, big, 4);
    CHECK_MPI(MPI_T_pvar_stop(s, rndv));
    CHECK_MPI(MPI_T_pvar_stop(s, rbytes));
    CHECK_EQ(get(s, rndv), engine_ofi ? 0 : 2);
    CHECK_EQ(get(s, rbytes), engine_ofi ? 0 : 2ull * (unsigned long long)big);
    CHECK_EQ(get(s, eager), 5);
    unsigned long long large = engine_ofi ? 2 : 0; /* the engine counts every send */

    /* Write, reset and readreset change this session's value only. */
    unsigned long long v = 40;
    CHECK_MPI(MPI_T_pvar_write(s, eager, &v));
    CHECK_MPI(MPI_T_pvar_start(s, eager));
    ring(2, 100, 5);
    CHECK_MPI(MPI_T_pvar_readreset(s, eager, &v));
    CHECK_EQ(v, 42);
    CHECK_EQ(get(s, eager), 0);
    ring(1, 100, 6);
    CHECK_EQ(get(s, eager), 1); /* still running */
    CHECK_MPI(MPI_T_pvar_reset(s, eager));
    CHECK_EQ(get(s, eager), 0);
    CHECK_MPI(MPI_T_pvar_stop(s, eager));
    CHECK_MPI(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_EQ(get(s, rndv), 0);
    CHECK_EQ(get(other, oeager), 7 + large + 2 + 1);
    double t = 1.5;
    CHECK_MPI(MPI_T_pvar_write(s, wait, &t));
    CHECK_MPI(MPI_T_pvar_read(s, wait, &t));
    CHECK(t > 1.49 && t < 1.51);

    /* Errors. */
    MPI_T_pvar_handle gone = bytes;
    CHECK_MPI(MPI_T_pvar_handle_free(s, &gone));
    CHECK(gone == MPI_T_PVAR_HANDLE_NULL);
    CHECK_T(MPI_T_pvar_read(s, gone, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_pvar_start(s, MPI_T_PVAR_HANDLE_NULL), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_pvar_read(other, eager, &v), MPI_T_ERR_INVALID_HANDLE); /* s's handle */
    CHECK_T(MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, eager, &v), MPI_T_ERR_INVALID_SESSION);
    CHECK_T(MPI_T_pvar_handle_alloc(s, -1, NULL, &gone, &count), MPI_T_ERR_INVALID_INDEX);
    CHECK_MPI(MPI_T_pvar_session_free(&other));
    CHECK(other == MPI_T_PVAR_SESSION_NULL);
    CHECK_T(MPI_T_pvar_session_free(&other), MPI_T_ERR_INVALID_SESSION);
    CHECK_MPI(MPI_T_pvar_session_free(&s));
}

/* Queue lengths of one communicator. */
static void check_queues(void)
{
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_T_pvar_session s;
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    MPI_T_pvar_handle posted, unexp, posted_hwm, unexp_hwm;
    int count;
    CHECK_T(MPI_T_pvar_handle_alloc(s, pvar("posted_recvq_length", MPI_T_PVAR_CLASS_LEVEL), NULL,
                                    &posted, &count),
            MPI_T_ERR_INVALID); /* bound to a communicator: needs one */
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, pvar("posted_recvq_length", MPI_T_PVAR_CLASS_LEVEL),
                                      &comm, &posted, &count));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, pvar("unexpected_recvq_length", MPI_T_PVAR_CLASS_LEVEL),
                                      &comm, &unexp, &count));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, pvar("posted_recvq_hwm", MPI_T_PVAR_CLASS_HIGHWATERMARK),
                                      &comm, &posted_hwm, &count));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, pvar("unexpected_recvq_hwm",
                                              MPI_T_PVAR_CLASS_HIGHWATERMARK),
                                      &comm, &unexp_hwm, &count));
    CHECK_T(MPI_T_pvar_start(s, posted), MPI_T_ERR_PVAR_NO_STARTSTOP);
    unsigned long long v = 1;
    CHECK_T(MPI_T_pvar_write(s, posted, &v), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_T(MPI_T_pvar_reset(s, unexp), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_EQ(get(s, posted), 0);
    CHECK_EQ(get(s, unexp), 0);

    /* Three receives nobody has sent to yet. */
    int prev = (rank + size - 1) % size, next = (rank + 1) % size;
    int in[3], out[3] = {1, 2, 3};
    MPI_Request rq[3];
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_INT, prev, 10 + i, comm, &rq[i]));
    if (!engine_ofi) { /* that one keeps its queues in the provider */
        CHECK_EQ(get(s, posted), 3);
        CHECK(get(s, posted_hwm) >= 3);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* senders wait for the count above */
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Send(&out[i], 1, MPI_INT, next, 10 + i, comm));
    CHECK_MPI(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    CHECK_EQ(get(s, posted), 0);
    CHECK(get(s, posted_hwm) >= (engine_ofi ? 0 : 3));

    /* Four messages before their receives: unexpected until received. */
    for (int i = 0; i < 4; i++)
        CHECK_MPI(MPI_Send(&out[0], 1, MPI_INT, next, 20 + i, comm));
    for (int i = 0; i < 4; i++) {
        MPI_Status st;
        CHECK_MPI(MPI_Probe(prev, 20 + i, comm, &st)); /* arrived, not received */
    }
    if (!engine_ofi) {
        CHECK_EQ(get(s, unexp), 4);
        CHECK(get(s, unexp_hwm) >= 4);
    }
    CHECK_EQ(get(s, posted), 0);
    for (int i = 0; i < 4; i++)
        CHECK_MPI(MPI_Recv(&in[0], 1, MPI_INT, prev, 20 + i, comm, MPI_STATUS_IGNORE));
    CHECK_EQ(get(s, unexp), 0);
    CHECK(get(s, unexp_hwm) >= (engine_ofi ? 0 : 4));
    CHECK_MPI(MPI_T_pvar_session_free(&s));
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* One allreduce counts once among its algorithm families; one put once
 * among the RMA paths. */
static void check_coll_rma(void)
{
    static const char *const allreduce[] = {"coll_allreduce_two_sided", "coll_allreduce_rma",
                                            "coll_allreduce_flat"};
    static const char *const rma[] = {"rma_loadstore", "rma_cma", "rma_net", "rma_am"};
    MPI_T_pvar_session s;
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    MPI_T_pvar_handle ha[3], hr[4];
    for (int i = 0; i < 3; i++)
        ha[i] = counter(s, allreduce[i]);
    for (int i = 0; i < 4; i++)
        hr[i] = counter(s, rma[i]);
    int *base, one = 1, sum;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    *base = 0;
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Put(&one, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_EQ(sum, size);
    CHECK_EQ(*base, 1);
    unsigned long long n = 0;
    for (int i = 0; i < 3; i++)
        n += get(s, ha[i]);
    CHECK_EQ(n, 1);
    n = 0;
    for (int i = 0; i < 4; i++)
        n += get(s, hr[i]);
    CHECK_EQ(n, 1);
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_T_pvar_session_free(&s));
}

/* Over OFI (FABMPI_NET=ofi), messages to other ranks go through it. */
static void check_ofi(void)
{
    int i;
    MPI_T_pvar_session s;
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    MPI_T_pvar_handle sent = counter(s, "ofi_sent");
    CHECK_MPI(MPI_T_pvar_get_index("ofi_sent_bytes", MPI_T_PVAR_CLASS_COUNTER, &i));
    CHECK_MPI(MPI_T_pvar_start(s, sent));
    ring(3, 100, 7);
    CHECK_MPI(MPI_T_pvar_stop(s, sent));
    /* The OFI transport's own sends; the provider-matching engine calls
     * fi_tsend itself (counted above). */
    const char *net = getenv("FABMPI_NET");
    if (net && !strcmp(net, "ofi") && size > 1 && !engine_ofi)
        CHECK(get(s, sent) >= 3);
    else
        CHECK_EQ(get(s, sent), 0);
    CHECK_MPI(MPI_T_pvar_session_free(&s));
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    /* Which engine sends: one message tells. */
    MPI_T_pvar_session s;
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    MPI_T_pvar_handle eng = counter(s, "pt2pt_ofi_engine_sent");
    CHECK_MPI(MPI_T_pvar_start(s, eng));
    ring(1, 8, 0);
    engine_ofi = get(s, eng) > 0;
    CHECK_MPI(MPI_T_pvar_session_free(&s));
    check_list();
    check_counters();
    check_queues();
    check_coll_rma();
    check_ofi();
    CHECK_MPI(MPI_T_finalize());
    MPI_Finalize();
    return 0;
}
