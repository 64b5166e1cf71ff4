/* mpiexec.c — fabmpi's launcher (also installed as mpirun): options, job
 * identity, forking the ranks, and cleanup when the job ends.
 *
 * With the fork launcher the ranks are our children on this node; with the
 * ssh launcher one fabmpi_hostd per host starts them (mpiexec_remote.c).
 * Each gets FABMPI_RANK/SIZE/LOCAL_RANK/LOCAL_SIZE/NODE_ID/JOBID plus the address
 * and secret key of our bootstrap server (mpiexec_server.c), reached over
 * TCP from any host. */
#include "mpiexec.h"
#include "mpiexec_bind.h"
#include "reaper.h"
#include "fm_config.h"
#include "util/param.h"
#include "util/status.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* Find the program as execvp would, so a typo fails once, up front, rather
 * than in N ranks. */
static char *resolve(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0 ? strdup(prog) : NULL;
    const char *path = fm_env_raw("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;; p++) {
        const char *end = strchrnul(p, ':');
        char full[PATH_MAX];
        int len = end > p ? snprintf(full, sizeof full, "%.*s/%s", (int)(end - p), p, prog)
                          : snprintf(full, sizeof full, "%s", prog);
        struct stat st;
        if (len < (int)sizeof full && access(full, X_OK) == 0 && stat(full, &st) == 0 && S_ISREG(st.st_mode))
            return strdup(full);
        if (!*end)
            return NULL;
        p = end;
    }
}

static void make_identity(struct fm_mx_job *job)
{
    unsigned char rnd[20];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || read(fd, rnd, sizeof rnd) != (ssize_t)sizeof rnd) {
            fprintf(stderr, "mpiexec: cannot read random bytes for the job key: %s\n", strerror(errno));
            exit(1);
        }
        close(fd);
    }
    /* pid + 32 random bits: unique on this node even across pid reuse */
    snprintf(job->jobid, sizeof job->jobid, "%x-%02x%02x%02x%02x", (unsigned)getpid(), rnd[0], rnd[1],
             rnd[2], rnd[3]);
    for (int i = 0; i < 16; i++)
        snprintf(job->key + 2 * i, 3, "%02x", rnd[4 + i]);
}

/* One socket (and with --tag-output two pipes) per rank: allow as many
 * descriptors as we may, and give the ranks back the limit they would have. */
static struct rlimit saved_nofile;
static int nofile_raised;

static void raise_fd_limit(void)
{
    if (getrlimit(RLIMIT_NOFILE, &saved_nofile))
        return;
    nofile_raised = 1;
    struct rlimit r = saved_nofile;
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
}

static void setenv_num(const char *name, long v)
{
    char s[32];
    snprintf(s, sizeof s, "%ld", v);
    setenv(name, s, 1);
}

/* In the child, between fork and exec. */
static void child(struct fm_mx_job *job, int r, const char *path, pid_t parent, int wfds[2])
{
    setpgid(0, 0);
    /* Die with mpiexec, and close the race where it died before prctl. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    fm_mx_child_signals_reset();
    if (nofile_raised)
        setrlimit(RLIMIT_NOFILE, &saved_nofile);
    /* Ranks sit in their own process groups, so a terminal would stop them
     * on read (SIGTTIN): only rank 0 reads stdin, and only a file or pipe. */
    if (r != 0 || isatty(STDIN_FILENO)) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd >= 0 && fd != STDIN_FILENO) {
            dup2(fd, STDIN_FILENO);
            close(fd);
        }
    }
    if (job->tag_output) {
        dup2(wfds[0], STDOUT_FILENO);
        dup2(wfds[1], STDERR_FILENO);
        close(wfds[0]);
        close(wfds[1]);
    }
    for (int i = 0; i < job->nx; i++) {
        char *eq = strchr(job->xvars[i], '=');
        if (eq) {
            *eq = '\0';
            setenv(job->xvars[i], eq + 1, 1);
        }
        /* a bare VAR is already in the inherited environment */
    }
    setenv_num("FABMPI_RANK", r);
    setenv_num("FABMPI_SIZE", job->n);
    setenv_num("FABMPI_LOCAL_RANK", r);
    setenv_num("FABMPI_LOCAL_SIZE", job->n);
    setenv_num("FABMPI_NODE_ID", 0); /* fork: every rank on this one node */
    setenv("FABMPI_JOBID", job->jobid, 1);
    setenv("FABMPI_BOOT_ADDR", job->addr, 1);
    setenv("FABMPI_BOOT_KEY", job->key, 1);
    if (job->bind)
        fm_mx_bind_child(r);
    execv(path, job->argv);
    dprintf(STDERR_FILENO, "mpiexec: rank %d: cannot run %s: %s\n", r, path, strerror(errno));
    _exit(127);
}

static int launch(struct fm_mx_job *job, int r, const char *path)
{
    int wfds[2] = {-1, -1};
    if (job->tag_output && fm_mx_out_pipes(job, r, wfds))
        return -1;
    pid_t parent = getpid();
    fm_mx_signals_block(1); /* no handler may run in the child before exec */
    pid_t pid = fork();
    if (pid == 0)
        child(job, r, path, parent, wfds);
    int e = errno;
    fm_mx_signals_block(0);
    if (wfds[0] >= 0) {
        close(wfds[0]);
        close(wfds[1]);
    }
    if (pid < 0) {
        fprintf(stderr, "mpiexec: cannot start rank %d: fork: %s\n", r, strerror(e));
        return -1;
    }
    setpgid(pid, pid); /* also in the parent, so killpg works at once */
    fm_reaper_watch(pid, r);
    job->ranks[r].pid = pid;
    job->nlive++;
    if (job->verbose)
        fprintf(stderr, "mpiexec: rank %d: pid %d\n", r, (int)pid);
    return 0;
}

/* -t: what would run, without running it (the key is not shown). */
static void print_plan(const struct fm_mx_job *job, const char *path)
{
    if (job->ssh) {
        fm_mx_remote_print(job, path);
        return;
    }
    for (int r = 0; r < job->n; r++) {
        printf("rank %d: FABMPI_RANK=%d FABMPI_SIZE=%d FABMPI_LOCAL_RANK=%d FABMPI_LOCAL_SIZE=%d "
               "FABMPI_NODE_ID=0",
               r, r, job->n, r, job->n);
        for (int i = 0; i < job->nx; i++)
            printf(" -x %s", job->xvars[i]);
        printf("%s %s", job->bind ? " (bound to a core)" : "", path);
        for (char **a = job->argv + 1; *a; a++)
            printf(" %s", *a);
        printf("\n");
    }
}

/* Safety net behind the shm transport, which unlinks its segments itself:
 * whatever of ours is left in /dev/shm goes, however the job ended. */
int main(int argc, char **argv)
{
    fm_reaper_main(argc, argv);
    static struct fm_mx_job job;
    job.listen_fd = -1;
    char perr[512];
    /* A bad knob is reported by the ranks' MPI_Init, which names it; the
     * launcher keeps the default of the one knob it reads. */
    job.exit_timeout = fm_param_load(perr, sizeof perr) == FM_OK ? (double)fm_param.EXIT_TIMEOUT : 3.0;
    int rc = fm_mx_parse_args(&job, argc, argv);
    if (rc)
        return rc;
    char *path = resolve(job.argv[0]);
    if (!path) {
        fprintf(stderr, "mpiexec: %s: %s\n", job.argv[0],
                strchr(job.argv[0], '/') ? "not found or not executable" : "command not found in PATH");
        return 127;
    }
    for (int i = 0; i < job.nx; i++)
        if (!strchr(job.xvars[i], '=') && !fm_env_raw(job.xvars[i]))
            fprintf(stderr, "mpiexec: warning: -x %s: %s is not set here; nothing to pass\n", job.xvars[i],
                    job.xvars[i]);
    if ((rc = fm_mx_hosts_place(&job)))
        return rc;
    if (job.dry_run) {
        print_plan(&job, path);
        free(path);
        return 0;
    }
    if (job.bind && !job.ssh && fm_mx_bind_init("mpiexec"))
        return 1;
    make_identity(&job);
    /* Before any descriptor of the job is open, so the reaper holds none. */
    if (!job.ssh && fm_reaper_start(job.jobid))
        fprintf(stderr, "mpiexec: warning: cannot start the cleanup process (%s); a killed "
                        "mpiexec may leave /dev/shm regions behind\n", strerror(errno));
    raise_fd_limit();
    if (fm_mx_signals_init() || fm_mx_server_open(&job))
        return 1;
    for (int r = 0; r < job.n; r++) {
        job.ranks[r].conn = -1;
        job.ranks[r].out[0].fd = job.ranks[r].out[1].fd = -1;
    }
    if (job.verbose) {
        fprintf(stderr, "mpiexec: job %s: %d rank%s of %s", job.jobid, job.n, job.n == 1 ? "" : "s", path);
        for (char **a = job.argv + 1; *a; a++)
            fprintf(stderr, " %s", *a);
        fprintf(stderr, "; bootstrap server %s", job.addr);
        if (job.timeout > 0)
            fprintf(stderr, ", timeout %g s", job.timeout);
        fprintf(stderr, "\n");
    }
    job.start = fm_mx_now();
    if (job.ssh) {
        if (fm_mx_remote_launch(&job, path))
            fm_mx_end(&job, 1, SIGTERM, job.exit_timeout);
    } else {
        for (int r = 0; r < job.n; r++) {
            if (launch(&job, r, path)) {
                fm_mx_end(&job, 1, SIGTERM, job.exit_timeout);
                break;
            }
        }
    }
    fm_mx_run(&job);
    if (job.ssh)
        fm_mx_remote_finish(&job);
    fm_reaper_remove_segments(job.jobid, -1, job.verbose);
    fm_reaper_done();
    if (job.verbose)
        fprintf(stderr, "mpiexec: job %s ended with exit status %d\n", job.jobid, job.exit_code);
    free(path);
    return job.exit_code;
}
