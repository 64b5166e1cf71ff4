/* fabmpi_hostd.c — the per-host helper of `mpiexec --launcher ssh`.
 *
 * mpiexec runs one of these per host over ssh (never one ssh per rank).
 * It forks this host's ranks, forwards their output line by line, passes
 * stdin to rank 0 and signals to the ranks, and reports how each rank
 * ended.  When its stdin closes (mpiexec or the ssh connection died) it
 * ends the ranks and exits, so nothing of the job outlives the launcher.
 * Protocol: fabmpi_hostd.h. */
#include "fabmpi_hostd.h"
#include "mpiexec_bind.h"
#include "boot/wire.h"
#include "util/fabric_shm.h"
#include "reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct rank {
    int r;
    int local_rank;        /* place among the ranks of this node */
    pid_t pid;
    int out[2];            /* stdout/stderr pipes' read ends; -1 closed */
    struct fm_wbuf buf[2]; /* partial lines */
    int reaped;
};

static struct {
    char *jobid, *addr, *key;
    int size, local_size, node_id, node_size, tag, bind;
    double exit_timeout;
    char **env;
    int nenv;
    char **argv;
    struct rank *ranks;
    int n, nlive;
    int stdin_fd; /* write end of rank 0's stdin pipe, -1 if none */
    double kill_at; /* > 0: mpiexec is gone; SIGKILL at this time */
} H = {.stdin_fd = -1};

static int sig_pipe[2];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void on_signal(int sig)
{
    int e = errno;
    unsigned char c = (unsigned char)sig;
    ssize_t w = write(sig_pipe[1], &c, 1);
    (void)w;
    errno = e;
}

/* Frames to mpiexec go out whole with blocking writes: a slow mpiexec
 * slows the ranks' output, it never loses or interleaves it. */
static void send_frame(uint32_t type, uint32_t a, uint32_t b, const void *p, size_t len)
{
    static struct fm_wbuf m;
    m.len = 0;
    if (fm_wbuf_hdr(&m, type, (uint32_t)(8 + len)) || fm_wbuf_u32(&m, a) || fm_wbuf_u32(&m, b) ||
        fm_wbuf_add(&m, p, len))
        return;
    for (size_t off = 0; off < m.len;) {
        ssize_t n = write(STDOUT_FILENO, m.p + off, m.len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* mpiexec gone; stdin EOF will say so */
        off += (size_t)n;
    }
}

static int read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* One frame from mpiexec; *p is malloc'd.  -1 on EOF or garbage. */
static int recv_frame(uint32_t *type, unsigned char **p, uint32_t *len)
{
    unsigned char h[FM_WIRE_HDR];
    if (read_full(STDIN_FILENO, h, sizeof h))
        return -1;
    *type = fm_wire_get_u32(h);
    *len = fm_wire_get_u32(h + 4);
    if (*len > FM_HD_MAX_FRAME || !(*p = malloc(*len + 1)))
        return -1;
    if (read_full(STDIN_FILENO, *p, *len)) {
        free(*p);
        return -1;
    }
    (*p)[*len] = '\0';
    return 0;
}

/* Split START into its strings; -1 if malformed. */
static int parse_start(char *p, uint32_t len)
{
    char *end = p + len, *s = p;
    char *f[9];
    for (int i = 0; i < 9; i++) {
        if (s >= end)
            return -1;
        f[i] = s;
        s += strlen(s) + 1;
    }
    H.jobid = f[0];
    H.addr = f[1];
    H.key = f[2];
    H.size = atoi(f[3]);
    H.local_size = atoi(f[4]);
    H.node_id = atoi(f[5]);
    H.tag = atoi(f[6]);
    H.bind = atoi(f[7]);
    H.exit_timeout = atof(f[8]);
    if (s >= end)
        return -1;
    char *list = s;
    s += strlen(s) + 1;
    H.ranks = calloc((size_t)H.local_size, sizeof *H.ranks);
    for (char *t = strtok(list, ","); t && H.ranks; t = strtok(NULL, ",")) {
        if (H.n >= H.local_size)
            return -1;
        H.ranks[H.n++] = (struct rank){.r = atoi(t), .out = {-1, -1}};
    }
    if (!H.ranks || H.n != H.local_size || s >= end)
        return -1;
    /* The node's ranks, in rank order: each of ours gets its place there. */
    char *node = s;
    s += strlen(s) + 1;
    for (int i = 0; i < H.n; i++)
        H.ranks[i].local_rank = -1;
    for (char *t = strtok(node, ","); t; t = strtok(NULL, ",")) {
        int r = atoi(t);
        for (int i = 0; i < H.n; i++)
            if (H.ranks[i].r == r)
                H.ranks[i].local_rank = H.node_size;
        H.node_size++;
    }
    for (int i = 0; i < H.n; i++)
        if (H.ranks[i].local_rank < 0)
            return -1;
    if (s >= end)
        return -1;
    H.nenv = atoi(s);
    s += strlen(s) + 1;
    H.env = calloc((size_t)H.nenv + 1, sizeof *H.env);
    for (int i = 0; i < H.nenv; i++, s += strlen(s) + 1)
        if (s >= end || !H.env)
            return -1;
        else
            H.env[i] = s;
    if (s >= end)
        return -1;
    int argc = atoi(s);
    s += strlen(s) + 1;
    H.argv = calloc((size_t)argc + 1, sizeof *H.argv);
    for (int i = 0; i < argc; i++, s += strlen(s) + 1)
        if (s >= end || !H.argv)
            return -1;
        else
            H.argv[i] = s;
    return argc > 0 && s == end ? 0 : -1;
}

static void setenv_num(const char *name, long v)
{
    char s[32];
    snprintf(s, sizeof s, "%ld", v);
    setenv(name, s, 1);
}

static void child(int i, pid_t parent, int outs[2], int in)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* die with this helper */
    if (getppid() != parent)
        _exit(1);
    signal(SIGCHLD, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (in < 0)
        in = open("/dev/null", O_RDONLY);
    dup2(in, STDIN_FILENO);
    dup2(outs[0], STDOUT_FILENO);
    dup2(outs[1], STDERR_FILENO);
    for (int e = 0; e < H.nenv; e++)
        putenv(H.env[e]);
    setenv_num("FABMPI_RANK", H.ranks[i].r);
    setenv_num("FABMPI_SIZE", H.size);
    setenv_num("FABMPI_LOCAL_RANK", H.ranks[i].local_rank);
    setenv_num("FABMPI_LOCAL_SIZE", H.node_size);
    setenv_num("FABMPI_NODE_ID", H.node_id);
    setenv("FABMPI_JOBID", H.jobid, 1);
    setenv("FABMPI_BOOT_ADDR", H.addr, 1);
    setenv("FABMPI_BOOT_KEY", H.key, 1);
    if (H.bind)
        fm_mx_bind_child(H.ranks[i].local_rank);
    execvp(H.argv[0], H.argv);
    dprintf(STDERR_FILENO, "fabmpi_hostd: rank %d: cannot run %s: %s\n", H.ranks[i].r, H.argv[0],
            strerror(errno));
    _exit(127);
}

static void start(int i)
{
    int po[2][2], pin[2] = {-1, -1};
    if (pipe2(po[0], O_CLOEXEC) || pipe2(po[1], O_CLOEXEC) || (H.ranks[i].r == 0 && pipe2(pin, O_CLOEXEC))) {
        send_frame(FM_HD_EXIT, (uint32_t)H.ranks[i].r, 127 << 8, NULL, 0);
        H.ranks[i].reaped = 1;
        return;
    }
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        int outs[2] = {po[0][1], po[1][1]};
        child(i, parent, outs, pin[0]);
    }
    close(po[0][1]);
    close(po[1][1]);
    if (pin[0] >= 0) {
        close(pin[0]);
        H.stdin_fd = pin[1];
    }
    H.ranks[i].out[0] = po[0][0];
    H.ranks[i].out[1] = po[1][0];
    if (pid < 0) {
        send_frame(FM_HD_EXIT, (uint32_t)H.ranks[i].r, 127 << 8, NULL, 0);
        H.ranks[i].reaped = 1;
        return;
    }
    setpgid(pid, pid);
    fm_reaper_watch(pid, H.ranks[i].r);
    H.ranks[i].pid = pid;
    H.nlive++;
    send_frame(FM_HD_STARTED, (uint32_t)H.ranks[i].r, (uint32_t)pid, NULL, 0);
}

static void signal_ranks(uint32_t which, int sig)
{
    for (int i = 0; i < H.n; i++)
        if (!H.ranks[i].reaped && H.ranks[i].pid > 0 && (which == FM_HD_ALL || which == (uint32_t)H.ranks[i].r))
            if (killpg(H.ranks[i].pid, sig) && errno == ESRCH)
                kill(H.ranks[i].pid, sig);
}

/* Forward complete lines (all bytes when `all`), one frame per line. */
static void emit(struct rank *rk, int s, int all)
{
    struct fm_wbuf *b = &rk->buf[s];
    size_t start = 0;
    for (;;) {
        unsigned char *nl = start < b->len ? memchr(b->p + start, '\n', b->len - start) : NULL;
        size_t end = nl ? (size_t)(nl - b->p) : b->len;
        if (!nl && (start == b->len || (!all && b->len - start < (1u << 20))))
            break;
        send_frame(FM_HD_OUT, (uint32_t)rk->r, (uint32_t)s + 1, b->p + start, end - start);
        start = nl ? end + 1 : end;
    }
    fm_wbuf_consume(b, start);
}

static void out_readable(struct rank *rk, int s)
{
    if (fm_wbuf_reserve(&rk->buf[s], 65536))
        return;
    ssize_t n = read(rk->out[s], rk->buf[s].p + rk->buf[s].len, 65536);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        emit(rk, s, 1);
        close(rk->out[s]);
        rk->out[s] = -1;
        return;
    }
    rk->buf[s].len += (size_t)n;
    emit(rk, s, 0);
}

/* A frame from mpiexec; returns -1 when mpiexec is gone. */
static int from_mpiexec(void)
{
    uint32_t type, len;
    unsigned char *p;
    if (recv_frame(&type, &p, &len))
        return -1;
    if (type == FM_HD_STDIN && H.stdin_fd >= 0) {
        for (uint32_t off = 0; off < len;) { /* rank 0 not reading blocks us: as a terminal would */
            ssize_t n = write(H.stdin_fd, p + off, len - off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                close(H.stdin_fd);
                H.stdin_fd = -1;
                break;
            }
            off += (uint32_t)n;
        }
    } else if (type == FM_HD_STDIN_EOF && H.stdin_fd >= 0) {
        close(H.stdin_fd);
        H.stdin_fd = -1;
    } else if (type == FM_HD_SIGNAL && len == 8) {
        signal_ranks(fm_wire_get_u32(p), (int)fm_wire_get_u32(p + 4));
    }
    free(p);
    return 0;
}

static void reap(void)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        for (int i = 0; i < H.n; i++) {
            struct rank *rk = &H.ranks[i];
            if (rk->pid != pid || rk->reaped)
                continue;
            /* Its output first, so the line that explains a failure comes
             * before the failure. */
            for (int s = 0; s < 2; s++)
                while (rk->out[s] >= 0) {
                    struct pollfd pf = {.fd = rk->out[s], .events = POLLIN};
                    if (poll(&pf, 1, 0) <= 0)
                        break;
                    out_readable(rk, s);
                }
            rk->reaped = 1;
            H.nlive--;
            /* libfabric shm regions a killed rank could not unlink, and
             * its own segments if it died before unlinking them (mpiexec
             * removes leftovers only on its own host). */
            fm_fabric_shm_remove(pid);
            fm_reaper_remove_segments(H.jobid, rk->r, 0);
            send_frame(FM_HD_EXIT, (uint32_t)rk->r, (uint32_t)st, NULL, 0);
        }
    }
}

int main(int argc, char **argv)
{
    fm_reaper_main(argc, argv);
    signal(SIGPIPE, SIG_IGN);
    if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK))
        return 1;
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    /* SIGHUP/SIGTERM/SIGINT: the session or someone on this host wants us
     * gone; treat it like losing mpiexec. */
    int sigs[] = {SIGCHLD, SIGHUP, SIGTERM, SIGINT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
    uint32_t type, len;
    unsigned char *p;
    if (recv_frame(&type, &p, &len) || type != FM_HD_START || parse_start((char *)p, len)) {
        fprintf(stderr, "fabmpi_hostd: no valid START from mpiexec on stdin\n");
        return 2;
    }
    if (H.bind && fm_mx_bind_init("fabmpi_hostd"))
        H.bind = 0;
    /* If this helper is killed too (with mpiexec, when ssh runs it
     * directly), its ranks die with it and the reaper removes what they
     * leave in /dev/shm. */
    if (fm_reaper_start(H.jobid))
        fprintf(stderr, "fabmpi_hostd: warning: cannot start the cleanup process: %s\n",
                strerror(errno));
    for (int i = 0; i < H.n; i++)
        start(i);
    int in_open = 1;
    for (;;) {
        struct pollfd pf[2 + 2 * H.n];
        struct rank *who[2 + 2 * H.n];
        int ws[2 + 2 * H.n];
        int np = 0;
        pf[np++] = (struct pollfd){.fd = sig_pipe[0], .events = POLLIN};
        pf[np++] = (struct pollfd){.fd = in_open ? STDIN_FILENO : -1, .events = POLLIN};
        for (int i = 0; i < H.n; i++)
            for (int s = 0; s < 2; s++)
                if (H.ranks[i].out[s] >= 0) {
                    who[np] = &H.ranks[i];
                    ws[np] = s;
                    pf[np++] = (struct pollfd){.fd = H.ranks[i].out[s], .events = POLLIN};
                }
        if (H.nlive == 0 && np == 2)
            break;
        int timeout = -1;
        if (H.kill_at > 0) {
            double t = H.kill_at - now();
            timeout = t <= 0 ? 0 : (int)(t * 1000) + 1;
        }
        int nr = poll(pf, (nfds_t)np, H.nlive ? timeout : 200);
        if (nr < 0 && errno != EINTR)
            break;
        if (nr == 0 && H.nlive == 0)
            break; /* a rank's background child holds a pipe: do not wait for it */
        if (pf[0].revents) {
            unsigned char c[64];
            ssize_t n = read(sig_pipe[0], c, sizeof c);
            for (ssize_t k = 0; k < n; k++)
                if (c[k] != SIGCHLD && H.kill_at == 0) {
                    signal_ranks(FM_HD_ALL, SIGTERM);
                    H.kill_at = now() + H.exit_timeout;
                }
        }
        if (pf[1].revents && from_mpiexec()) {
            in_open = 0;
            if (H.kill_at == 0) { /* mpiexec is gone: nobody can finish this job */
                signal_ranks(FM_HD_ALL, SIGTERM);
                H.kill_at = now() + H.exit_timeout;
            }
        }
        for (int k = 2; k < np; k++)
            if (pf[k].revents)
                out_readable(who[k], ws[k]);
        if (H.kill_at > 0 && now() >= H.kill_at) {
            signal_ranks(FM_HD_ALL, SIGKILL);
            H.kill_at = now() + 3600;
        }
        reap();
    }
    fm_reaper_done();
    return 0;
}
