/* mpiexec_server.c — the bootstrap server: authenticates ranks by the job
 * key, collects puts, completes fences, and turns ABORT and dropped
 * connections into job teardown.  Protocol: src/boot/wire.h.
 *
 * All sockets are nonblocking and served from the poll loop, so ranks may
 * connect in any order and a slow one never holds up the rest. */
#include "mpiexec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ABORT_GRACE 0.5 /* s between SIGTERM and SIGKILL after MPI_Abort */

/* Connections that have not proven the job key yet.  A rank sends its
 * HELLO right after connecting, so a stranger that stays silent is closed
 * after HELLO_DEADLINE, and there are at most one per rank plus
 * SPARE_CONNS of them.  When they are all taken, the oldest one that has
 * been silent for EVICT_AGE gives its place to the newcomer; if none has,
 * the newcomer is refused (a rank retries: src/boot/mpiexec_client.c).
 * Authenticated ranks never count here and are never closed for room. */
#define SPARE_CONNS 64
#define HELLO_DEADLINE 5.0
#define EVICT_AGE 0.2

int fm_mx_server_open(struct fm_mx_job *job)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    /* Ranks on other hosts need a routable address; job->addr already holds
     * the one on the route toward them.  Strangers who connect still need
     * the job key. */
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    /* With remote hosts, only the address the ranks are told to use: the
     * one on the route toward them (not every interface of this host). */
    if (job->ssh && inet_pton(AF_INET, job->addr, &sa.sin_addr) != 1)
        sa.sin_addr.s_addr = htonl(INADDR_ANY);
    char shown[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &sa.sin_addr, shown, sizeof shown);
    socklen_t sl = sizeof sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 4096) ||
        getsockname(fd, (struct sockaddr *)&sa, &sl)) {
        fm_mx_say("cannot open the bootstrap socket on %s: %s", shown, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    job->listen_fd = fd;
    char host[64];
    snprintf(host, sizeof host, "%s", job->ssh ? job->addr : "127.0.0.1");
    snprintf(job->addr, sizeof job->addr, "%.46s:%u", host, (unsigned)ntohs(sa.sin_port));
    return 0;
}

/* Unauthenticated connections open, and the oldest of them (-1: none). */
static int strangers(const struct fm_mx_job *job, int *oldest)
{
    int k = 0;
    *oldest = -1;
    for (int c = 0; c < job->nconns; c++) {
        const struct fm_mx_conn *x = &job->conns[c];
        if (x->fd < 0 || x->rank >= 0)
            continue;
        k++;
        if (*oldest < 0 || x->opened < job->conns[*oldest].opened)
            *oldest = c;
    }
    return k;
}

static void conn_close(struct fm_mx_job *job, int ci);

static int new_conn(struct fm_mx_job *job, int fd)
{
    int c;
    for (c = 0; c < job->nconns && job->conns[c].fd >= 0; c++)
        ;
    if (c == job->nconns) {
        struct fm_mx_conn *nc = realloc(job->conns, (size_t)(c + 1) * sizeof *nc);
        if (!nc)
            return -1;
        job->conns = nc;
        job->nconns++;
    }
    job->conns[c] = (struct fm_mx_conn){.fd = fd, .rank = -1, .opened = fm_mx_now()};
    return c;
}

void fm_mx_server_accept(struct fm_mx_job *job)
{
    for (;;) {
        int fd = accept4(job->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE)
                fm_mx_say("cannot accept a bootstrap connection: %s (raise ulimit -n)", strerror(errno));
            return;
        }
        int oldest, k = strangers(job, &oldest);
        if (k >= job->n + SPARE_CONNS) {
            if (fm_mx_now() - job->conns[oldest].opened < EVICT_AGE) {
                close(fd); /* a burst: nobody has had time to say HELLO yet */
                continue;
            }
            conn_close(job, oldest);
        }
        if (new_conn(job, fd) < 0) {
            close(fd);
            continue;
        }
        int one = 1; /* fence replies are small and latency-bound */
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
}

double fm_mx_server_expire(struct fm_mx_job *job, double now)
{
    double next = 0;
    for (int c = 0; c < job->nconns; c++) {
        struct fm_mx_conn *x = &job->conns[c];
        if (x->fd < 0 || x->rank >= 0)
            continue;
        double due = x->opened + HELLO_DEADLINE;
        if (now >= due)
            conn_close(job, c); /* silent too long: not one of our ranks */
        else if (next == 0 || due < next)
            next = due;
    }
    return next;
}

static void conn_close(struct fm_mx_job *job, int ci)
{
    struct fm_mx_conn *c = &job->conns[ci];
    if (c->fd < 0)
        return;
    close(c->fd);
    c->fd = -1;
    fm_wbuf_free(&c->in);
    fm_wbuf_free(&c->out);
    if (c->rank >= 0) {
        struct fm_mx_rank *rk = &job->ranks[c->rank];
        rk->conn = -1;
        /* Closed without FINALIZE: a failure, unless the process exit that
         * usually follows (reported more precisely) comes first. */
        if (!rk->finalized && !rk->reaped)
            rk->lost_at = fm_mx_now();
    }
}

void fm_mx_conn_writable(struct fm_mx_job *job, int ci)
{
    struct fm_mx_conn *c = &job->conns[ci];
    size_t done = 0;
    while (done < c->out.len) {
        ssize_t n = send(c->fd, c->out.p + done, c->out.len - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) { /* peer gone; its process exit will tell the rest */
            c->out.len = 0;
            done = 0;
            break;
        }
        done += (size_t)n;
    }
    fm_wbuf_consume(&c->out, done);
    if (!c->out.len && c->close_after_write)
        conn_close(job, ci);
}

static void queue(struct fm_mx_job *job, int ci, uint32_t type, const void *p, size_t len)
{
    struct fm_mx_conn *c = &job->conns[ci];
    if (fm_wbuf_hdr(&c->out, type, (uint32_t)len) || fm_wbuf_add(&c->out, p, len)) {
        fm_mx_say("out of memory in the bootstrap server; ending the job");
        fm_mx_end(job, 1, SIGTERM, job->exit_timeout);
        return;
    }
    fm_mx_conn_writable(job, ci); /* usually goes out at once */
}

static void reject(struct fm_mx_job *job, int ci, const char *why)
{
    queue(job, ci, FM_WIRE_REJECT, why, strlen(why));
    if (job->conns[ci].fd >= 0)
        job->conns[ci].close_after_write = 1;
    if (job->conns[ci].fd >= 0 && !job->conns[ci].out.len)
        conn_close(job, ci);
}

/* Compare without an early exit, so timing reveals nothing of the key. */
static int key_matches(const char *want, const unsigned char *got, size_t len)
{
    size_t wl = strlen(want);
    unsigned char diff = (unsigned char)(wl != len);
    for (size_t i = 0; i < wl; i++)
        diff |= (unsigned char)want[i] ^ (i < len ? got[i] : 0);
    return diff == 0;
}

static void hello(struct fm_mx_job *job, int ci, const unsigned char *p, uint32_t len)
{
    char why[256];
    struct fm_wire_hello h;
    if (fm_wire_hello_decode(p, len, &h)) {
        reject(job, ci, "malformed HELLO");
        return;
    }
    uint32_t ver = h.ver, rank = h.rank, size = h.size, pid = h.pid;
    /* The key first: a peer that cannot prove it learns nothing, not even
     * which protocol version this is. */
    if (!key_matches(job->key, h.key, h.klen)) {
        snprintf(why, sizeof why, "wrong FABMPI_BOOT_KEY for this job (or a program of "
                 "another fabmpi installation)");
        fm_mx_say("rejected a bootstrap connection claiming rank %u (pid %u): wrong key", rank, pid);
    } else if (ver != FM_WIRE_VERSION) {
        snprintf(why, sizeof why, "bootstrap protocol version %u, but this mpiexec speaks %u "
                 "(program and mpiexec from different fabmpi installations?)", ver, FM_WIRE_VERSION);
    } else if (size != (uint32_t)job->n || rank >= size) {
        snprintf(why, sizeof why, "FABMPI_RANK=%u FABMPI_SIZE=%u, but this job has %d ranks", rank, size,
                 job->n);
    } else if (job->ranks[rank].connected) {
        snprintf(why, sizeof why, "rank %u has already connected (MPI initialized twice?)", rank);
    } else {
        struct fm_mx_rank *rk = &job->ranks[rank];
        rk->connected = 1;
        rk->conn = ci;
        job->conns[ci].rank = (int)rank;
        if (job->verbose)
            fm_mx_say("rank %u (pid %u) connected", rank, pid);
        queue(job, ci, FM_WIRE_WELCOME, NULL, 0);
        return;
    }
    reject(job, ci, why);
}

static void fence_done(struct fm_mx_job *job)
{
    for (int r = 0; r < job->n; r++) {
        struct fm_mx_rank *rk = &job->ranks[r];
        if (rk->conn >= 0)
            queue(job, rk->conn, FM_WIRE_FENCE_DONE, job->epoch.p, job->epoch.len);
        rk->in_fence = 0;
    }
    job->nfence = 0;
    job->epoch.len = 0;
}

void fm_mx_check_fence(struct fm_mx_job *job)
{
    if (!job->nfence || job->ending)
        return;
    for (int r = 0; r < job->n; r++) {
        struct fm_mx_rank *rk = &job->ranks[r];
        if (rk->in_fence || !(rk->finalized || rk->reaped))
            continue;
        fm_mx_say("rank %d (pid %d) %s, but other ranks wait for it in a bootstrap fence; ending the job", r,
                  (int)rk->pid,
                  rk->finalized ? "has finalized"
                  : rk->connected ? "has exited"
                                  : "exited without calling MPI_Init");
        fm_mx_end(job, 1, SIGTERM, job->exit_timeout);
        return;
    }
}

/* Handle one message from an authenticated rank; 0 ok, -1 protocol error. */
static int message(struct fm_mx_job *job, int r, uint32_t type, const unsigned char *p, uint32_t len)
{
    struct fm_mx_rank *rk = &job->ranks[r];
    switch (type) {
    case FM_WIRE_PUT: {
        struct fm_wire_kv kv;
        if (rk->in_fence || fm_wire_kv_decode(p, len, 0, &kv) != (long)len)
            return -1;
        if (fm_wbuf_u32(&job->epoch, (uint32_t)r) || fm_wbuf_add(&job->epoch, p, len))
            return -1;
        return 0;
    }
    case FM_WIRE_FENCE:
        if (rk->in_fence)
            return -1;
        rk->in_fence = 1;
        if (++job->nfence == job->n)
            fence_done(job);
        else
            fm_mx_check_fence(job);
        return 0;
    case FM_WIRE_ABORT: {
        if (len < 4)
            return -1;
        int code = (int)fm_wire_get_u32(p);
        int status = code & 0xff;
        if (code != 0 && status == 0) /* e.g. 256: still a failure */
            status = 1;
        if (!job->ending)
            fm_mx_say("%s called MPI_Abort with code %d%s%.*s; ending the job", fm_mx_who(job, r),
                      code, len > 4 ? ": " : "", (int)(len - 4), (const char *)p + 4);
        fm_mx_end(job, status, SIGTERM, ABORT_GRACE);
        return 0;
    }
    case FM_WIRE_FINALIZE:
        rk->finalized = 1;
        return 0;
    case FM_WIRE_HANG:
        return fm_mx_hang_store(job, r, p, len);
    }
    return -1;
}

void fm_mx_conn_readable(struct fm_mx_job *job, int ci)
{
    int eof = 0;
    for (;;) { /* take everything there is */
        struct fm_mx_conn *c = &job->conns[ci];
        if (fm_wbuf_reserve(&c->in, 16384))
            break;
        size_t room = c->in.cap - c->in.len;
        ssize_t n = recv(c->fd, c->in.p + c->in.len, room, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            eof = n == 0 || errno != EAGAIN;
            break;
        }
        c->in.len += (size_t)n;
        if ((size_t)n < room) /* drained; poll tells us about the rest (or EOF) */
            break;
    }
    size_t off = 0;
    while (job->conns[ci].fd >= 0) {
        struct fm_mx_conn *c = &job->conns[ci];
        if (c->close_after_write) { /* rejected: nothing it says matters */
            off = c->in.len;
            break;
        }
        uint32_t type = 0, len = 0;
        int got = fm_wire_frame(c->in.p + off, c->in.len - off,
                                c->rank < 0 ? 16 + FM_BOOT_SECRET_MAX : FM_WIRE_CLIENT_MAX, &type,
                                &len);
        /* Wait for the rest, unless a stranger's header already says it is
         * not a HELLO: that ends it at once. */
        if (got == FM_WIRE_NEED_MORE && (c->in.len - off < FM_WIRE_HDR || c->rank >= 0 ||
                                         type == FM_WIRE_HELLO))
            break;
        int bad = got == FM_WIRE_BAD || (c->rank < 0 && type != FM_WIRE_HELLO);
        const unsigned char *p = c->in.p + off + FM_WIRE_HDR;
        off += FM_WIRE_HDR + len;
        if (bad) {
            conn_close(job, ci); /* not one of ours: say nothing more to it */
        } else if (c->rank < 0) {
            hello(job, ci, p, len);
        } else if (message(job, c->rank, type, p, len)) {
            int r = c->rank;
            conn_close(job, ci);
            if (!job->ending) {
                fm_mx_say("rank %d (pid %d) sent a malformed bootstrap message (type %u, %u bytes); ending the job",
                          r, (int)job->ranks[r].pid, type, len);
                fm_mx_end(job, 1, SIGTERM, job->exit_timeout);
            }
        }
    }
    if (job->conns[ci].fd < 0)
        return;
    fm_wbuf_consume(&job->conns[ci].in, off);
    if (eof)
        conn_close(job, ci);
}

void fm_mx_server_drain(struct fm_mx_job *job, int rank)
{
    int ci = job->ranks[rank].conn;
    if (ci < 0)
        return;
    fm_mx_conn_readable(job, ci);
    if (job->conns[ci].fd >= 0 && job->conns[ci].rank == rank)
        conn_close(job, ci); /* the process is dead: nothing more will come */
}
