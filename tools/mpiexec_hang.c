/* mpiexec_hang.c — the hang report printed when a job overruns --timeout:
 * for every rank, the blocking MPI call it is in, its main arguments and
 * for how long.
 *
 * Each rank keeps a record of its current blocking call (src/core/hang.h);
 * we send it FM_WIRE_HANG_SIGNAL and its handler answers with a HANG
 * message on the bootstrap socket (src/boot/hang_reply.c).  Ranks that
 * cannot answer (not connected, finalized, dead, signals blocked) are
 * reported as such rather than waited for. */
#include "mpiexec.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* A rank we can ask: it runs, is connected and has not finalized. */
static int askable(const struct fm_mx_rank *rk)
{
    return rk->pid > 0 && !rk->reaped && rk->connected && !rk->finalized && rk->conn >= 0;
}

int fm_mx_hang_ask(struct fm_mx_job *job)
{
    int asked = 0;
    for (int r = 0; r < job->n; r++) {
        struct fm_mx_rank *rk = &job->ranks[r];
        rk->hang.got = 0;
        /* SIGURG's default is "ignore": a process without our handler is
         * not harmed by the question. */
        if (!askable(rk))
            continue;
        if (rk->remote) { /* its helper passes the question on */
            fm_mx_remote_signal(job, r, FM_WIRE_HANG_SIGNAL);
            asked++;
        } else if (kill(rk->pid, FM_WIRE_HANG_SIGNAL) == 0) {
            asked++;
        }
    }
    return asked;
}

int fm_mx_hang_complete(const struct fm_mx_job *job)
{
    for (int r = 0; r < job->n; r++)
        if (askable(&job->ranks[r]) && !job->ranks[r].hang.got)
            return 0;
    return 1;
}

int fm_mx_hang_store(struct fm_mx_job *job, int r, const unsigned char *p, uint32_t len)
{
    if (len != FM_WIRE_HANG_LEN)
        return -1;
    struct fm_mx_hang *h = &job->ranks[r].hang;
    h->active = (int)fm_wire_get_u32(p);
    h->peer = (int)fm_wire_get_u32(p + 4);
    h->tag = (int)fm_wire_get_u32(p + 8);
    h->count = (long long)((uint64_t)fm_wire_get_u32(p + 12) | (uint64_t)fm_wire_get_u32(p + 16) << 32);
    h->ms = fm_wire_get_u32(p + 20);
    memcpy(h->call, p + 24, FM_WIRE_HANG_CALL);
    h->call[FM_WIRE_HANG_CALL] = '\0';
    memcpy(h->comm, p + 24 + FM_WIRE_HANG_CALL, FM_WIRE_HANG_COMM);
    h->comm[FM_WIRE_HANG_COMM] = '\0';
    h->got = 1;
    return 0;
}

/* What the peer argument is called in this call. */
static const char *peer_name(const char *call)
{
    static const char *const dest[] = {"MPI_Send", "MPI_Ssend", "MPI_Rsend", "MPI_Bsend", NULL};
    static const char *const root[] = {"MPI_Bcast", "MPI_Reduce", "MPI_Gather", "MPI_Gatherv",
                                       "MPI_Scatter", "MPI_Scatterv", NULL};
    for (int i = 0; dest[i]; i++)
        if (!strcmp(call, dest[i]))
            return "dest";
    for (int i = 0; root[i]; i++)
        if (!strcmp(call, root[i]))
            return "root";
    if (!strncmp(call, "MPI_Wait", 8))
        return "peer";
    return "source";
}

/* "MPI_Recv(source=1, tag=7, count=4, comm=MPI_COMM_WORLD)" */
static void describe(const struct fm_mx_hang *h, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s(", h->call);
    const char *sep = "";
#define ADD(...) (n += snprintf(out + n, cap > (size_t)n ? cap - (size_t)n : 0, __VA_ARGS__), sep = ", ")
    if (h->peer != INT_MIN) {
        if (h->peer == -1)
            ADD("%s%s=MPI_ANY_SOURCE", sep, peer_name(h->call));
        else if (h->peer == -2)
            ADD("%s%s=MPI_PROC_NULL", sep, peer_name(h->call));
        else
            ADD("%s%s=%d", sep, peer_name(h->call), h->peer);
    }
    if (h->tag != INT_MIN) {
        if (h->tag == -1)
            ADD("%stag=MPI_ANY_TAG", sep);
        else
            ADD("%stag=%d", sep, h->tag);
    }
    if (h->count >= 0)
        ADD("%s%s=%lld", sep, !strncmp(h->call, "MPI_Wait", 8) && strcmp(h->call, "MPI_Wait") ? "requests" : "count",
            h->count);
    ADD("%scomm=%s", sep, h->comm[0] ? h->comm : "(unnamed)");
    if (n < (int)cap)
        snprintf(out + n, cap - (size_t)n, ")");
#undef ADD
}

void fm_mx_hang_print(const struct fm_mx_job *job)
{
    for (int r = 0; r < job->n; r++) {
        const struct fm_mx_rank *rk = &job->ranks[r];
        const struct fm_mx_hang *h = &rk->hang;
        char what[256];
        if (h->got && h->active) {
            describe(h, what, sizeof what);
            fm_mx_say("  %s: in %s for %.1f s%s", fm_mx_who(job, r), what, h->ms / 1000.0,
                      h->active > 1 ? " (longest of several threads)" : "");
        } else if (h->got) {
            fm_mx_say("  %s: not in a blocking MPI call (computing, or in a call not tracked)", fm_mx_who(job, r));
        } else {
            fm_mx_say("  %s: %s", fm_mx_who(job, r),
                      rk->reaped       ? "has exited"
                      : rk->finalized  ? "has called MPI_Finalize"
                      : !rk->connected ? "has not called MPI_Init (or is not an MPI program)"
                                       : "did not answer (busy talking to mpiexec, or signals blocked)");
        }
    }
}
