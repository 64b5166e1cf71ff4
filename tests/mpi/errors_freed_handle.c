/* errors_freed_handle: a handle used after it was freed gets its kind's
 * error class under MPI_ERRORS_RETURN — communicator, group, datatype, op,
 * info, error handler, window, persistent request and keyval — both in an
 * ordinary call and in a second free, and the library keeps working.  Run
 * under ASan (make test-asan) or valgrind this also shows the check reads
 * no freed memory.  Every kind is freed and re-checked several times, with
 * new objects of the kind created in between, as programs do. */
#include "testutil.h"

static int cls(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

#define EXPECT_CLASS(call, want)                                                        \
    do {                                                                                \
        int got_ = cls(call);                                                           \
        CHECKF(got_ == (want), "%s returned class %d, expected %s (%d)", #call, got_, \
               #want, (want));                                                          \
    } while (0)

static int delete_calls;
static int count_delete(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c, (void)kv, (void)val, (void)extra;
    delete_calls++;
    return MPI_SUCCESS;
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void noop_errh(MPI_Comm *c, int *code, ...)
{
    (void)c, (void)code;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int size, n;
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int round = 0; round < 3; round++) {
        /* communicator */
        MPI_Comm c, stale;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        stale = c;
        CHECK_MPI(MPI_Comm_free(&c));
        EXPECT_CLASS(MPI_Comm_size(stale, &n), MPI_ERR_COMM);
        EXPECT_CLASS(MPI_Comm_free(&stale), MPI_ERR_COMM);
        EXPECT_CLASS(MPI_Barrier(stale), MPI_ERR_COMM);

        /* group */
        /* (a group of its own: MPI_Comm_group's result is shared with the
         * communicator, which keeps it alive) */
        MPI_Group wgrp, g, gs;
        int first = 0;
        CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wgrp));
        CHECK_MPI(MPI_Group_incl(wgrp, 1, &first, &g));
        CHECK_MPI(MPI_Group_free(&wgrp));
        gs = g;
        CHECK_MPI(MPI_Group_free(&g));
        EXPECT_CLASS(MPI_Group_size(gs, &n), MPI_ERR_GROUP);
        EXPECT_CLASS(MPI_Group_free(&gs), MPI_ERR_GROUP);

        /* datatype */
        MPI_Datatype t, ts;
        CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
        CHECK_MPI(MPI_Type_commit(&t));
        ts = t;
        CHECK_MPI(MPI_Type_free(&t));
        EXPECT_CLASS(MPI_Type_size(ts, &n), MPI_ERR_TYPE);
        EXPECT_CLASS(MPI_Type_free(&ts), MPI_ERR_TYPE);
        int one = 1;
        EXPECT_CLASS(MPI_Send(&one, 1, ts, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);

        /* op */
        MPI_Op op, ops;
        CHECK_MPI(MPI_Op_create(user_sum, 1, &op));
        ops = op;
        CHECK_MPI(MPI_Op_free(&op));
        int in = 1, out = 0;
        EXPECT_CLASS(MPI_Allreduce(&in, &out, 1, MPI_INT, ops, MPI_COMM_WORLD), MPI_ERR_OP);
        EXPECT_CLASS(MPI_Op_free(&ops), MPI_ERR_OP);

        /* info */
        MPI_Info info, infos;
        CHECK_MPI(MPI_Info_create(&info));
        infos = info;
        CHECK_MPI(MPI_Info_free(&info));
        EXPECT_CLASS(MPI_Info_get_nkeys(infos, &n), MPI_ERR_INFO);
        EXPECT_CLASS(MPI_Info_free(&infos), MPI_ERR_INFO);

        /* error handler */
        MPI_Errhandler eh, ehs;
        CHECK_MPI(MPI_Comm_create_errhandler(noop_errh, &eh));
        ehs = eh;
        CHECK_MPI(MPI_Errhandler_free(&eh));
        EXPECT_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, ehs), MPI_ERR_ARG);
        EXPECT_CLASS(MPI_Errhandler_free(&ehs), MPI_ERR_ARG);

        /* window */
        int mem[4];
        MPI_Win w, ws;
        CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
        ws = w;
        CHECK_MPI(MPI_Win_free(&w));
        MPI_Group wg;
        EXPECT_CLASS(MPI_Win_get_group(ws, &wg), MPI_ERR_WIN);
        EXPECT_CLASS(MPI_Win_free(&ws), MPI_ERR_WIN);

        /* persistent request */
        MPI_Request r, rs;
        CHECK_MPI(MPI_Send_init(&one, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
        rs = r;
        CHECK_MPI(MPI_Request_free(&r));
        EXPECT_CLASS(MPI_Start(&rs), MPI_ERR_REQUEST);

        /* keyval: freed twice (also the MPICH attr/keyval_double_free
         * pattern: the delete callback's copy frees it first).  The
         * attribute that still uses it keeps working until deleted. */
        int kv, kvs;
        delete_calls = 0;
        CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &kv, NULL));
        kvs = kv;
        CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kv, &one));
        CHECK_MPI(MPI_Comm_free_keyval(&kv));
        CHECK_EQ(kv, MPI_KEYVAL_INVALID);
        EXPECT_CLASS(MPI_Comm_free_keyval(&kvs), MPI_ERR_KEYVAL);
        CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_SELF, kvs));
        CHECK_EQ(delete_calls, 1);
        EXPECT_CLASS(MPI_Comm_free_keyval(&kvs), MPI_ERR_KEYVAL);
    }

    /* Still working. */
    int v = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(sum, size);
    printf("errors_freed_handle: ok\n");
    MPI_Finalize();
    return 0;
}
