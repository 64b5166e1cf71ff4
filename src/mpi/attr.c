/* attr.c — attribute caching on communicators (MPI-3.1 chapter 6.7).
 *
 * Keyvals index a table of callbacks.  A keyval stays alive while any
 * attribute uses it, even after MPI_Comm_free_keyval (the standard lets
 * attributes outlive the user's handle), so each entry counts its users:
 * one for the handle plus one per attached attribute.
 *
 * A communicator's attributes are a list, newest first: deletion walks it
 * in that order, i.e. in reverse order of setting, which is what the
 * standard asks for MPI_COMM_SELF at MPI_Finalize and harmless elsewhere.
 *
 * Delete callbacks may call attribute functions on the same communicator
 * (delete or set other attributes, delete their own).  So nothing keeps a
 * pointer into the list across a callback: the entry whose callback runs
 * is marked `deleting`, which hides it from lookups (deleting it again is a
 * no-op rather than a recursion), and it is unlinked by identity afterwards.
 *
 * The predefined keys (MPI_TAG_UB ...) are answered from static ints and
 * can be neither set nor deleted; they are answered on every communicator,
 * as if copied from MPI_COMM_WORLD on every dup. */
#include <stdlib.h>

#include "mpi/api.h"

struct fm_attr {
    int keyval;
    void *val;
    int deleting; /* its delete callback is running: invisible to lookups */
    struct fm_attr *next;
};

struct keyval {
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra;
    int refs;      /* 0: slot unused */
    int user_held; /* 1 until MPI_Comm_free_keyval */
};

static struct keyval *keys;
static int nkeys;

int fm_attr_lastusedcode = MPI_ERR_LASTCODE;

/* The failing callback of the last FM_ERR_OTHER from this file. */
static int cb_keyval, cb_code;

int fm_attr_last_failure(int *keyval)
{
    *keyval = cb_keyval;
    return cb_code;
}

int MPI_COMM_NULL_COPY_FN(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_COMM_DUP_FN(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    return MPI_SUCCESS;
}

static int is_predefined(int keyval) { return keyval >= MPI_TAG_UB && keyval <= MPI_APPNUM; }

static struct keyval *lookup(int keyval, int user_held)
{
    if (keyval < 1 || keyval > nkeys)
        return NULL;
    struct keyval *k = &keys[keyval - 1];
    if (k->refs == 0 || (user_held && !k->user_held))
        return NULL;
    return k;
}

static void key_unref(int keyval)
{
    struct keyval *k = &keys[keyval - 1];
    if (--k->refs == 0)
        k->user_held = 0; /* slot free for the next create */
}

/* Run the delete callback of a; FM_OK or FM_ERR_OTHER (details kept). */
static int call_delete(MPI_Comm comm, struct fm_attr *a)
{
    struct keyval *k = &keys[a->keyval - 1];
    if (!k->del)
        return FM_OK;
    int rc = k->del(comm, a->keyval, a->val, k->extra);
    if (rc != MPI_SUCCESS) {
        cb_keyval = a->keyval;
        cb_code = rc;
        return FM_ERR_OTHER;
    }
    return FM_OK;
}

static int raise_cb(MPI_Comm comm, const char *call, const char *which)
{
    return fm_raise(comm, call, MPI_ERR_OTHER, "%s callback of keyval=%d returned error %d", which,
                    cb_keyval, cb_code);
}

/* Run a's delete callback with a hidden from the callback's own lookups. */
static int delete_hidden(MPI_Comm comm, struct fm_attr *a)
{
    a->deleting = 1;
    int rc = call_delete(comm, a);
    a->deleting = 0;
    return rc;
}

/* Unlink a and free it.  Searched by identity: the callback that just ran
 * may have added or removed entries around a. */
static void attr_remove(MPI_Comm comm, struct fm_attr *a)
{
    struct fm_attr **p = &comm->attrs;
    while (*p != a)
        p = &(*p)->next;
    *p = a->next;
    key_unref(a->keyval);
    free(a);
}

/* The newest attribute whose deletion is not under way, or NULL. */
static struct fm_attr *first_visible(MPI_Comm comm)
{
    struct fm_attr *a = comm->attrs;
    while (a && a->deleting)
        a = a->next;
    return a;
}

int fm_attr_delete_all(MPI_Comm comm)
{
    /* Restart from the head each time: a callback may delete the next
     * entry or set new ones (which are then deleted too). */
    struct fm_attr *a;
    while ((a = first_visible(comm))) {
        int rc = delete_hidden(comm, a);
        if (rc != FM_OK)
            return rc; /* this and older attributes stay; MPI_Comm_free fails */
        attr_remove(comm, a);
    }
    return FM_OK;
}

int fm_attr_copy_all(MPI_Comm oldcomm, MPI_Comm newcomm)
{
    int n = 0;
    for (struct fm_attr *a = oldcomm->attrs; a; a = a->next)
        n++;
    if (n == 0)
        return FM_OK;
    struct fm_attr **order = malloc((size_t)n * sizeof(*order));
    if (!order)
        return FM_ERR_NOMEM;
    int i = n;
    for (struct fm_attr *a = oldcomm->attrs; a; a = a->next)
        order[--i] = a; /* oldest first */
    int rc = FM_OK;
    /* Copy oldest first and prepend, so newcomm's list has oldcomm's order. */
    for (i = 0; i < n && rc == FM_OK; i++) {
        struct fm_attr *a = order[i];
        struct keyval *k = &keys[a->keyval - 1];
        void *out = NULL;
        int flag = 0;
        if (k->copy) {
            int cb = k->copy(oldcomm, a->keyval, k->extra, a->val, &out, &flag);
            if (cb != MPI_SUCCESS) {
                cb_keyval = a->keyval;
                cb_code = cb;
                rc = FM_ERR_OTHER;
                break;
            }
        }
        if (!flag)
            continue;
        struct fm_attr *c = malloc(sizeof(*c));
        if (!c) {
            rc = FM_ERR_NOMEM;
            break;
        }
        c->keyval = a->keyval;
        c->val = out;
        c->deleting = 0;
        c->next = newcomm->attrs;
        newcomm->attrs = c;
        keys[a->keyval - 1].refs++; /* not k: the callback may have grown the table */
    }
    free(order);
    return rc;
}

void fm_attr_finalize(void)
{
    free(keys);
    keys = NULL;
    nkeys = 0;
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                           MPI_Comm_delete_attr_function *delete_fn, int *comm_keyval,
                           void *extra_state)
{
    FM_CHECK_INIT("MPI_Comm_create_keyval");
    if (!comm_keyval)
        return fm_raise(MPI_COMM_NULL, "MPI_Comm_create_keyval", MPI_ERR_ARG, "comm_keyval=NULL");
    int slot = 0;
    while (slot < nkeys && keys[slot].refs > 0)
        slot++;
    if (slot == nkeys) {
        int n = nkeys ? nkeys * 2 : 16;
        struct keyval *grown = realloc(keys, (size_t)n * sizeof(*grown));
        if (!grown)
            return fm_raise(MPI_COMM_NULL, "MPI_Comm_create_keyval", MPI_ERR_NO_MEM,
                            "no memory for keyval %d", nkeys + 1);
        for (int i = nkeys; i < n; i++)
            grown[i] = (struct keyval){0};
        keys = grown;
        nkeys = n;
    }
    /* NULL callbacks are not allowed by the standard; treat them as the
     * NULL_COPY / NULL_DELETE functions rather than crash. */
    keys[slot] = (struct keyval){copy_fn, delete_fn, extra_state, 1, 1};
    *comm_keyval = slot + 1;
    return MPI_SUCCESS;
}

int MPI_Comm_free_keyval(int *comm_keyval)
{
    FM_CHECK_INIT("MPI_Comm_free_keyval");
    if (!comm_keyval)
        return fm_raise(MPI_COMM_NULL, "MPI_Comm_free_keyval", MPI_ERR_ARG, "comm_keyval=NULL");
    struct keyval *k = lookup(*comm_keyval, 1);
    if (!k)
        return fm_raise(MPI_COMM_NULL, "MPI_Comm_free_keyval", MPI_ERR_KEYVAL,
                        "comm_keyval=%d is not a keyval the program may free%s", *comm_keyval,
                        is_predefined(*comm_keyval) ? " (predefined)" : "");
    k->user_held = 0;
    if (--k->refs == 0)
        *k = (struct keyval){0};
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static struct fm_attr *find(MPI_Comm comm, int keyval)
{
    struct fm_attr *a = comm->attrs;
    while (a && (a->keyval != keyval || a->deleting))
        a = a->next;
    return a;
}

#define CHECK_KEYVAL(call, comm, keyval)                                                  \
    do {                                                                                  \
        if (is_predefined(keyval))                                                        \
            return fm_raise(comm, call, MPI_ERR_KEYVAL,                                   \
                            "comm_keyval=%d is predefined and cannot be changed", keyval);\
        if (!lookup(keyval, 1))                                                           \
            return fm_raise(comm, call, MPI_ERR_KEYVAL,                                   \
                            "comm_keyval=%d is not a valid keyval", keyval);              \
    } while (0)

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    const char *call = "MPI_Comm_set_attr";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    CHECK_KEYVAL(call, comm, comm_keyval);
    struct fm_attr *a = find(comm, comm_keyval);
    if (a) {
        /* Replacing a value deletes the old one first (MPI-3.1 6.7.2). */
        if (delete_hidden(comm, a) != FM_OK)
            return raise_cb(comm, call, "delete");
        struct fm_attr *newer = find(comm, comm_keyval);
        if (newer != a) {
            /* The callback set this key again: keep one entry, the newer. */
            attr_remove(comm, a);
            a = newer;
        }
        a->val = attribute_val;
        return MPI_SUCCESS;
    }
    a = malloc(sizeof(*a));
    if (!a)
        return fm_raise(comm, call, MPI_ERR_NO_MEM, "no memory for attribute keyval=%d",
                        comm_keyval);
    a->keyval = comm_keyval;
    a->val = attribute_val;
    a->deleting = 0;
    a->next = comm->attrs;
    comm->attrs = a;
    keys[comm_keyval - 1].refs++;
    return MPI_SUCCESS;
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    const char *call = "MPI_Comm_get_attr";
    static int tag_ub, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0,
               universe, appnum = 0;
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    if (!attribute_val || !flag)
        return fm_raise(comm, call, MPI_ERR_ARG, "%s=NULL", flag ? "attribute_val" : "flag");
    if (is_predefined(comm_keyval)) {
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
    /* A keyval freed by the program still reads attributes already set. */
    if (!lookup(comm_keyval, 0))
        return fm_raise(comm, call, MPI_ERR_KEYVAL, "comm_keyval=%d is not a valid keyval",
                        comm_keyval);
    struct fm_attr *a = find(comm, comm_keyval);
    if (a)
        *(void **)attribute_val = a->val;
    *flag = a != NULL;
    return MPI_SUCCESS;
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    const char *call = "MPI_Comm_delete_attr";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    if (is_predefined(comm_keyval))
        return fm_raise(comm, call, MPI_ERR_KEYVAL,
                        "comm_keyval=%d is predefined and cannot be deleted", comm_keyval);
    if (!lookup(comm_keyval, 0))
        return fm_raise(comm, call, MPI_ERR_KEYVAL, "comm_keyval=%d is not a valid keyval",
                        comm_keyval);
    struct fm_attr *a = find(comm, comm_keyval);
    if (!a)
        return MPI_SUCCESS; /* nothing set (or its deletion is under way) */
    if (delete_hidden(comm, a) != FM_OK)
        return raise_cb(comm, call, "delete");
    attr_remove(comm, a);
    return MPI_SUCCESS;
}
