/* mpiexec.h — state shared by the parts of mpiexec: launch (mpiexec.c),
 * the event loop and rank lifecycle (mpiexec_loop.c), the bootstrap server
 * (mpiexec_server.c) and tagged output forwarding (mpiexec_io.c). */
#ifndef FM_TOOLS_MPIEXEC_H
#define FM_TOOLS_MPIEXEC_H

#include "boot/wire.h"

#include <stdio.h>
#include <sys/types.h>

/* One forwarded output stream of one rank (--tag-output only). */
struct fm_mx_out {
    int fd;      /* read end of the rank's pipe; -1 once closed */
    int rank;
    int to;      /* 1 = our stdout, 2 = our stderr */
    struct fm_wbuf buf; /* bytes of a line not yet complete */
};

/* A rank's answer to the hang-report signal (wire.h FM_WIRE_HANG). */
struct fm_mx_hang {
    int got;        /* answered */
    int active;     /* threads in blocking MPI calls */
    int peer, tag;  /* INT_MIN: the call has none */
    long long count; /* -1: none */
    unsigned ms;    /* time in the call */
    char call[FM_WIRE_HANG_CALL + 1], comm[FM_WIRE_HANG_COMM + 1];
};

struct fm_mx_rank {
    pid_t pid;        /* 0 until forked; the rank leads its own process group */
    int host;         /* index into job->hosts */
    int remote;       /* started by a fabmpi_hostd: pid is on that host, not ours */
    int conn;         /* index into job->conns, -1 if none */
    int connected;    /* said HELLO with the right key */
    int finalized;    /* sent FINALIZE */
    int in_fence;     /* waiting in the current fence */
    int reaped;
    double lost_at;   /* > 0: connection closed without FINALIZE at this time */
    struct fm_mx_hang hang;
    struct fm_mx_out out[2];
};

struct fm_mx_conn {
    int fd;    /* -1: free slot */
    int rank;  /* -1 until authenticated */
    double opened; /* accepted at (fm_mx_now) */
    struct fm_wbuf in, out;
    int close_after_write; /* rejected: close once `out` is sent */
};

/* A host of the job (--host/--hostfile; one entry, this host, without). */
struct fm_mx_host {
    char *name;
    int slots;       /* 0: not given */
    int nranks;      /* ranks placed here */
    int local;       /* this host */
    pid_t ssh_pid;   /* ssh running fabmpi_hostd; 0 if none */
    int to_fd, from_fd; /* its stdin/stdout; -1 when closed */
    struct fm_wbuf in;  /* partial frames from it */
    int lost;        /* connection gone before all its ranks ended */
};

struct fm_mx_job {
    /* options */
    int n;
    int n_given;    /* -n was given */
    int ppn;        /* -N/--ppn; 0 = not given */
    int bind;       /* --bind-to core */
    int dry_run;    /* -t */
    int ssh;        /* --launcher ssh (or chosen because a host is remote) */
    const char *launcher; /* as given, NULL = choose */
    struct fm_mx_host *hosts;
    int nhosts;
    int stdin_open; /* ssh launcher: still forwarding our stdin to rank 0 */
    char **argv;
    int tag_output, verbose;
    double timeout; /* seconds; 0 = none */
    char **xvars;   /* -x VAR or VAR=value, as given */
    int nx;
    double exit_timeout; /* FABMPI_EXIT_TIMEOUT */

    /* identity handed to the ranks */
    char jobid[40], key[40], addr[64];
    int listen_fd;

    struct fm_mx_rank *ranks;
    int nlive; /* ranks forked and not yet reaped */
    struct fm_mx_conn *conns;
    int nconns;

    int nfence;           /* ranks waiting in the current fence */
    struct fm_wbuf epoch; /* PUT records of the current fence epoch */

    double start;
    int ending;     /* the job is being torn down; further failures are effects */
    double kill_at; /* when still-living ranks get SIGKILL */
    double report_until; /* > 0: collecting hang reports until then */
    int killed;     /* SIGKILL sent */
    int exit_code;  /* first failure; 0 while everything is fine */
};

/* mpiexec_loop.c */
double fm_mx_now(void);
/* "mpiexec: <message>\n" on stderr in one write. */
void fm_mx_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fm_mx_signals_init(void);
void fm_mx_signals_block(int block);
void fm_mx_child_signals_reset(void);
/* Tear the job down: record `code` as the exit status unless one is set,
 * send `sig` to every rank, SIGKILL after `grace` seconds. */
void fm_mx_end(struct fm_mx_job *job, int code, int sig, double grace);
void fm_mx_run(struct fm_mx_job *job);

/* mpiexec_server.c */
int fm_mx_server_open(struct fm_mx_job *job);
void fm_mx_server_accept(struct fm_mx_job *job);
/* Close connections that did not say HELLO in time; returns when the next
 * one is due (0: none waiting). */
double fm_mx_server_expire(struct fm_mx_job *job, double now);
void fm_mx_conn_readable(struct fm_mx_job *job, int ci);
void fm_mx_conn_writable(struct fm_mx_job *job, int ci);
/* A rank's process is gone: read what it sent before dying (a FINALIZE or an
 * ABORT may still sit in the socket) and close its connection. */
void fm_mx_server_drain(struct fm_mx_job *job, int rank);
/* If a fence waits for a rank that can no longer join it, end the job. */
void fm_mx_check_fence(struct fm_mx_job *job);

/* mpiexec_hang.c: the --timeout hang report */
/* Ask every rank that can answer; returns how many were asked. */
int fm_mx_hang_ask(struct fm_mx_job *job);
/* 1 once every asked rank has answered (or is gone). */
int fm_mx_hang_complete(const struct fm_mx_job *job);
void fm_mx_hang_print(const struct fm_mx_job *job);
/* Store a HANG message from rank r; 0 ok, -1 malformed. */
int fm_mx_hang_store(struct fm_mx_job *job, int r, const unsigned char *p, uint32_t len);

/* Deliver a rank's rank-to-host ending (wait status) as if reaped here. */
void fm_mx_rank_ended(struct fm_mx_job *job, int r, int st);
/* "rank R (pid P)" plus " on host H" when the job spans hosts. */
const char *fm_mx_who(const struct fm_mx_job *job, int r);

/* mpiexec_args.c: the command line.  0 ok (job->argv: the program and its
 * arguments), else the exit status after saying why on stderr; -h and
 * --version print and exit(0). */
int fm_mx_parse_args(struct fm_mx_job *job, int argc, char **argv);

/* mpiexec_hosts.c: --host, --hostfile, placement and the server address */
int fm_mx_hosts_add_list(struct fm_mx_job *job, const char *list);
int fm_mx_hosts_add_file(struct fm_mx_job *job, const char *path);
/* The lines of an open hostfile (`path` names it in messages). */
int fm_mx_hosts_add_stream(struct fm_mx_job *job, FILE *f, const char *path);
/* Decide the launcher and the rank count, place ranks; 0 ok, else exit status. */
int fm_mx_hosts_place(struct fm_mx_job *job);
/* The address (IPv4) this machine has on the route toward `host`. */
int fm_mx_route_addr(const char *host, char *out, size_t outlen);

/* mpiexec_remote.c: the ssh launcher and its fabmpi_hostd helpers */
int fm_mx_remote_launch(struct fm_mx_job *job, const char *path);
void fm_mx_remote_print(const struct fm_mx_job *job, const char *path);
void fm_mx_host_readable(struct fm_mx_job *job, int h);
/* ssh of host h has exited with wait status st. */
void fm_mx_host_exited(struct fm_mx_job *job, int h, int st);
/* Send signal `sig` to rank r (-1: all ranks) of remote hosts. */
void fm_mx_remote_signal(struct fm_mx_job *job, int r, int sig);
void fm_mx_stdin_readable(struct fm_mx_job *job);
/* After the last rank: let the helpers exit, reap the ssh processes. */
void fm_mx_remote_finish(struct fm_mx_job *job);

/* mpiexec_io.c */
/* One line from a remote rank, tagged with --tag-output. */
void fm_mx_out_line(const struct fm_mx_job *job, int rank, int to, const unsigned char *p, size_t len);
int fm_mx_out_pipes(struct fm_mx_job *job, int rank, int wfds[2]);
void fm_mx_out_readable(struct fm_mx_out *o);
void fm_mx_out_close(struct fm_mx_out *o);

#endif
