/* comm_attr: communicator attributes — copy callbacks run exactly once per
 * attribute on Comm_dup / Comm_idup and never on split; delete callbacks run
 * on replace, Comm_delete_attr and Comm_free, and for MPI_COMM_SELF at the
 * start of MPI_Finalize; MPI_COMM_NULL_COPY_FN / MPI_COMM_DUP_FN; copy flag 0;
 * Comm_free_keyval with an attribute still attached; extra_state passing;
 * predefined attributes (MPI_TAG_UB >= 2^31-1, MPI_HOST, MPI_IO,
 * MPI_WTIME_IS_GLOBAL) on world and on a dup. */
#include "testutil.h"

static int rank, size;
static int ncopy, ndelete, nself_delete;
static int extra_a = 111, extra_b = 222;
static intptr_t last_deleted = -1;

static int copy_fn(MPI_Comm old, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    (void)kv;
    CHECK(extra == &extra_a);
    ncopy++;
    *(void **)out = (void *)((intptr_t)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int nocopy_fn(MPI_Comm old, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    (void)kv;
    (void)in;
    (void)out;
    CHECK(extra == &extra_b);
    ncopy++;
    *flag = 0;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)kv;
    CHECK(c != MPI_COMM_NULL);
    CHECK(extra == &extra_a || extra == &extra_b);
    ndelete++;
    last_deleted = (intptr_t)val;
    return MPI_SUCCESS;
}

static int self_delete_fn(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)kv;
    (void)extra;
    CHECK(c == MPI_COMM_SELF);
    CHECK((intptr_t)val == 4242);
    int fin = 1;
    MPI_Finalized(&fin);
    CHECK(fin == 0); /* MPI is still usable when these run */
    nself_delete++;
    return MPI_SUCCESS;
}

static void predefined(MPI_Comm c)
{
    void *v = NULL;
    int flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(c, MPI_TAG_UB, &v, &flag));
    CHECK_EQ(flag, 1);
    CHECKF(*(int *)v >= 2147483647, "MPI_TAG_UB = %d", *(int *)v);
    CHECK_MPI(MPI_Comm_get_attr(c, MPI_HOST, &v, &flag));
    CHECK_EQ(flag, 1);
    int h = *(int *)v;
    CHECK(h == MPI_PROC_NULL || (h >= 0 && h < size));
    CHECK_MPI(MPI_Comm_get_attr(c, MPI_IO, &v, &flag));
    CHECK_EQ(flag, 1);
    int io = *(int *)v;
    CHECK(io == MPI_PROC_NULL || io == MPI_ANY_SOURCE || (io >= 0 && io < size));
    CHECK_MPI(MPI_Comm_get_attr(c, MPI_WTIME_IS_GLOBAL, &v, &flag));
    CHECK_EQ(flag, 1);
    CHECK(*(int *)v == 0 || *(int *)v == 1);
    CHECK_MPI(MPI_Comm_get_attr(c, MPI_UNIVERSE_SIZE, &v, &flag));
    if (flag)
        CHECK(*(int *)v >= 1);
    CHECK_MPI(MPI_Comm_get_attr(c, MPI_APPNUM, &v, &flag));
    if (flag)
        CHECK(*(int *)v >= 0);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

    predefined(MPI_COMM_WORLD);

    int ka = MPI_KEYVAL_INVALID, kb = MPI_KEYVAL_INVALID, knull, kdup;
    CHECK_MPI(MPI_Comm_create_keyval(copy_fn, delete_fn, &ka, &extra_a));
    CHECK_MPI(MPI_Comm_create_keyval(nocopy_fn, delete_fn, &kb, &extra_b));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL));
    CHECK(ka != MPI_KEYVAL_INVALID && kb != MPI_KEYVAL_INVALID && ka != kb);
    CHECK(knull != kdup && knull != ka && kdup != kb);

    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    predefined(c);
    void *v;
    int flag = -1;

    /* Not set yet. */
    CHECK_MPI(MPI_Comm_get_attr(c, ka, &v, &flag));
    CHECK_EQ(flag, 0);

    CHECK_MPI(MPI_Comm_set_attr(c, ka, (void *)(intptr_t)5));
    CHECK_MPI(MPI_Comm_set_attr(c, kb, (void *)(intptr_t)6));
    CHECK_MPI(MPI_Comm_set_attr(c, knull, (void *)(intptr_t)7));
    CHECK_MPI(MPI_Comm_set_attr(c, kdup, (void *)(intptr_t)8));
    CHECK_EQ(ncopy, 0);
    CHECK_EQ(ndelete, 0);
    CHECK_MPI(MPI_Comm_get_attr(c, ka, &v, &flag));
    CHECK_EQ(flag, 1);
    CHECK_EQ((intptr_t)v, 5);

    /* Replacing a value deletes the old one. */
    CHECK_MPI(MPI_Comm_set_attr(c, ka, (void *)(intptr_t)9));
    CHECK_EQ(ndelete, 1);
    CHECK_EQ(last_deleted, 5);
    CHECK_MPI(MPI_Comm_get_attr(c, ka, &v, &flag));
    CHECK_EQ((intptr_t)v, 9);

    /* Dup: copy_fn and nocopy_fn each called once. */
    MPI_Comm c2;
    CHECK_MPI(MPI_Comm_dup(c, &c2));
    CHECK_EQ(ncopy, 2);
    CHECK_EQ(ndelete, 1);
    CHECK_MPI(MPI_Comm_get_attr(c2, ka, &v, &flag));
    CHECK_EQ(flag, 1);
    CHECK_EQ((intptr_t)v, 1009);
    CHECK_MPI(MPI_Comm_get_attr(c2, kb, &v, &flag));
    CHECK_EQ(flag, 0);
    CHECK_MPI(MPI_Comm_get_attr(c2, knull, &v, &flag));
    CHECK_EQ(flag, 0);
    CHECK_MPI(MPI_Comm_get_attr(c2, kdup, &v, &flag));
    CHECK_EQ(flag, 1);
    CHECK_EQ((intptr_t)v, 8);
    /* Original unchanged. */
    CHECK_MPI(MPI_Comm_get_attr(c, ka, &v, &flag));
    CHECK_EQ((intptr_t)v, 9);

    /* idup copies too. */
    MPI_Comm c3;
    MPI_Request rq;
    CHECK_MPI(MPI_Comm_idup(c2, &c3, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_EQ(ncopy, 3); /* only ka is on c2 among the counted keyvals */
    CHECK_MPI(MPI_Comm_get_attr(c3, ka, &v, &flag));
    CHECK_EQ(flag, 1);
    CHECK_EQ((intptr_t)v, 2009);

    /* Split does not copy attributes. */
    MPI_Comm s;
    CHECK_MPI(MPI_Comm_split(c, 0, rank, &s));
    CHECK_EQ(ncopy, 3);
    CHECK_MPI(MPI_Comm_get_attr(s, ka, &v, &flag));
    CHECK_EQ(flag, 0);
    CHECK_MPI(MPI_Comm_free(&s));
    CHECK_EQ(ndelete, 1);

    /* Explicit delete. */
    CHECK_MPI(MPI_Comm_delete_attr(c2, ka));
    CHECK_EQ(ndelete, 2);
    CHECK_EQ(last_deleted, 1009);
    CHECK_MPI(MPI_Comm_get_attr(c2, ka, &v, &flag));
    CHECK_EQ(flag, 0);

    /* Freeing c2 (no counted attributes left): no callbacks. */
    CHECK_MPI(MPI_Comm_free(&c2));
    CHECK_EQ(ndelete, 2);

    /* Free the keyval while attributes using it remain: they stay valid
     * and their delete callbacks still run when the comms are freed. */
    int ka_saved = ka;
    CHECK_MPI(MPI_Comm_free_keyval(&ka));
    CHECK_EQ(ka, MPI_KEYVAL_INVALID);
    CHECK_MPI(MPI_Comm_get_attr(c, ka_saved, &v, &flag));
    CHECK_EQ(flag, 1);
    CHECK_EQ((intptr_t)v, 9);
    CHECK_MPI(MPI_Comm_free(&c3)); /* ka=2009 */
    CHECK_EQ(ndelete, 3);
    CHECK_EQ(last_deleted, 2009);
    CHECK_MPI(MPI_Comm_free(&c)); /* ka=9, kb=6 */
    CHECK_EQ(ndelete, 5);
    CHECK_EQ(ncopy, 3);
    CHECK_MPI(MPI_Comm_free_keyval(&kb));
    CHECK_MPI(MPI_Comm_free_keyval(&knull));
    CHECK_MPI(MPI_Comm_free_keyval(&kdup));
    CHECK_EQ(kb, MPI_KEYVAL_INVALID);

    /* Attributes on world are copied to a dup of world as well. */
    int kw;
    CHECK_MPI(MPI_Comm_create_keyval(copy_fn, delete_fn, &kw, &extra_a));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, kw, (void *)(intptr_t)1));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_EQ(ncopy, 4);
    CHECK_MPI(MPI_Comm_get_attr(c, kw, &v, &flag));
    CHECK_EQ((intptr_t)v, 1001);
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_EQ(ndelete, 6);
    CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, kw));
    CHECK_EQ(ndelete, 7);
    CHECK_MPI(MPI_Comm_free_keyval(&kw));

    /* Predefined attributes cannot be deleted or set by the user. */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, (void *)(intptr_t)5) != MPI_SUCCESS);
    CHECK(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB) != MPI_SUCCESS);
    predefined(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    /* An attribute on MPI_COMM_SELF is deleted at the start of Finalize. */
    int kself;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete_fn, &kself, NULL));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kself, (void *)(intptr_t)4242));
    CHECK_EQ(nself_delete, 0);
    CHECK_MPI(MPI_Finalize());
    if (nself_delete != 1) {
        fprintf(stderr, "FAIL comm_attr.c:%d MPI_COMM_SELF delete callback ran %d times (rank %d)\n",
                __LINE__, nself_delete, rank);
        return 1;
    }
    return 0;
}
