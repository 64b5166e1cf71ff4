/* comm_info: info hints on communicators.
 *
 *   - MPI_Comm_get_info always gives a new info object the caller frees,
 *     even for a communicator without hints (fabmpi: then an empty one);
 *   - (fabmpi) hints set with MPI_Comm_set_info come back exactly as set;
 *     a later MPI_Comm_set_info changes the keys it names and keeps the
 *     others; changing the info passed in, or the one returned, afterwards
 *     changes nothing on the communicator;
 *   - MPI_Comm_dup carries the hints over; MPI_Comm_dup_with_info gives
 *     the new communicator the info's hints instead (none for
 *     MPI_INFO_NULL), with attributes copied as by MPI_Comm_dup, and the
 *     duplicates communicate;
 *   - MPI_Comm_idup / MPI_Comm_idup_with_info the same, nonblocking;
 *   - hints on MPI_COMM_WORLD and on freed communicators leave nothing
 *     behind (valgrind run);
 *   - errors: MPI_COMM_NULL is MPI_ERR_COMM, MPI_INFO_NULL for
 *     MPI_Comm_set_info MPI_ERR_INFO, NULL outputs MPI_ERR_ARG. */
#include "testutil.h"

static int rank, size;

/* comm's hints must be exactly the n (key, value) pairs of kv. */
static void expect_hints(MPI_Comm comm, int n, const char *const kv[][2], const char *what)
{
    MPI_Info used = MPI_INFO_NULL;
    int nkeys = -1;
    CHECK_MPI(MPI_Comm_get_info(comm, &used));
    CHECKF(used != MPI_INFO_NULL, "%s: MPI_Comm_get_info gave MPI_INFO_NULL", what);
    CHECK_MPI(MPI_Info_get_nkeys(used, &nkeys));
    CHECKF(nkeys == n, "%s: %d hints, want %d", what, nkeys, n);
    for (int i = 0; i < n; i++) {
        char v[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        CHECK_MPI(MPI_Info_get(used, kv[i][0], MPI_MAX_INFO_VAL, v, &flag));
        CHECKF(flag, "%s: hint %s missing", what, kv[i][0]);
        CHECKF(strcmp(v, kv[i][1]) == 0, "%s: %s=\"%s\", want \"%s\"", what, kv[i][0], v,
               kv[i][1]);
    }
    /* the object returned is the caller's: changing it changes nothing */
    CHECK_MPI(MPI_Info_set(used, "fabmpi_test_scribble", "x"));
    CHECK_MPI(MPI_Info_free(&used));
}

static void allreduce_works(MPI_Comm c)
{
    int one = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK_EQ(sum, size);
}

static int copied_keyval;

static void hints(void)
{
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    expect_hints(c, 0, NULL, "fresh communicator");

    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    CHECK_MPI(MPI_Info_set(info, "fabmpi_test_key", "one"));
    CHECK_MPI(MPI_Comm_set_info(c, info));
    CHECK_MPI(MPI_Info_set(info, "fabmpi_test_key", "changed after set_info"));
    CHECK_MPI(MPI_Info_free(&info));
    const char *const first[][2] = {{"mpi_assert_no_any_tag", "true"}, {"fabmpi_test_key", "one"}};
    expect_hints(c, 2, first, "after MPI_Comm_set_info");

    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "fabmpi_test_key", "two"));
    CHECK_MPI(MPI_Info_set(info, "mpi_assert_exact_length", "true"));
    CHECK_MPI(MPI_Comm_set_info(c, info));
    const char *const second[][2] = {{"mpi_assert_no_any_tag", "true"},
                                     {"fabmpi_test_key", "two"},
                                     {"mpi_assert_exact_length", "true"}};
    expect_hints(c, 3, second, "after a second MPI_Comm_set_info");

    /* MPI_Comm_dup carries them; so does a dup of the dup */
    MPI_Comm d, dd;
    CHECK_MPI(MPI_Comm_dup(c, &d));
    expect_hints(d, 3, second, "MPI_Comm_dup");
    CHECK_MPI(MPI_Comm_dup(d, &dd));
    expect_hints(dd, 3, second, "MPI_Comm_dup of a dup");
    CHECK_MPI(MPI_Comm_free(&dd));
    CHECK_MPI(MPI_Comm_free(&d));

    /* dup_with_info: the info's hints, not the parent's; attributes copied */
    int *attr = tu_malloc(sizeof *attr), *got, flag = 0;
    *attr = 42;
    CHECK_MPI(MPI_Comm_set_attr(c, copied_keyval, attr));
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "mpi_assert_allow_overtaking", "false"));
    CHECK_MPI(MPI_Comm_dup_with_info(c, info, &d));
    const char *const third[][2] = {{"mpi_assert_allow_overtaking", "false"}};
    expect_hints(d, 1, third, "MPI_Comm_dup_with_info");
    CHECK_MPI(MPI_Comm_get_attr(d, copied_keyval, &got, &flag));
    CHECKF(flag && got == attr, "MPI_Comm_dup_with_info did not copy an attribute");
    allreduce_works(d);
    CHECK_MPI(MPI_Comm_dup_with_info(c, MPI_INFO_NULL, &dd));
    expect_hints(dd, 0, NULL, "MPI_Comm_dup_with_info(MPI_INFO_NULL)");
    allreduce_works(dd);
    expect_hints(c, 3, second, "parent after MPI_Comm_dup_with_info");
    /* idup_with_info: the same, nonblocking; the info may be freed at once */
    MPI_Comm di;
    MPI_Request rq;
    CHECK_MPI(MPI_Comm_idup_with_info(c, info, &di, &rq));
    CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_tag", "true")); /* after the call: not seen */
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    expect_hints(di, 1, third, "MPI_Comm_idup_with_info");
    CHECK_MPI(MPI_Comm_get_attr(di, copied_keyval, &got, &flag));
    CHECKF(flag && got == attr, "MPI_Comm_idup_with_info did not copy an attribute");
    allreduce_works(di);
    CHECK_MPI(MPI_Comm_free(&di));
    /* idup carries the parent's hints */
    CHECK_MPI(MPI_Comm_idup(c, &di, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    expect_hints(di, 3, second, "MPI_Comm_idup");
    CHECK_MPI(MPI_Comm_free(&di));
    CHECK_MPI(MPI_Comm_free(&dd));
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Info_free(&info));

    /* freed with its hints */
    CHECK_MPI(MPI_Comm_free(&c));
    free(attr);

    /* MPI_COMM_WORLD keeps hints until MPI_Finalize */
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_source", "false"));
    CHECK_MPI(MPI_Comm_set_info(MPI_COMM_WORLD, info));
    CHECK_MPI(MPI_Info_free(&info));
    const char *const world[][2] = {{"mpi_assert_no_any_source", "false"}};
    expect_hints(MPI_COMM_WORLD, 1, world, "MPI_COMM_WORLD");
}

static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Info info, out;
    MPI_Comm c;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_ERR(MPI_Comm_set_info(MPI_COMM_NULL, info), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_get_info(MPI_COMM_NULL, &out), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_dup_with_info(MPI_COMM_NULL, info, &c), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_set_info(MPI_COMM_SELF, MPI_INFO_NULL), MPI_ERR_INFO);
    CHECK_ERR(MPI_Comm_get_info(MPI_COMM_SELF, NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Comm_dup_with_info(MPI_COMM_SELF, info, NULL), MPI_ERR_ARG);
    CHECK_MPI(MPI_Info_free(&info));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &copied_keyval,
                                     NULL));
    hints();
    errors();
    CHECK_MPI(MPI_Comm_free_keyval(&copied_keyval));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_info: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
