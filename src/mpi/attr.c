/* attr.c — attribute caching on communicators, datatypes and windows
 * (MPI-3.1 6.7), and the MPI-1 names of the communicator calls.
 *
 * Keyvals index one table of callbacks; each keyval belongs to one kind of
 * object, and using it on another kind is MPI_ERR_KEYVAL.  A keyval stays
 * alive while any attribute uses it, even after its free call (the standard
 * lets attributes outlive the user's handle), so each entry counts its
 * users: one for the handle plus one per attached attribute.
 *
 * An object's attributes are a list, newest first: deletion walks it in
 * that order, i.e. in reverse order of setting, which is what the standard
 * asks for MPI_COMM_SELF at MPI_Finalize and harmless elsewhere.
 *
 * Delete callbacks may call attribute functions on the same object
 * (delete or set other attributes, delete their own).  So nothing keeps a
 * pointer into the list across a callback: the entry whose callback runs
 * is marked `deleting`, which hides it from lookups (deleting it again is a
 * no-op rather than a recursion), and it is unlinked by identity afterwards.
 *
 * The predefined communicator keys (MPI_TAG_UB ...) are answered from
 * static ints and can be neither set nor deleted; they are answered on
 * every communicator, as if copied from MPI_COMM_WORLD on every dup.  The
 * predefined window keys are answered by MPI_Win_get_attr (win_api.c). */
#include <stdlib.h>

#include "dtype/dtype.h"
#include "mpi/api.h"
#include "mpi/f2c.h"
#include "mpi/type_check.h"
#include "mpi/win_api.h"
#include "rma/rma.h"

/* A value set from Fortran is an integer, kept in fval; C sees it as a
 * pointer to that integer (val == &fval), Fortran as the integer itself
 * (MPI-4.0 19.3.7: "set by Fortran, read by C" gets the address). */
struct fm_attr {
    int keyval;
    void *val;
    int deleting;      /* its delete callback is running: invisible to lookups */
    int from_fortran;  /* val is &fval */
    MPI_Aint fval;
    struct fm_attr *next;
};

/* fab_f_attr_set_next: the next set on this thread stores a Fortran value. */
static _Thread_local int next_set_from_fortran;

static void store(struct fm_attr *a, void *val, int from_fortran)
{
    a->from_fortran = from_fortran;
    a->fval = from_fortran ? (MPI_Aint)(intptr_t)val : 0;
    a->val = from_fortran ? (void *)&a->fval : val;
}

/* What a Fortran callback is given: the integer itself. */
static void *fortran_view(const struct fm_attr *a)
{
    return a->from_fortran ? (void *)(intptr_t)a->fval : a->val;
}

enum kind { COMM, TYPE, WIN };
static const char *const kind_word[] = {"comm", "type", "win"};

struct keyval {
    enum kind kind;
    union {
        MPI_Comm_copy_attr_function *comm;
        MPI_Type_copy_attr_function *type;
        MPI_Win_copy_attr_function *win;
    } copy;
    union {
        MPI_Comm_delete_attr_function *comm;
        MPI_Type_delete_attr_function *type;
        MPI_Win_delete_attr_function *win;
    } del;
    void *extra;
    int refs;      /* 0: slot unused */
    int user_held; /* 1 until the free call */
    /* A keyval the Fortran bindings made (fab_f_keyval_mark): copy and del
     * hold Fortran procedures, called only through these; NULL from C. */
    const struct fm_f_keyval_calls *fortran;
};

static struct keyval *keys;
static int nkeys;

/* The object attributes hang on: its kind, handle and list. */
struct obj {
    enum kind kind;
    void *h;
    struct fm_attr **head;
};

static struct obj of_comm(MPI_Comm c) { return (struct obj){COMM, c, &c->attrs}; }
static struct obj of_type(MPI_Datatype t) { return (struct obj){TYPE, t, &t->attrs}; }
static struct obj of_win(MPI_Win w) { return (struct obj){WIN, w, &w->attrs}; }

/* An error on o: windows report to the window's handler, datatypes (which
 * have none) as errors outside any communicator do. */
#define RAISE(o, call, cls, ...)                                                        \
    ((o)->kind == WIN ? fm_win_raise((MPI_Win)(o)->h, call, cls, __VA_ARGS__)           \
                      : fm_raise((o)->kind == COMM ? (MPI_Comm)(o)->h : MPI_COMM_NULL, call, \
                                 cls, __VA_ARGS__))

int fm_attr_lastusedcode = MPI_ERR_LASTCODE;

/* The failing callback of the last FM_ERR_OTHER from this file. */
static int cb_keyval, cb_code;

int fm_attr_last_failure(int *keyval)
{
    *keyval = cb_keyval;
    return cb_code;
}

/* ---- predefined callbacks --------------------------------------------------- */

#define NULL_COPY(name, handle)                                                             \
    int name(handle h, int keyval, void *extra, void *in, void *out, int *flag)            \
    {                                                                                       \
        (void)h, (void)keyval, (void)extra, (void)in, (void)out;                            \
        *flag = 0;                                                                          \
        return MPI_SUCCESS;                                                                 \
    }
#define DUP(name, handle)                                                                   \
    int name(handle h, int keyval, void *extra, void *in, void *out, int *flag)            \
    {                                                                                       \
        (void)h, (void)keyval, (void)extra;                                                 \
        *(void **)out = in;                                                                 \
        *flag = 1;                                                                          \
        return MPI_SUCCESS;                                                                 \
    }
#define NULL_DELETE(name, handle)                                                           \
    int name(handle h, int keyval, void *val, void *extra)                                  \
    {                                                                                       \
        (void)h, (void)keyval, (void)val, (void)extra;                                      \
        return MPI_SUCCESS;                                                                 \
    }

NULL_COPY(MPI_COMM_NULL_COPY_FN, MPI_Comm)
DUP(MPI_COMM_DUP_FN, MPI_Comm)
NULL_DELETE(MPI_COMM_NULL_DELETE_FN, MPI_Comm)
NULL_COPY(MPI_TYPE_NULL_COPY_FN, MPI_Datatype)
DUP(MPI_TYPE_DUP_FN, MPI_Datatype)
NULL_DELETE(MPI_TYPE_NULL_DELETE_FN, MPI_Datatype)
NULL_COPY(MPI_WIN_NULL_COPY_FN, MPI_Win)
DUP(MPI_WIN_DUP_FN, MPI_Win)
NULL_DELETE(MPI_WIN_NULL_DELETE_FN, MPI_Win)

/* ---- the keyval table ----------------------------------------------------- */

static int is_predefined(enum kind kind, int keyval)
{
    return kind == COMM && keyval >= MPI_TAG_UB && keyval <= MPI_APPNUM;
}

/* The live keyval of this kind (user_held: not yet freed by the program). */
static struct keyval *lookup(enum kind kind, int keyval, int user_held)
{
    if (keyval < 1 || keyval > nkeys)
        return NULL;
    struct keyval *k = &keys[keyval - 1];
    if (k->refs == 0 || k->kind != kind || (user_held && !k->user_held))
        return NULL;
    return k;
}

static void key_unref(int keyval)
{
    struct keyval *k = &keys[keyval - 1];
    if (--k->refs == 0)
        *k = (struct keyval){0}; /* slot free for the next create */
}

/* A new keyval: its number, or 0 when there is no memory. */
static int key_new(const struct keyval *proto)
{
    int slot = 0;
    while (slot < nkeys && keys[slot].refs > 0)
        slot++;
    if (slot == nkeys) {
        int n = nkeys ? nkeys * 2 : 16;
        struct keyval *grown = realloc(keys, (size_t)n * sizeof(*grown));
        if (!grown)
            return 0;
        for (int i = nkeys; i < n; i++)
            grown[i] = (struct keyval){0};
        keys = grown;
        nkeys = n;
    }
    keys[slot] = *proto;
    keys[slot].refs = 1;
    keys[slot].user_held = 1;
    return slot + 1;
}

static int create_keyval(const char *call, enum kind kind, struct keyval proto, int *keyval,
                         const char *arg)
{
    FM_CHECK_INIT(call);
    if (!keyval)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "%s=NULL", arg);
    proto.kind = kind;
    int k = key_new(&proto);
    if (!k)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_NO_MEM, "no memory for keyval %d", nkeys + 1);
    *keyval = k;
    return MPI_SUCCESS;
}

static int free_keyval(const char *call, enum kind kind, int *keyval, const char *arg)
{
    FM_CHECK_INIT(call);
    if (!keyval)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "%s=NULL", arg);
    struct keyval *k = lookup(kind, *keyval, 1);
    if (!k)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_KEYVAL,
                        "%s=%d is not a %s keyval the program may free%s", arg, *keyval,
                        kind_word[kind], is_predefined(kind, *keyval) ? " (predefined)" : "");
    k->user_held = 0;
    key_unref(*keyval);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* ---- one object's list ------------------------------------------------------ */

/* The Fortran procedures a marked keyval keeps in the slots of its kind. */
static fm_f_proc *fortran_delete(const struct keyval *k)
{
    return k->kind == COMM   ? (fm_f_proc *)k->del.comm
           : k->kind == TYPE ? (fm_f_proc *)k->del.type
                             : (fm_f_proc *)k->del.win;
}

static fm_f_proc *fortran_copy(const struct keyval *k)
{
    return k->kind == COMM   ? (fm_f_proc *)k->copy.comm
           : k->kind == TYPE ? (fm_f_proc *)k->copy.type
                             : (fm_f_proc *)k->copy.win;
}

int fab_f_keyval_mark(int keyval, const struct fm_f_keyval_calls *calls)
{
    FM_API_LOCK();
    if (keyval < 1 || keyval > nkeys || keys[keyval - 1].refs == 0)
        return MPI_ERR_KEYVAL;
    keys[keyval - 1].fortran = calls;
    return MPI_SUCCESS;
}

/* Run the delete callback of a; FM_OK or FM_ERR_OTHER (details kept). */
static int call_delete(const struct obj *o, struct fm_attr *a)
{
    struct keyval *k = &keys[a->keyval - 1];
    int rc = MPI_SUCCESS;
    if (k->fortran)
        rc = k->fortran->del(fortran_delete(k), o->h, a->keyval, fortran_view(a), k->extra);
    else switch (o->kind) {
    case COMM: rc = k->del.comm ? k->del.comm(o->h, a->keyval, a->val, k->extra) : rc; break;
    case TYPE: rc = k->del.type ? k->del.type(o->h, a->keyval, a->val, k->extra) : rc; break;
    case WIN: rc = k->del.win ? k->del.win(o->h, a->keyval, a->val, k->extra) : rc; break;
    }
    if (rc != MPI_SUCCESS) {
        cb_keyval = a->keyval;
        cb_code = rc;
        return FM_ERR_OTHER;
    }
    return FM_OK;
}

/* Run the copy callback of a (from `from`, of a's kind); FM_OK or FM_ERR_OTHER. */
static int call_copy(const struct obj *from, struct fm_attr *a, void **out, int *flag)
{
    struct keyval *k = &keys[a->keyval - 1];
    int rc = MPI_SUCCESS;
    *flag = 0;
    if (k->fortran && from->kind != WIN) /* windows are never duplicated */
        rc = k->fortran->copy(fortran_copy(k), from->h, a->keyval, k->extra, fortran_view(a),
                              out, flag);
    else switch (from->kind) {
    case COMM:
        if (k->copy.comm)
            rc = k->copy.comm(from->h, a->keyval, k->extra, a->val, out, flag);
        break;
    case TYPE:
        if (k->copy.type)
            rc = k->copy.type(from->h, a->keyval, k->extra, a->val, out, flag);
        break;
    case WIN: /* windows are never duplicated */
        break;
    }
    if (rc != MPI_SUCCESS) {
        cb_keyval = a->keyval;
        cb_code = rc;
        return FM_ERR_OTHER;
    }
    return FM_OK;
}

static int raise_cb(const struct obj *o, const char *call, const char *which)
{
    return RAISE(o, call, MPI_ERR_OTHER, "%s callback of keyval=%d returned error %d", which,
                 cb_keyval, cb_code);
}

/* Run a's delete callback with a hidden from the callback's own lookups. */
static int delete_hidden(const struct obj *o, struct fm_attr *a)
{
    a->deleting = 1;
    int rc = call_delete(o, a);
    a->deleting = 0;
    return rc;
}

/* Unlink a and free it.  Searched by identity: the callback that just ran
 * may have added or removed entries around a. */
static void attr_remove(const struct obj *o, struct fm_attr *a)
{
    struct fm_attr **p = o->head;
    while (*p != a)
        p = &(*p)->next;
    *p = a->next;
    key_unref(a->keyval);
    free(a);
}

static struct fm_attr *find(const struct obj *o, int keyval)
{
    struct fm_attr *a = *o->head;
    while (a && (a->keyval != keyval || a->deleting))
        a = a->next;
    return a;
}

static int attach(const struct obj *o, int keyval, void *val, int from_fortran)
{
    struct fm_attr *a = malloc(sizeof(*a));
    if (!a)
        return FM_ERR_NOMEM;
    *a = (struct fm_attr){.keyval = keyval, .next = *o->head};
    store(a, val, from_fortran);
    *o->head = a;
    keys[keyval - 1].refs++;
    return FM_OK;
}

static int delete_all(const struct obj *o)
{
    /* Restart from the head each time: a callback may delete the next
     * entry or set new ones (which are then deleted too). */
    for (;;) {
        struct fm_attr *a = *o->head;
        while (a && a->deleting)
            a = a->next;
        if (!a)
            return FM_OK;
        int rc = delete_hidden(o, a);
        if (rc != FM_OK)
            return rc; /* this and older attributes stay; the free call fails */
        attr_remove(o, a);
    }
}

static int copy_all(const struct obj *from, const struct obj *to)
{
    int n = 0;
    for (struct fm_attr *a = *from->head; a; a = a->next)
        n++;
    if (n == 0)
        return FM_OK;
    struct fm_attr **order = malloc((size_t)n * sizeof(*order));
    if (!order)
        return FM_ERR_NOMEM;
    int i = n;
    for (struct fm_attr *a = *from->head; a; a = a->next)
        order[--i] = a; /* oldest first */
    int rc = FM_OK;
    /* Copy oldest first and prepend, so the copy's list has the same order. */
    for (i = 0; i < n && rc == FM_OK; i++) {
        void *out = NULL;
        int flag = 0;
        rc = call_copy(from, order[i], &out, &flag);
        /* A Fortran callback's copy is a Fortran value too, and so is the
         * pointer to one a C callback passed on (MPI_COMM_DUP_FN's copy
         * would otherwise point into the old attribute). */
        int fortran_copy = keys[order[i]->keyval - 1].fortran != NULL;
        if (order[i]->from_fortran && out == order[i]->val) {
            out = (void *)(intptr_t)order[i]->fval;
            fortran_copy = 1;
        }
        if (rc == FM_OK && flag)
            rc = attach(to, order[i]->keyval, out, fortran_copy);
    }
    free(order);
    return rc;
}

int fm_attr_copy_all(MPI_Comm oldcomm, MPI_Comm newcomm)
{
    struct obj from = of_comm(oldcomm), to = of_comm(newcomm);
    return copy_all(&from, &to);
}

int fm_attr_delete_all(MPI_Comm comm)
{
    struct obj o = of_comm(comm);
    return delete_all(&o);
}

int fm_attr_type_dup(MPI_Datatype oldtype, MPI_Datatype newtype)
{
    struct obj from = of_type(oldtype), to = of_type(newtype);
    int rc = copy_all(&from, &to);
    if (rc != FM_OK)
        delete_all(&to); /* undo the copies made; the first error is what counts */
    return rc;
}

int fm_attr_type_free(MPI_Datatype dt)
{
    struct obj o = of_type(dt);
    return delete_all(&o);
}

int fm_attr_win_free(MPI_Win win)
{
    struct obj o = of_win(win);
    return delete_all(&o);
}

void fm_attr_finalize(void)
{
    free(keys);
    keys = NULL;
    nkeys = 0;
}

/* ---- set, get, delete -------------------------------------------------------- */

static int set_attr(const char *call, const struct obj *o, int keyval, void *val,
                    const char *arg)
{
    int from_fortran = next_set_from_fortran;
    next_set_from_fortran = 0;
    if (is_predefined(o->kind, keyval))
        return RAISE(o, call, MPI_ERR_KEYVAL, "%s=%d is predefined and cannot be changed", arg,
                     keyval);
    if (!lookup(o->kind, keyval, 1))
        return RAISE(o, call, MPI_ERR_KEYVAL, "%s=%d is not a valid %s keyval", arg, keyval,
                     kind_word[o->kind]);
    struct fm_attr *a = find(o, keyval);
    if (a) {
        /* Replacing a value deletes the old one first (MPI-3.1 6.7.2). */
        if (delete_hidden(o, a) != FM_OK)
            return raise_cb(o, call, "delete");
        struct fm_attr *newer = find(o, keyval);
        if (newer != a) {
            /* The callback set this key again: keep one entry, the newer. */
            attr_remove(o, a);
            a = newer;
        }
        store(a, val, from_fortran);
        return MPI_SUCCESS;
    }
    if (attach(o, keyval, val, from_fortran) != FM_OK)
        return RAISE(o, call, MPI_ERR_NO_MEM, "no memory for attribute %s=%d", arg, keyval);
    return MPI_SUCCESS;
}

/* A user keyval's value (the predefined ones are the callers'). */
static int get_attr(const char *call, const struct obj *o, int keyval, void *val, int *flag,
                    const char *arg)
{
    /* A keyval freed by the program still reads attributes already set. */
    if (!lookup(o->kind, keyval, 0))
        return RAISE(o, call, MPI_ERR_KEYVAL, "%s=%d is not a valid %s keyval", arg, keyval,
                     kind_word[o->kind]);
    struct fm_attr *a = find(o, keyval);
    if (a)
        *(void **)val = a->val;
    *flag = a != NULL;
    return MPI_SUCCESS;
}

void fab_f_attr_set_next(int from_fortran)
{
    next_set_from_fortran = from_fortran;
}

int fab_f_attr_value(enum fm_f_kind kind, void *h, int keyval, const void *c_value,
                     MPI_Aint *value)
{
    FM_API_LOCK();
    if (!h || (kind != FM_F_COMM && kind != FM_F_TYPE && kind != FM_F_WIN))
        return 0;
    struct obj o = kind == FM_F_COMM   ? of_comm(h)
                   : kind == FM_F_TYPE ? of_type(h)
                                       : of_win(h);
    struct fm_attr *a = find(&o, keyval);
    if (!a || !a->from_fortran || a->val != c_value)
        return 0;
    *value = a->fval;
    return 1;
}

static int delete_attr(const char *call, const struct obj *o, int keyval, const char *arg)
{
    if (is_predefined(o->kind, keyval))
        return RAISE(o, call, MPI_ERR_KEYVAL, "%s=%d is predefined and cannot be deleted", arg,
                     keyval);
    if (!lookup(o->kind, keyval, 0))
        return RAISE(o, call, MPI_ERR_KEYVAL, "%s=%d is not a valid %s keyval", arg, keyval,
                     kind_word[o->kind]);
    struct fm_attr *a = find(o, keyval);
    if (!a)
        return MPI_SUCCESS; /* nothing set (or its deletion is under way) */
    if (delete_hidden(o, a) != FM_OK)
        return raise_cb(o, call, "delete");
    attr_remove(o, a);
    return MPI_SUCCESS;
}

/* ---- communicators ------------------------------------------------------------ */

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                           MPI_Comm_delete_attr_function *delete_fn, int *comm_keyval,
                           void *extra_state)
{
    FM_API_LOCK();
    /* NULL callbacks are not allowed by the standard; they act as the
     * NULL_COPY / NULL_DELETE functions rather than crash. */
    return create_keyval("MPI_Comm_create_keyval", COMM,
                         (struct keyval){.copy.comm = copy_fn, .del.comm = delete_fn,
                                         .extra = extra_state},
                         comm_keyval, "comm_keyval");
}

#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
int PMPI_Comm_free_keyval(int *comm_keyval)
{
    FM_API_LOCK();
    return free_keyval("MPI_Comm_free_keyval", COMM, comm_keyval, "comm_keyval");
}

#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Comm_set_attr");
    FM_CHECK_COMM("MPI_Comm_set_attr", comm);
    struct obj o = of_comm(comm);
    return set_attr("MPI_Comm_set_attr", &o, comm_keyval, attribute_val, "comm_keyval");
}

/* MPI_Comm_get_attr and MPI_Attr_get: the call's name for its errors. */
static int comm_get_attr(const char *call, MPI_Comm comm, int comm_keyval, void *attribute_val,
                         int *flag, const char *arg)
{
    static int tag_ub, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0,
               universe, appnum = 0;
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    if (!attribute_val || !flag)
        return fm_raise(comm, call, MPI_ERR_ARG, "%s=NULL", flag ? "attribute_val" : "flag");
    if (is_predefined(COMM, comm_keyval)) {
        int *v = NULL;
        switch (comm_keyval) {
        case MPI_TAG_UB: tag_ub = FM_TAG_UB; v = &tag_ub; break;
        case MPI_HOST: v = &host; break;
        case MPI_IO: v = &io; break;
        case MPI_WTIME_IS_GLOBAL: v = &wtime_global; break;
        case MPI_UNIVERSE_SIZE: universe = fab_comm_world.size; v = &universe; break;
        case MPI_LASTUSEDCODE: v = &fm_attr_lastusedcode; break;
        case MPI_APPNUM: v = &appnum; break;
        }
        *(int **)attribute_val = v;
        *flag = 1;
        return MPI_SUCCESS;
    }
    struct obj o = of_comm(comm);
    return get_attr(call, &o, comm_keyval, attribute_val, flag, arg);
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    FM_API_LOCK();
    return comm_get_attr("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag,
                         "comm_keyval");
}

#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Comm_delete_attr");
    FM_CHECK_COMM("MPI_Comm_delete_attr", comm);
    struct obj o = of_comm(comm);
    return delete_attr("MPI_Comm_delete_attr", &o, comm_keyval, "comm_keyval");
}

/* MPI-1 names: the same calls, with their own names in error messages. */
#pragma weak MPI_Keyval_create = PMPI_Keyval_create
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra_state)
{
    FM_API_LOCK();
    return create_keyval("MPI_Keyval_create", COMM,
                         (struct keyval){.copy.comm = copy_fn, .del.comm = delete_fn,
                                         .extra = extra_state},
                         keyval, "keyval");
}

#pragma weak MPI_Keyval_free = PMPI_Keyval_free
int PMPI_Keyval_free(int *keyval)
{
    FM_API_LOCK();
    return free_keyval("MPI_Keyval_free", COMM, keyval, "keyval");
}

#pragma weak MPI_Attr_put = PMPI_Attr_put
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Attr_put");
    FM_CHECK_COMM("MPI_Attr_put", comm);
    struct obj o = of_comm(comm);
    return set_attr("MPI_Attr_put", &o, keyval, attribute_val, "keyval");
}

#pragma weak MPI_Attr_get = PMPI_Attr_get
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    FM_API_LOCK();
    return comm_get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag, "keyval");
}

#pragma weak MPI_Attr_delete = PMPI_Attr_delete
int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Attr_delete");
    FM_CHECK_COMM("MPI_Attr_delete", comm);
    struct obj o = of_comm(comm);
    return delete_attr("MPI_Attr_delete", &o, keyval, "keyval");
}

/* ---- datatypes ------------------------------------------------------------------ */

#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
                           MPI_Type_delete_attr_function *delete_fn, int *type_keyval,
                           void *extra_state)
{
    FM_API_LOCK();
    return create_keyval("MPI_Type_create_keyval", TYPE,
                         (struct keyval){.copy.type = copy_fn, .del.type = delete_fn,
                                         .extra = extra_state},
                         type_keyval, "type_keyval");
}

#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
int PMPI_Type_free_keyval(int *type_keyval)
{
    FM_API_LOCK();
    return free_keyval("MPI_Type_free_keyval", TYPE, type_keyval, "type_keyval");
}

#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Type_set_attr");
    FM_CHECK_DT_ARG("MPI_Type_set_attr", datatype, "datatype");
    struct obj o = of_type(datatype);
    return set_attr("MPI_Type_set_attr", &o, type_keyval, attribute_val, "type_keyval");
}

#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    FM_API_LOCK();
    const char *call = "MPI_Type_get_attr";
    FM_CHECK_INIT(call);
    FM_CHECK_DT_ARG(call, datatype, "datatype");
    if (!attribute_val || !flag)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "%s=NULL",
                        flag ? "attribute_val" : "flag");
    struct obj o = of_type(datatype);
    return get_attr(call, &o, type_keyval, attribute_val, flag, "type_keyval");
}

#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Type_delete_attr");
    FM_CHECK_DT_ARG("MPI_Type_delete_attr", datatype, "datatype");
    struct obj o = of_type(datatype);
    return delete_attr("MPI_Type_delete_attr", &o, type_keyval, "type_keyval");
}

/* ---- windows ---------------------------------------------------------------------- */

#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                          MPI_Win_delete_attr_function *delete_fn, int *win_keyval,
                          void *extra_state)
{
    FM_API_LOCK();
    return create_keyval("MPI_Win_create_keyval", WIN,
                         (struct keyval){.copy.win = copy_fn, .del.win = delete_fn,
                                         .extra = extra_state},
                         win_keyval, "win_keyval");
}

#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval
int PMPI_Win_free_keyval(int *win_keyval)
{
    FM_API_LOCK();
    return free_keyval("MPI_Win_free_keyval", WIN, win_keyval, "win_keyval");
}

#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr
int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Win_set_attr");
    FM_CHECK_WIN("MPI_Win_set_attr", win);
    struct obj o = of_win(win);
    return set_attr("MPI_Win_set_attr", &o, win_keyval, attribute_val, "win_keyval");
}

int fm_attr_win_get(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    struct obj o = of_win(win);
    return get_attr("MPI_Win_get_attr", &o, win_keyval, attribute_val, flag, "win_keyval");
}

#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr
int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Win_delete_attr");
    FM_CHECK_WIN("MPI_Win_delete_attr", win);
    struct obj o = of_win(win);
    return delete_attr("MPI_Win_delete_attr", &o, win_keyval, "win_keyval");
}
