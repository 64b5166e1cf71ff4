/* f2c.c — Fortran handles: the INTEGER a Fortran program holds for each C
 * handle (MPI_Comm_c2f, MPI_Comm_f2c and the other kinds; the Fortran
 * bindings convert every handle argument through here).
 *
 * C handles are object addresses, which do not fit a Fortran INTEGER.  Each
 * kind has a table from index to object: 0 is the null handle, the kind's
 * predefined objects take the next indices in a fixed order (mpif.h's
 * constants are those indices: fm_f_predefined() lists them for the
 * generator), and any other object gets an index at its first c2f, found
 * again through a hash of its address so one object keeps one Fortran
 * value.  The Fortran bindings give an index back when a call set the
 * handle to null and the object is really gone (MPI_Comm_free, a completed
 * request), not when another reference keeps it.  An index that names no object
 * converts to an object of the kind that no check accepts, so the C call
 * reports MPI_ERR_COMM, MPI_ERR_TYPE, ... as for a stale C handle.
 * Not thread-safe yet, like the handle pools (the threads work adds a lock). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/f2c.h"

/* What an index that names no object converts to: zeroed memory at least
 * as large as any handle object, whose magic word no check accepts. */
static union {
    char bytes[1024];
    max_align_t align;
} no_object;

struct f_table {
    void **obj;        /* index -> object; NULL for a free index */
    uint32_t *magic;   /* index -> the object's magic when it got the index */
    int n, cap;        /* indices in use or freed: [0, n) */
    int *free;         /* freed indices, reused first */
    int nfree, free_cap;
    void **hkey;       /* open addressing: object address -> index */
    int *hval;
    size_t hcap;       /* power of two, or 0 */
    size_t hused;      /* live entries and tombstones */
    int ready;
};

static struct f_table tables[FM_F_KINDS];
static void *const TOMBSTONE = &no_object;

/* The predefined objects of each kind, in the order of their indices. */
#define FM_PREDEF_DT(name, ctype) name,
#define FM_PREDEF_OP(name) name,
static void *const predef_comm[] = {MPI_COMM_WORLD, MPI_COMM_SELF};
static void *const predef_group[] = {MPI_GROUP_EMPTY};
static void *const predef_type[] = {FM_PREDEFINED_DATATYPES(FM_PREDEF_DT)};
static void *const predef_op[] = {FM_PREDEFINED_OPS(FM_PREDEF_OP)};
static void *const predef_errh[] = {MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN};
static void *const predef_msg[] = {MPI_MESSAGE_NO_PROC};
static void *const predef_info[] = {MPI_INFO_ENV};
#undef FM_PREDEF_DT
#undef FM_PREDEF_OP

static const struct {
    void *const *obj;
    int n;
} predefined[FM_F_KINDS] = {
    [FM_F_COMM] = {predef_comm, 2},
    [FM_F_GROUP] = {predef_group, 1},
    [FM_F_TYPE] = {predef_type, (int)(sizeof predef_type / sizeof *predef_type)},
    [FM_F_OP] = {predef_op, (int)(sizeof predef_op / sizeof *predef_op)},
    [FM_F_ERRHANDLER] = {predef_errh, 2},
    [FM_F_MESSAGE] = {predef_msg, 1},
    [FM_F_INFO] = {predef_info, 1},
};

int fm_f_predefined(enum fm_f_kind kind, void *const **objs)
{
    *objs = predefined[kind].obj;
    return predefined[kind].n;
}

static size_t hash_slot(const struct f_table *t, const void *obj)
{
    uint64_t h = (uint64_t)(uintptr_t)obj * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17) & (t->hcap - 1);
}

static int hash_find(const struct f_table *t, const void *obj)
{
    if (!t->hcap)
        return -1;
    for (size_t i = hash_slot(t, obj);; i = (i + 1) & (t->hcap - 1)) {
        if (t->hkey[i] == obj)
            return t->hval[i];
        if (!t->hkey[i])
            return -1;
    }
}

static int hash_put(struct f_table *t, void *obj, int index);

/* Rebuild at twice the size of the live entries (dropping tombstones). */
static int hash_grow(struct f_table *t)
{
    size_t old_cap = t->hcap, cap = old_cap ? old_cap : 64;
    void **old_key = t->hkey;
    int *old_val = t->hval;
    while (cap < 4 * (t->hused + 1))
        cap *= 2;
    void **key = calloc(cap, sizeof *key);
    int *val = calloc(cap, sizeof *val);
    if (!key || !val) {
        free(key);
        free(val);
        return -1;
    }
    t->hkey = key;
    t->hval = val;
    t->hcap = cap;
    t->hused = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old_key[i] && old_key[i] != TOMBSTONE)
            hash_put(t, old_key[i], old_val[i]);
    free(old_key);
    free(old_val);
    return 0;
}

static int hash_put(struct f_table *t, void *obj, int index)
{
    if (2 * (t->hused + 1) > t->hcap && hash_grow(t) != 0)
        return -1;
    size_t i = hash_slot(t, obj);
    while (t->hkey[i] && t->hkey[i] != TOMBSTONE)
        i = (i + 1) & (t->hcap - 1);
    if (!t->hkey[i])
        t->hused++;
    t->hkey[i] = obj;
    t->hval[i] = index;
    return 0;
}

static void hash_remove(struct f_table *t, const void *obj)
{
    if (!t->hcap)
        return;
    for (size_t i = hash_slot(t, obj); t->hkey[i]; i = (i + 1) & (t->hcap - 1))
        if (t->hkey[i] == obj) {
            t->hkey[i] = TOMBSTONE;
            return;
        }
}

/* The first word of every handle object (its magic), which freeing it
 * changes (handle_pool.h poisons it; requests and messages clear it), in
 * memory the library keeps. */
static uint32_t magic_of(const void *obj) { return *(const uint32_t *)obj; }

static int append(struct f_table *t, void *obj)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        void **o = realloc(t->obj, (size_t)cap * sizeof *o);
        if (!o)
            return -1;
        t->obj = o;
        uint32_t *m = realloc(t->magic, (size_t)cap * sizeof *m);
        if (!m)
            return -1;
        t->magic = m;
        t->cap = cap;
    }
    t->obj[t->n] = obj;
    t->magic[t->n] = obj ? magic_of(obj) : 0;
    return t->n++;
}

static struct f_table *table(enum fm_f_kind kind)
{
    struct f_table *t = &tables[kind];
    if (!t->ready) {
        t->ready = 1;
        append(t, NULL); /* index 0: the null handle */
        for (int i = 0; i < predefined[kind].n; i++) {
            int index = append(t, predefined[kind].obj[i]);
            if (index >= 0)
                hash_put(t, predefined[kind].obj[i], index);
        }
    }
    return t;
}

MPI_Fint fm_f_index(enum fm_f_kind kind, void *obj)
{
    if (!obj)
        return 0;
    struct f_table *t = table(kind);
    int index = hash_find(t, obj);
    if (index >= 0)
        return index;
    if (t->nfree) {
        index = t->free[--t->nfree];
        t->obj[index] = obj;
        t->magic[index] = magic_of(obj);
    } else {
        index = append(t, obj);
    }
    if (index < 0 || hash_put(t, obj, index) != 0)
        return -1; /* out of memory: an index no conversion accepts */
    return index;
}

void *fm_f_object(enum fm_f_kind kind, MPI_Fint index)
{
    if (index == 0)
        return NULL;
    struct f_table *t = table(kind);
    if (index < 0 || index >= t->n || !t->obj[index])
        return &no_object;
    return t->obj[index];
}

void fm_f_release(enum fm_f_kind kind, MPI_Fint index)
{
    struct f_table *t = table(kind);
    if (index <= predefined[kind].n || index >= t->n || !t->obj[index])
        return;
    /* Still alive: the handle the call set to null was one of several
     * (MPI_Comm_get_errhandler, MPI_Comm_group and MPI_Type_get_contents
     * hand out more references to one object, which has one index), or
     * an operation holds it (a generalized request MPI_Request_free let
     * go of, which MPI_Grequest_complete still names).  The index stays;
     * like any stale entry it names the object's address, which only an
     * object of the same kind can take again. */
    if (magic_of(t->obj[index]) == t->magic[index])
        return;
    if (t->nfree == t->free_cap) {
        int cap = t->free_cap ? 2 * t->free_cap : 64;
        int *f = realloc(t->free, (size_t)cap * sizeof *f);
        if (!f)
            return; /* keep the index in use: a leak of one slot, not an error */
        t->free = f;
        t->free_cap = cap;
    }
    hash_remove(t, t->obj[index]);
    t->obj[index] = NULL;
    t->free[t->nfree++] = index;
}

void fab_f_release(enum fm_f_kind kind, MPI_Fint index)
{
    FM_API_LOCK();
    if ((unsigned)kind < FM_F_KINDS)
        fm_f_release(kind, index);
}

_Static_assert(sizeof(MPI_Status) == MPI_STATUS_SIZE * sizeof(MPI_Fint),
               "a Fortran status must have MPI_Status's layout");

void fm_f_finalize(void)
{
    for (int k = 0; k < FM_F_KINDS; k++) {
        if (k == FM_F_INFO) /* info objects live before MPI_Init and after MPI_Finalize */
            continue;
        struct f_table *t = &tables[k];
        free(t->obj);
        free(t->magic);
        free(t->free);
        free(t->hkey);
        free(t->hval);
        memset(t, 0, sizeof *t);
    }
}

/* ---- the C API of the conversions (MPI-3.1 section 17.2.4) ------------ */
#define FM_F_CONVERSIONS(X)                                   \
    X(Comm, MPI_Comm, FM_F_COMM)                              \
    X(Group, MPI_Group, FM_F_GROUP)                           \
    X(Type, MPI_Datatype, FM_F_TYPE)                          \
    X(Op, MPI_Op, FM_F_OP)                                    \
    X(Request, MPI_Request, FM_F_REQUEST)                     \
    X(Errhandler, MPI_Errhandler, FM_F_ERRHANDLER)            \
    X(Info, MPI_Info, FM_F_INFO)                              \
    X(Win, MPI_Win, FM_F_WIN)                                 \
    X(Message, MPI_Message, FM_F_MESSAGE)

#pragma weak MPI_Comm_c2f = PMPI_Comm_c2f
#pragma weak MPI_Comm_f2c = PMPI_Comm_f2c
#pragma weak MPI_Group_c2f = PMPI_Group_c2f
#pragma weak MPI_Group_f2c = PMPI_Group_f2c
#pragma weak MPI_Type_c2f = PMPI_Type_c2f
#pragma weak MPI_Type_f2c = PMPI_Type_f2c
#pragma weak MPI_Op_c2f = PMPI_Op_c2f
#pragma weak MPI_Op_f2c = PMPI_Op_f2c
#pragma weak MPI_Request_c2f = PMPI_Request_c2f
#pragma weak MPI_Request_f2c = PMPI_Request_f2c
#pragma weak MPI_Errhandler_c2f = PMPI_Errhandler_c2f
#pragma weak MPI_Errhandler_f2c = PMPI_Errhandler_f2c
#pragma weak MPI_Info_c2f = PMPI_Info_c2f
#pragma weak MPI_Info_f2c = PMPI_Info_f2c
#pragma weak MPI_Win_c2f = PMPI_Win_c2f
#pragma weak MPI_Win_f2c = PMPI_Win_f2c
#pragma weak MPI_Message_c2f = PMPI_Message_c2f
#pragma weak MPI_Message_f2c = PMPI_Message_f2c

#define FM_DEFINE_CONVERSION(Name, CType, kind)                                  \
    MPI_Fint PMPI_##Name##_c2f(CType handle)                                      \
    {                                                                             \
        FM_API_LOCK();                                                            \
        return fm_f_index(kind, handle);                                          \
    }                                                                             \
    CType PMPI_##Name##_f2c(MPI_Fint handle)                                      \
    {                                                                             \
        FM_API_LOCK();                                                            \
        return (CType)fm_f_object(kind, handle);                                  \
    }
FM_F_CONVERSIONS(FM_DEFINE_CONVERSION)
#undef FM_DEFINE_CONVERSION

/* A Fortran status is MPI_STATUS_SIZE INTEGERs laid out as MPI_Status
 * (mpi.h checks the sizes agree), so the conversions copy. */
#pragma weak MPI_Status_c2f = PMPI_Status_c2f
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    FM_API_LOCK();
    if (!c_status || !f_status || c_status == MPI_STATUS_IGNORE)
        return fm_raise(MPI_COMM_NULL, "MPI_Status_c2f", MPI_ERR_ARG, "%s=NULL",
                        c_status ? "f_status" : "c_status");
    memcpy(f_status, c_status, sizeof *c_status);
    return MPI_SUCCESS;
}

/* The four conversions with mpi_f08's status: all three forms hold the
 * same MPI_STATUS_SIZE integers (mpi.h), so each is a copy.  NULL or a
 * STATUS_IGNORE sentinel on either side is an error, as for MPI_Status_c2f
 * (writing into a sentinel would change it for every later call). */
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPI_F08_status is a Fortran status");

static int status_copy(const char *call, const void *from, const char *from_name, void *to,
                       const char *to_name)
{
    const void *ignore[] = {MPI_F_STATUS_IGNORE, MPI_F_STATUSES_IGNORE};
    for (int side = 0; side < 2; side++) {
        const void *p = side ? to : from;
        if (!p || p == ignore[0] || p == ignore[1])
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "%s=%s", side ? to_name : from_name,
                            p ? "a STATUS_IGNORE sentinel" : "NULL");
    }
    memcpy(to, from, sizeof(MPI_Status));
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_c2f08 = PMPI_Status_c2f08
int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    FM_API_LOCK();
    return status_copy("MPI_Status_c2f08", c_status, "c_status", f08_status, "f08_status");
}

#pragma weak MPI_Status_f082c = PMPI_Status_f082c
int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    FM_API_LOCK();
    return status_copy("MPI_Status_f082c", f08_status, "f08_status", c_status, "c_status");
}

#pragma weak MPI_Status_f082f = PMPI_Status_f082f
int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    FM_API_LOCK();
    return status_copy("MPI_Status_f082f", f08_status, "f08_status", f_status, "f_status");
}

#pragma weak MPI_Status_f2f08 = PMPI_Status_f2f08
int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    FM_API_LOCK();
    return status_copy("MPI_Status_f2f08", f_status, "f_status", f08_status, "f08_status");
}

#pragma weak MPI_Status_f2c = PMPI_Status_f2c
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    FM_API_LOCK();
    if (!c_status || !f_status || f_status == MPI_F_STATUS_IGNORE)
        return fm_raise(MPI_COMM_NULL, "MPI_Status_f2c", MPI_ERR_ARG, "%s",
                        !c_status ? "c_status=NULL" : "f_status=MPI_F_STATUS_IGNORE");
    memcpy(c_status, f_status, sizeof *c_status);
    return MPI_SUCCESS;
}
