/* fuzz_mpiexec.c — mpiexec's command line (fm_mx_parse_args,
 * tools/mpiexec_args.c) and its host lists: --host (fm_mx_hosts_add_list)
 * and hostfile contents (fm_mx_hosts_add_stream, tools/mpiexec_hosts.c).
 *
 * Input: [mode byte] then, by mode % 3:
 *   0  a hostfile's bytes (read through fmemopen);
 *   1  a --host list (up to the first NUL);
 *   2  arguments separated by NUL (after argv[0] = "mpiexec"); inputs
 *      naming -h, --help, --version (they exit) or a hostfile option (it
 *      opens a file by the fuzzer's name) are skipped.
 * Checked on success: counts within what the options accept, every host
 * with a name and 1..1000000 slots (a repeated host adds up), the program
 * argv inside argv. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "mpiexec.h"

#define MAX_ARGS 32

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* The parser explains every refusal on stderr; keep that out of the
     * log.  libFuzzer and the sanitizers write through their own handles. */
    FILE *null = fopen("/dev/null", "w");
    if (null)
        stderr = null;
    return 0;
}

static void check_hosts(const struct fm_mx_job *job)
{
    for (int h = 0; h < job->nhosts; h++)
        if (!job->hosts[h].name || !job->hosts[h].name[0] || job->hosts[h].slots < 1 ||
            job->hosts[h].slots > 1000000) /* as for one entry: repeats must not wrap an int */
            abort();
}

static void job_free(struct fm_mx_job *job)
{
    for (int h = 0; h < job->nhosts; h++)
        free(job->hosts[h].name);
    free(job->hosts);
    free(job->xvars);
}

static int skipped(const char *a)
{
    return !strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "--version") ||
           (a[0] == '-' && strstr(a, "hostfile"));
}

static void run_args(fz_in *in)
{
    static char store[MAX_ARGS][256];
    char *argv[MAX_ARGS + 2] = {"mpiexec"};
    int argc = 1;
    while (argc <= MAX_ARGS && !fz_empty(in)) {
        fz_str(in, store[argc - 1], sizeof store[0]);
        if (skipped(store[argc - 1]))
            return;
        argv[argc] = store[argc - 1];
        argc++;
    }
    argv[argc] = NULL;
    struct fm_mx_job job = {0};
    if (fm_mx_parse_args(&job, argc, argv) == 0) {
        if (job.n < 1 || job.n > 1000000 || job.ppn < 0 || job.ppn > 1000000 ||
            job.timeout < 0 || job.nx >= argc || job.argv < argv + 1 || job.argv >= argv + argc ||
            !job.argv[0])
            abort();
        check_hosts(&job);
    }
    job_free(&job);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    int mode = fz_u8(&in) % 3;
    struct fm_mx_job job = {0};
    if (mode == 0) {
        if (!in.n)
            return 0; /* fmemopen refuses an empty buffer */
        FILE *f = fmemopen((void *)in.p, in.n, "r");
        if (!f)
            abort();
        if (fm_mx_hosts_add_stream(&job, f, "fuzz") == 0 && job.nhosts == 0)
            abort(); /* accepted a hostfile without hosts */
        fclose(f);
        check_hosts(&job);
    } else if (mode == 1) {
        char list[4096];
        fz_str(&in, list, sizeof list);
        if (fm_mx_hosts_add_list(&job, list) == 0)
            check_hosts(&job);
    } else {
        run_args(&in);
    }
    job_free(&job);
    return 0;
}
