/* mpiexec_remote.c — the ssh launcher: one `$FABMPI_SSH host fabmpi_hostd`
 * per host, which forks that host's ranks (fabmpi_hostd.c).  Here: starting
 * the helpers, their frames (rank started, output line, rank ended),
 * signals and stdin going to them, and a host whose connection drops.
 *
 * Every rank of an ssh job is started by a helper, this machine's too, so
 * there is one way ranks start and end. */
#include "fabmpi_hostd.h"
#include "mpiexec.h"
#include "util/param.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_SSH "ssh -o BatchMode=yes"
#define FINISH_WAIT 3.0 /* s the helpers get to exit once every rank has ended */

extern char **environ;

static char **ssh_argv(int *argc)
{
    const char *cmd = fm_param.SSH[0] ? fm_param.SSH : DEFAULT_SSH;
    char *copy = strdup(cmd);
    char **v = calloc(strlen(cmd) / 2 + 4, sizeof *v);
    int n = 0;
    for (char *t = strtok(copy, " \t"); t && v; t = strtok(NULL, " \t"))
        v[n++] = t;
    *argc = n;
    return v;
}

static void hostd_path(char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    /* Remote hosts are assumed to have fabmpi at the same path, as they
     * are assumed to have the program there. */
    snprintf(out, len, "%.4000s/fabmpi_hostd", slash ? self : ".");
}

/* Environment the ranks get beyond the helper's own: fabmpi knobs set for
 * mpiexec and -x variables. */
static int add_env(const struct fm_mx_job *job, struct fm_wbuf *b, int count_only)
{
    static const char *per_rank[] = {"FABMPI_RANK=", "FABMPI_SIZE=", "FABMPI_LOCAL_RANK=",
                                     "FABMPI_LOCAL_SIZE=", "FABMPI_NODE_ID=", "FABMPI_JOBID=", "FABMPI_BOOT_ADDR=",
                                     "FABMPI_BOOT_KEY="};
    int n = 0;
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "FABMPI_", 7))
            continue;
        int skip = 0;
        for (size_t i = 0; i < sizeof per_rank / sizeof *per_rank; i++)
            skip |= !strncmp(*e, per_rank[i], strlen(per_rank[i]));
        if (skip)
            continue;
        n++;
        if (!count_only)
            fm_wbuf_add(b, *e, strlen(*e) + 1);
    }
    for (int i = 0; i < job->nx; i++) {
        const char *v = job->xvars[i];
        const char *val = strchr(v, '=') ? NULL : fm_env_raw(v);
        if (!strchr(v, '=') && !val)
            continue;
        n++;
        if (count_only)
            continue;
        fm_wbuf_add(b, v, strlen(v));
        if (val) {
            fm_wbuf_add(b, "=", 1);
            fm_wbuf_add(b, val, strlen(val));
        }
        fm_wbuf_add(b, "", 1);
    }
    return n;
}

static void add_str(struct fm_wbuf *b, const char *s)
{
    fm_wbuf_add(b, s, strlen(s) + 1);
}

static void add_num(struct fm_wbuf *b, double v)
{
    char s[32];
    snprintf(s, sizeof s, "%g", v);
    add_str(b, s);
}

static void rank_list(const struct fm_mx_job *job, int h, struct fm_wbuf *b)
{
    char s[16];
    for (int r = 0, first = 1; r < job->n; r++)
        if (job->ranks[r].host == h) {
            int l = snprintf(s, sizeof s, "%s%d", first ? "" : ",", r);
            fm_wbuf_add(b, s, (size_t)l);
            first = 0;
        }
    fm_wbuf_add(b, "", 1);
}

/* Hosts that are this machine (say localhost and 127.0.0.1) are one node,
 * as the shm transport, which goes by host name and boot id, sees them;
 * every other host is its own node. */
static int same_node(const struct fm_mx_job *job, int a, int b)
{
    return a == b || (job->hosts[a].local && job->hosts[b].local);
}

/* First host with ranks on h's node. */
static int node_rep(const struct fm_mx_job *job, int h)
{
    for (int j = 0; j < job->nhosts; j++)
        if (job->hosts[j].nranks && same_node(job, j, h))
            return j;
    return h;
}

/* Nodes are numbered in host order; ranks fill the hosts in that order, so
 * this is also the order of each node's lowest rank (what PMIx, PMI-2 and
 * the host-name exchange give). */
static int node_id(const struct fm_mx_job *job, int h)
{
    int rep = node_rep(job, h), id = 0;
    for (int i = 0; i < rep; i++)
        id += job->hosts[i].nranks && node_rep(job, i) == i;
    return id;
}

/* The ranks of h's node in rank order: a rank's place in it is its local
 * rank, its length the local size. */
static void node_rank_list(const struct fm_mx_job *job, int h, struct fm_wbuf *b)
{
    char s[16];
    for (int r = 0, first = 1; r < job->n; r++)
        if (same_node(job, job->ranks[r].host, h)) {
            int l = snprintf(s, sizeof s, "%s%d", first ? "" : ",", r);
            fm_wbuf_add(b, s, (size_t)l);
            first = 0;
        }
    fm_wbuf_add(b, "", 1);
}

static int start_frame(const struct fm_mx_job *job, int h, const char *path, struct fm_wbuf *b)
{
    struct fm_wbuf p = {0};
    add_str(&p, job->jobid);
    add_str(&p, job->addr);
    add_str(&p, job->key);
    add_num(&p, job->n);
    add_num(&p, job->hosts[h].nranks);
    add_num(&p, node_id(job, h));
    add_num(&p, job->tag_output);
    add_num(&p, job->bind);
    add_num(&p, job->exit_timeout);
    rank_list(job, h, &p);
    node_rank_list(job, h, &p);
    add_num(&p, add_env(job, NULL, 1));
    add_env(job, &p, 0);
    int argc = 0;
    while (job->argv[argc])
        argc++;
    add_num(&p, argc);
    add_str(&p, path);
    for (int i = 1; i < argc; i++)
        add_str(&p, job->argv[i]);
    int rc = fm_wbuf_hdr(b, FM_HD_START, (uint32_t)p.len) || fm_wbuf_add(b, p.p, p.len);
    fm_wbuf_free(&p);
    return rc ? -1 : 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void send_frame(struct fm_mx_job *job, int h, uint32_t type, const void *p, size_t len)
{
    struct fm_mx_host *ho = &job->hosts[h];
    unsigned char hdr[FM_WIRE_HDR];
    fm_wire_put_u32(hdr, type);
    fm_wire_put_u32(hdr + 4, (uint32_t)len);
    if (ho->to_fd >= 0 && (write_all(ho->to_fd, hdr, sizeof hdr) || write_all(ho->to_fd, p, len))) {
        close(ho->to_fd); /* the helper is gone; its stdout EOF tells the rest */
        ho->to_fd = -1;
    }
}

void fm_mx_remote_print(const struct fm_mx_job *job, const char *path)
{
    int sc;
    char **sv = ssh_argv(&sc), hd[PATH_MAX];
    hostd_path(hd, sizeof hd);
    for (int h = 0; h < job->nhosts; h++) {
        if (!job->hosts[h].nranks)
            continue;
        for (int i = 0; i < sc; i++)
            printf("%s ", sv[i]);
        printf("%s %s   # ranks ", job->hosts[h].name, hd);
        for (int r = 0, first = 1; r < job->n; r++)
            if (job->ranks[r].host == h) {
                printf("%s%d", first ? "" : ",", r);
                first = 0;
            }
        int node_size = 0;
        for (int r = 0; r < job->n; r++)
            node_size += same_node(job, job->ranks[r].host, h);
        printf(" (node %d, local size %d%s): %s", node_id(job, h), node_size, job->bind ? ", bound to cores" : "",
               path);
        for (char **a = job->argv + 1; *a; a++)
            printf(" %s", *a);
        printf("\n");
    }
    free(sv[0]);
    free(sv);
}

int fm_mx_remote_launch(struct fm_mx_job *job, const char *path)
{
    int sc;
    char **sv = ssh_argv(&sc), hd[PATH_MAX];
    if (!sv || sc == 0) {
        fm_mx_say("FABMPI_SSH is empty: no command to reach the hosts with");
        return -1;
    }
    hostd_path(hd, sizeof hd);
    char **argv = calloc((size_t)sc + 3, sizeof *argv);
    memcpy(argv, sv, (size_t)sc * sizeof *argv);
    argv[sc + 1] = hd;
    int rc = 0;
    for (int h = 0; h < job->nhosts && !rc; h++) {
        struct fm_mx_host *ho = &job->hosts[h];
        if (!ho->nranks)
            continue;
        argv[sc] = ho->name;
        int in[2], out[2];
        if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
            fm_mx_say("cannot create pipes for host %s: %s", ho->name, strerror(errno));
            rc = -1;
            break;
        }
        pid_t parent = getpid();
        fm_mx_signals_block(1);
        pid_t pid = fork();
        if (pid == 0) {
            /* Own process group: a terminal's ^C reaches mpiexec only, which
             * forwards it; ssh dies with mpiexec, and its helper with it. */
            setpgid(0, 0);
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(1);
            fm_mx_child_signals_reset();
            dup2(in[0], STDIN_FILENO);
            dup2(out[1], STDOUT_FILENO);
            execvp(argv[0], argv);
            dprintf(STDERR_FILENO, "mpiexec: cannot run %s: %s\n", argv[0], strerror(errno));
            _exit(255);
        }
        fm_mx_signals_block(0);
        close(in[0]);
        close(out[1]);
        if (pid < 0) {
            fm_mx_say("cannot start ssh for host %s: %s", ho->name, strerror(errno));
            close(in[1]);
            close(out[0]);
            rc = -1;
            break;
        }
        ho->ssh_pid = pid;
        ho->to_fd = in[1];
        ho->from_fd = out[0];
        fcntl(ho->from_fd, F_SETFL, fcntl(ho->from_fd, F_GETFL) | O_NONBLOCK);
        for (int r = 0; r < job->n; r++)
            if (job->ranks[r].host == h)
                job->nlive++;
        struct fm_wbuf b = {0};
        /* START goes first; it carries the key, so never the command line */
        if (start_frame(job, h, path, &b) || write_all(ho->to_fd, b.p, b.len)) {
            close(ho->to_fd);
            ho->to_fd = -1;
        }
        fm_wbuf_free(&b);
        if (job->verbose)
            fm_mx_say("host %s: ssh pid %d starts %d rank(s) through %s", ho->name, (int)pid, ho->nranks, hd);
    }
    free(argv);
    free(sv[0]);
    free(sv);
    /* stdin goes to rank 0, from a file or pipe only (as with fork) */
    job->stdin_open = !isatty(STDIN_FILENO) && fcntl(STDIN_FILENO, F_GETFL) != -1;
    return rc;
}

/* Every rank of host h still running is lost with it. */
static void host_lost(struct fm_mx_job *job, int h, const char *cause)
{
    struct fm_mx_host *ho = &job->hosts[h];
    if (ho->lost)
        return;
    ho->lost = 1;
    int nleft = 0;
    for (int r = 0; r < job->n; r++)
        nleft += job->ranks[r].host == h && !job->ranks[r].reaped;
    if (!nleft)
        return;
    int first = 0;
    while (job->ranks[first].host != h || job->ranks[first].reaped)
        first++;
    if (!job->ending)
        fm_mx_say("host %s: %s with %d rank(s) still running there (first: %s); ending the job", ho->name,
                  cause, nleft, fm_mx_who(job, first));
    for (int r = 0; r < job->n; r++) {
        struct fm_mx_rank *rk = &job->ranks[r];
        if (rk->host != h || rk->reaped)
            continue;
        rk->reaped = 1;
        job->nlive--;
        fm_mx_server_drain(job, r);
    }
    fm_mx_end(job, 255, SIGTERM, job->exit_timeout);
}

static void frame(struct fm_mx_job *job, int h, uint32_t type, const unsigned char *p, uint32_t len)
{
    if (len < 8)
        return;
    uint32_t r = fm_wire_get_u32(p), v = fm_wire_get_u32(p + 4);
    if (r >= (uint32_t)job->n || job->ranks[r].host != h)
        return; /* not a rank of this host: ignore rather than trust it */
    struct fm_mx_rank *rk = &job->ranks[r];
    if (type == FM_HD_STARTED) {
        rk->pid = (pid_t)v;
        if (job->verbose)
            fm_mx_say("rank %u: pid %u on host %s", r, v, job->hosts[h].name);
    } else if (type == FM_HD_OUT && (v == 1 || v == 2)) {
        fm_mx_out_line(job, (int)r, (int)v, p + 8, len - 8);
    } else if (type == FM_HD_EXIT && !rk->reaped) {
        fm_mx_rank_ended(job, (int)r, (int)v);
    }
}

void fm_mx_host_readable(struct fm_mx_job *job, int h)
{
    struct fm_mx_host *ho = &job->hosts[h];
    int eof = 0;
    for (;;) {
        if (fm_wbuf_reserve(&ho->in, 65536))
            break;
        ssize_t n = read(ho->from_fd, ho->in.p + ho->in.len, ho->in.cap - ho->in.len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            eof = n == 0 || errno != EAGAIN;
            break;
        }
        ho->in.len += (size_t)n;
    }
    size_t off = 0;
    while (ho->in.len - off >= FM_WIRE_HDR) {
        uint32_t type = fm_wire_get_u32(ho->in.p + off), len = fm_wire_get_u32(ho->in.p + off + 4);
        if (len > FM_HD_MAX_FRAME) {
            eof = 1;
            break;
        }
        if (ho->in.len - off < FM_WIRE_HDR + len)
            break;
        frame(job, h, type, ho->in.p + off + FM_WIRE_HDR, len);
        off += FM_WIRE_HDR + len;
    }
    fm_wbuf_consume(&ho->in, off);
    if (eof) {
        close(ho->from_fd);
        ho->from_fd = -1;
        host_lost(job, h, "lost the connection to its fabmpi_hostd (host down, ssh failed or the helper died)");
    }
}

void fm_mx_host_exited(struct fm_mx_job *job, int h, int st)
{
    struct fm_mx_host *ho = &job->hosts[h];
    ho->ssh_pid = 0;
    if (ho->from_fd >= 0) /* what it said before exiting still counts */
        fm_mx_host_readable(job, h);
    char cause[128];
    snprintf(cause, sizeof cause, "ssh exited (%s %d)", WIFEXITED(st) ? "status" : "signal",
             WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    host_lost(job, h, cause);
}

void fm_mx_remote_signal(struct fm_mx_job *job, int r, int sig)
{
    unsigned char p[8];
    fm_wire_put_u32(p, r < 0 ? FM_HD_ALL : (uint32_t)r);
    fm_wire_put_u32(p + 4, (uint32_t)sig);
    for (int h = 0; h < job->nhosts; h++)
        if (job->hosts[h].to_fd >= 0 && (r < 0 || job->ranks[r].host == h))
            send_frame(job, h, FM_HD_SIGNAL, p, sizeof p);
}

void fm_mx_stdin_readable(struct fm_mx_job *job)
{
    unsigned char buf[65536];
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    int h = job->ranks[0].host;
    if (n > 0) {
        send_frame(job, h, FM_HD_STDIN, buf, (size_t)n);
        return;
    }
    send_frame(job, h, FM_HD_STDIN_EOF, NULL, 0);
    job->stdin_open = 0;
}

void fm_mx_remote_finish(struct fm_mx_job *job)
{
    double until = fm_mx_now() + FINISH_WAIT;
    for (int h = 0; h < job->nhosts; h++) {
        struct fm_mx_host *ho = &job->hosts[h];
        if (ho->to_fd >= 0)
            close(ho->to_fd);
        ho->to_fd = -1;
    }
    for (int h = 0; h < job->nhosts; h++) {
        struct fm_mx_host *ho = &job->hosts[h];
        while (ho->ssh_pid > 0) {
            int st;
            pid_t p = waitpid(ho->ssh_pid, &st, WNOHANG);
            if (p == ho->ssh_pid || (p < 0 && errno == ECHILD))
                break;
            if (fm_mx_now() >= until) {
                killpg(ho->ssh_pid, SIGKILL);
                waitpid(ho->ssh_pid, &st, 0);
                break;
            }
            usleep(10000);
        }
        ho->ssh_pid = 0;
        if (ho->from_fd >= 0)
            close(ho->from_fd);
        ho->from_fd = -1;
    }
}
