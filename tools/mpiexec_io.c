/* mpiexec_io.c — --tag-output: each rank's stdout and stderr come through a
 * pipe and leave as whole lines prefixed "[rank] ", never split or merged
 * with another rank's. */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHUNK 65536
#define LINE_MAX_BYTES (1u << 20) /* a "line" this long without '\n' is cut */

static int dead_out[3]; /* our stdout/stderr is closed: drop what goes there */

static void write_all(int fd, const unsigned char *p, size_t len)
{
    while (len && !dead_out[fd]) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EAGAIN) { /* someone made our stdout nonblocking */
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            poll(&pfd, 1, 100);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            dead_out[fd] = 1;
            return;
        }
        p += n;
        len -= (size_t)n;
    }
}

int fm_mx_out_pipes(struct fm_mx_job *job, int rank, int wfds[2])
{
    for (int s = 0; s < 2; s++) {
        int p[2];
        if (pipe2(p, O_CLOEXEC)) {
            fm_mx_say("cannot create an output pipe for rank %d: %s", rank, strerror(errno));
            if (s == 1) {
                close(wfds[0]);
                fm_mx_out_close(&job->ranks[rank].out[0]);
            }
            return -1;
        }
        fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
        struct fm_mx_out *o = &job->ranks[rank].out[s];
        o->fd = p[0];
        o->rank = rank;
        o->to = s + 1;
        wfds[s] = p[1];
    }
    return 0;
}

/* Pass on every complete line in o->buf (all of it when `all`), in one write. */
static void emit(struct fm_mx_out *o, int all)
{
    static struct fm_wbuf lines;
    char tag[24];
    int tl = snprintf(tag, sizeof tag, "[%d] ", o->rank);
    size_t start = 0;
    lines.len = 0;
    for (;;) {
        unsigned char *nl = start < o->buf.len ? memchr(o->buf.p + start, '\n', o->buf.len - start) : NULL;
        size_t end;
        if (nl)
            end = (size_t)(nl - o->buf.p);
        else if (start < o->buf.len && (all || o->buf.len - start >= LINE_MAX_BYTES))
            end = o->buf.len;
        else
            break;
        if (fm_wbuf_add(&lines, tag, (size_t)tl) || fm_wbuf_add(&lines, o->buf.p + start, end - start) ||
            fm_wbuf_add(&lines, "\n", 1))
            break; /* out of memory: keep the bytes, try again later */
        start = nl ? end + 1 : end;
    }
    write_all(o->to, lines.p, lines.len);
    fm_wbuf_consume(&o->buf, start);
}

/* Read what is there: -1 on EOF or error, 0 if nothing now, 1 if read some. */
static int pull(struct fm_mx_out *o)
{
    if (fm_wbuf_reserve(&o->buf, CHUNK))
        return 0;
    ssize_t n = read(o->fd, o->buf.p + o->buf.len, CHUNK);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n <= 0)
        return -1;
    o->buf.len += (size_t)n;
    emit(o, 0);
    return 1;
}

void fm_mx_out_readable(struct fm_mx_out *o)
{
    if (o->fd >= 0 && pull(o) < 0)
        fm_mx_out_close(o);
}

void fm_mx_out_close(struct fm_mx_out *o)
{
    if (o->fd < 0)
        return;
    /* Nonblocking drain: a background child of the rank may hold the pipe. */
    for (int i = 0; i < 4096 && pull(o) > 0; i++)
        ;
    emit(o, 1); /* a last line without '\n' still gets one */
    close(o->fd);
    o->fd = -1;
    fm_wbuf_free(&o->buf);
}

void fm_mx_out_line(const struct fm_mx_job *job, int rank, int to, const unsigned char *p, size_t len)
{
    static struct fm_wbuf line;
    char tag[24];
    int tl = job->tag_output ? snprintf(tag, sizeof tag, "[%d] ", rank) : 0;
    line.len = 0;
    if (fm_wbuf_add(&line, tag, (size_t)tl) || fm_wbuf_add(&line, p, len) || fm_wbuf_add(&line, "\n", 1))
        return;
    write_all(to, line.p, line.len);
}
