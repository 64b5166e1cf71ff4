/* comm_attr_reentrant: attribute delete callbacks that call attribute
 * functions on the communicator being cleaned up — deleting older and newer
 * attributes, deleting their own attribute, setting a new attribute — from
 * MPI_Comm_delete_attr, from a replacing MPI_Comm_set_attr, from
 * MPI_Comm_free and from MPI_Finalize (MPI_COMM_WORLD).  Every attached
 * attribute's delete callback must run exactly once, and nothing deleted
 * may still be visible afterwards. */
#include "testutil.h"

enum { NKEYS = 4 };
static int key[NKEYS];   /* key[0..2]: plain, key[3]: "late" (set by a callback) */
static int ndeleted[NKEYS];

static int index_of(int kv)
{
    for (int i = 0; i < NKEYS; i++)
        if (key[i] == kv)
            return i;
    tu_fail(__FILE__, __LINE__, "delete callback for unknown keyval %d", kv);
}

static int count_fn(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c, (void)val, (void)extra;
    ndeleted[index_of(kv)]++;
    return MPI_SUCCESS;
}

/* Deletes the attributes set before and after its own (key[0], key[2]). */
static int delete_neighbours_fn(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)val, (void)extra;
    ndeleted[index_of(kv)]++;
    CHECK_MPI(MPI_Comm_delete_attr(c, key[0]));
    CHECK_MPI(MPI_Comm_delete_attr(c, key[2]));
    return MPI_SUCCESS;
}

/* Deletes its own attribute: must not recurse. */
static int delete_self_fn(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)val, (void)extra;
    ndeleted[index_of(kv)]++;
    CHECK(ndeleted[index_of(kv)] < 100); /* a recursion would run away */
    CHECK_MPI(MPI_Comm_delete_attr(c, kv));
    return MPI_SUCCESS;
}

/* Sets key[3] while the communicator is being cleaned up. */
static int set_late_fn(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)val, (void)extra;
    ndeleted[index_of(kv)]++;
    CHECK_MPI(MPI_Comm_set_attr(c, key[3], (void *)(intptr_t)77));
    return MPI_SUCCESS;
}

static void make_keys(MPI_Comm_delete_attr_function *middle)
{
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_fn, &key[0], NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, middle, &key[1], NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_fn, &key[2], NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_fn, &key[3], NULL));
    memset(ndeleted, 0, sizeof ndeleted);
}

static void set_three(MPI_Comm c)
{
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Comm_set_attr(c, key[i], (void *)(intptr_t)(i + 1)));
}

static void check_unset(MPI_Comm c, int i)
{
    void *v;
    int flag = -1;
    CHECK_MPI(MPI_Comm_get_attr(c, key[i], &v, &flag));
    CHECKF(flag == 0, "attribute of key[%d] still set after its deletion", i);
}

/* Frees the program's handles; key[] keeps the numbers, which callbacks
 * still receive for attributes left attached. */
static void free_keys(void)
{
    for (int i = 0; i < NKEYS; i++) {
        int handle = key[i];
        CHECK_MPI(MPI_Comm_free_keyval(&handle));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm c;

    /* 1. MPI_Comm_delete_attr whose callback deletes its neighbours. */
    make_keys(delete_neighbours_fn);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    set_three(c);
    CHECK_MPI(MPI_Comm_delete_attr(c, key[1]));
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(ndeleted[i], 1);
        check_unset(c, i);
    }
    CHECK_MPI(MPI_Comm_free(&c));
    for (int i = 0; i < 3; i++)
        CHECK_EQ(ndeleted[i], 1);

    /* 2. The same callback from MPI_Comm_free. */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    memset(ndeleted, 0, sizeof ndeleted);
    set_three(c);
    CHECK_MPI(MPI_Comm_free(&c));
    for (int i = 0; i < 3; i++)
        CHECK_EQ(ndeleted[i], 1);

    /* 3. ... and from a replacing MPI_Comm_set_attr: the new value stays. */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    memset(ndeleted, 0, sizeof ndeleted);
    set_three(c);
    CHECK_MPI(MPI_Comm_set_attr(c, key[1], (void *)(intptr_t)20));
    CHECK_EQ(ndeleted[0], 1);
    CHECK_EQ(ndeleted[1], 1);
    CHECK_EQ(ndeleted[2], 1);
    void *v;
    int flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(c, key[1], &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 20);
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_EQ(ndeleted[1], 2);
    free_keys();

    /* 4. A callback deleting its own attribute runs once. */
    make_keys(delete_self_fn);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    set_three(c);
    CHECK_MPI(MPI_Comm_delete_attr(c, key[1]));
    CHECK_EQ(ndeleted[1], 1);
    check_unset(c, 1);
    CHECK_MPI(MPI_Comm_free(&c));
    for (int i = 0; i < 3; i++)
        CHECK_EQ(ndeleted[i], 1);
    free_keys();

    /* 5. A callback setting an attribute during MPI_Comm_free: that one is
     * deleted too before the communicator goes. */
    make_keys(set_late_fn);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    set_three(c);
    CHECK_MPI(MPI_Comm_free(&c));
    for (int i = 0; i < NKEYS; i++)
        CHECK_EQ(ndeleted[i], 1);
    free_keys();

    /* 6. Left on MPI_COMM_WORLD for MPI_Finalize, keyvals already freed by
     * the program (the attributes keep them alive).  key[1] is set last so
     * its callback (run first: newest first) finds its neighbours still
     * attached. */
    make_keys(delete_neighbours_fn);
    set_three(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, key[1]));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key[0], (void *)(intptr_t)1));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key[2], (void *)(intptr_t)3));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key[1], (void *)(intptr_t)2));
    free_keys();
    MPI_Finalize();
    for (int i = 0; i < 3; i++)
        CHECKF(ndeleted[i] == 2, "key[%d]: %d deletions, expected 2", i, ndeleted[i]);

    return 0;
}
