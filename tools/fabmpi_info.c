/* fabmpi_info — what this fabmpi is: version, build, transports, knobs
 * (the MPI_T control variables), performance variables.
 *
 *   fabmpi_info              everything, knobs with default and current value
 *   fabmpi_info --markdown   docs/ENV.md, generated from the knob table */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <mpi.h>

#include "fm_config.h"
#include "net/ofi/ofi_info.h"
#include "util/param.h"

/* Can this process create a shared-memory segment the way the shm transport does? */
static const char *shm_status(void)
{
    char name[64];
    snprintf(name, sizeof name, "/fabmpi-info-%d", (int)getpid());
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
        return strerror(errno);
    shm_unlink(name);
    close(fd);
    return "available";
}

/* Is process_vm_readv permitted (ptrace policy, seccomp)?  Tried on ourselves. */
static const char *cma_status(void)
{
    long word = 42, copy = 0;
    struct iovec l = {&copy, sizeof copy}, r = {&word, sizeof word};
    if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != (ssize_t)sizeof copy || copy != 42)
        return "refused here (rendezvous will pipeline through shared memory)";
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int scope = 0;
    if (f) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = 0;
        fclose(f);
    }
    return scope >= 1 ? "restricted by Yama ptrace_scope; auto mode will probe and may pipeline"
                      : "available (single-copy rendezvous)";
}

/* cat_of[i]: the category of performance variable (events: 0) or event
 * (events: 1) i. */
static void categories_of(int events, char cat_of[256][16])
{
    int ncat;
    MPI_T_category_get_num(&ncat);
    for (int c = 0; c < ncat; c++) {
        char name[16];
        int len = sizeof name, n = 0, idx[256];
        MPI_T_category_get_info(c, name, &len, NULL, NULL, NULL, &n, NULL);
        if (events) {
            MPI_T_category_get_num_events(c, &n);
            MPI_T_category_get_events(c, n < 256 ? n : 256, idx);
        } else {
            MPI_T_category_get_pvars(c, n < 256 ? n : 256, idx);
        }
        for (int k = 0; k < n && k < 256; k++)
            if (idx[k] < 256)
                snprintf(cat_of[idx[k]], sizeof cat_of[0], "%s", name);
    }
}

/* The performance variables and events, as a tool sees them through MPI_T. */
static void print_pvars(void)
{
    int provided, npvar, nev;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return;
    MPI_T_pvar_get_num(&npvar);
    char cat_of[256][16] = {{0}};
    categories_of(0, cat_of);
    static const char *const cls[] = {"", "state", "level", "size", "percentage", "highwater",
                                      "lowwater", "counter", "aggregate", "timer", "generic"};
    printf("performance variables (MPI_T; categories as for the knobs):\n");
    for (int i = 0; i < npvar && i < 256; i++) {
        char name[64], desc[512];
        int nl = sizeof name, dl = sizeof desc, verb, c, bind, ro, cont, atomic;
        MPI_Datatype dt;
        MPI_T_enum en;
        MPI_T_pvar_get_info(i, name, &nl, &verb, &c, &dt, &en, desc, &dl, &bind, &ro, &cont, &atomic);
        printf("  %-28s %-9s %-8s %s%s\n", name, c >= 1 && c <= 10 ? cls[c] : "?", cat_of[i], desc,
               bind == MPI_T_BIND_MPI_COMM ? " (per communicator)" : "");
    }
    MPI_T_event_get_num(&nev);
    memset(cat_of, 0, sizeof cat_of);
    categories_of(1, cat_of);
    printf("events (MPI_T, told to registered callbacks; source 0: the time-stamp counter):\n");
    for (int i = 0; i < nev && i < 256; i++) {
        char name[64], desc[1024];
        int nl = sizeof name, dl = sizeof desc, bind;
        MPI_T_event_get_info(i, name, &nl, NULL, NULL, NULL, NULL, NULL, NULL, desc, &dl, &bind);
        printf("  %-28s %-8s %s%s\n", name, cat_of[i], desc,
               bind == MPI_T_BIND_MPI_COMM ? " (per communicator)" : "");
    }
    MPI_T_finalize();
}

int main(int argc, char **argv)
{
    char err[512];
    int bad = fm_param_load(err, sizeof err);
    if (argc > 1 && !strcmp(argv[1], "--markdown")) {
        fm_param_write_markdown(stdout);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "usage: fabmpi_info [--markdown]\n");
        return 2;
    }
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(ver, &len);
    printf("fabmpi %s\n", FM_VERSION);
    printf("  library:     %s\n", ver);
    printf("  standard:    MPI %d.%d\n", MPI_VERSION, MPI_SUBVERSION);
    printf("  prefix:      %s\n", FM_PREFIX);
    printf("  build:       %s, compiler %s\n", FM_BUILD_TYPE, FM_CC);
    printf("  thread level: up to MPI_THREAD_MULTIPLE (one library lock; docs/THREADS.md)\n");
    printf("  MPI_TAG_UB:  2147483647 (software matching; FABMPI_PT2PT=ofi: per tag mode below)\n");
    printf("transports:\n");
    printf("  self         available\n");
    printf("  shm          %s\n", shm_status());
    printf("  shm/cma      %s\n", cma_status());
    fm_ofi_print_info(stdout);
    printf("knobs (environment variables; docs/ENV.md has the same table):\n");
    if (bad)
        printf("  warning: %s\n", err);
    fm_param_print(stdout);
    print_pvars();
    return 0;
}
