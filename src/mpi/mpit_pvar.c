/* mpit_pvar.c — MPI_T performance variables and sessions.
 *
 * The variables: every counter of util/pvar.h (process-wide, in table
 * order), then the matching-queue lengths of a communicator, bound to
 * MPI_T_BIND_MPI_COMM.  Those count the communicator's point-to-point
 * context under software matching (its collectives run on a context of
 * their own; the provider-matching engine keeps its queues in the
 * provider, so they read 0 there).
 *
 * A counter or timer is read through a handle in a session: stopped when
 * allocated, it counts from MPI_T_pvar_start to MPI_T_pvar_stop, and
 * reads, writes and resets change the session's value only (the handle
 * keeps the counter's reading at start, `base`, and what it gathered in
 * earlier runs, `acc`), so sessions never disturb one another and the hot
 * path only ever adds.  Read-and-reset is atomic: both use one reading.
 * Queue lengths and high-water marks are continuous and read-only. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "match/match.h"
#include "core/vci.h"
#include "mpi/api.h"
#include "mpi/mpit.h"
#include "util/category.h"
#include "util/pvar.h"

enum src { SRC_COUNTER, SRC_POSTED, SRC_UNEXP, SRC_POSTED_HWM, SRC_UNEXP_HWM };

struct pvar {
    const char *name;
    int var_class;
    enum fm_category cat;
    enum src src;
    size_t offset; /* SRC_COUNTER: in struct fm_pv */
    const char *desc;
};

#define CLASS_COUNTER MPI_T_PVAR_CLASS_COUNTER
#define CLASS_TIMER MPI_T_PVAR_CLASS_TIMER
#define FM_PVAR_ROW(name, cls, cat, desc) \
    {#name, CLASS_##cls, FM_CAT_##cat, SRC_COUNTER, offsetof(struct fm_pv, name), desc},
static const struct pvar pvars[] = {
    FM_PVAR_COUNTERS(FM_PVAR_ROW)
    {"posted_recvq_length", MPI_T_PVAR_CLASS_LEVEL, FM_CAT_pt2pt, SRC_POSTED, 0,
     "Receives posted on the communicator and not yet matched (software matching)"},
    {"unexpected_recvq_length", MPI_T_PVAR_CLASS_LEVEL, FM_CAT_pt2pt, SRC_UNEXP, 0,
     "Messages that arrived on the communicator and wait for a receive (software matching)"},
    {"posted_recvq_hwm", MPI_T_PVAR_CLASS_HIGHWATERMARK, FM_CAT_pt2pt, SRC_POSTED_HWM, 0,
     "Most receives ever posted and waiting at once on the communicator"},
    {"unexpected_recvq_hwm", MPI_T_PVAR_CLASS_HIGHWATERMARK, FM_CAT_pt2pt, SRC_UNEXP_HWM, 0,
     "Most unexpected messages ever waiting at once on the communicator"},
};
#undef FM_PVAR_ROW
#define NPVARS ((int)(sizeof pvars / sizeof pvars[0]))

int fm_mpit_pvar_count(void) { return NPVARS; }
int fm_mpit_pvar_category(int i) { return pvars[i].cat; }

static int continuous(const struct pvar *v) { return v->src != SRC_COUNTER; }

#define FM_MAGIC_SESSION 0x50534553u /* "SESP" */
#define FM_MAGIC_PVAR_HANDLE 0x50564152u /* "PVAR" */

struct fm_mpit_pvar_handle {
    unsigned magic;
    int pvar;
    MPI_Comm comm; /* bound communicator, or NULL */
    int started;
    unsigned long long base; /* counter reading at the last start or reset */
    unsigned long long acc;  /* session value gathered while stopped */
    struct fm_mpit_pvar_handle *next;
};

struct fm_mpit_session {
    unsigned magic;
    struct fm_mpit_pvar_handle *handles;
    struct fm_mpit_session *next;
};

/* MPI_T_PVAR_ALL_HANDLES: an address, never a handle of a session. */
struct fm_mpit_pvar_handle fab_pvar_all_handles;

static struct fm_mpit_session *sessions;

static int session_ok(MPI_T_pvar_session s)
{
    for (struct fm_mpit_session *p = sessions; p; p = p->next)
        if (p == s)
            return s->magic == FM_MAGIC_SESSION;
    return 0;
}

static int handle_ok(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    for (struct fm_mpit_pvar_handle *p = s->handles; p; p = p->next)
        if (p == h)
            return h->magic == FM_MAGIC_PVAR_HANDLE;
    return 0;
}

static void session_drop(struct fm_mpit_session *s)
{
    while (s->handles) {
        struct fm_mpit_pvar_handle *h = s->handles;
        s->handles = h->next;
        h->magic = 0;
        free(h);
    }
    s->magic = 0;
    free(s);
}

void fm_mpit_pvar_release_all(void)
{
    while (sessions) {
        struct fm_mpit_session *s = sessions;
        sessions = s->next;
        session_drop(s);
    }
}

/* The variable's raw value now: a counter's reading, a queue's length. */
static unsigned long long now(const struct fm_mpit_pvar_handle *h)
{
    const struct pvar *v = &pvars[h->pvar];
    fm_match_queue *q = h->comm && fm_comm_valid(h->comm) ? h->comm->mq : NULL;
    switch (v->src) {
    case SRC_COUNTER: {
        /* The process-wide block and each VCI's (core/vci.h). */
        unsigned long long sum = *(const unsigned long long *)((const char *)&fm_pv + v->offset);
        for (int i = 0; i <= fm_nlanes; i++)
            sum += *(const unsigned long long *)((const char *)&fm_vcis[i]->pv + v->offset);
        return sum;
    }
    case SRC_POSTED: return q ? fm_match_posted_count(q) : 0;
    case SRC_UNEXP: return q ? fm_match_unexpected_count(q) : 0;
    case SRC_POSTED_HWM: return q ? fm_match_posted_hwm(q) : 0;
    case SRC_UNEXP_HWM: return q ? fm_match_unexpected_hwm(q) : 0;
    }
    return 0;
}

/* The session's value, from the reading `cur`. */
static unsigned long long value(const struct fm_mpit_pvar_handle *h, unsigned long long cur)
{
    if (continuous(&pvars[h->pvar]))
        return cur;
    return h->acc + (h->started ? cur - h->base : 0);
}

static void store(const struct fm_mpit_pvar_handle *h, unsigned long long v, void *buf)
{
    if (pvars[h->pvar].var_class == MPI_T_PVAR_CLASS_TIMER)
        *(double *)buf = (double)v * fm_pv_tick_seconds();
    else
        *(unsigned long long *)buf = v;
}

#pragma weak MPI_T_pvar_get_num = PMPI_T_pvar_get_num
int PMPI_T_pvar_get_num(int *num_pvar)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!num_pvar)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    *num_pvar = NPVARS;
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_pvar_get_info = PMPI_T_pvar_get_info
int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *readonly, int *continuous_, int *atomic)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return fm_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    const struct pvar *v = &pvars[pvar_index];
    fm_mpit_string(v->name, name, name_len);
    fm_mpit_string(v->desc, desc, desc_len);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
    if (var_class)
        *var_class = v->var_class;
    if (datatype)
        *datatype = v->var_class == MPI_T_PVAR_CLASS_TIMER ? MPI_DOUBLE : MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = v->src == SRC_COUNTER ? MPI_T_BIND_NO_OBJECT : MPI_T_BIND_MPI_COMM;
    if (readonly)
        *readonly = continuous(v);
    if (continuous_)
        *continuous_ = continuous(v);
    if (atomic)
        *atomic = !continuous(v);
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_pvar_get_index = PMPI_T_pvar_get_index
int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!name || !pvar_index)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < NPVARS; i++)
        if (pvars[i].var_class == var_class && !strcmp(pvars[i].name, name)) {
            *pvar_index = i;
            return fm_mpit_leave(MPI_SUCCESS);
        }
    return fm_mpit_leave(MPI_T_ERR_INVALID_NAME);
}

#pragma weak MPI_T_pvar_session_create = PMPI_T_pvar_session_create
int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!session)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    struct fm_mpit_session *s = calloc(1, sizeof *s);
    if (!s)
        return fm_mpit_leave(MPI_T_ERR_MEMORY);
    s->magic = FM_MAGIC_SESSION;
    s->next = sessions;
    sessions = s;
    *session = s;
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_pvar_session_free = PMPI_T_pvar_session_free
int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!session || !session_ok(*session))
        return fm_mpit_leave(MPI_T_ERR_INVALID_SESSION);
    for (struct fm_mpit_session **p = &sessions; *p; p = &(*p)->next)
        if (*p == *session) {
            *p = (*session)->next;
            break;
        }
    session_drop(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_pvar_handle_alloc = PMPI_T_pvar_handle_alloc
int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!session_ok(session))
        return fm_mpit_leave(MPI_T_ERR_INVALID_SESSION);
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return fm_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    MPI_Comm comm = NULL;
    if (pvars[pvar_index].src != SRC_COUNTER) {
        /* Bound to a communicator: one of this process's, so after MPI_Init. */
        if (fm_mpi_state != 1 || !obj_handle || !fm_comm_valid(*(MPI_Comm *)obj_handle))
            return fm_mpit_leave(MPI_T_ERR_INVALID);
        comm = *(MPI_Comm *)obj_handle;
    }
    struct fm_mpit_pvar_handle *h = calloc(1, sizeof *h);
    if (!h)
        return fm_mpit_leave(MPI_T_ERR_MEMORY);
    h->magic = FM_MAGIC_PVAR_HANDLE;
    h->pvar = pvar_index;
    h->comm = comm;
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = 1;
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_pvar_handle_free = PMPI_T_pvar_handle_free
int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!session_ok(session))
        return fm_mpit_leave(MPI_T_ERR_INVALID_SESSION);
    if (!handle || !handle_ok(session, *handle))
        return fm_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    for (struct fm_mpit_pvar_handle **p = &session->handles; *p; p = &(*p)->next)
        if (*p == *handle) {
            *p = (*handle)->next;
            break;
        }
    (*handle)->magic = 0;
    free(*handle);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return fm_mpit_leave(MPI_SUCCESS);
}

/* Start (on = 1) or stop (0) one handle, or every handle that can be
 * with MPI_T_PVAR_ALL_HANDLES. */
static int start_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int on)
{
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!session_ok(session))
        return fm_mpit_leave(MPI_T_ERR_INVALID_SESSION);
    int all = handle == MPI_T_PVAR_ALL_HANDLES;
    if (!all && !handle_ok(session, handle))
        return fm_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (!all && continuous(&pvars[handle->pvar]))
        return fm_mpit_leave(MPI_T_ERR_PVAR_NO_STARTSTOP);
    for (struct fm_mpit_pvar_handle *h = all ? session->handles : handle; h; h = all ? h->next : NULL) {
        if (continuous(&pvars[h->pvar]) || h->started == on)
            continue;
        unsigned long long cur = now(h);
        if (on)
            h->base = cur;
        else
            h->acc += cur - h->base;
        h->started = on;
    }
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_pvar_start = PMPI_T_pvar_start
int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    FM_API_LOCK();
    return start_stop(session, handle, 1);
}

#pragma weak MPI_T_pvar_stop = PMPI_T_pvar_stop
int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    FM_API_LOCK();
    return start_stop(session, handle, 0);
}

enum access { READ, READRESET, WRITE, RESET };

/* One handle: read into buf (READ, READRESET), then set the session value
 * (READRESET, RESET: 0; WRITE: what buf holds), from one reading. */
static int access_one(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf,
                      enum access how)
{
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!session_ok(session))
        return fm_mpit_leave(MPI_T_ERR_INVALID_SESSION);
    if (!handle_ok(session, handle))
        return fm_mpit_leave(handle == MPI_T_PVAR_ALL_HANDLES ? MPI_T_ERR_INVALID
                                                              : MPI_T_ERR_INVALID_HANDLE);
    if (!buf && how != RESET)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    const struct pvar *v = &pvars[handle->pvar];
    if (how != READ && continuous(v))
        return fm_mpit_leave(MPI_T_ERR_PVAR_NO_WRITE);
    unsigned long long set = 0;
    if (how == WRITE) {
        if (v->var_class == MPI_T_PVAR_CLASS_TIMER) {
            /* seconds, back into the clock's ticks */
            double sec = *(const double *)buf;
            if (!(sec >= 0))
                return fm_mpit_leave(MPI_T_ERR_INVALID);
            set = (unsigned long long)(sec / fm_pv_tick_seconds());
        } else {
            set = *(const unsigned long long *)buf;
        }
    }
    unsigned long long cur = now(handle);
    if (how == READ || how == READRESET)
        store(handle, value(handle, cur), buf);
    if (how != READ) {
        handle->acc = set;
        handle->base = cur;
    }
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_pvar_read = PMPI_T_pvar_read
int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    FM_API_LOCK();
    return access_one(session, handle, buf, READ);
}

#pragma weak MPI_T_pvar_readreset = PMPI_T_pvar_readreset
int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    FM_API_LOCK();
    return access_one(session, handle, buf, READRESET);
}

#pragma weak MPI_T_pvar_write = PMPI_T_pvar_write
int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    FM_API_LOCK();
    return access_one(session, handle, (void *)(uintptr_t)buf, WRITE);
}

#pragma weak MPI_T_pvar_reset = PMPI_T_pvar_reset
int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    FM_API_LOCK();
    if (handle != MPI_T_PVAR_ALL_HANDLES)
        return access_one(session, handle, NULL, RESET);
    /* Every handle of the session; read-only ones are skipped. */
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!session_ok(session))
        return fm_mpit_leave(MPI_T_ERR_INVALID_SESSION);
    for (struct fm_mpit_pvar_handle *h = session->handles; h; h = h->next)
        if (!continuous(&pvars[h->pvar])) {
            h->acc = 0;
            h->base = now(h);
        }
    return fm_mpit_leave(MPI_SUCCESS);
}
