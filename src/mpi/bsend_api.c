/* bsend_api.c — MPI_Buffer_attach/detach, MPI_Bsend, MPI_Ibsend.
 *
 * A buffered message is packed into the attached buffer and sent from there
 * with an ordinary send.  Space is bookkept outside the user's buffer in a
 * list sorted by offset; each message occupies its size plus
 * MPI_BSEND_OVERHEAD bytes, the figure the standard tells users to budget.
 * Space is reclaimed lazily: completed sends are released on the next Bsend
 * or at detach, which waits for every buffered message to leave. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "mpi/api.h"
#include "mpi/bsend.h"
#include "mpi/request_api.h"
#include "pt2pt/pt2pt.h"

struct bsend_slot {
    size_t off, len;          /* region of the attached buffer, overhead included */
    struct fm_request *req;   /* the send carrying it */
};

static char *attached;
static size_t attached_size;
static struct bsend_slot *slots;
static int nslots, cap_slots;

/* Drop slots whose sends have completed. */
static void reclaim(void)
{
    int j = 0;
    for (int i = 0; i < nslots; i++) {
        if (slots[i].req->done) {
            fm_req_free(slots[i].req);
            continue;
        }
        slots[j++] = slots[i];
    }
    nslots = j;
}

/* First fit between live slots; returns the index to insert at, or -1. */
static int find_space(size_t need, size_t *off)
{
    size_t at = 0;
    for (int i = 0; i <= nslots; i++) {
        size_t end = i < nslots ? slots[i].off : attached_size;
        if (end >= at && end - at >= need) {
            *off = at;
            return i;
        }
        if (i < nslots)
            at = slots[i].off + slots[i].len;
    }
    return -1;
}

int fm_bsend(const char *call, const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
             int tag, MPI_Comm comm)
{
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    size_t bytes = (size_t)count * (size_t)dt->size;
    size_t need = bytes + MPI_BSEND_OVERHEAD;
    fm_progress();
    reclaim();
    size_t off;
    int at = attached ? find_space(need, &off) : -1;
    if (at < 0)
        return fm_raise(comm, call, MPI_ERR_BUFFER,
                        "message of %zu bytes (+%d overhead) does not fit in the %s", bytes,
                        MPI_BSEND_OVERHEAD,
                        attached ? "free space of the attached buffer"
                                 : "attached buffer: none is attached (MPI_Buffer_attach)");
    if (nslots == cap_slots) {
        int ncap = cap_slots ? 2 * cap_slots : 16;
        struct bsend_slot *n = realloc(slots, (size_t)ncap * sizeof *n);
        if (!n)
            return fm_raise(comm, call, MPI_ERR_NO_MEM, "out of memory");
        slots = n;
        cap_slots = ncap;
    }
    char *copy = attached + off;
    fm_dt_pack(buf, count, dt, 0, copy, bytes);
    struct fm_request *r;
    int rc = fm_isend(copy, (MPI_Count)bytes, MPI_BYTE, dest, tag, comm, 0, FM_SEND_STD, &r);
    if (rc != FM_OK)
        return fm_raise_status(comm, call, rc);
    memmove(&slots[at + 1], &slots[at], (size_t)(nslots - at) * sizeof *slots);
    slots[at] = (struct bsend_slot){off, need, r};
    nslots++;
    return MPI_SUCCESS;
}

/* Attach and detach, for both sizes (the _c calls take an MPI_Count). */
static int buffer_attach(const char *call, void *buffer, MPI_Count size)
{
    FM_CHECK_INIT(call);
    if (size < 0)
        return fm_raise(MPI_COMM_WORLD, call, MPI_ERR_ARG, "size=%lld must be >= 0",
                        (long long)size);
    if (attached)
        return fm_raise(MPI_COMM_WORLD, call, MPI_ERR_BUFFER,
                        "a buffer of %zu bytes is already attached; detach it first",
                        attached_size);
    attached = buffer;
    attached_size = (size_t)size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void *buffer, int size)
{
    FM_API_LOCK();
    return buffer_attach("MPI_Buffer_attach", buffer, size);
}

#pragma weak MPI_Buffer_attach_c = PMPI_Buffer_attach_c
int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    FM_API_LOCK();
    return buffer_attach("MPI_Buffer_attach_c", buffer, size);
}

/* max: the largest size the caller's type holds.  A buffer too large for
 * it stays attached (nothing is lost), and the error names the call that
 * can detach it. */
static int buffer_detach(const char *call, void *buffer_addr, MPI_Count *size, MPI_Count max)
{
    FM_CHECK_INIT(call);
    if ((MPI_Count)attached_size > max)
        return fm_raise(MPI_COMM_WORLD, call, MPI_ERR_COUNT,
                        "the attached buffer's size %zu does not fit an int; it stays "
                        "attached (MPI_Buffer_detach_c detaches it)", attached_size);
    fm_wait_until((reclaim(), nslots == 0));
    *(void **)buffer_addr = attached;
    *size = (MPI_Count)attached_size;
    attached = NULL;
    attached_size = 0;
    free(slots);
    slots = NULL;
    cap_slots = 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    FM_API_LOCK();
    MPI_Count n;
    int rc = buffer_detach("MPI_Buffer_detach", buffer_addr, &n, INT_MAX);
    if (rc == MPI_SUCCESS)
        *size = (int)n;
    return rc;
}

#pragma weak MPI_Buffer_detach_c = PMPI_Buffer_detach_c
int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    FM_API_LOCK();
    return buffer_detach("MPI_Buffer_detach_c", buffer_addr, size, INT64_MAX);
}

#define CHECK_BSEND_ARGS(call, buf, count, dt, dest, tag, comm) \
    do {                                                     \
        FM_CHECK_INIT(call);                                 \
        FM_CHECK_COMM(call, comm);                           \
        FM_CHECK_COUNT(call, comm, count);                   \
        FM_CHECK_TYPE(call, comm, dt);                       \
        FM_CHECK_BUF(call, comm, buf, count, dt, "buf");     \
        FM_CHECK_RANK(call, comm, dest, "dest", 0);          \
        FM_CHECK_TAG(call, comm, tag, 0);                    \
    } while (0)

static int bsend(const char *call, const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                 int tag, MPI_Comm comm)
{
    CHECK_BSEND_ARGS(call, buf, count, dt, dest, tag, comm);
    return fm_bsend(call, buf, count, dt, dest, tag, comm);
}

#pragma weak MPI_Bsend = PMPI_Bsend
int PMPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    FM_API_LOCK();
    return bsend("MPI_Bsend", buf, count, dt, dest, tag, comm);
}

#pragma weak MPI_Bsend_c = PMPI_Bsend_c
int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm)
{
    FM_API_LOCK();
    return bsend("MPI_Bsend_c", buf, count, dt, dest, tag, comm);
}

static int ibsend(const char *call, const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                  int tag, MPI_Comm comm, MPI_Request *request)
{
    int rc = bsend(call, buf, count, dt, dest, tag, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The message is in the attached buffer: the user's buffer is free. */
    struct fm_request *r = fm_req_alloc(FM_REQ_SEND);
    if (!r)
        return fm_raise(comm, call, MPI_ERR_NO_MEM, "out of memory");
    r->done = 1;
    *request = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Ibsend = PMPI_Ibsend
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    FM_API_LOCK();
    return ibsend("MPI_Ibsend", buf, count, dt, dest, tag, comm, request);
}

#pragma weak MPI_Ibsend_c = PMPI_Ibsend_c
int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return ibsend("MPI_Ibsend_c", buf, count, dt, dest, tag, comm, request);
}
