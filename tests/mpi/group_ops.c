/* group_ops: Group_incl / excl / range_incl / range_excl / union /
 * intersection / difference / compare / translate_ranks / size / rank /
 * free — exact membership and order of every result, empty groups,
 * MPI_UNDEFINED for non-members, MPI_PROC_NULL translation, and error
 * classes for bad ranks and null groups. */
#include "testutil.h"

static int rank, size;
static MPI_Group W;

/* Check group g holds exactly world ranks w[0..n-1], in that order. */
static void expect(MPI_Group g, int n, const int *w, const char *what)
{
    int gs = -1, gr = -2;
    CHECK_MPI(MPI_Group_size(g, &gs));
    CHECKF(gs == n, "%s: size %d, expected %d", what, gs, n);
    int *idx = tu_malloc(sizeof(int) * (size_t)(n + 1)), *tr = tu_malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        idx[i] = i;
    if (n > 0)
        CHECK_MPI(MPI_Group_translate_ranks(g, n, idx, W, tr));
    int me = MPI_UNDEFINED;
    for (int i = 0; i < n; i++) {
        CHECKF(tr[i] == w[i], "%s: member %d is world %d, expected %d", what, i, tr[i], w[i]);
        if (w[i] == rank)
            me = i;
    }
    CHECK_MPI(MPI_Group_rank(g, &gr));
    CHECKF(gr == me, "%s: Group_rank %d, expected %d", what, gr, me);
    free(idx);
    free(tr);
}

static void cmp(MPI_Group a, MPI_Group b, int want, const char *what)
{
    int r = -1;
    CHECK_MPI(MPI_Group_compare(a, b, &r));
    CHECKF(r == want, "%s: compare %d, expected %d", what, r, want);
}

static void gfree(MPI_Group *g)
{
    if (*g != MPI_GROUP_EMPTY) {
        CHECK_MPI(MPI_Group_free(g));
        CHECK(*g == MPI_GROUP_NULL);
    }
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &W));
    int n = size, *w = tu_malloc(sizeof(int) * (size_t)(2 * n + 1)), k;
    int *ev = tu_malloc(sizeof(int) * (size_t)n), *od = tu_malloc(sizeof(int) * (size_t)n), ne = 0,
        no = 0;
    for (int i = 0; i < n; i++) {
        if (i % 2 == 0)
            ev[ne++] = i;
        else
            od[no++] = i;
    }

    for (int i = 0; i < n; i++)
        w[i] = i;
    expect(W, n, w, "world");
    cmp(W, W, MPI_IDENT, "W,W");

    /* Empty group. */
    int es = -1, er = -1;
    CHECK_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &es));
    CHECK_EQ(es, 0);
    CHECK_MPI(MPI_Group_rank(MPI_GROUP_EMPTY, &er));
    CHECK_EQ(er, MPI_UNDEFINED);

    /* incl reversed. */
    MPI_Group rev, rev2, evg, evg2, odg, odg2, g;
    for (int i = 0; i < n; i++)
        w[i] = n - 1 - i;
    CHECK_MPI(MPI_Group_incl(W, n, w, &rev));
    expect(rev, n, w, "incl reversed");
    cmp(W, rev, n > 1 ? MPI_SIMILAR : MPI_IDENT, "W,rev");
    int range[2][3] = {{n - 1, 0, -1}, {0, 0, 1}};
    CHECK_MPI(MPI_Group_range_incl(W, 1, range, &rev2));
    expect(rev2, n, w, "range_incl reversed");
    cmp(rev, rev2, MPI_IDENT, "rev,rev2");

    /* Evens / odds by incl, range_incl, range_excl, excl. */
    CHECK_MPI(MPI_Group_incl(W, ne, ev, &evg));
    expect(evg, ne, ev, "incl evens");
    range[0][0] = 0;
    range[0][1] = n - 1;
    range[0][2] = 2;
    CHECK_MPI(MPI_Group_range_incl(W, 1, range, &evg2));
    expect(evg2, ne, ev, "range_incl evens");
    cmp(evg, evg2, MPI_IDENT, "evg,evg2");
    CHECK_MPI(MPI_Group_range_excl(W, 1, range, &odg));
    expect(odg, no, od, "range_excl evens");
    CHECK_MPI(MPI_Group_excl(W, ne, ev, &odg2));
    expect(odg2, no, od, "excl evens");
    cmp(odg, odg2, MPI_IDENT, "odg,odg2");
    cmp(evg, W, n > 1 ? MPI_UNEQUAL : MPI_IDENT, "evg,W");

    /* Two ranges: first and last rank (strided overlap-free). */
    if (n >= 3) {
        int r2[2][3] = {{n - 1, n - 1, 1}, {0, 1, 1}};
        CHECK_MPI(MPI_Group_range_incl(W, 2, r2, &g));
        int want[3] = {n - 1, 0, 1};
        expect(g, 3, want, "range_incl two ranges");
        gfree(&g);
        CHECK_MPI(MPI_Group_range_excl(W, 2, r2, &g));
        k = 0;
        for (int i = 2; i < n - 1; i++)
            w[k++] = i;
        expect(g, k, w, "range_excl two ranges");
        gfree(&g);
    }

    /* Union: group1 order, then group2's extra members in group2 order. */
    CHECK_MPI(MPI_Group_union(evg, odg, &g));
    k = 0;
    for (int i = 0; i < ne; i++)
        w[k++] = ev[i];
    for (int i = 0; i < no; i++)
        w[k++] = od[i];
    expect(g, n, w, "union evens,odds");
    cmp(g, W, n > 2 ? MPI_SIMILAR : MPI_IDENT, "union,W");
    gfree(&g);
    CHECK_MPI(MPI_Group_union(evg, rev, &g));
    k = 0;
    for (int i = 0; i < ne; i++)
        w[k++] = ev[i];
    for (int i = n - 1; i >= 0; i--)
        if (i % 2)
            w[k++] = i;
    expect(g, n, w, "union evens,rev");
    gfree(&g);
    CHECK_MPI(MPI_Group_union(W, W, &g));
    cmp(g, W, MPI_IDENT, "union W,W");
    gfree(&g);

    /* Intersection keeps group1 order. */
    CHECK_MPI(MPI_Group_intersection(rev, evg, &g));
    k = 0;
    for (int i = n - 1; i >= 0; i--)
        if (i % 2 == 0)
            w[k++] = i;
    expect(g, k, w, "intersection rev,evens");
    gfree(&g);
    CHECK_MPI(MPI_Group_intersection(evg, odg, &g));
    expect(g, 0, w, "intersection evens,odds");
    cmp(g, MPI_GROUP_EMPTY, MPI_IDENT, "empty intersection");
    gfree(&g);

    /* Difference keeps group1 order. */
    CHECK_MPI(MPI_Group_difference(rev, evg, &g));
    k = 0;
    for (int i = n - 1; i >= 0; i--)
        if (i % 2)
            w[k++] = i;
    expect(g, k, w, "difference rev-evens");
    gfree(&g);
    CHECK_MPI(MPI_Group_difference(W, W, &g));
    expect(g, 0, w, "difference W-W");
    cmp(g, MPI_GROUP_EMPTY, MPI_IDENT, "W-W vs empty");
    gfree(&g);

    /* incl / excl producing empty groups. */
    CHECK_MPI(MPI_Group_incl(W, 0, w, &g));
    expect(g, 0, w, "incl none");
    gfree(&g);
    for (int i = 0; i < n; i++)
        w[i] = i;
    CHECK_MPI(MPI_Group_excl(W, n, w, &g));
    expect(g, 0, w, "excl all");
    gfree(&g);

    /* translate_ranks: reversal, non-members, PROC_NULL. */
    int *in = tu_malloc(sizeof(int) * (size_t)(n + 1)), *out = tu_malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        in[i] = i;
    in[n] = MPI_PROC_NULL;
    CHECK_MPI(MPI_Group_translate_ranks(W, n + 1, in, rev, out));
    for (int i = 0; i < n; i++)
        CHECK_EQ(out[i], n - 1 - i);
    CHECK_EQ(out[n], MPI_PROC_NULL);
    CHECK_MPI(MPI_Group_translate_ranks(W, n, in, evg, out));
    for (int i = 0; i < n; i++)
        CHECK_EQ(out[i], i % 2 ? MPI_UNDEFINED : i / 2);
    CHECK_MPI(MPI_Group_translate_ranks(W, n, in, MPI_GROUP_EMPTY, out));
    for (int i = 0; i < n; i++)
        CHECK_EQ(out[i], MPI_UNDEFINED);

    /* A derived group outlives the group it came from. */
    MPI_Group wcopy;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wcopy));
    CHECK_MPI(MPI_Group_incl(wcopy, ne, ev, &g));
    CHECK_MPI(MPI_Group_free(&wcopy));
    expect(g, ne, ev, "incl from freed parent");
    gfree(&g);

    /* Errors (group calls report on MPI_COMM_WORLD's handler). */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int bad[1] = {n};
    g = MPI_GROUP_NULL;
    CHECK_ERR(MPI_Group_incl(W, 1, bad, &g), MPI_ERR_RANK);
    bad[0] = -1;
    CHECK_ERR(MPI_Group_excl(W, 1, bad, &g), MPI_ERR_RANK);
    int gsz;
    CHECK_ERR(MPI_Group_size(MPI_GROUP_NULL, &gsz), MPI_ERR_GROUP);
    CHECK_ERR(MPI_Group_union(MPI_GROUP_NULL, W, &g), MPI_ERR_GROUP);
    CHECK_ERR(MPI_Group_free(&g), MPI_ERR_GROUP); /* g is still GROUP_NULL */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    gfree(&rev);
    gfree(&rev2);
    gfree(&evg);
    gfree(&evg2);
    gfree(&odg);
    gfree(&odg2);
    gfree(&W);
    free(w);
    free(ev);
    free(od);
    free(in);
    free(out);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
