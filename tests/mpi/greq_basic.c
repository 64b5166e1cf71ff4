/* greq_basic: generalized requests (MPI_Grequest_start/_complete).  Each
 * callback appends to a log, so every case checks which callbacks ran, how
 * often and in which order:
 *   - nothing completes before MPI_Grequest_complete (Test, Request_get_status);
 *   - Request_get_status runs query_fn alone, as often as called;
 *   - Wait/Test and Waitall/Waitany/Waitsome/Testsome/Testall/Testany run
 *     query_fn then free_fn once per request, with MPI_STATUS_IGNORE too,
 *     and return the status query_fn made (source, tag, count, cancelled);
 *   - Request_free runs free_fn alone: at once when complete, else from
 *     MPI_Grequest_complete;
 *   - Cancel runs cancel_fn with complete = false / true;
 *   - a callback's error code (a user code) is what the call returns, and
 *     MPI_ERR_IN_STATUS with it in the status for the array calls;
 *   - argument errors: MPI_ERR_REQUEST and MPI_ERR_ARG.
 * Mixed with real point-to-point requests between ring neighbours. */
#include "testutil.h"

#define NSTATE 8

struct state {
    int id;
    int source, tag, count; /* what query_fn reports */
    int cancelled;          /* set by cancel_fn, reported by query_fn */
    int query_rc, free_rc, cancel_rc;
};

static char logbuf[4096];

static void log_event(const char *fmt, int id, int arg)
{
    size_t n = strlen(logbuf);
    snprintf(logbuf + n, sizeof logbuf - n, fmt, id, arg);
}

static int query_fn(void *extra, MPI_Status *status)
{
    struct state *s = extra;
    CHECK(status != NULL);
    log_event("Q%d ", s->id, 0);
    status->MPI_SOURCE = s->source;
    status->MPI_TAG = s->tag;
    MPI_Status_set_elements(status, MPI_INT, s->count);
    MPI_Status_set_cancelled(status, s->cancelled);
    return s->query_rc;
}

static int free_fn(void *extra)
{
    struct state *s = extra;
    log_event("F%d ", s->id, 0);
    return s->free_rc;
}

static int cancel_fn(void *extra, int complete)
{
    struct state *s = extra;
    log_event("C%d:%d ", s->id, complete);
    s->cancelled = 1;
    return s->cancel_rc;
}

static struct state st[NSTATE];

static MPI_Request start(int id)
{
    MPI_Request r = MPI_REQUEST_NULL;
    st[id] = (struct state){.id = id, .source = 100 + id, .tag = 200 + id, .count = id + 1};
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &st[id], &r));
    CHECK(r != MPI_REQUEST_NULL);
    return r;
}

#define CHECK_LOG(want)                                                              \
    do {                                                                             \
        CHECKF(strcmp(logbuf, want) == 0, "callback log \"%s\", expected \"%s\"", logbuf, \
               want);                                                                \
        logbuf[0] = 0;                                                               \
    } while (0)

static void check_status(const MPI_Status *s, int id)
{
    int count = -1, flag = -1;
    CHECK_EQ(s->MPI_SOURCE, 100 + id);
    CHECK_EQ(s->MPI_TAG, 200 + id);
    CHECK_MPI(MPI_Get_count(s, MPI_INT, &count));
    CHECK_EQ(count, id + 1);
    CHECK_MPI(MPI_Test_cancelled(s, &flag));
    CHECK_EQ(flag, st[id].cancelled);
}

int main(int argc, char **argv)
{
    int rank, size, flag, idx;
    MPI_Status s;
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    /* Not complete before MPI_Grequest_complete; get_status queries only. */
    MPI_Request r = start(1), keep;
    CHECK_MPI(MPI_Test(&r, &flag, &s));
    CHECK_EQ(flag, 0);
    CHECK_MPI(MPI_Request_get_status(r, &flag, &s));
    CHECK_EQ(flag, 0);
    CHECK_LOG("");
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_LOG("");
    CHECK_MPI(MPI_Request_get_status(r, &flag, &s));
    CHECK_EQ(flag, 1);
    check_status(&s, 1);
    CHECK_MPI(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
    CHECK_EQ(flag, 1);
    CHECK_LOG("Q1 Q1 ");
    CHECK(r != MPI_REQUEST_NULL);
    memset(&s, 0, sizeof s);
    CHECK_MPI(MPI_Wait(&r, &s));
    CHECK(r == MPI_REQUEST_NULL);
    check_status(&s, 1);
    CHECK_LOG("Q1 F1 ");

    /* Test completes it; Wait with MPI_STATUS_IGNORE still queries. */
    r = start(2);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_MPI(MPI_Test(&r, &flag, &s));
    CHECK(flag && r == MPI_REQUEST_NULL);
    check_status(&s, 2);
    CHECK_LOG("Q2 F2 ");
    r = start(3);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_LOG("Q3 F3 ");

    /* Request_free before completion: free_fn from Grequest_complete. */
    r = start(1);
    keep = r;
    CHECK_MPI(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL);
    CHECK_LOG("");
    CHECK_MPI(MPI_Grequest_complete(keep));
    CHECK_LOG("F1 ");
    /* ... and after: free_fn at once, no query. */
    r = start(2);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_MPI(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL);
    CHECK_LOG("F2 ");

    /* Cancel before and after completion. */
    r = start(4);
    CHECK_MPI(MPI_Cancel(&r));
    CHECK_LOG("C4:0 ");
    CHECK(r != MPI_REQUEST_NULL);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_MPI(MPI_Wait(&r, &s));
    check_status(&s, 4);
    CHECK_EQ(st[4].cancelled, 1);
    CHECK_LOG("Q4 F4 ");
    r = start(5);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_MPI(MPI_Cancel(&r));
    CHECK_LOG("C5:1 ");
    CHECK_MPI(MPI_Wait(&r, &s));
    check_status(&s, 5);
    CHECK_LOG("Q5 F5 ");

    /* Waitall over generalized and point-to-point requests. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = 1000 + rank, in = -1;
    MPI_Request rs[5];
    MPI_Status ss[5];
    rs[0] = start(1);
    CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &rs[1]));
    rs[2] = start(2);
    CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &rs[3]));
    rs[4] = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Grequest_complete(rs[2]));
    CHECK_MPI(MPI_Grequest_complete(rs[0]));
    CHECK_MPI(MPI_Waitall(5, rs, ss));
    for (int i = 0; i < 5; i++)
        CHECK(rs[i] == MPI_REQUEST_NULL);
    check_status(&ss[0], 1);
    check_status(&ss[2], 2);
    CHECK_EQ(in, 1000 + left);
    CHECK_EQ(ss[1].MPI_SOURCE, left);
    CHECK_EQ(ss[1].MPI_TAG, 7);
    CHECK_LOG("Q1 F1 Q2 F2 ");

    /* Waitany finds the completed one, leaves the other alone. */
    rs[0] = start(1);
    rs[1] = start(2);
    CHECK_MPI(MPI_Testany(2, rs, &idx, &flag, &s));
    CHECK(!flag && idx == MPI_UNDEFINED);
    CHECK_MPI(MPI_Grequest_complete(rs[1]));
    CHECK_MPI(MPI_Waitany(2, rs, &idx, &s));
    CHECK_EQ(idx, 1);
    check_status(&s, 2);
    CHECK(rs[1] == MPI_REQUEST_NULL && rs[0] != MPI_REQUEST_NULL);
    CHECK_LOG("Q2 F2 ");
    CHECK_MPI(MPI_Grequest_complete(rs[0]));
    CHECK_MPI(MPI_Testany(2, rs, &idx, &flag, &s));
    CHECK(flag && idx == 0);
    check_status(&s, 1);
    CHECK_LOG("Q1 F1 ");

    /* Testsome / Waitsome / Testall. */
    int indices[3], outcount = -1;
    for (int i = 0; i < 3; i++)
        rs[i] = start(i + 1);
    CHECK_MPI(MPI_Testsome(3, rs, &outcount, indices, ss));
    CHECK_EQ(outcount, 0);
    CHECK_MPI(MPI_Grequest_complete(rs[0]));
    CHECK_MPI(MPI_Grequest_complete(rs[2]));
    CHECK_MPI(MPI_Testsome(3, rs, &outcount, indices, ss));
    CHECK_EQ(outcount, 2);
    CHECK(indices[0] == 0 && indices[1] == 2);
    check_status(&ss[0], 1);
    check_status(&ss[1], 3);
    CHECK_LOG("Q1 F1 Q3 F3 ");
    CHECK_MPI(MPI_Testall(3, rs, &flag, ss));
    CHECK_EQ(flag, 0);
    CHECK_LOG("");
    CHECK_MPI(MPI_Grequest_complete(rs[1]));
    CHECK_MPI(MPI_Waitsome(3, rs, &outcount, indices, MPI_STATUSES_IGNORE));
    CHECK(outcount == 1 && indices[0] == 1);
    CHECK_LOG("Q2 F2 ");
    CHECK_MPI(MPI_Waitsome(3, rs, &outcount, indices, ss));
    CHECK_EQ(outcount, MPI_UNDEFINED);
    rs[0] = start(6);
    rs[1] = start(7);
    CHECK_MPI(MPI_Grequest_complete(rs[0]));
    CHECK_MPI(MPI_Grequest_complete(rs[1]));
    CHECK_MPI(MPI_Testall(2, rs, &flag, ss));
    CHECK(flag && rs[0] == MPI_REQUEST_NULL && rs[1] == MPI_REQUEST_NULL);
    check_status(&ss[0], 6);
    check_status(&ss[1], 7);
    CHECK_LOG("Q6 F6 Q7 F7 ");

    /* Callback errors are the calls' errors, the program's code unchanged. */
    int ecls, ecode, ecode2, rc;
    CHECK_MPI(MPI_Add_error_class(&ecls));
    CHECK_MPI(MPI_Add_error_code(ecls, &ecode));
    CHECK_MPI(MPI_Add_error_code(ecls, &ecode2));
    r = start(1);
    st[1].query_rc = ecode;
    CHECK_MPI(MPI_Grequest_complete(r));
    rc = MPI_Request_get_status(r, &flag, &s);
    CHECK_EQ(rc, ecode);
    rc = MPI_Wait(&r, &s);
    CHECK_EQ(rc, ecode);
    CHECK(r == MPI_REQUEST_NULL); /* freed all the same */
    CHECK_LOG("Q1 Q1 F1 ");
    r = start(2);
    st[2].free_rc = ecode2;
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_EQ(MPI_Wait(&r, &s), ecode2);
    CHECK_LOG("Q2 F2 ");
    r = start(3);
    st[3].free_rc = ecode2;
    keep = r;
    CHECK_MPI(MPI_Request_free(&r));
    CHECK_EQ(MPI_Grequest_complete(keep), ecode2);
    CHECK_LOG("F3 ");
    r = start(4);
    st[4].free_rc = ecode;
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_EQ(MPI_Request_free(&r), ecode);
    CHECK_LOG("F4 ");
    r = start(5);
    st[5].cancel_rc = ecode2;
    CHECK_EQ(MPI_Cancel(&r), ecode2);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_LOG("C5:0 Q5 F5 ");
    rs[0] = start(1);
    rs[1] = start(2);
    rs[2] = start(3);
    st[2].query_rc = ecode;
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Grequest_complete(rs[i]));
    CHECK_ERR(MPI_Waitall(3, rs, ss), MPI_ERR_IN_STATUS);
    CHECK_EQ(ss[0].MPI_ERROR, MPI_SUCCESS);
    CHECK_EQ(ss[1].MPI_ERROR, ecode);
    CHECK_EQ(ss[2].MPI_ERROR, MPI_SUCCESS);
    check_status(&ss[1], 2);
    CHECK(rs[0] == MPI_REQUEST_NULL && rs[1] == MPI_REQUEST_NULL && rs[2] == MPI_REQUEST_NULL);
    CHECK_LOG("Q1 F1 Q2 F2 Q3 F3 ");

    /* Argument errors. */
    CHECK_ERR(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &r));
    CHECK_ERR(MPI_Grequest_complete(r), MPI_ERR_REQUEST);
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, right, 8, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    r = start(1);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_ERR(MPI_Grequest_complete(r), MPI_ERR_REQUEST);
    CHECK_ERR(MPI_Start(&r), MPI_ERR_REQUEST);
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_LOG("Q1 F1 ");
    r = MPI_REQUEST_NULL;
    CHECK_ERR(MPI_Grequest_start(NULL, free_fn, cancel_fn, NULL, &r), MPI_ERR_ARG);
    CHECK_ERR(MPI_Grequest_start(query_fn, NULL, cancel_fn, NULL, &r), MPI_ERR_ARG);
    CHECK_ERR(MPI_Grequest_start(query_fn, free_fn, NULL, NULL, &r), MPI_ERR_ARG);
    CHECK_ERR(MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, NULL), MPI_ERR_ARG);
    CHECK(r == MPI_REQUEST_NULL);
    CHECK_LOG("");

    /* Many at once, completed in reverse, waited in order. */
    enum { MANY = 200 };
    static MPI_Request many[MANY];
    static struct state ms[MANY];
    for (int i = 0; i < MANY; i++) {
        ms[i] = (struct state){.id = 0, .source = i, .tag = i, .count = 0};
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &ms[i], &many[i]));
    }
    for (int i = MANY - 1; i >= 0; i--)
        CHECK_MPI(MPI_Grequest_complete(many[i]));
    static MPI_Status mst[MANY];
    CHECK_MPI(MPI_Waitall(MANY, many, mst));
    for (int i = 0; i < MANY; i++) {
        CHECK_EQ(mst[i].MPI_SOURCE, i);
        CHECK(many[i] == MPI_REQUEST_NULL);
    }
    logbuf[0] = 0;

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("greq_basic: OK (%d ranks)\n", size);
    return 0;
}
