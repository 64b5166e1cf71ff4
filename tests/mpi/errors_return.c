/* errors_return: with MPI_ERRORS_RETURN, bad arguments give the right error
 * class — bad rank, bad tag, negative count, MPI_COMM_NULL,
 * MPI_DATATYPE_NULL / uncommitted type, bad root, MPI_OP_NULL — and the
 * library keeps working; MPI_Error_class is the identity on classes and
 * MPI_Error_string is non-empty for every class and returned code; default
 * and inherited error handlers via MPI_Comm_get_errhandler. */
#include "testutil.h"

static int rank, size;

#define ALL_CLASSES(X)                                                                   \
    X(MPI_SUCCESS) X(MPI_ERR_BUFFER) X(MPI_ERR_COUNT) X(MPI_ERR_TYPE) X(MPI_ERR_TAG)     \
    X(MPI_ERR_COMM) X(MPI_ERR_RANK) X(MPI_ERR_REQUEST) X(MPI_ERR_ROOT) X(MPI_ERR_GROUP)  \
    X(MPI_ERR_OP) X(MPI_ERR_TOPOLOGY) X(MPI_ERR_DIMS) X(MPI_ERR_ARG) X(MPI_ERR_UNKNOWN)  \
    X(MPI_ERR_TRUNCATE) X(MPI_ERR_OTHER) X(MPI_ERR_INTERN) X(MPI_ERR_IN_STATUS)          \
    X(MPI_ERR_PENDING) X(MPI_ERR_KEYVAL) X(MPI_ERR_NO_MEM) X(MPI_ERR_BASE)               \
    X(MPI_ERR_INFO_KEY) X(MPI_ERR_INFO_VALUE) X(MPI_ERR_INFO_NOKEY) X(MPI_ERR_SPAWN)     \
    X(MPI_ERR_PORT) X(MPI_ERR_SERVICE) X(MPI_ERR_NAME) X(MPI_ERR_WIN) X(MPI_ERR_SIZE)    \
    X(MPI_ERR_DISP) X(MPI_ERR_INFO) X(MPI_ERR_LOCKTYPE) X(MPI_ERR_ASSERT)                \
    X(MPI_ERR_RMA_CONFLICT) X(MPI_ERR_RMA_SYNC) X(MPI_ERR_RMA_RANGE)                     \
    X(MPI_ERR_RMA_ATTACH) X(MPI_ERR_RMA_SHARED) X(MPI_ERR_RMA_FLAVOR) X(MPI_ERR_FILE)    \
    X(MPI_ERR_NOT_SAME) X(MPI_ERR_AMODE) X(MPI_ERR_UNSUPPORTED_DATAREP)                  \
    X(MPI_ERR_UNSUPPORTED_OPERATION) X(MPI_ERR_NO_SUCH_FILE) X(MPI_ERR_FILE_EXISTS)      \
    X(MPI_ERR_BAD_FILE) X(MPI_ERR_ACCESS) X(MPI_ERR_NO_SPACE) X(MPI_ERR_QUOTA)           \
    X(MPI_ERR_READ_ONLY) X(MPI_ERR_FILE_IN_USE) X(MPI_ERR_DUP_DATAREP)                   \
    X(MPI_ERR_CONVERSION) X(MPI_ERR_IO)

static void classes(void)
{
    static const struct { int c; const char *name; } cl[] = {
#define ENTRY(c) {c, #c},
        ALL_CLASSES(ENTRY)
#undef ENTRY
    };
    int n = (int)(sizeof cl / sizeof cl[0]);
    for (int k = 0; k < n; k++) {
        int c = -1, len = -1;
        char s[MPI_MAX_ERROR_STRING];
        CHECK_MPI(MPI_Error_class(cl[k].c, &c));
        CHECKF(c == cl[k].c, "MPI_Error_class(%s) = %d", cl[k].name, c);
        CHECKF(cl[k].c >= 0 && cl[k].c <= MPI_ERR_LASTCODE, "%s = %d outside 0..MPI_ERR_LASTCODE",
               cl[k].name, cl[k].c);
        memset(s, 0, sizeof s);
        CHECK_MPI(MPI_Error_string(cl[k].c, s, &len));
        CHECKF(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(s) == len,
               "MPI_Error_string(%s): len %d, \"%s\"", cl[k].name, len, s);
        for (int j = 0; j < k; j++) /* distinct values */
            CHECKF(cl[j].c != cl[k].c, "%s == %s", cl[j].name, cl[k].name);
    }
}

/* The returned code maps to `cls` and has a non-empty string. */
#define EXPECT(call, cls)                                                          \
    do {                                                                           \
        int rc_ = (call), len_ = -1;                                               \
        char s_[MPI_MAX_ERROR_STRING] = "";                                        \
        CHECK_ERR(rc_, cls);                                                       \
        CHECK_MPI(MPI_Error_string(rc_, s_, &len_));                               \
        CHECKF(len_ > 0 && (int)strlen(s_) == len_, "%s: empty error string", #call); \
    } while (0)

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

    classes();

    /* Default handler of MPI_COMM_WORLD is MPI_ERRORS_ARE_FATAL. */
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL);

    /* Errors on a dup with ERRORS_RETURN while world stays fatal. */
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_get_errhandler(c, &eh));
    CHECK(eh == MPI_ERRORS_RETURN);
    MPI_Comm c2;
    CHECK_MPI(MPI_Comm_dup(c, &c2)); /* inherits ERRORS_RETURN */
    CHECK_MPI(MPI_Comm_get_errhandler(c2, &eh));
    CHECK(eh == MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL);

    int buf[4] = {0}, out = 0;
    MPI_Request rq;
    MPI_Status st;

    /* Bad ranks. */
    EXPECT(MPI_Send(buf, 1, MPI_INT, size, 0, c), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, -5, 0, c), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, c), MPI_ERR_RANK);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, size, 0, c, &st), MPI_ERR_RANK);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, size + 7, 0, c, &rq), MPI_ERR_RANK);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, -7, 0, c, &rq), MPI_ERR_RANK);
    EXPECT(MPI_Ssend(buf, 1, MPI_INT, size, 0, c2), MPI_ERR_RANK);
    EXPECT(MPI_Probe(size, 0, c, &st), MPI_ERR_RANK);
    EXPECT(MPI_Sendrecv(buf, 1, MPI_INT, size, 0, &out, 1, MPI_INT, 0, 0, c, &st), MPI_ERR_RANK);

    /* Bad tags (MPI_ANY_TAG is only valid for receives). */
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, -1, c), MPI_ERR_TAG);
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, -100, c), MPI_ERR_TAG);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, 0, MPI_ANY_TAG, c, &rq), MPI_ERR_TAG);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, 0, -100, c, &st), MPI_ERR_TAG);
    EXPECT(MPI_Iprobe(0, -100, c, &out, &st), MPI_ERR_TAG);

    /* Negative counts. */
    EXPECT(MPI_Send(buf, -1, MPI_INT, 0, 0, c), MPI_ERR_COUNT);
    EXPECT(MPI_Recv(buf, -1, MPI_INT, 0, 0, c, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Irecv(buf, -3, MPI_INT, 0, 0, c, &rq), MPI_ERR_COUNT);
    EXPECT(MPI_Bcast(buf, -1, MPI_INT, 0, c), MPI_ERR_COUNT);
    EXPECT(MPI_Allreduce(buf, &out, -1, MPI_INT, MPI_SUM, c), MPI_ERR_COUNT);

    /* Null / uncommitted datatypes. */
    EXPECT(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, c), MPI_ERR_TYPE);
    EXPECT(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, 0, 0, c, &st), MPI_ERR_TYPE);
    EXPECT(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, c), MPI_ERR_TYPE);
    MPI_Datatype unc;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &unc));
    EXPECT(MPI_Send(buf, 1, unc, 0, 0, c), MPI_ERR_TYPE);
    CHECK_MPI(MPI_Type_free(&unc));

    /* Bad roots (everyone makes the same call, so nobody hangs). */
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, size, c), MPI_ERR_ROOT);
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, -1, c), MPI_ERR_ROOT);
    EXPECT(MPI_Reduce(buf, &out, 1, MPI_INT, MPI_SUM, size, c), MPI_ERR_ROOT);
    EXPECT(MPI_Gather(buf, 1, MPI_INT, buf, 1, MPI_INT, MPI_ROOT, c), MPI_ERR_ROOT);
    EXPECT(MPI_Scatter(buf, 1, MPI_INT, buf, 1, MPI_INT, size + 3, c), MPI_ERR_ROOT);

    /* Null op. */
    EXPECT(MPI_Reduce(buf, &out, 1, MPI_INT, MPI_OP_NULL, 0, c), MPI_ERR_OP);
    EXPECT(MPI_Allreduce(buf, &out, 1, MPI_INT, MPI_OP_NULL, c), MPI_ERR_OP);
    EXPECT(MPI_Scan(buf, &out, 1, MPI_INT, MPI_OP_NULL, c), MPI_ERR_OP);

    /* MPI_COMM_NULL: reported through MPI_COMM_WORLD's handler. */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
    EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Comm_size(MPI_COMM_NULL, &out), MPI_ERR_COMM);
    EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &out), MPI_ERR_COMM);
    MPI_Comm c3 = MPI_COMM_NULL;
    EXPECT(MPI_Comm_dup(MPI_COMM_NULL, &c3), MPI_ERR_COMM);
    /* Errors on world itself now return too. */
    EXPECT(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    MPI_Op sum_op = MPI_SUM; /* predefined ops can't be freed */
    EXPECT(MPI_Op_free(&sum_op), MPI_ERR_OP);
    CHECK(sum_op == MPI_SUM);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    /* Nothing was left behind: the communicators still work. */
    int sum = -1;
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK_EQ(sum, size * (size - 1) / 2);
    int flag = -1;
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, &st));
    CHECK_EQ(flag, 0);

    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Comm_free(&c2));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
