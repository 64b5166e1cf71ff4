/* mpiexec_loop.c — mpiexec's single-threaded poll() loop: signals, rank
 * exits, deadlines (--timeout, the SIGKILL grace), and teardown of the job.
 *
 * Everything that can happen arrives as a readable fd: bootstrap sockets,
 * output pipes and a self-pipe the signal handlers write to, so no rank can
 * stall the others and no signal is handled inside a handler. */
#include "mpiexec.h"
#include "util/fabric_shm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOST_GRACE 1.0    /* s between a dropped connection and calling it a failure */
#define GIVE_UP_AFTER 5.0 /* s after SIGKILL before we stop waiting for the dead */
#define HANG_WAIT 1.0     /* s the hang report waits for the ranks' answers */

static int sig_fds[2] = {-1, -1};
static const int handled[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NHANDLED (sizeof handled / sizeof handled[0])

double fm_mx_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void fm_mx_say(const char *fmt, ...)
{
    char line[2048];
    int n = snprintf(line, sizeof line, "mpiexec: ");
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n); /* one write: the line stays whole */
    (void)w;
}

static void on_signal(int sig)
{
    int e = errno;
    unsigned char c = (unsigned char)sig;
    ssize_t w = write(sig_fds[1], &c, 1);
    (void)w;
    errno = e;
}

int fm_mx_signals_init(void)
{
    if (pipe2(sig_fds, O_CLOEXEC | O_NONBLOCK)) {
        fm_mx_say("cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NHANDLED; i++)
        sigaction(handled[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* a closed stdout must not kill the launcher */
    return 0;
}

void fm_mx_signals_block(int block)
{
    sigset_t s;
    sigemptyset(&s);
    for (size_t i = 0; i < NHANDLED; i++)
        sigaddset(&s, handled[i]);
    sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &s, NULL);
}

/* In a child before exec: default dispositions (SIG_IGN would survive exec). */
void fm_mx_child_signals_reset(void)
{
    for (size_t i = 0; i < NHANDLED; i++)
        signal(handled[i], SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    close(sig_fds[0]);
    close(sig_fds[1]);
    fm_mx_signals_block(0);
}

static void signal_ranks(struct fm_mx_job *job, int sig)
{
    if (job->ssh) { /* the helpers signal their ranks */
        fm_mx_remote_signal(job, -1, sig);
        return;
    }
    for (int r = 0; r < job->n; r++) {
        pid_t pid = job->ranks[r].pid;
        if (pid > 0 && !job->ranks[r].reaped && killpg(pid, sig) && errno == ESRCH)
            kill(pid, sig);
    }
}

const char *fm_mx_who(const struct fm_mx_job *job, int r)
{
    static char s[2][320];
    static int k;
    k ^= 1;
    const struct fm_mx_rank *rk = &job->ranks[r];
    int n = snprintf(s[k], sizeof s[k], "rank %d (pid %d", r, (int)rk->pid);
    if (job->ssh)
        snprintf(s[k] + n, sizeof s[k] - (size_t)n, " on host %s)", job->hosts[rk->host].name);
    else
        snprintf(s[k] + n, sizeof s[k] - (size_t)n, ")");
    return s[k];
}

void fm_mx_end(struct fm_mx_job *job, int code, int sig, double grace)
{
    if (!job->exit_code)
        job->exit_code = code;
    if (job->ending)
        return;
    job->ending = 1;
    job->kill_at = fm_mx_now() + grace;
    signal_ranks(job, sig);
}

/* A rank's process ended with wait status `st`: decide what it means. */
static void judge(struct fm_mx_job *job, int r, int st)
{
    struct fm_mx_rank *rk = &job->ranks[r];
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (job->ending) { /* an effect of the teardown, not a new failure */
        if (job->verbose)
            fm_mx_say("%s ended (%s %d)", fm_mx_who(job, r),
                      WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ? code : WTERMSIG(st));
        return;
    }
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        fm_mx_say("%s was killed by signal %d (%s); ending the job", fm_mx_who(job, r), sig,
                  strsignal(sig));
        fm_mx_end(job, code, SIGTERM, job->exit_timeout);
    } else if (code != 0 && rk->finalized) {
        /* The others are past MPI_Finalize too: let them finish. */
        fm_mx_say("%s exited with status %d after MPI_Finalize", fm_mx_who(job, r), code);
        if (!job->exit_code)
            job->exit_code = code;
    } else if (code != 0) {
        fm_mx_say("%s exited with status %d; ending the job", fm_mx_who(job, r), code);
        fm_mx_end(job, code, SIGTERM, job->exit_timeout);
    } else if (rk->connected && !rk->finalized) {
        fm_mx_say("%s exited with status 0 without calling MPI_Finalize; ending the job",
                  fm_mx_who(job, r));
        fm_mx_end(job, 1, SIGTERM, job->exit_timeout);
    } else {
        if (job->verbose)
            fm_mx_say("%s exited with status 0", fm_mx_who(job, r));
        fm_mx_check_fence(job);
    }
}

void fm_mx_rank_ended(struct fm_mx_job *job, int r, int st)
{
    job->ranks[r].reaped = 1;
    job->nlive--;
    /* Read what it said before dying: an ABORT or FINALIZE changes the verdict. */
    fm_mx_server_drain(job, r);
    judge(job, r, st);
}

static void reap(struct fm_mx_job *job)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        if (job->ssh) { /* our children are the ssh processes */
            for (int h = 0; h < job->nhosts; h++)
                if (job->hosts[h].ssh_pid == pid)
                    fm_mx_host_exited(job, h, st);
            continue;
        }
        int r;
        for (r = 0; r < job->n && job->ranks[r].pid != pid; r++)
            ;
        if (r == job->n || job->ranks[r].reaped)
            continue;
        fm_mx_rank_ended(job, r, st);
        /* Now, while its pid cannot have been handed out again yet. */
        int left = fm_fabric_shm_remove(pid);
        if (left && job->verbose)
            fm_mx_say("removed %d libfabric shm region(s) %s left behind", left, fm_mx_who(job, r));
    }
}

static void on_signals(struct fm_mx_job *job)
{
    unsigned char sigs[64];
    ssize_t n;
    while ((n = read(sig_fds[0], sigs, sizeof sigs)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            int sig = sigs[i];
            if (sig == SIGCHLD)
                continue; /* reap() runs every iteration */
            if (!job->ending) {
                fm_mx_say("received signal %d (%s); passing it to the ranks and ending the job", sig,
                          strsignal(sig));
                fm_mx_end(job, 128 + sig, sig, job->exit_timeout);
            } else if (!job->killed) { /* asked twice: no more patience */
                fm_mx_say("received signal %d (%s) again; killing the ranks", sig, strsignal(sig));
                signal_ranks(job, SIGKILL);
                job->killed = 1;
            }
        }
    }
}

static void deadlines(struct fm_mx_job *job, double now, double *next)
{
    *next = 0;
#define SOONER(t) (*next = (*next == 0 || (t) < *next) ? (t) : *next)
    if (!job->ending && job->timeout > 0) {
        /* Overrun: first ask each rank where it is blocked (answers come
         * through the poll loop), print that, then end the job. */
        if (job->report_until == 0 && now >= job->start + job->timeout) {
            job->report_until = now + HANG_WAIT;
            if (fm_mx_hang_ask(job) == 0)
                job->report_until = now;
        }
        if (job->report_until > 0 && (now >= job->report_until || fm_mx_hang_complete(job))) {
            fm_mx_say("job exceeded --timeout of %g s; ending it. Where each rank was:", job->timeout);
            fm_mx_hang_print(job);
            fm_mx_end(job, 124, SIGTERM, job->exit_timeout);
        } else {
            SOONER(job->report_until > 0 ? job->report_until : job->start + job->timeout);
        }
    }
    double hello_due = fm_mx_server_expire(job, now);
    if (hello_due > 0)
        SOONER(hello_due);
    for (int r = 0; r < job->n && !job->ending; r++) {
        struct fm_mx_rank *rk = &job->ranks[r];
        if (rk->lost_at <= 0 || rk->reaped)
            continue;
        if (now >= rk->lost_at + LOST_GRACE) {
            fm_mx_say("%s closed its connection to mpiexec without finalizing; ending the job",
                      fm_mx_who(job, r));
            fm_mx_end(job, 1, SIGTERM, job->exit_timeout);
        } else {
            SOONER(rk->lost_at + LOST_GRACE);
        }
    }
    if (job->ending && !job->killed) {
        if (now >= job->kill_at) {
            if (job->verbose)
                fm_mx_say("%d rank(s) still alive after the grace period; sending SIGKILL", job->nlive);
            signal_ranks(job, SIGKILL);
            job->killed = 1;
        } else {
            SOONER(job->kill_at);
        }
    }
    if (job->killed)
        SOONER(job->kill_at + GIVE_UP_AFTER);
#undef SOONER
}

enum { P_SIG, P_LISTEN, P_CONN, P_OUT, P_HOST, P_STDIN };

void fm_mx_run(struct fm_mx_job *job)
{
    size_t cap = 0;
    struct pollfd *pfds = NULL;
    int *what = NULL, *idx = NULL;
    while (job->nlive > 0) {
        double now = fm_mx_now(), next;
        deadlines(job, now, &next);
        if (job->killed && now >= job->kill_at + GIVE_UP_AFTER) {
            fm_mx_say("%d rank(s) survived SIGKILL (stuck in the kernel?); giving up on them", job->nlive);
            break;
        }
        size_t need = 3 + (size_t)job->nconns + 2 * (size_t)job->n + (size_t)job->nhosts;
        if (need > cap) {
            cap = need;
            pfds = realloc(pfds, cap * sizeof *pfds);
            what = realloc(what, cap * sizeof *what);
            idx = realloc(idx, cap * sizeof *idx);
            if (!pfds || !what || !idx) {
                fm_mx_say("out of memory; killing the ranks");
                signal_ranks(job, SIGKILL);
                exit(1);
            }
        }
        size_t np = 0;
#define ADD(f, ev, w, i) (pfds[np] = (struct pollfd){.fd = (f), .events = (ev)}, what[np] = (w), idx[np++] = (i))
        ADD(sig_fds[0], POLLIN, P_SIG, 0);
        ADD(job->listen_fd, POLLIN, P_LISTEN, 0);
        for (int c = 0; c < job->nconns; c++)
            if (job->conns[c].fd >= 0)
                ADD(job->conns[c].fd, POLLIN | (job->conns[c].out.len ? POLLOUT : 0), P_CONN, c);
        for (int r = 0; r < job->n; r++)
            for (int s = 0; s < 2; s++)
                if (job->ranks[r].out[s].fd >= 0)
                    ADD(job->ranks[r].out[s].fd, POLLIN, P_OUT, 2 * r + s);
        for (int h = 0; h < job->nhosts; h++)
            if (job->hosts[h].from_fd >= 0)
                ADD(job->hosts[h].from_fd, POLLIN, P_HOST, h);
        if (job->stdin_open && !job->ending)
            ADD(STDIN_FILENO, POLLIN, P_STDIN, 0);
#undef ADD
        /* At most an hour per wait: a --timeout of 1e7 s (or inf) in
         * milliseconds does not fit an int; the loop recomputes `next`. */
        int timeout = -1;
        if (next > 0)
            timeout = next <= now ? 0 : next - now > 3600 ? 3600 * 1000 : (int)((next - now) * 1000) + 1;
        int nready = poll(pfds, (nfds_t)np, timeout);
        if (nready < 0 && errno != EINTR) {
            fm_mx_say("poll: %s", strerror(errno));
            fm_mx_end(job, 1, SIGKILL, 0);
        }
        for (size_t i = 0; nready > 0 && i < np; i++) {
            short re = pfds[i].revents;
            if (!re)
                continue;
            switch (what[i]) {
            case P_SIG: on_signals(job); break;
            case P_LISTEN: fm_mx_server_accept(job); break;
            case P_CONN:
                if (re & POLLOUT)
                    fm_mx_conn_writable(job, idx[i]);
                if (re & (POLLIN | POLLHUP | POLLERR))
                    fm_mx_conn_readable(job, idx[i]);
                break;
            case P_OUT: fm_mx_out_readable(&job->ranks[idx[i] / 2].out[idx[i] % 2]); break;
            case P_HOST:
                if (job->hosts[idx[i]].from_fd >= 0)
                    fm_mx_host_readable(job, idx[i]);
                break;
            case P_STDIN: fm_mx_stdin_readable(job); break;
            }
        }
        reap(job);
    }
    /* Every rank is gone; what they wrote is in the pipes: pass it on. */
    for (int r = 0; r < job->n; r++)
        for (int s = 0; s < 2; s++)
            fm_mx_out_close(&job->ranks[r].out[s]);
    free(pfds);
    free(what);
    free(idx);
}
