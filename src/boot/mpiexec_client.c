/* mpiexec_client.c — the bootstrap backend for fabmpi's own mpiexec: talks
 * to its server over TCP (wire.h has the protocol, backend.h the contract).
 * The PMI backends share nothing with this file. */
#include "boot/backend.h"
#include "boot/hang_reply.h"
#include "boot/kvs.h"
#include "boot/wire.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CONNECT_TIMEOUT_MS 10000
#define HANDSHAKE_TIMEOUT_MS 60000
#define CONNECT_TRIES 20 /* connections closed unanswered (mpiexec full of strangers) */
#define ABORT_WAIT_MS 5000 /* how long abort waits for mpiexec to kill us */

static struct {
    int inited;
    int fd; /* connection to mpiexec; -1 before init and after finalize */
    int rank, size;
    const char *addr;
    struct fm_wbuf pending; /* PUT messages not yet sent: they go with the fence */
} B = {.fd = -1};

static const char hint[] = "was this process started by fabmpi's mpiexec? (to run it alone, "
                           "unset FABMPI_BOOT_ADDR, FABMPI_BOOT_KEY, FABMPI_RANK and FABMPI_SIZE)";

#define fail fm_boot_fail

static int send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Read exactly len bytes, waiting at most timeout_ms in total (-1: forever).
 * Returns 0, or -1 with errno (0 for EOF, ETIMEDOUT). */
static int recv_all(int fd, void *buf, size_t len, int timeout_ms)
{
    char *p = buf;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (len) {
        int wait = timeout_ms;
        if (timeout_ms >= 0) {
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            long spent = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
            wait = spent >= timeout_ms ? 0 : timeout_ms - (int)spent;
        }
        if (timeout_ms >= 0) { /* unbounded waits skip poll: recv blocks */
            struct pollfd pfd = {.fd = fd, .events = POLLIN};
            int r = poll(&pfd, 1, wait);
            if (r < 0 && errno == EINTR)
                continue;
            if (r == 0) {
                errno = ETIMEDOUT;
                return -1;
            }
        }
        ssize_t n = recv(fd, p, len, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n == 0)
            errno = 0;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Receive one message; *payload is malloc'd (caller frees). */
static int recv_msg(int fd, uint32_t *type, unsigned char **payload, uint32_t *len, int timeout_ms)
{
    unsigned char hdr[FM_WIRE_HDR];
    if (recv_all(fd, hdr, sizeof hdr, timeout_ms))
        return -1;
    *type = fm_wire_get_u32(hdr);
    *len = fm_wire_get_u32(hdr + 4);
    if (*len > FM_WIRE_SERVER_MAX) {
        errno = EPROTO;
        return -1;
    }
    *payload = malloc(*len + 1);
    if (!*payload) {
        errno = ENOMEM;
        return -1;
    }
    if (recv_all(fd, *payload, *len, timeout_ms)) {
        free(*payload);
        return -1;
    }
    (*payload)[*len] = '\0'; /* reasons are text; terminate for printing */
    return 0;
}

/* The launcher vanished under a blocking call: nobody can finish this job. */
static void lost(const char *during) __attribute__((noreturn));
static void lost(const char *during)
{
    fm_error_msg("lost the connection to mpiexec (FABMPI_BOOT_ADDR=%s) during %s: the launcher "
                 "is gone, so this rank exits",
                 B.addr, during);
    _exit(1);
}

/* Nonblocking connect bounded by CONNECT_TIMEOUT_MS; returns fd or -1/errno. */
static int dial(const struct addrinfo *ai)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0)
        return -1;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS)
        goto fail;
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    int r;
    while ((r = poll(&pfd, 1, CONNECT_TIMEOUT_MS)) < 0 && errno == EINTR)
        ;
    if (r == 0) {
        errno = ETIMEDOUT;
        goto fail;
    }
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
    if (soerr) {
        errno = soerr;
        goto fail;
    }
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    int one = 1; /* fence messages are tiny and latency-bound */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
fail:;
    int e = errno;
    close(fd);
    errno = e;
    return -1;
}

static int connect_launcher(char *err, size_t errlen)
{
    char host[256];
    const char *colon = strrchr(B.addr, ':');
    size_t hl = colon ? (size_t)(colon - B.addr) : 0;
    if (!colon || hl == 0 || hl >= sizeof host || !colon[1])
        return fail(err, errlen, "FABMPI_BOOT_ADDR=%s: not host:port; %s", B.addr, hint);
    memcpy(host, B.addr, hl);
    host[hl] = '\0';
    if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') { /* [v6addr]:port */
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res;
    int gai = getaddrinfo(host, colon + 1, &hints, &res);
    if (gai)
        return fail(err, errlen, "FABMPI_BOOT_ADDR=%s: cannot resolve: %s; %s", B.addr, gai_strerror(gai),
                    hint);
    int fd = -1, e = 0;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = dial(ai);
        e = errno;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return fail(err, errlen, "FABMPI_BOOT_ADDR=%s set but %s: %s", B.addr,
                    e == ECONNREFUSED ? "connection refused" : strerror(e), hint);
    B.fd = fd;
    return FM_OK;
}

/* *retry = 1 when the server closed the connection without answering:
 * mpiexec refuses newcomers while its unauthenticated slots are full of
 * fresh connections (tools/mpiexec_server.c), so trying again is right. */
static int handshake(const char *key, char *err, size_t errlen, int *retry)
{
    size_t klen = strlen(key);
    struct fm_wbuf m = {0};
    if (fm_wbuf_hdr(&m, FM_WIRE_HELLO, (uint32_t)(16 + klen)) || fm_wbuf_u32(&m, FM_WIRE_VERSION) ||
        fm_wbuf_u32(&m, (uint32_t)B.rank) || fm_wbuf_u32(&m, (uint32_t)B.size) ||
        fm_wbuf_u32(&m, (uint32_t)getpid()) || fm_wbuf_add(&m, key, klen)) {
        fm_wbuf_free(&m);
        return fail(err, errlen, "out of memory during the bootstrap handshake");
    }
    int rc = send_all(B.fd, m.p, m.len);
    fm_wbuf_free(&m);
    uint32_t type, len;
    unsigned char *pl = NULL;
    if (rc == 0)
        rc = recv_msg(B.fd, &type, &pl, &len, HANDSHAKE_TIMEOUT_MS);
    if (rc) {
        int e = errno;
        *retry = e == 0 || e == ECONNRESET || e == EPIPE;
        return fail(err, errlen, "FABMPI_BOOT_ADDR=%s: %s during the handshake; %s", B.addr,
                    e == 0 ? "connection closed by the other side"
                    : e == ETIMEDOUT ? "no answer within 60 s"
                                     : strerror(e),
                    hint);
    }
    if (type == FM_WIRE_WELCOME) {
        free(pl);
        return FM_OK;
    }
    if (type == FM_WIRE_REJECT)
        rc = fail(err, errlen, "mpiexec at FABMPI_BOOT_ADDR=%s rejected rank %d: %s", B.addr, B.rank,
                  (char *)pl);
    else
        rc = fail(err, errlen, "FABMPI_BOOT_ADDR=%s: unexpected reply %u to the handshake; %s", B.addr,
                  type, hint);
    free(pl);
    return rc;
}

static void close_conn(void)
{
    fm_boot_hang_reply_stop();
    if (B.fd >= 0)
        close(B.fd);
    B.fd = -1;
}

static int m_init(fm_boot_info *info, char *err, size_t errlen)
{
    if (B.inited)
        return fail(err, errlen, "the mpiexec bootstrap was initialized twice");
    const char *addr = fm_param.BOOT_ADDR, *key = fm_param.BOOT_KEY, *jobid = fm_param.JOBID;
    long rank = fm_param.RANK, size = fm_param.SIZE;
    fm_boot_info in = {0};

    /* Some launcher variable is set: from here on, every problem is an error,
     * never a quiet fallback to N singletons. */
    char missing[160] = "";
    if (!addr[0]) strcat(missing, " FABMPI_BOOT_ADDR");
    if (!key[0]) strcat(missing, " FABMPI_BOOT_KEY");
    if (rank < 0) strcat(missing, " FABMPI_RANK");
    if (size < 0) strcat(missing, " FABMPI_SIZE");
    if (!jobid[0]) strcat(missing, " FABMPI_JOBID");
    if (missing[0])
        return fail(err, errlen, "launcher variables are incomplete: missing%s; %s", missing, hint);
    if (size < 1 || rank >= size)
        return fail(err, errlen, "FABMPI_RANK=%ld, FABMPI_SIZE=%ld: rank must be in 0..size-1; %s", rank,
                    size, hint);
    if (strlen(key) > FM_BOOT_SECRET_MAX)
        return fail(err, errlen, "FABMPI_BOOT_KEY: longer than %u characters; %s", FM_BOOT_SECRET_MAX, hint);
    if (strlen(jobid) >= sizeof in.jobid)
        return fail(err, errlen, "FABMPI_JOBID=%s: longer than %zu characters", jobid, sizeof in.jobid - 1);
    B.addr = addr;
    B.rank = (int)rank;
    B.size = (int)size;
    int rc;
    for (int tries = 1;; tries++) {
        int retry = 0;
        rc = connect_launcher(err, errlen);
        if (rc == FM_OK && (rc = handshake(key, err, errlen, &retry)) != FM_OK)
            close_conn();
        if (rc == FM_OK || !retry || tries == CONNECT_TRIES)
            break;
        /* 50 ms, doubling up to 1 s: about 16 s in all. */
        long ms = tries < 5 ? 50L << (tries - 1) : 1000;
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (rc != FM_OK)
        return rc;
    fm_boot_hang_reply_install(B.fd);
    in.size = B.size;
    in.rank = B.rank;
    in.local_rank = fm_param.LOCAL_RANK >= 0 ? (int)fm_param.LOCAL_RANK : B.rank;
    in.local_size = fm_param.LOCAL_SIZE >= 0 ? (int)fm_param.LOCAL_SIZE : B.size;
    in.node_id = fm_param.NODE_ID >= 0 ? (int)fm_param.NODE_ID : 0;
    snprintf(in.jobid, sizeof in.jobid, "%s", jobid);
    B.inited = 1;
    *info = in;
    return FM_OK;
}

static int m_put(const char *key, const void *val, size_t len)
{
    size_t klen = strlen(key);
    if (fm_wbuf_hdr(&B.pending, FM_WIRE_PUT, (uint32_t)(8 + klen + len)) ||
        fm_wbuf_u32(&B.pending, (uint32_t)klen) || fm_wbuf_u32(&B.pending, (uint32_t)len) ||
        fm_wbuf_add(&B.pending, key, klen) || fm_wbuf_add(&B.pending, val, len))
        return FM_ERR_NOMEM;
    return FM_OK;
}

/* Store the records of a FENCE_DONE payload. */
static int absorb(const unsigned char *p, size_t len)
{
    while (len) {
        struct fm_wire_kv kv;
        long used = fm_wire_kv_decode(p, len, 4, &kv);
        if (used < 0)
            return FM_ERR_BOOT;
        int rc = fm_kvs_put((int)kv.rank, (const char *)kv.key, kv.klen, kv.val, kv.vlen);
        if (rc != FM_OK)
            return rc;
        p += used;
        len -= (size_t)used;
    }
    return FM_OK;
}

static int m_fence(void)
{
    if (B.fd < 0)
        return FM_ERR_BOOT;
    /* All of this epoch's puts and the fence leave in one send. */
    if (fm_wbuf_hdr(&B.pending, FM_WIRE_FENCE, 0))
        return FM_ERR_NOMEM;
    fm_boot_hang_busy = 1;
    int lost_it = send_all(B.fd, B.pending.p, B.pending.len);
    fm_boot_hang_busy = 0;
    if (lost_it)
        lost("a fence (sending)");
    B.pending.len = 0;
    uint32_t type, len;
    unsigned char *pl;
    if (recv_msg(B.fd, &type, &pl, &len, -1)) {
        if (errno == ENOMEM || errno == EPROTO) {
            fm_error_msg("bootstrap fence: cannot receive the reply from mpiexec: %s", strerror(errno));
            return errno == ENOMEM ? FM_ERR_NOMEM : FM_ERR_BOOT;
        }
        lost("a fence");
    }
    int rc = type == FM_WIRE_FENCE_DONE ? absorb(pl, len) : FM_ERR_BOOT;
    if (rc == FM_ERR_BOOT)
        fm_error_msg("bootstrap fence: malformed reply from mpiexec (type %u, %u bytes)", type, len);
    free(pl);
    return rc;
}

static int m_get(int rank, const char *key, void *val, size_t *len)
{
    if (rank >= B.size)
        return FM_ERR_ARG;
    size_t vlen;
    const void *v = fm_kvs_get(rank, key, strlen(key), &vlen);
    if (!v)
        return FM_ERR_ARG;
    if (vlen > *len)
        return FM_ERR_TRUNCATE;
    if (vlen)
        memcpy(val, v, vlen);
    *len = vlen;
    return FM_OK;
}

static void m_abort(int code, const char *why) __attribute__((noreturn));
static void m_abort(int code, const char *why)
{
    if (B.fd < 0) { /* not connected: nobody else to tell */
        fm_error_msg("MPI_Abort with code %d%s%s", code, why[0] ? ": " : "", why);
        _exit(code);
    }
    size_t wl = strnlen(why, FM_BOOT_WHY_MAX);
    struct fm_wbuf m = {0};
    fm_boot_hang_busy = 1; /* stays set: nothing else goes to mpiexec now */
    if (!fm_wbuf_hdr(&m, FM_WIRE_ABORT, (uint32_t)(4 + wl)) && !fm_wbuf_u32(&m, (uint32_t)code) &&
        !fm_wbuf_add(&m, why, wl) && !send_all(B.fd, m.p, m.len)) {
        /* mpiexec prints `why` and kills every rank, us included; wait for
         * that so the job's exit status is the launcher's decision. */
        char c;
        recv_all(B.fd, &c, 1, ABORT_WAIT_MS);
    } else {
        fm_error_msg("MPI_Abort with code %d%s%s (could not reach mpiexec)", code, why[0] ? ": " : "", why);
    }
    _exit(code);
}

static int m_finalize(void)
{
    int rc = FM_OK;
    if (B.fd >= 0) {
        fm_boot_hang_reply_stop();
        unsigned char m[FM_WIRE_HDR];
        fm_wire_put_u32(m, FM_WIRE_FINALIZE);
        fm_wire_put_u32(m + 4, 0);
        if (send_all(B.fd, m, sizeof m)) {
            fm_error_msg("bootstrap finalize: lost the connection to mpiexec (FABMPI_BOOT_ADDR=%s)", B.addr);
            rc = FM_ERR_BOOT;
        }
        close_conn();
    }
    fm_wbuf_free(&B.pending);
    fm_kvs_clear();
    B.inited = 0;
    return rc;
}

const struct fm_boot_ops fm_boot_mpiexec_ops = {
    .name = "mpiexec",
    .init = m_init,
    .put = m_put,
    .fence = m_fence,
    .get = m_get,
    .abort = m_abort,
    .finalize = m_finalize,
};
