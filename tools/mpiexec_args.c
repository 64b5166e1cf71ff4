/* mpiexec_args.c — mpiexec's command line: options into the job, the
 * rank program's argv after them.  No I/O beyond --hostfile and the help
 * and error texts, so tests/fuzz/fuzz_mpiexec.c can call it. */
#include "mpiexec.h"
#include "fm_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpiexec [options] program [args...]   (mpirun is the same program)\n"
            "\n"
            "  -n, -np N          start N ranks (default 1); more ranks than cores is fine\n"
            "  -x VAR[=value]     pass VAR from this environment, or set it, for every rank\n"
            "  --host H1[:S],...  run on these hosts (S slots each, default 1)\n"
            "  --hostfile FILE    hosts from FILE, one per line: 'host [slots=N]', # comments\n"
            "  -N, --ppn N        N ranks per host (default -n: one per slot)\n"
            "  --launcher fork|ssh  fork: ranks are children of mpiexec (this host only);\n"
            "                     ssh: one fabmpi_hostd per host over $FABMPI_SSH\n"
            "                     (default: fork when every host is this one, else ssh)\n"
            "  --bind-to core|none  bind each rank to a core of its host (default none)\n"
            "  -t                 print what would be run, run nothing\n"
            "  --tag-output       prefix every output line with the rank, e.g. \"[1] \"\n"
            "  --timeout SECONDS  end the job if it runs longer (exit status 124)\n"
            "  -v, --verbose      print what is launched and how the job ends\n"
            "  -h, --help         this text\n"
            "      --version      print the fabmpi version\n"
            "\n"
            "Exit status: 0 if every rank exited 0; else the first failure: a rank's exit\n"
            "status, 128+N for a rank killed by signal N, the MPI_Abort code, or 124 on timeout.\n"
            "A failing rank ends the others (SIGTERM, then SIGKILL after FABMPI_EXIT_TIMEOUT s).\n"
            "Knobs: see fabmpi_info.\n");
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "mpiexec: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "; see mpiexec --help\n");
    return 2;
}

/* Matches "--name value", "-name value" and "--name=value" forms. */
static const char *opt_value(const char *opt, const char *name, int *i, int argc, char **argv, int *err)
{
    size_t n = strlen(name);
    const char *o = opt[1] == '-' ? opt + 2 : opt + 1;
    if (strncmp(o, name, n))
        return NULL;
    if (o[n] == '=')
        return o + n + 1;
    if (o[n])
        return NULL;
    if (*i + 1 >= argc) {
        *err = 1;
        return NULL;
    }
    return argv[++*i];
}

int fm_mx_parse_args(struct fm_mx_job *job, int argc, char **argv)
{
    job->n = 1;
    job->xvars = calloc((size_t)argc, sizeof *job->xvars);
    int i;
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i], *v;
        int err = 0;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--version")) {
            printf("mpiexec (fabmpi) %s\n", FM_VERSION);
            exit(0);
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            job->verbose = 1;
        } else if (!strcmp(a, "--tag-output") || !strcmp(a, "-tag-output")) {
            job->tag_output = 1;
        } else if (!strcmp(a, "--oversubscribe") || !strcmp(a, "--allow-run-as-root")) {
            /* accepted for Open MPI habits: both are always allowed here */
        } else if ((v = opt_value(a, "np", &i, argc, argv, &err)) ||
                   (v = opt_value(a, "n", &i, argc, argv, &err))) {
            char *end;
            long n = strtol(v, &end, 10);
            if (end == v || *end || n < 1 || n > 1000000)
                return bad_usage("-n %s: expected a number of ranks >= 1", v);
            job->n = (int)n;
            job->n_given = 1;
        } else if (!strcmp(a, "-t")) {
            job->dry_run = 1;
        } else if ((v = opt_value(a, "hostfile", &i, argc, argv, &err))) {
            int rc = fm_mx_hosts_add_file(job, v);
            if (rc)
                return rc;
        } else if ((v = opt_value(a, "host", &i, argc, argv, &err)) ||
                   (v = opt_value(a, "H", &i, argc, argv, &err))) {
            int rc = fm_mx_hosts_add_list(job, v);
            if (rc)
                return rc;
        } else if ((v = opt_value(a, "ppn", &i, argc, argv, &err)) ||
                   (v = opt_value(a, "N", &i, argc, argv, &err))) {
            char *end;
            long n = strtol(v, &end, 10);
            if (end == v || *end || n < 1 || n > 1000000)
                return bad_usage("--ppn %s: expected a number of ranks per host >= 1", v);
            job->ppn = (int)n;
        } else if ((v = opt_value(a, "launcher", &i, argc, argv, &err))) {
            job->launcher = v;
        } else if ((v = opt_value(a, "bind-to", &i, argc, argv, &err))) {
            if (strcmp(v, "core") && strcmp(v, "none"))
                return bad_usage("--bind-to %s: expected core or none", v);
            job->bind = !strcmp(v, "core");
        } else if ((v = opt_value(a, "x", &i, argc, argv, &err))) {
            if (!v[0] || v[0] == '=')
                return bad_usage("-x '%s': expected VAR or VAR=value", v);
            job->xvars[job->nx++] = (char *)v;
        } else if ((v = opt_value(a, "timeout", &i, argc, argv, &err))) {
            char *end;
            double t = strtod(v, &end);
            if (end == v || *end || !(t > 0))
                return bad_usage("--timeout %s: expected a positive number of seconds", v);
            job->timeout = t;
        } else {
            return bad_usage(err ? "%s: missing value" : "unknown option '%s'", a);
        }
        if (err)
            return bad_usage("%s: missing value", a);
    }
    if (i >= argc)
        return bad_usage("%s", "no program given");
    job->argv = argv + i;
    return 0;
}
