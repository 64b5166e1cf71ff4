/* comm_basic: Comm_dup / idup / split (colors, keys, ties, MPI_UNDEFINED) /
 * split_type(SHARED) / create / create_group / free / compare / group /
 * test_inter / set_name / get_name, with each new communicator used for a
 * collective and a point-to-point exchange to prove its membership. */
#include "testutil.h"

static int rank, size;

/* Verify comm has `n` members in the order given by world ranks `w`. */
static void check_members(MPI_Comm c, int n, const int *w, const char *what)
{
    int cs = -1, cr = -1;
    CHECK_MPI(MPI_Comm_size(c, &cs));
    CHECKF(cs == n, "%s: size %d, expected %d", what, cs, n);
    CHECK_MPI(MPI_Comm_rank(c, &cr));
    CHECKF(cr >= 0 && cr < n && w[cr] == rank, "%s: my rank %d maps to world %d, I am %d", what,
           cr, cr >= 0 && cr < n ? w[cr] : -1, rank);
    int *all = tu_malloc(sizeof(int) * (size_t)n);
    CHECK_MPI(MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, c));
    for (int i = 0; i < n; i++)
        CHECKF(all[i] == w[i], "%s: rank %d is world %d, expected %d", what, i, all[i], w[i]);
    /* Ring exchange inside the new communicator. */
    int right = (cr + 1) % n, left = (cr - 1 + n) % n, got = -1;
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 3, &got, 1, MPI_INT, left, 3, c,
                           MPI_STATUS_IGNORE));
    CHECK_EQ(got, w[left]);
    /* Group of the communicator agrees. */
    MPI_Group g;
    int gs = -1, gr = -1;
    CHECK_MPI(MPI_Comm_group(c, &g));
    CHECK_MPI(MPI_Group_size(g, &gs));
    CHECK_MPI(MPI_Group_rank(g, &gr));
    CHECK_EQ(gs, n);
    CHECK_EQ(gr, cr);
    MPI_Group wg;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int *idx = tu_malloc(sizeof(int) * (size_t)n), *tr = tu_malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        idx[i] = i;
    CHECK_MPI(MPI_Group_translate_ranks(g, n, idx, wg, tr));
    for (int i = 0; i < n; i++)
        CHECK_EQ(tr[i], w[i]);
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Group_free(&wg));
    free(idx);
    free(tr);
    free(all);
}

static void names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0);
    CHECK_EQ(len, 14);
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0);
    CHECK_EQ(len, 13);

    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    name[0] = 'x';
    CHECK_MPI(MPI_Comm_get_name(d, name, &len));
    CHECKF(len == 0 && name[0] == 0, "unnamed dup has name \"%s\"", name);
    CHECK_MPI(MPI_Comm_set_name(d, "my communicator"));
    CHECK_MPI(MPI_Comm_get_name(d, name, &len));
    CHECK(strcmp(name, "my communicator") == 0);
    CHECK_EQ(len, 15);
    CHECK_MPI(MPI_Comm_set_name(d, "second"));
    CHECK_MPI(MPI_Comm_get_name(d, name, &len));
    CHECK(strcmp(name, "second") == 0);
    CHECK_EQ(len, 6);
    /* Names are not inherited by dup. */
    MPI_Comm d2;
    CHECK_MPI(MPI_Comm_dup(d, &d2));
    CHECK_MPI(MPI_Comm_get_name(d2, name, &len));
    CHECKF(len == 0 && name[0] == 0, "dup inherited name \"%s\"", name);
    CHECK_MPI(MPI_Comm_free(&d2));
    CHECK_MPI(MPI_Comm_free(&d));
    /* Renaming a predefined communicator is allowed. */
    CHECK_MPI(MPI_Comm_set_name(MPI_COMM_SELF, "self renamed"));
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK(strcmp(name, "self renamed") == 0);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int *w = tu_malloc(sizeof(int) * (size_t)size);
    int res = -1, flag = -1;

    names();
    CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK_EQ(flag, 0);
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res));
    CHECK_EQ(res, MPI_IDENT);
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &res));
    CHECK_EQ(res, size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);

    /* dup */
    for (int i = 0; i < size; i++)
        w[i] = i;
    MPI_Comm d, dd;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK(d != MPI_COMM_WORLD && d != MPI_COMM_NULL);
    check_members(d, size, w, "dup");
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, d, &res));
    CHECK_EQ(res, MPI_CONGRUENT);
    CHECK_MPI(MPI_Comm_compare(d, d, &res));
    CHECK_EQ(res, MPI_IDENT);
    CHECK_MPI(MPI_Comm_dup(d, &dd));
    check_members(dd, size, w, "dup of dup");
    CHECK_MPI(MPI_Comm_compare(dd, d, &res));
    CHECK_EQ(res, MPI_CONGRUENT);

    /* idup */
    MPI_Comm id;
    MPI_Request rq;
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &id, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(rq == MPI_REQUEST_NULL);
    check_members(id, size, w, "idup");
    CHECK_MPI(MPI_Comm_compare(id, MPI_COMM_WORLD, &res));
    CHECK_EQ(res, MPI_CONGRUENT);
    /* Two idups outstanding at once on the same parent. */
    MPI_Comm i1, i2;
    MPI_Request r2[2];
    CHECK_MPI(MPI_Comm_idup(d, &i1, &r2[0]));
    CHECK_MPI(MPI_Comm_idup(d, &i2, &r2[1]));
    CHECK_MPI(MPI_Waitall(2, r2, MPI_STATUSES_IGNORE));
    check_members(i1, size, w, "idup 1");
    check_members(i2, size, w, "idup 2");
    CHECK_MPI(MPI_Comm_free(&i1));
    CHECK_MPI(MPI_Comm_free(&i2));

    /* split: color rank%3, key -rank (reverse order within a color). */
    MPI_Comm s;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 3, -rank, &s));
    int n = 0;
    for (int i = size - 1; i >= 0; i--)
        if (i % 3 == rank % 3)
            w[n++] = i;
    check_members(s, n, w, "split reverse");
    CHECK_MPI(MPI_Comm_compare(s, MPI_COMM_WORLD, &res));
    CHECK_EQ(res, size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);
    CHECK_MPI(MPI_Comm_free(&s));
    CHECK(s == MPI_COMM_NULL);

    /* split with equal keys: ties keep the parent's order; one color. */
    CHECK_MPI(MPI_Comm_split(d, 7, 0, &s));
    for (int i = 0; i < size; i++)
        w[i] = i;
    check_members(s, size, w, "split ties");
    CHECK_MPI(MPI_Comm_compare(s, d, &res));
    CHECK_EQ(res, MPI_CONGRUENT);
    CHECK_MPI(MPI_Comm_free(&s));

    /* split reversing everything: SIMILAR to world (if more than 1 rank). */
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &s));
    for (int i = 0; i < size; i++)
        w[i] = size - 1 - i;
    check_members(s, size, w, "split all reversed");
    CHECK_MPI(MPI_Comm_compare(s, MPI_COMM_WORLD, &res));
    CHECK_EQ(res, size == 1 ? MPI_CONGRUENT : MPI_SIMILAR);
    CHECK_MPI(MPI_Comm_free(&s));

    /* split with MPI_UNDEFINED for odd ranks. */
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : 1, rank, &s));
    if (rank % 2) {
        CHECK(s == MPI_COMM_NULL);
    } else {
        n = 0;
        for (int i = 0; i < size; i += 2)
            w[n++] = i;
        check_members(s, n, w, "split undefined");
        CHECK_MPI(MPI_Comm_free(&s));
    }

    /* split_type SHARED: ranks on my node, in key order. */
    char pn[MPI_MAX_PROCESSOR_NAME] = {0};
    int pl;
    CHECK_MPI(MPI_Get_processor_name(pn, &pl));
    char *allpn = tu_malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
    CHECK_MPI(MPI_Allgather(pn, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, allpn, MPI_MAX_PROCESSOR_NAME,
                            MPI_CHAR, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank,
                                  MPI_INFO_NULL, &s));
    CHECK(s != MPI_COMM_NULL);
    n = 0;
    for (int i = size - 1; i >= 0; i--)
        if (strcmp(allpn + (size_t)i * MPI_MAX_PROCESSOR_NAME, pn) == 0)
            w[n++] = i;
    int ss = -1;
    CHECK_MPI(MPI_Comm_size(s, &ss));
    if (ss == n) /* one node per processor name */
        check_members(s, n, w, "split_type shared");
    else
        CHECK(ss >= 1 && ss <= size);
    CHECK_MPI(MPI_Comm_free(&s));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED,
                                  0, MPI_INFO_NULL, &s));
    if (rank == 0)
        CHECK(s == MPI_COMM_NULL);
    else
        CHECK_MPI(MPI_Comm_free(&s));
    free(allpn);

    /* create: even ranks, in reverse order; odd ranks get COMM_NULL. */
    MPI_Group wg, eg;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    n = 0;
    for (int i = (size - 1) / 2 * 2; i >= 0; i -= 2)
        w[n++] = i;
    CHECK_MPI(MPI_Group_incl(wg, n, w, &eg));
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, eg, &s));
    if (rank % 2) {
        CHECK(s == MPI_COMM_NULL);
    } else {
        check_members(s, n, w, "create");
        CHECK_MPI(MPI_Comm_free(&s));
    }
    /* create with the empty group: everyone gets COMM_NULL. */
    CHECK_MPI(MPI_Comm_create(d, MPI_GROUP_EMPTY, &s));
    CHECK(s == MPI_COMM_NULL);

    /* create_group: only the members call it. */
    if (rank % 2 == 0) {
        CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, eg, 17, &s));
        check_members(s, n, w, "create_group");
        CHECK_MPI(MPI_Comm_free(&s));
    }
    /* create_group of the first half of world, from a dup. */
    int half = (size + 1) / 2;
    MPI_Group hg;
    int range[1][3] = {{0, half - 1, 1}};
    CHECK_MPI(MPI_Group_range_incl(wg, 1, range, &hg));
    if (rank < half) {
        CHECK_MPI(MPI_Comm_create_group(d, hg, 5, &s));
        for (int i = 0; i < half; i++)
            w[i] = i;
        check_members(s, half, w, "create_group half");
        CHECK_MPI(MPI_Comm_free(&s));
    }
    CHECK_MPI(MPI_Group_free(&hg));
    CHECK_MPI(MPI_Group_free(&eg));
    CHECK_MPI(MPI_Group_free(&wg));

    /* Group of a communicator compares IDENT with world's group. */
    MPI_Group g1, g2;
    CHECK_MPI(MPI_Comm_group(d, &g1));
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &g2));
    CHECK_MPI(MPI_Group_compare(g1, g2, &res));
    CHECK_EQ(res, MPI_IDENT);
    CHECK_MPI(MPI_Group_free(&g1));
    CHECK_MPI(MPI_Group_free(&g2));
    CHECK(g1 == MPI_GROUP_NULL && g2 == MPI_GROUP_NULL);

    /* A group outlives its communicator. */
    CHECK_MPI(MPI_Comm_group(dd, &g1));
    CHECK_MPI(MPI_Comm_free(&dd));
    CHECK(dd == MPI_COMM_NULL);
    int gs = -1;
    CHECK_MPI(MPI_Group_size(g1, &gs));
    CHECK_EQ(gs, size);
    CHECK_MPI(MPI_Group_free(&g1));

    CHECK_MPI(MPI_Comm_free(&id));
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK(d == MPI_COMM_NULL);
    free(w);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
