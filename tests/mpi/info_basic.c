/* info_basic: MPI_Info create/set/get/get_nkeys/get_nthkey/get_valuelen/
 * dup/delete/free, overwrite keeps the key's position, truncated gets,
 * missing keys, MPI_INFO_NULL, and error classes for bad arguments. */
#include "testutil.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Info info, dup;
    char val[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
    int flag, n, len;

    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_get_nkeys(info, &n));
    CHECK_EQ(n, 0);
    CHECK_MPI(MPI_Info_set(info, "no_locks", "true"));
    CHECK_MPI(MPI_Info_set(info, "accumulate_ordering", "none"));
    CHECK_MPI(MPI_Info_set(info, "same_size", "false"));
    CHECK_MPI(MPI_Info_set(info, "no_locks", "false")); /* overwrite */
    CHECK_MPI(MPI_Info_get_nkeys(info, &n));
    CHECK_EQ(n, 3);
    CHECK_MPI(MPI_Info_get_nthkey(info, 0, key));
    CHECK(strcmp(key, "no_locks") == 0);
    CHECK_MPI(MPI_Info_get_nthkey(info, 2, key));
    CHECK(strcmp(key, "same_size") == 0);
    CHECK_MPI(MPI_Info_get(info, "no_locks", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, "false") == 0);
    CHECK_MPI(MPI_Info_get_valuelen(info, "accumulate_ordering", &len, &flag));
    CHECK(flag);
    CHECK_EQ(len, 4);
    CHECK_MPI(MPI_Info_get(info, "accumulate_ordering", 2, val, &flag)); /* truncated */
    CHECK(flag && strcmp(val, "no") == 0);
    CHECK_MPI(MPI_Info_get(info, "missing", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(!flag);
    CHECK_MPI(MPI_Info_get_valuelen(info, "missing", &len, &flag));
    CHECK(!flag);

    CHECK_MPI(MPI_Info_dup(info, &dup));
    CHECK_MPI(MPI_Info_delete(info, "no_locks"));
    CHECK_MPI(MPI_Info_get_nkeys(info, &n));
    CHECK_EQ(n, 2);
    CHECK_MPI(MPI_Info_get_nthkey(info, 0, key));
    CHECK(strcmp(key, "accumulate_ordering") == 0);
    CHECK_MPI(MPI_Info_get_nkeys(dup, &n)); /* the copy is independent */
    CHECK_EQ(n, 3);
    CHECK_MPI(MPI_Info_get(dup, "no_locks", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, "false") == 0);

    CHECK_ERR(MPI_Info_delete(info, "no_locks"), MPI_ERR_INFO_NOKEY);
    CHECK_ERR(MPI_Info_get_nthkey(info, 5, key), MPI_ERR_ARG);
    CHECK_ERR(MPI_Info_set(info, "", "x"), MPI_ERR_INFO_KEY);
    CHECK_ERR(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO);

    /* a window keeps its hints; Win_get_info hands back a copy */
    MPI_Win win;
    int *base;
    CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), dup, MPI_COMM_WORLD, &base, &win));
    MPI_Info used;
    CHECK_MPI(MPI_Win_get_info(win, &used));
    CHECK_MPI(MPI_Info_get(used, "same_size", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, "false") == 0);
    CHECK_MPI(MPI_Info_free(&used));
    CHECK_MPI(MPI_Win_free(&win));

    CHECK_MPI(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL);
    CHECK_MPI(MPI_Info_free(&dup));
    MPI_Finalize();
    return 0;
}
