/* init.c — MPI_Init/Finalize/Abort and the environment queries. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fabmpi/crt.h>

#include "boot/boot.h"
#include "coll/coll.h"
#include "coll/coll_util.h"
#include "boot/hang.h"
#include "core/progress.h"
#include "core/task.h"
#include "core/world.h"
#include "dtype/dtype.h"
#include "fm_config.h"
#include "am/am.h"
#include "mpi/api.h"
#include "mpi/f2c.h"
#include "mpi/info.h"
#include "mpi/request_api.h"
#include "pt2pt/pt2pt.h"
#include "util/log.h"
#include "util/param.h"

int fm_mpi_state;
int fm_thread_level = MPI_THREAD_SINGLE;
static pthread_t main_thread;

/* Startup failures end the process: nothing is set up that could report
 * through an error handler, and the launcher turns the exit into a job end. */
static void init_fail(const char *what, const char *msg)
{
    fm_log_print("error", "MPI_Init: %s: %s", what, msg);
    exit(1);
}

static int init_common(int required)
{
    if (fm_mpi_state != 0)
        return fm_raise(MPI_COMM_NULL, "MPI_Init", MPI_ERR_OTHER, "%s",
                        fm_mpi_state == 1 ? "MPI is already initialized"
                                          : "MPI cannot be initialized again after MPI_Finalize");
    char err[512];
    int rc = fm_param_load(err, sizeof err);
    if (rc != FM_OK)
        init_fail("bad environment", err);
    fm_boot_info info;
    rc = fm_boot_init(&info, err, sizeof err);
    if (rc != FM_OK)
        init_fail("bootstrap", err);
    /* Shared-memory names (transport, windows, collective caches) all use
     * FABMPI_JOBID; under PMIx/PMI2/singleton it comes from the launcher. */
    static char jobid[sizeof info.jobid];
    if (!fm_param.JOBID[0]) {
        snprintf(jobid, sizeof jobid, "%s", info.jobid);
        fm_param.JOBID = jobid;
    }
    fm_log_rank = info.rank;
    fm_world_rank = info.rank;
    fm_world_size = info.size;
    fm_local_rank = info.local_rank;
    fm_local_size = info.local_size;
    fm_dt_init();
    unsigned errors_before = fm_log_errors;
    if (fm_am_publish() != FM_OK)
        fm_boot_abort(1, "fabmpi: MPI_Init could not reserve the active-message segment");
    if ((rc = fm_pt2pt_init(info.rank, info.size)) != FM_OK) {
        if (fm_log_errors == errors_before)
            fm_error_msg("setting up transports failed: %s (%s)", fm_status_msg(rc), fm_status_name(rc));
        fm_boot_abort(1, "fabmpi: MPI_Init could not set up its transports (see the message above)");
    }
    if (fm_am_init(info.rank, info.size) != FM_OK)
        fm_boot_abort(1, "fabmpi: MPI_Init could not set up active messages (see the message above)");
    if ((rc = fm_comm_init(info.rank, info.size)) != FM_OK)
        fm_boot_abort(1, "fabmpi: MPI_Init could not create MPI_COMM_WORLD");
    main_thread = pthread_self();
    fm_thread_level = required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                      : required < MPI_THREAD_SINGLE   ? MPI_THREAD_SINGLE
                                                       : required;
    /* Before the level is returned, so before a second thread may call. */
    if (fm_thread_level == MPI_THREAD_MULTIPLE) {
        fm_cs_bias_to_caller();
        fm_cs_on = 1;
    }
    if (required >= MPIX_TASK_MULTIPLE) {
        const char *why = NULL;
        if (fm_task_init(&why) == FM_OK)
            fm_thread_level = MPIX_TASK_MULTIPLE;
        else if (info.rank == 0)
            fm_log(1, "MPIX_TASK_MULTIPLE asked for, MPI_THREAD_MULTIPLE provided: %s", why);
        fm_log(1, "crt runtime: %s", crt_runtime_name());
    }
    fm_mpi_state = 1;
    if ((fm_param.PROGRESS_THREAD == FM_PROGRESS_THREAD_ON || fm_task_needs_progress_thread()) &&
        fm_progress_thread_start() != FM_OK)
        fm_boot_abort(1, "fabmpi: MPI_Init could not start the progress thread (see the message above)");
    fm_info_env_init();
    if (fm_param.VERBOSE_ENV && info.rank == 0)
        fm_param_print_effective(stderr);
    return MPI_SUCCESS;
}

#pragma weak MPI_Init = PMPI_Init
int PMPI_Init(int *argc, char ***argv)
{
    FM_API_LOCK();
    (void)argc;
    (void)argv;
    return init_common(MPI_THREAD_SINGLE);
}

#pragma weak MPI_Init_thread = PMPI_Init_thread
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    FM_API_LOCK();
    (void)argc;
    (void)argv;
    int rc = init_common(required);
    if (rc == MPI_SUCCESS)
        *provided = fm_thread_level;
    return rc;
}

#pragma weak MPI_Initialized = PMPI_Initialized
int PMPI_Initialized(int *flag)
{
    *flag = fm_mpi_state >= 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalized = PMPI_Finalized
int PMPI_Finalized(int *flag)
{
    *flag = fm_mpi_state == 2;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalize = PMPI_Finalize
int PMPI_Finalize(void)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Finalize");
    FM_HANG_SCOPE("MPI_Finalize", FM_HANG_NONE, FM_HANG_NONE, "MPI_COMM_WORLD", -1);
    fm_detach_finalize();
    /* Finalize is collective: no rank tears down while others still talk. */
    int rc = fm_coll_barrier(MPI_COMM_WORLD);
    if (rc != FM_OK)
        return fm_raise_status(MPI_COMM_WORLD, "MPI_Finalize", rc);
    fm_progress_thread_stop(fm_thread_level >= MPI_THREAD_MULTIPLE);
    fm_comm_finalize();
    fm_coll_tmp_release_all();
    fm_f_finalize();
    fm_am_rma_finalize();
    fm_pt2pt_finalize();
    fm_am_finalize();
    fm_boot_finalize();
    fm_mpi_state = 2;
    return MPI_SUCCESS;
}

#pragma weak MPI_Abort = PMPI_Abort
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char why[200];
    const char *name = fm_mpi_state == 1 && fm_comm_valid(comm) ? comm->name : "<comm>";
    snprintf(why, sizeof why, "MPI_Abort(%s, %d) called by rank %d", name, errorcode,
             fm_world_rank);
    if (fm_mpi_state != 1) {
        fm_log_print("error", "%s", why);
        exit(errorcode);
    }
    fm_boot_abort(errorcode, why);
}

/* fabmpi's extension: start (on = 1) or stop (on = 0) the progress thread
 * FABMPI_PROGRESS_THREAD describes, e.g. around a computing phase. */
#pragma weak MPIX_Progress_thread = PMPIX_Progress_thread
int PMPIX_Progress_thread(int on)
{
    FM_API_LOCK();
    static const char call[] = "MPIX_Progress_thread";
    FM_CHECK_INIT(call);
    if (on != 0 && on != 1)
        return fm_raise(MPI_COMM_WORLD, call, MPI_ERR_ARG, "on=%d must be 0 (stop) or 1 (start)",
                        on);
    if (!on && fm_task_needs_progress_thread())
        return fm_raise(MPI_COMM_WORLD, call, MPI_ERR_OTHER,
                        "on=0: at MPIX_TASK_MULTIPLE under the installed crt runtime \"%s\", "
                        "blocked tasks complete only through the progress thread",
                        crt_runtime_name());
    if (!on) {
        fm_progress_thread_stop(fm_thread_level >= MPI_THREAD_MULTIPLE);
        return MPI_SUCCESS;
    }
    /* Below MPI_THREAD_MULTIPLE this call runs unlocked: take the lock
     * before the thread can, and give it back on the way out. */
    int take = !fm_cs_on;
    if (take) {
        fm_cs_on = 1;
        fm_cs_enter();
    }
    int rc = fm_progress_thread_start();
    if (take) {
        fm_cs_exit();
        if (rc != FM_OK)
            fm_cs_on = 0;
    }
    return rc == FM_OK ? MPI_SUCCESS
                       : fm_raise(MPI_COMM_WORLD, call, MPI_ERR_OTHER,
                                  "could not start the progress thread (see the message above)");
}

#pragma weak MPI_Query_thread = PMPI_Query_thread
int PMPI_Query_thread(int *provided)
{
    *provided = fm_thread_level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
int PMPI_Is_thread_main(int *flag)
{
    FM_CHECK_INIT("MPI_Is_thread_main");
    *flag = pthread_equal(pthread_self(), main_thread);
    return MPI_SUCCESS;
}

#pragma weak MPI_Wtime = PMPI_Wtime
double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#pragma weak MPI_Wtick = PMPI_Wtick
double PMPI_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The profiling interface's switch (MPI-3.1 section 14.2.4): a profiling
 * library that interposes MPI_Pcontrol reads level.  The library itself has
 * nothing to switch, so the standard has it return at once. */
#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
int PMPI_Get_processor_name(char *name, int *resultlen)
{
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_version = PMPI_Get_version
int PMPI_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_library_version = PMPI_Get_library_version
int PMPI_Get_library_version(char *version, int *resultlen)
{
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "fabmpi %s (MPI %d.%d), %s build, %s", FM_VERSION, MPI_VERSION,
                     MPI_SUBVERSION, FM_BUILD_TYPE, FM_CC);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}
