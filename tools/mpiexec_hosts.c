/* mpiexec_hosts.c — where the ranks run: --host and --hostfile parsing,
 * which hosts are this machine, the launcher choice, rank placement, and
 * the address remote ranks use to reach the bootstrap server. */
#include "mpiexec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Slots of one host, and ranks of a job, at most (as -n). */
#define MAX_SLOTS 1000000

/* 0, 1 out of memory, 2 (said) too many slots. */
static int add_host(struct fm_mx_job *job, const char *name, size_t len, int slots)
{
    for (int h = 0; h < job->nhosts; h++) /* a repeated host adds slots, as in Open MPI */
        if (strlen(job->hosts[h].name) == len && !strncmp(job->hosts[h].name, name, len)) {
            if (job->hosts[h].slots > MAX_SLOTS - slots) {
                fprintf(stderr, "mpiexec: host %s: more than %d slots in all\n", job->hosts[h].name,
                        MAX_SLOTS);
                return 2;
            }
            job->hosts[h].slots += slots;
            return 0;
        }
    struct fm_mx_host *nh = realloc(job->hosts, (size_t)(job->nhosts + 1) * sizeof *nh);
    if (!nh)
        return -1;
    job->hosts = nh;
    job->hosts[job->nhosts++] = (struct fm_mx_host){.name = strndup(name, len), .slots = slots,
                                                    .to_fd = -1, .from_fd = -1};
    return 0;
}

int fm_mx_hosts_add_list(struct fm_mx_job *job, const char *list)
{
    for (const char *p = list; *p;) {
        const char *end = strchrnul(p, ',');
        const char *colon = memchr(p, ':', (size_t)(end - p));
        int slots = 1;
        if (colon) {
            char *e;
            long s = strtol(colon + 1, &e, 10);
            if (e != end || s < 1 || s > 1000000) {
                fprintf(stderr, "mpiexec: --host %s: bad slot count in '%.*s'\n", list, (int)(end - p), p);
                return 2;
            }
            slots = (int)s;
        }
        size_t nl = (size_t)((colon ? colon : end) - p);
        if (nl == 0) {
            fprintf(stderr, "mpiexec: --host %s: empty host name\n", list);
            return 2;
        }
        int rc = add_host(job, p, nl, slots);
        if (rc)
            return rc;
        p = *end ? end + 1 : end;
    }
    return 0;
}

int fm_mx_hosts_add_file(struct fm_mx_job *job, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "mpiexec: --hostfile %s: %s\n", path, strerror(errno));
        return 2;
    }
    int rc = fm_mx_hosts_add_stream(job, f, path);
    fclose(f);
    return rc;
}

int fm_mx_hosts_add_stream(struct fm_mx_job *job, FILE *f, const char *path)
{
    char line[1024];
    int lineno = 0, rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *tok = strtok(line, " \t\r\n");
        if (!tok)
            continue;
        int slots = 1;
        for (char *opt = strtok(NULL, " \t\r\n"); opt; opt = strtok(NULL, " \t\r\n")) {
            char *e;
            long s = !strncmp(opt, "slots=", 6) ? strtol(opt + 6, &e, 10) : -1;
            if (s < 1 || s > 1000000 || *e) {
                fprintf(stderr, "mpiexec: %s:%d: expected 'host [slots=N]', got '%s'\n", path, lineno, opt);
                rc = 2;
                break;
            }
            slots = (int)s;
        }
        if (!rc)
            rc = add_host(job, tok, strlen(tok), slots);
    }
    if (!rc && job->nhosts == 0) {
        fprintf(stderr, "mpiexec: --hostfile %s: no hosts in it\n", path);
        rc = 2;
    }
    return rc;
}

/* This machine, if one of its addresses can be bound to. */
static int is_local(const char *name)
{
    if (!strcmp(name, "localhost"))
        return 1;
    char me[256] = "";
    gethostname(me, sizeof me - 1);
    if (!strcmp(name, me))
        return 1;
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM}, *res;
    if (getaddrinfo(name, NULL, &hints, &res))
        return 0;
    int local = 0;
    for (struct addrinfo *ai = res; ai && !local; ai = ai->ai_next) {
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        local = fd >= 0 && bind(fd, ai->ai_addr, ai->ai_addrlen) == 0;
        if (fd >= 0)
            close(fd);
    }
    freeaddrinfo(res);
    return local;
}

int fm_mx_route_addr(const char *host, char *out, size_t outlen)
{
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM}, *res;
    int gai = getaddrinfo(host, "9", &hints, &res);
    if (gai) {
        fprintf(stderr, "mpiexec: host %s: cannot resolve: %s\n", host, gai_strerror(gai));
        return -1;
    }
    /* A connected UDP socket sends nothing; it only asks the kernel which
     * source address the route to `host` uses. */
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    int rc = fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen) || getsockname(fd, (struct sockaddr *)&sa, &sl);
    if (rc)
        fprintf(stderr, "mpiexec: host %s: no route to it: %s\n", host, strerror(errno));
    else
        inet_ntop(AF_INET, &sa.sin_addr, out, (socklen_t)outlen);
    if (fd >= 0)
        close(fd);
    freeaddrinfo(res);
    return rc ? -1 : 0;
}

int fm_mx_hosts_place(struct fm_mx_job *job)
{
    int given = job->nhosts > 0;
    if (!given && add_host(job, "localhost", 9, 1))
        return 1;
    int all_local = 1;
    for (int h = 0; h < job->nhosts; h++)
        all_local &= job->hosts[h].local = is_local(job->hosts[h].name);
    if (!job->launcher) {
        job->ssh = !all_local;
    } else if (!strcmp(job->launcher, "ssh")) {
        job->ssh = 1;
    } else if (!strcmp(job->launcher, "fork")) {
        for (int h = 0; h < job->nhosts; h++)
            if (!job->hosts[h].local) {
                fprintf(stderr, "mpiexec: --launcher fork runs ranks on this machine only, but host %s "
                        "is another one; use --launcher ssh\n", job->hosts[h].name);
                return 2;
            }
    } else {
        fprintf(stderr, "mpiexec: --launcher %s: expected fork or ssh; see mpiexec --help\n", job->launcher);
        return 2;
    }
    /* In long long: a million slots (or --ppn) on thousands of hosts. */
    long long total = 0, per = (long long)job->ppn * job->nhosts;
    for (int h = 0; h < job->nhosts; h++)
        total += job->hosts[h].slots;
    if (!job->n_given) {
        long long n = job->ppn ? per : given ? total : 1;
        if (n > MAX_SLOTS) {
            fprintf(stderr, "mpiexec: %lld ranks (%s) is more than %d; give -n\n", n,
                    job->ppn ? "--ppn times hosts" : "the hosts' slots", MAX_SLOTS);
            return 2;
        }
        job->n = (int)n;
    }
    if (job->ppn && job->n > per) {
        fprintf(stderr, "mpiexec: -n %d does not fit %d host(s) x --ppn %d\n", job->n, job->nhosts, job->ppn);
        return 2;
    }
    job->ranks = calloc((size_t)job->n, sizeof *job->ranks);
    if (!job->ranks)
        return 1;
    /* Blocks of consecutive ranks per host (ppn, else the slots); ranks
     * beyond every slot go round-robin: oversubscription is allowed. */
    int r = 0;
    for (int h = 0; h < job->nhosts && r < job->n; h++)
        for (int k = 0; k < (job->ppn ? job->ppn : job->hosts[h].slots) && r < job->n; k++)
            job->ranks[r++].host = h;
    for (int h = 0; r < job->n; h = (h + 1) % job->nhosts)
        job->ranks[r++].host = h;
    for (r = 0; r < job->n; r++) {
        job->hosts[job->ranks[r].host].nranks++;
        job->ranks[r].remote = job->ssh;
    }
    if (job->ssh) { /* ranks everywhere must reach the bootstrap server */
        int h = 0;
        while (h < job->nhosts && job->hosts[h].local)
            h++;
        if (fm_mx_route_addr(job->hosts[h < job->nhosts ? h : 0].name, job->addr, sizeof job->addr))
            return 1;
    }
    return 0;
}
