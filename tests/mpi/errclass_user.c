/* errclass_user: error classes, codes and strings the program adds.
 * MPI_Add_error_class returns classes above MPI_ERR_LASTCODE, the same on
 * every rank when added in the same order, and raises MPI_LASTUSEDCODE to
 * the largest class (codes leave it alone); MPI_Add_error_code works on
 * user and predefined classes; MPI_Error_class maps codes to their class,
 * MPI_Error_string returns the string as added ("" before any, the newer
 * after a replacement); MPI_Comm_call_errhandler and
 * MPI_Win_call_errhandler hand user codes to user handlers unchanged; the
 * calls refuse predefined codes, non-classes and over-long strings with
 * MPI_ERR_ARG. */
#include "testutil.h"

static int comm_calls, comm_code, win_calls, win_code;

static void comm_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    comm_calls++;
    comm_code = *code;
}

static void win_handler(MPI_Win *win, int *code, ...)
{
    (void)win;
    win_calls++;
    win_code = *code;
}

static int lastused(void)
{
    int *v = NULL, flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag && v);
    return *v;
}

static void check_string(int code, const char *want)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    memset(s, 'x', sizeof s);
    CHECK_MPI(MPI_Error_string(code, s, &len));
    CHECKF(strcmp(s, want) == 0 && len == (int)strlen(want),
           "MPI_Error_string(%d) = \"%s\" (len %d), expected \"%s\"", code, s, len, want);
}

static void check_class(int code, int cls)
{
    int got = -1;
    CHECK_MPI(MPI_Error_class(code, &got));
    CHECKF(got == cls, "MPI_Error_class(%d) = %d, expected %d", code, got, cls);
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    int last0 = lastused();
    CHECK(last0 >= MPI_ERR_LASTCODE);
#ifdef FABMPI
    CHECK_EQ(last0, MPI_ERR_LASTCODE);
#endif

    /* Classes: new values above everything used, identity under Error_class,
     * empty string until one is added. */
    int c1, c2;
    CHECK_MPI(MPI_Add_error_class(&c1));
    CHECK(c1 > MPI_ERR_LASTCODE && c1 > last0);
    CHECK_EQ(lastused(), c1);
    CHECK_MPI(MPI_Add_error_class(&c2));
    CHECK(c2 > c1);
    CHECK_EQ(lastused(), c2);
    check_class(c1, c1);
    check_class(c2, c2);
    check_string(c1, "");

    /* The same order of calls gives the same values on every rank. */
    int mine[2] = {c1, c2}, lo[2], hi[2];
    CHECK_MPI(MPI_Allreduce(mine, lo, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(mine, hi, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(lo[0] == hi[0] && lo[1] == hi[1]);

    /* Codes: of user and predefined classes, distinct from every class and
     * from each other; MPI_LASTUSEDCODE stays the largest class. */
    int e1, e2, e3;
    CHECK_MPI(MPI_Add_error_code(c1, &e1));
    CHECK_MPI(MPI_Add_error_code(c1, &e2));
    CHECK_MPI(MPI_Add_error_code(MPI_ERR_ARG, &e3));
    CHECK(e1 != e2 && e1 != e3 && e2 != e3);
    CHECK(e1 != c1 && e1 != c2 && e3 != MPI_ERR_ARG && e1 > MPI_ERR_LASTCODE);
    check_class(e1, c1);
    check_class(e2, c1);
    check_class(e3, MPI_ERR_ARG);
    CHECK_EQ(lastused(), c2);
    check_string(e1, "");

    /* Strings: set, replaced, per code; the class keeps its own. */
    CHECK_MPI(MPI_Add_error_string(e1, "first string of e1"));
    check_string(e1, "first string of e1");
    CHECK_MPI(MPI_Add_error_string(e1, "e1, replaced"));
    check_string(e1, "e1, replaced");
    check_string(e2, "");
    CHECK_MPI(MPI_Add_error_string(c1, "class c1\n"));
    check_string(c1, "class c1\n");
    check_string(e1, "e1, replaced");
    CHECK_MPI(MPI_Add_error_string(e3, "an MPI_ERR_ARG of the program's"));
    check_string(e3, "an MPI_ERR_ARG of the program's");
    char longest[MPI_MAX_ERROR_STRING];
    memset(longest, 'L', sizeof longest - 1);
    longest[sizeof longest - 1] = 0;
    CHECK_MPI(MPI_Add_error_string(e2, longest));
    check_string(e2, longest);

    /* Refusals, each MPI_ERR_ARG. */
    char too_long[MPI_MAX_ERROR_STRING + 1];
    memset(too_long, 'T', sizeof too_long - 1);
    too_long[sizeof too_long - 1] = 0;
    CHECK_ERR(MPI_Add_error_string(e2, too_long), MPI_ERR_ARG);
    check_string(e2, longest);
    CHECK_ERR(MPI_Add_error_string(MPI_ERR_ARG, "predefined"), MPI_ERR_ARG);
    CHECK_ERR(MPI_Add_error_string(MPI_ERR_LASTCODE, "predefined"), MPI_ERR_ARG);
    int failed = MPI_Comm_rank(MPI_COMM_NULL, &rank); /* a code the library made */
    CHECK(failed != MPI_SUCCESS);
    CHECK_ERR(MPI_Add_error_string(failed, "library's"), MPI_ERR_ARG);
    CHECK_ERR(MPI_Add_error_string(c2 + 1, "not added yet"), MPI_ERR_ARG);
    CHECK_ERR(MPI_Add_error_string(-5, "negative"), MPI_ERR_ARG);
    int unused = -1;
    CHECK_ERR(MPI_Add_error_code(c2 + 1, &unused), MPI_ERR_ARG);
    CHECK_ERR(MPI_Add_error_code(e1, &unused), MPI_ERR_ARG);
    CHECK_ERR(MPI_Add_error_code(-1, &unused), MPI_ERR_ARG);
#ifdef FABMPI
    CHECK_ERR(MPI_Add_error_code(MPI_SUCCESS, &unused), MPI_ERR_ARG);
    CHECK_ERR(MPI_Add_error_class(NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Add_error_code(c1, NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Add_error_string(e1, NULL), MPI_ERR_ARG);
    check_string(e1, "e1, replaced");
#endif
    CHECK_EQ(unused, -1);
    CHECK_ERR(MPI_Error_class(c2 + 1, &unused), MPI_ERR_ARG);

    /* Handlers get user codes unchanged. */
    MPI_Errhandler eh;
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_create_errhandler(comm_handler, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(dup, eh));
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK_MPI(MPI_Comm_call_errhandler(dup, e1));
    CHECK_EQ(comm_calls, 1);
    CHECK_EQ(comm_code, e1);
    CHECK_MPI(MPI_Comm_call_errhandler(dup, c2));
    CHECK_EQ(comm_calls, 2);
    CHECK_EQ(comm_code, c2);
    CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, e3)); /* ERRORS_RETURN: nothing */
    CHECK_EQ(comm_calls, 2);
    CHECK_MPI(MPI_Comm_free(&dup));

    int wbuf = 0;
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(&wbuf, sizeof wbuf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_create_errhandler(win_handler, &eh));
    CHECK_MPI(MPI_Win_set_errhandler(win, eh));
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK_MPI(MPI_Win_call_errhandler(win, e2));
    CHECK_EQ(win_calls, 1);
    CHECK_EQ(win_code, e2);
    CHECK_MPI(MPI_Win_free(&win));

    /* Many codes over many classes, each with its own string. */
    enum { NCLASS = 24, NCODE = 40 };
    static int cls[NCLASS], code[NCLASS][NCODE];
    for (int i = 0; i < NCLASS; i++) {
        CHECK_MPI(MPI_Add_error_class(&cls[i]));
        for (int j = 0; j < NCODE; j++) {
            char s[64];
            CHECK_MPI(MPI_Add_error_code(cls[i], &code[i][j]));
            snprintf(s, sizeof s, "class %d code %d", i, j);
            CHECK_MPI(MPI_Add_error_string(code[i][j], s));
        }
    }
    CHECK_EQ(lastused(), cls[NCLASS - 1]);
    for (int i = 0; i < NCLASS; i++)
        for (int j = 0; j < NCODE; j++) {
            char s[64];
            snprintf(s, sizeof s, "class %d code %d", i, j);
            check_class(code[i][j], cls[i]);
            check_string(code[i][j], s);
        }
    check_string(e1, "e1, replaced");

#ifdef FABMPI
    /* fabmpi has room for the class numbers below 256; past them the call
     * fails and changes nothing. */
    int n = NCLASS + 2, last = cls[NCLASS - 1], c;
    while (MPI_Add_error_class(&c) == MPI_SUCCESS) {
        CHECK_EQ(c, last + 1);
        last = c;
        n++;
    }
    CHECK_EQ(last, 255);
    CHECK_EQ(n, 255 - MPI_ERR_LASTCODE);
    CHECK_ERR(MPI_Add_error_class(&c), MPI_ERR_OTHER);
    CHECK_EQ(lastused(), 255);
    CHECK_MPI(MPI_Add_error_code(255, &c));
    check_class(c, 255);
#endif

    CHECK_MPI(MPI_Finalize());
    /* Still answered after MPI_Finalize. */
    check_class(e1, c1);
    check_string(e3, "an MPI_ERR_ARG of the program's");
    if (rank == 0)
        printf("errclass_user: OK (%d ranks)\n", size);
    return 0;
}
