/* pmpi_counter.c — a profiling library, as mpiP or a home-made wrapper
 * would be: it defines some MPI_ procedures, counts each call, sums one
 * argument of it and forwards to the PMPI_ twin.  The pmpi_calls tests use
 * it linked before libfabmpi and LD_PRELOADed.
 *
 * A program reads what was seen through the standard's channel to a
 * profiler, MPI_Pcontrol:
 *     MPI_Pcontrol(PMPI_COUNTER_QUERY, "MPI_Send", &calls, &argsum);
 * Without a profiling library MPI_Pcontrol does nothing and the program's
 * -1s stay, which its checks report.  Every wrapper also checks that the
 * arguments it forwards are usable (a valid handle where one is required),
 * so a signature the library and mpi.h disagree on shows up here. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_counter.h"

struct counter {
    const char *name;
    long calls, argsum;
};

#define COUNTED(X)                                                                  \
    X(MPI_Init) X(MPI_Finalize) X(MPI_Comm_rank) X(MPI_Comm_size) X(MPI_Send)       \
    X(MPI_Recv) X(MPI_Isend) X(MPI_Irecv) X(MPI_Wait) X(MPI_Waitall) X(MPI_Sendrecv) \
    X(MPI_Mprobe) X(MPI_Mrecv) X(MPI_Imrecv) X(MPI_Bcast) X(MPI_Allreduce)          \
    X(MPI_Iallreduce) X(MPI_Barrier) X(MPI_Win_create) X(MPI_Win_fence) X(MPI_Put)  \
    X(MPI_Get) X(MPI_Win_free) X(MPI_Win_get_info) X(MPI_Info_create) X(MPI_Info_dup) \
    X(MPI_Info_free) X(MPI_Comm_dup) X(MPI_Comm_split) X(MPI_Comm_free)

#define ENUM(name) C_##name,
enum { COUNTED(ENUM) NCOUNTERS };
#undef ENUM
#define ENTRY(name) {#name, 0, 0},
static struct counter counters[NCOUNTERS] = {COUNTED(ENTRY)};
#undef ENTRY

static void seen(int which, long arg)
{
    counters[which].calls++;
    counters[which].argsum += arg;
}

/* A wrong argument here means the profiling layer and the library disagree
 * about it: say which call and stop. */
static void require(int ok, const char *call, const char *what)
{
    if (!ok) {
        fprintf(stderr, "pmpi_counter: %s got %s\n", call, what);
        abort();
    }
}

int MPI_Pcontrol(const int level, ...)
{
    if (level != PMPI_COUNTER_QUERY)
        return PMPI_Pcontrol(level);
    va_list ap;
    va_start(ap, level);
    const char *name = va_arg(ap, const char *);
    long *calls = va_arg(ap, long *);
    long *argsum = va_arg(ap, long *);
    va_end(ap);
    for (int i = 0; i < NCOUNTERS; i++)
        if (!strcmp(counters[i].name, name)) {
            *calls = counters[i].calls;
            *argsum = counters[i].argsum;
            return MPI_SUCCESS;
        }
    fprintf(stderr, "pmpi_counter: %s is not counted\n", name);
    abort();
}

int MPI_Init(int *argc, char ***argv)
{
    seen(C_MPI_Init, argc != NULL);
    return PMPI_Init(argc, argv);
}

/* PMPI_COUNTER_EXPECT="MPI_Isend=1:MPI_Send=0:..." (':' between items: the
 * test list separates variables with commas): a program that cannot call
 * MPI_Pcontrol with arguments (Fortran) has its counts checked here. */
static void check_expected(void)
{
    const char *spec = getenv("PMPI_COUNTER_EXPECT");
    char item[64];
    while (spec && *spec) {
        size_t n = strcspn(spec, ":");
        if (n >= sizeof item)
            n = sizeof item - 1;
        memcpy(item, spec, n);
        item[n] = '\0';
        spec += n + (spec[n] == ':');
        char *eq = strchr(item, '=');
        if (!eq)
            continue;
        *eq = '\0';
        long want = strtol(eq + 1, NULL, 10);
        int found = 0;
        for (int i = 0; i < NCOUNTERS; i++)
            if (!strcmp(counters[i].name, item)) {
                found = 1;
                if (counters[i].calls != want) {
                    fprintf(stderr, "pmpi_counter: %s: the profiler saw %ld calls, expected %ld\n",
                            item, counters[i].calls, want);
                    abort();
                }
            }
        if (!found) {
            fprintf(stderr, "pmpi_counter: %s is not counted\n", item);
            abort();
        }
    }
}

int MPI_Finalize(void)
{
    seen(C_MPI_Finalize, 0);
    check_expected();
    return PMPI_Finalize();
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    seen(C_MPI_Comm_rank, 0);
    require(comm != MPI_COMM_NULL && rank != NULL, "MPI_Comm_rank", "a null argument");
    return PMPI_Comm_rank(comm, rank);
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    seen(C_MPI_Comm_size, 0);
    require(comm != MPI_COMM_NULL && size != NULL, "MPI_Comm_size", "a null argument");
    return PMPI_Comm_size(comm, size);
}

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    seen(C_MPI_Send, count);
    require(dt != MPI_DATATYPE_NULL && comm != MPI_COMM_NULL, "MPI_Send", "a null handle");
    return PMPI_Send(buf, count, dt, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    seen(C_MPI_Recv, count);
    require(dt != MPI_DATATYPE_NULL && comm != MPI_COMM_NULL, "MPI_Recv", "a null handle");
    return PMPI_Recv(buf, count, dt, source, tag, comm, status);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    seen(C_MPI_Isend, count);
    require(req != NULL, "MPI_Isend", "request=NULL");
    return PMPI_Isend(buf, count, dt, dest, tag, comm, req);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    seen(C_MPI_Irecv, count);
    require(req != NULL, "MPI_Irecv", "request=NULL");
    return PMPI_Irecv(buf, count, dt, source, tag, comm, req);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    seen(C_MPI_Wait, 0);
    return PMPI_Wait(req, status);
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    seen(C_MPI_Waitall, count);
    return PMPI_Waitall(count, reqs, statuses);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                 MPI_Comm comm, MPI_Status *status)
{
    seen(C_MPI_Sendrecv, scount + rcount);
    return PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag,
                         comm, status);
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status)
{
    seen(C_MPI_Mprobe, tag);
    return PMPI_Mprobe(source, tag, comm, msg, status);
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Status *status)
{
    seen(C_MPI_Mrecv, count);
    require(msg != NULL, "MPI_Mrecv", "message=NULL");
    return PMPI_Mrecv(buf, count, dt, msg, status);
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Request *req)
{
    seen(C_MPI_Imrecv, count);
    return PMPI_Imrecv(buf, count, dt, msg, req);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    seen(C_MPI_Bcast, count + 1000L * root);
    return PMPI_Bcast(buf, count, dt, root, comm);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    seen(C_MPI_Allreduce, count);
    require(op != MPI_OP_NULL, "MPI_Allreduce", "MPI_OP_NULL");
    return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, MPI_Request *req)
{
    seen(C_MPI_Iallreduce, count);
    return PMPI_Iallreduce(sbuf, rbuf, count, dt, op, comm, req);
}

int MPI_Barrier(MPI_Comm comm)
{
    seen(C_MPI_Barrier, 0);
    return PMPI_Barrier(comm);
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win)
{
    seen(C_MPI_Win_create, (long)size);
    return PMPI_Win_create(base, size, disp_unit, info, comm, win);
}

int MPI_Win_fence(int assert, MPI_Win win)
{
    seen(C_MPI_Win_fence, assert);
    return PMPI_Win_fence(assert, win);
}

int MPI_Put(const void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp,
            int tcount, MPI_Datatype tdt, MPI_Win win)
{
    seen(C_MPI_Put, (long)tdisp);
    require(win != MPI_WIN_NULL, "MPI_Put", "MPI_WIN_NULL");
    return PMPI_Put(oaddr, ocount, odt, target, tdisp, tcount, tdt, win);
}

int MPI_Get(void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp, int tcount,
            MPI_Datatype tdt, MPI_Win win)
{
    seen(C_MPI_Get, (long)tdisp);
    return PMPI_Get(oaddr, ocount, odt, target, tdisp, tcount, tdt, win);
}

int MPI_Win_free(MPI_Win *win)
{
    seen(C_MPI_Win_free, 0);
    return PMPI_Win_free(win);
}

int MPI_Win_get_info(MPI_Win win, MPI_Info *info)
{
    seen(C_MPI_Win_get_info, 0);
    return PMPI_Win_get_info(win, info);
}

int MPI_Info_create(MPI_Info *info)
{
    seen(C_MPI_Info_create, 0);
    return PMPI_Info_create(info);
}

int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    seen(C_MPI_Info_dup, 0);
    return PMPI_Info_dup(info, newinfo);
}

int MPI_Info_free(MPI_Info *info)
{
    seen(C_MPI_Info_free, 0);
    return PMPI_Info_free(info);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    seen(C_MPI_Comm_dup, 0);
    return PMPI_Comm_dup(comm, newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    seen(C_MPI_Comm_split, color);
    return PMPI_Comm_split(comm, color, key, newcomm);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    seen(C_MPI_Comm_free, 0);
    require(comm != NULL && *comm != MPI_COMM_NULL, "MPI_Comm_free", "MPI_COMM_NULL");
    return PMPI_Comm_free(comm);
}
