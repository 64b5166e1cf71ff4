/* reaper.c — the cleanup that must happen even when the launcher (mpiexec,
 * or fabmpi_hostd on a host of an ssh job) is killed.
 *
 * Ranks die with mpiexec (PR_SET_PDEATHSIG SIGKILL), and a process killed
 * that way cleans up nothing: libfabric's shm provider leaves each rank's
 * /dev/shm/<pid>:<uid>:<endpoint> regions behind (16 MiB each), which
 * the launcher removes as it reaps each rank — but not when SIGKILL ended
 * the launcher too.  So before starting any rank, the launcher forks this
 * small process.  It learns each rank's pid and rank number through a pipe.
 * When mpiexec ends normally it says so (a 0 pid) and the reaper leaves at
 * once; when the pipe just closes, mpiexec is gone without cleaning up: the
 * reaper waits (briefly) for those ranks to be gone too, removes their
 * regions and the segments of ours they had not yet unlinked, and leaves.
 *
 * It runs in a session of its own, so signals meant for the job's terminal
 * group do not reach it, and with stdio on /dev/null, so it holds none of
 * the pipes a caller of mpiexec reads to their end. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "reaper.h"
#include "util/fabric_shm.h"

static int reaper_fd = -1; /* the launcher's write end */
static pid_t reaper_pid = -1;

/* Our segment names end in "-<world rank>" (util/shm_segment.c); 1 if
 * name (past the "fabmpi-<jobid>-" prefix) is one of rank's. */
static int rank_owns(const char *name, int rank)
{
    char tail[16];
    int tl = snprintf(tail, sizeof tail, "-%d", rank);
    size_t nl = strlen(name);
    if (nl >= (size_t)tl && !strcmp(name + nl - (size_t)tl, tail))
        return 1;
    /* The transport's own segment has no middle part: "fabmpi-<jobid>-<rank>". */
    return !strcmp(name, tail + 1);
}

void fm_reaper_remove_segments(const char *jobid, int rank, int verbose)
{
    char prefix[64];
    int pl = snprintf(prefix, sizeof prefix, "fabmpi-%s-", jobid);
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, (size_t)pl))
            continue;
        if (rank >= 0 && !rank_owns(e->d_name + pl, rank))
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0 && verbose)
            fprintf(stderr, "mpiexec: removed leftover /dev/shm/%s\n", e->d_name);
    }
    closedir(d);
}

/* 1 once pid no longer runs: gone, or a zombie nobody has reaped yet (its
 * mappings are already released). */
static int ended(pid_t pid)
{
    if (kill(pid, 0) && errno == ESRCH)
        return 1;
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 1;
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* the command name may hold spaces */
    return paren && (paren[2] == 'Z' || paren[2] == 'X');
}

/* What the launcher tells the reaper about each rank it forks. */
struct watched {
    pid_t pid; /* 0: the launcher ended normally */
    int rank;
};

static void reaper_main(int fd, const char *jobid)
{
    struct watched *w = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        struct watched one;
        ssize_t r = read(fd, &one, sizeof one);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != (ssize_t)sizeof one)
            break; /* closed: the launcher is gone without having cleaned up */
        if (one.pid == 0)
            _exit(0); /* the launcher ended normally and cleaned up itself */
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 64;
            struct watched *nw = realloc(w, nc * sizeof *nw);
            if (!nw)
                continue; /* that rank's leftovers will stay; the others will not */
            w = nw;
            cap = nc;
        }
        w[n++] = one;
    }
    /* The ranks got SIGKILL from the kernel as mpiexec died; a region may
     * only go once its owner no longer runs.  Give them up to 10 s. */
    struct timespec pause = {0, 5 * 1000 * 1000};
    for (int tries = 0; tries < 2000; tries++) {
        size_t running = 0;
        for (size_t i = 0; i < n; i++)
            running += !ended(w[i].pid);
        if (!running)
            break;
        nanosleep(&pause, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        fm_fabric_shm_remove(w[i].pid);
        if (strcmp(jobid, "-"))
            fm_reaper_remove_segments(jobid, w[i].rank, 0);
    }
    _exit(0);
}

int fm_reaper_main(int argc, char **argv)
{
    if (argc != 4 || strcmp(argv[1], FM_REAPER_ARG))
        return -1;
    reaper_main(atoi(argv[3]), argv[2]);
    return 0;
}

int fm_reaper_start(const char *jobid)
{
    if (!jobid || !*jobid)
        jobid = "-";
    int p[2];
    if (pipe2(p, O_CLOEXEC))
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        setsid();
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        close(p[1]);
        /* Run under a name of its own, so "pkill -f <the job's command>"
         * does not take the reaper with the launcher. */
        char fd[16];
        snprintf(fd, sizeof fd, "%d", p[0]);
        fcntl(p[0], F_SETFD, 0);
        execl("/proc/self/exe", "fabmpi-reaper", FM_REAPER_ARG, jobid, fd, (char *)NULL);
        reaper_main(p[0], jobid); /* no /proc: the same, in this process */
    }
    close(p[0]);
    reaper_fd = p[1];
    reaper_pid = pid;
    return 0;
}

void fm_reaper_watch(pid_t rank_pid, int rank)
{
    if (reaper_fd < 0)
        return;
    struct watched one = {rank_pid, rank};
    ssize_t w;
    do
        w = write(reaper_fd, &one, sizeof one);
    while (w < 0 && errno == EINTR);
}

void fm_reaper_done(void)
{
    if (reaper_fd < 0)
        return;
    fm_reaper_watch(0, -1);
    close(reaper_fd);
    reaper_fd = -1;
    while (waitpid(reaper_pid, NULL, 0) < 0 && errno == EINTR)
        ;
}
