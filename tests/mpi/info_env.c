/* info_env: MPI-4.0's MPI_Info_get_string and MPI_Info_create_env, and
 * MPI-3.1's MPI_INFO_ENV.
 *   - info calls work before MPI_Init and after MPI_Finalize;
 *   - MPI_Info_create_env: "command" and "argv" from the arguments given
 *     (or the process's own command line for argc 0), "host", "arch",
 *     "wdir" (the working directory), the same before and after MPI_Init;
 *   - MPI_INFO_ENV holds the same after MPI_Init, "maxprocs" the job size,
 *     and cannot be freed (MPI_ERR_INFO);
 *   - MPI_Info_get_string: buflen in and out counts the terminator, values
 *     too long are cut, buflen 0 leaves value alone, a missing key leaves
 *     both alone; bad arguments fail with their classes. */
#include <unistd.h>

#include "testutil.h"

static void want_string(MPI_Info info, const char *key, const char *want)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int len = sizeof v, flag = 0;
    CHECK_MPI(MPI_Info_get_string(info, key, &len, v, &flag));
    CHECKF(flag, "key %s missing", key);
    CHECKF(strcmp(v, want) == 0 && len == (int)strlen(want) + 1,
           "key %s = \"%s\" (buflen %d), expected \"%s\"", key, v, len, want);
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

int main(int argc, char **argv)
{
    char v[MPI_MAX_INFO_VAL + 1], cwd[MPI_MAX_INFO_VAL + 1], host[256];
    int len, flag, n;
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(gethostname(host, sizeof host) == 0);

    /* Before MPI_Init. */
    MPI_Info pre, env;
    char *args[] = {"/some/prog", "a b", "c", NULL};
    CHECK_MPI(MPI_Info_create_env(3, args, &env));
    want_string(env, "command", "/some/prog");
    want_string(env, "argv", "a b c");
    want_string(env, "wdir", cwd);
    want_string(env, "host", host);
    len = sizeof v;
    CHECK_MPI(MPI_Info_get_string(env, "arch", &len, v, &flag));
    CHECK(flag && len > 1);
    CHECK_MPI(MPI_Info_get_string(env, "maxprocs", &len, v, &flag));
    CHECK(!flag); /* not known before MPI_Init */
    CHECK_MPI(MPI_Info_free(&env));
    CHECK_MPI(MPI_Info_create(&pre));
    CHECK_MPI(MPI_Info_set(pre, "made", "before MPI_Init"));

    CHECK_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    want_string(pre, "made", "before MPI_Init");

    /* MPI_INFO_ENV: the command line of this process, the job's size. */
    char nprocs[16];
    snprintf(nprocs, sizeof nprocs, "%d", size);
    want_string(MPI_INFO_ENV, "maxprocs", nprocs);
    want_string(MPI_INFO_ENV, "wdir", cwd);
    want_string(MPI_INFO_ENV, "host", host);
    len = sizeof v;
    CHECK_MPI(MPI_Info_get_string(MPI_INFO_ENV, "command", &len, v, &flag));
    CHECKF(flag && ends_with(v, "info_env"), "command \"%s\"", v);
    CHECK_MPI(MPI_Info_get_string(MPI_INFO_ENV, "argv", &len, v, &flag));
    CHECKF(flag && strcmp(v, "") == 0, "argv \"%s\"", v); /* the tests run without arguments */
    MPI_Info e = MPI_INFO_ENV, d;
    CHECK_ERR(MPI_Info_free(&e), MPI_ERR_INFO);
    CHECK(e == MPI_INFO_ENV);
    CHECK_MPI(MPI_Info_dup(MPI_INFO_ENV, &d));
    int nd;
    CHECK_MPI(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
    CHECK_MPI(MPI_Info_get_nkeys(d, &nd));
    CHECK(n == nd && n >= 6);
    CHECK_MPI(MPI_Info_free(&d));

    /* create_env without arguments: this process's own command line. */
    CHECK_MPI(MPI_Info_create_env(0, NULL, &env));
    len = sizeof v;
    CHECK_MPI(MPI_Info_get_string(env, "command", &len, v, &flag));
    CHECKF(flag && ends_with(v, "info_env"), "command \"%s\"", v);
    CHECK_MPI(MPI_Info_get_string(env, "maxprocs", &len, v, &flag));
    CHECK(!flag); /* MPI_INFO_ENV's only: create_env is the same before MPI_Init */

    /* get_string's buflen. */
    CHECK_MPI(MPI_Info_set(env, "k", "0123456789"));
    memset(v, 'x', sizeof v);
    len = 0;
    CHECK_MPI(MPI_Info_get_string(env, "k", &len, v, &flag));
    CHECK(flag && len == 11 && v[0] == 'x');
    len = 4;
    CHECK_MPI(MPI_Info_get_string(env, "k", &len, v, &flag));
    CHECK(flag && len == 11 && strcmp(v, "012") == 0 && v[4] == 'x');
    len = 11;
    CHECK_MPI(MPI_Info_get_string(env, "k", &len, v, &flag));
    CHECK(flag && len == 11 && strcmp(v, "0123456789") == 0);
    len = 10;
    CHECK_MPI(MPI_Info_get_string(env, "k", &len, v, &flag));
    CHECK(flag && len == 11 && strcmp(v, "012345678") == 0);
    CHECK_MPI(MPI_Info_set(env, "empty", ""));
    len = 1;
    CHECK_MPI(MPI_Info_get_string(env, "empty", &len, v, &flag));
    CHECK(flag && len == 1 && v[0] == 0);
    memset(v, 'x', sizeof v);
    len = 5;
    flag = 1;
    CHECK_MPI(MPI_Info_get_string(env, "nokey", &len, v, &flag));
    CHECK(!flag && len == 5 && v[0] == 'x');

    /* errors */
    len = -1;
    CHECK_ERR(MPI_Info_get_string(env, "k", &len, v, &flag), MPI_ERR_ARG);
    len = 4;
    CHECK_ERR(MPI_Info_get_string(MPI_INFO_NULL, "k", &len, v, &flag), MPI_ERR_INFO);
    CHECK_ERR(MPI_Info_get_string(env, "", &len, v, &flag), MPI_ERR_INFO_KEY);
    CHECK_ERR(MPI_Info_get_string(env, "k", &len, NULL, &flag), MPI_ERR_ARG);
    CHECK_ERR(MPI_Info_get_string(env, "k", NULL, v, &flag), MPI_ERR_ARG);
    CHECK_ERR(MPI_Info_create_env(-1, NULL, &d), MPI_ERR_ARG);
    CHECK_ERR(MPI_Info_create_env(0, NULL, NULL), MPI_ERR_ARG);
    CHECK_MPI(MPI_Info_free(&env));

    CHECK_MPI(MPI_Finalize());
    /* After MPI_Finalize. */
    want_string(pre, "made", "before MPI_Init");
    CHECK_MPI(MPI_Info_free(&pre));
    if (rank == 0)
        printf("info_env: OK (%d ranks)\n", size);
    return 0;
}
