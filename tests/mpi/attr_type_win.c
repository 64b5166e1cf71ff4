/* attr_type_win: attributes on datatypes and windows, and the MPI-1 names
 * of the communicator calls.
 *
 * Datatypes: copy callbacks run once per attribute on MPI_Type_dup (the
 * value they return lands on the copy, flag 0 copies nothing); delete
 * callbacks run on replace, MPI_Type_delete_attr and MPI_Type_free, newest
 * first; attributes on a predefined type; MPI_TYPE_DUP_FN and
 * MPI_TYPE_NULL_COPY_FN; a keyval freed while attached still reads; a
 * failing delete callback makes MPI_Type_free fail with MPI_ERR_OTHER and
 * keeps the type; a communicator or window keyval on a type, a type keyval
 * on a communicator: MPI_ERR_KEYVAL.
 *
 * Windows: set, get (the predefined keys still answer), replace, delete,
 * MPI_Win_free running the remaining delete callbacks, a failing one making
 * it fail (the window stays usable and is freed after).
 *
 * MPI-1: MPI_Keyval_create / Attr_put / Attr_get / Attr_delete /
 * Keyval_free, with MPI_DUP_FN copying through MPI_Comm_dup. */
#include <stdint.h>

#include "testutil.h"

static int ncopy, ndelete, fail_delete;
static intptr_t deleted[16];
static int extra = 7;

static int type_copy(MPI_Datatype t, int kv, void *ex, void *in, void *out, int *flag)
{
    (void)t, (void)kv;
    CHECK(ex == &extra);
    ncopy++;
    *(void **)out = (void *)((intptr_t)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype t, int kv, void *val, void *ex)
{
    (void)t, (void)kv;
    CHECK(ex == &extra);
    if (fail_delete)
        return MPI_ERR_OTHER + 1000; /* any code but MPI_SUCCESS */
    if (ndelete < 16)
        deleted[ndelete] = (intptr_t)val;
    ndelete++;
    return MPI_SUCCESS;
}

static int win_delete(MPI_Win w, int kv, void *val, void *ex)
{
    (void)w, (void)kv;
    CHECK(ex == &extra);
    if (fail_delete)
        return 5;
    if (ndelete < 16)
        deleted[ndelete] = (intptr_t)val;
    ndelete++;
    return MPI_SUCCESS;
}

static intptr_t get_type(MPI_Datatype t, int kv, int *flag)
{
    void *v = NULL;
    CHECK_MPI(MPI_Type_get_attr(t, kv, &v, flag));
    return (intptr_t)v;
}

static void check_types(void)
{
    int k1, k2, knull, flag;
    CHECK_MPI(MPI_Type_create_keyval(type_copy, type_delete, &k1, &extra));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_delete, &k2, &extra));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &knull,
                                     NULL));
    MPI_Datatype t, d;
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
    CHECK(get_type(t, k1, &flag) == 0 && flag == 0);
    CHECK_MPI(MPI_Type_set_attr(t, k1, (void *)(intptr_t)5));
    CHECK_MPI(MPI_Type_set_attr(t, k2, (void *)(intptr_t)6));
    CHECK_MPI(MPI_Type_set_attr(t, knull, (void *)(intptr_t)8));
    CHECK(get_type(t, k1, &flag) == 5 && flag == 1);

    /* Replace: the old value's delete callback runs. */
    ndelete = 0;
    CHECK_MPI(MPI_Type_set_attr(t, k1, (void *)(intptr_t)9));
    CHECKF(ndelete == 1 && deleted[0] == 5, "replace: %d deletes, first %ld", ndelete,
           (long)deleted[0]);

    /* Dup: k1 through type_copy (+1000), k2 through MPI_TYPE_DUP_FN, knull not. */
    ncopy = 0;
    CHECK_MPI(MPI_Type_dup(t, &d));
    CHECKF(ncopy == 1, "%d copy callbacks on MPI_Type_dup, want 1", ncopy);
    CHECK(get_type(d, k1, &flag) == 1009 && flag);
    CHECK(get_type(d, k2, &flag) == 6 && flag);
    get_type(d, knull, &flag);
    CHECK(flag == 0);

    /* Delete one, then free: the rest go newest first. */
    ndelete = 0;
    CHECK_MPI(MPI_Type_delete_attr(d, k2));
    CHECK(ndelete == 1 && deleted[0] == 6);
    get_type(d, k2, &flag);
    CHECK(flag == 0);
    CHECK_MPI(MPI_Type_delete_attr(d, k2)); /* nothing set: no callback */
    CHECK(ndelete == 1);
    CHECK_MPI(MPI_Type_free(&d));
    CHECKF(ndelete == 2 && deleted[1] == 1009, "free of the dup: %d deletes", ndelete);

    /* A failing delete callback keeps the type and its attributes. */
    fail_delete = 1;
    MPI_Datatype keep = t;
    CHECK_ERR(MPI_Type_free(&t), MPI_ERR_OTHER);
    CHECK(t == keep);
    CHECK(get_type(t, k1, &flag) == 9 && flag);
    fail_delete = 0;

    /* A freed keyval still reads what is attached; the free runs its delete. */
    CHECK_MPI(MPI_Type_free_keyval(&k1));
    CHECK(k1 == MPI_KEYVAL_INVALID);
    ndelete = 0;
    CHECK_MPI(MPI_Type_free(&t));
    CHECKF(ndelete == 2, "free: %d deletes, want 2 (k2, freed k1)", ndelete);
    CHECK(deleted[0] == 6 && deleted[1] == 9); /* k2 set after k1: deleted first */

    /* Predefined types carry attributes too. */
    CHECK_MPI(MPI_Type_set_attr(MPI_INT, k2, (void *)(intptr_t)42));
    CHECK(get_type(MPI_INT, k2, &flag) == 42 && flag);
    CHECK_MPI(MPI_Type_delete_attr(MPI_INT, k2));

    /* Keyvals of another kind. */
    int ck;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    CHECK_ERR(MPI_Type_set_attr(MPI_INT, ck, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_set_attr(MPI_COMM_WORLD, k2, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Type_free_keyval(&ck), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Type_get_attr(MPI_INT, MPI_TAG_UB, &ck, &flag), MPI_ERR_KEYVAL);
    CHECK_MPI(MPI_Comm_free_keyval(&ck));
    CHECK_MPI(MPI_Type_free_keyval(&k2));
    CHECK_MPI(MPI_Type_free_keyval(&knull));
    CHECK_ERR(MPI_Type_free_keyval(&knull), MPI_ERR_KEYVAL);
}

static void check_windows(void)
{
    int buf[4] = {0}, kw, flag;
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &kw, &extra));
    int kw2;
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &kw2, NULL));
    void *v = NULL;
    CHECK_MPI(MPI_Win_get_attr(win, kw, &v, &flag));
    CHECK(flag == 0);
    CHECK_MPI(MPI_Win_set_attr(win, kw, (void *)(intptr_t)11));
    CHECK_MPI(MPI_Win_set_attr(win, kw2, (void *)(intptr_t)12));
    CHECK_MPI(MPI_Win_get_attr(win, kw, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 11);
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
    CHECK(flag == 1 && v == buf);
    ndelete = 0;
    CHECK_MPI(MPI_Win_set_attr(win, kw, (void *)(intptr_t)13));
    CHECK(ndelete == 1 && deleted[0] == 11);
    CHECK_MPI(MPI_Win_delete_attr(win, kw2));
    CHECK_MPI(MPI_Win_get_attr(win, kw2, &v, &flag));
    CHECK(flag == 0);
    int ck;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    CHECK_ERR(MPI_Win_set_attr(win, ck, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Win_get_attr(win, ck, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_MPI(MPI_Comm_free_keyval(&ck));

    /* A failing delete callback: MPI_Win_free fails on every rank alike
     * (before its barrier), the window still works. */
    fail_delete = 1;
    MPI_Win keep = win;
    CHECK_ERR(MPI_Win_free(&win), MPI_ERR_OTHER);
    CHECK(win == keep);
    fail_delete = 0;
    CHECK_MPI(MPI_Win_fence(0, win));
    ndelete = 0;
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(ndelete == 1 && deleted[0] == 13);
    CHECK_MPI(MPI_Win_free_keyval(&kw));
    CHECK_MPI(MPI_Win_free_keyval(&kw2));
}

static int dup_count;
static int counting_dup(MPI_Comm c, int kv, void *ex, void *in, void *out, int *flag)
{
    dup_count++;
    return MPI_DUP_FN(c, kv, ex, in, out, flag);
}

static void check_mpi1(void)
{
    int k, flag;
    void *v = NULL;
    CHECK_MPI(MPI_Keyval_create(counting_dup, MPI_NULL_DELETE_FN, &k, NULL));
    CHECK_MPI(MPI_Attr_put(MPI_COMM_WORLD, k, (void *)(intptr_t)77));
    CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, k, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 77);
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK(dup_count == 1);
    CHECK_MPI(MPI_Attr_get(d, k, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 77);
    CHECK_MPI(MPI_Attr_delete(d, k));
    CHECK_MPI(MPI_Attr_get(d, k, &v, &flag));
    CHECK(flag == 0);
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Attr_delete(MPI_COMM_WORLD, k));
    CHECK_MPI(MPI_Keyval_free(&k));
    CHECK(k == MPI_KEYVAL_INVALID);
    CHECK_ERR(MPI_Attr_put(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    check_types();
    check_windows();
    check_mpi1();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("attr_type_win: ok\n");
    return 0;
}
