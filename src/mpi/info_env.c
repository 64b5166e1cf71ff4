/* info_env.c — what the process was started with, as info keys: the
 * predefined MPI_INFO_ENV (filled by MPI_Init) and MPI-4.0's
 * MPI_Info_create_env (callable before MPI_Init too).
 *
 * Keys (MPI-3.1 9.3's reserved ones that apply here): "command" and "argv"
 * (the program and its arguments, space-separated), "host", "arch", "wdir":
 * the same before MPI_Init, after it and after MPI_Finalize.  MPI_INFO_ENV
 * also has "maxprocs" (the job size, known once MPI_Init runs).  "soft",
 * "file" and "thread_level" (launcher requests fabmpi's mpiexec does not
 * take) are absent, as the standard allows.  The
 * command line comes from argv when given, else from /proc/self/cmdline
 * (MPI_Init(NULL, NULL) programs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "boot/world.h"
#include "mpi/api.h"
#include "mpi/info.h"

/* The process's own argument vector from /proc (NULL-terminated, in one
 * allocation freed by the caller), or NULL. */
static char **proc_argv(int *argc)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return NULL;
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    int count = 0;
    for (size_t i = 0; i < n; i++)
        count += buf[i] == 0;
    char **v = malloc(sizeof(char *) * (size_t)(count + 1) + n + 1);
    if (!v)
        return NULL;
    char *text = (char *)(v + count + 1);
    memcpy(text, buf, n + 1);
    for (int k = 0; k < count; k++) {
        v[k] = text;
        text += strlen(text) + 1;
    }
    v[count] = NULL;
    *argc = count;
    return v;
}

/* argv[1..argc-1] joined by spaces, cut to what an info value may hold. */
static void join_args(int argc, char **argv, char *out)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 1; i < argc && argv[i]; i++) {
        int w = snprintf(out + n, MPI_MAX_INFO_VAL + 1 - n, "%s%s", i > 1 ? " " : "", argv[i]);
        if (w < 0 || (size_t)w >= MPI_MAX_INFO_VAL + 1 - n)
            break; /* snprintf left it cut at the limit */
        n += (size_t)w;
    }
}

static int fill(MPI_Info info, int argc, char **argv)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int rc = FM_OK, own_argc = 0;
    char **own = NULL;
    if (argc <= 0 || !argv || !argv[0])
        argv = own = proc_argv(&own_argc), argc = own_argc;
    if (argv && argc > 0) {
        snprintf(val, sizeof val, "%s", argv[0]);
        rc = fm_info_set(info, "command", val);
        join_args(argc, argv, val);
        if (!rc)
            rc = fm_info_set(info, "argv", val);
    }
    free(own);
    if (!rc && gethostname(val, sizeof val - 1) == 0) {
        val[sizeof val - 1] = 0;
        rc = fm_info_set(info, "host", val);
    }
    struct utsname u;
    if (!rc && uname(&u) == 0)
        rc = fm_info_set(info, "arch", u.machine);
    if (!rc && getcwd(val, sizeof val))
        rc = fm_info_set(info, "wdir", val);
    return rc;
}

void fm_info_env_init(void)
{
    /* Nothing is lost but keys if memory runs out here: MPI_INFO_ENV may
     * be empty (every key is optional). */
    if (fill(MPI_INFO_ENV, 0, NULL) == FM_OK) {
        char val[16];
        snprintf(val, sizeof val, "%d", fm_world_size);
        (void)fm_info_set(MPI_INFO_ENV, "maxprocs", val);
    }
}

#pragma weak MPI_Info_create_env = PMPI_Info_create_env
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Info_create_env";
    if (!info)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "info=NULL");
    if (argc < 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "argc=%d must be >= 0", argc);
    MPI_Info in = MPI_INFO_NULL;
    int rc = fm_info_copy(MPI_INFO_NULL, &in);
    if (rc == FM_OK && (rc = fill(in, argc, argv)) != FM_OK)
        fm_info_release(in);
    if (rc != FM_OK)
        return fm_raise_status(MPI_COMM_NULL, call, rc);
    *info = in;
    return MPI_SUCCESS;
}
