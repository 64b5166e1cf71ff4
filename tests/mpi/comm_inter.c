/* comm_inter.c — intercommunicators between the even and the odd world
 * ranks (unequal sizes at odd rank counts): MPI_Intercomm_create over
 * MPI_COMM_WORLD, the queries (test_inter, size, remote size, remote
 * group), point-to-point across, MPI_Comm_dup and compare,
 * MPI_Intercomm_merge both ways round, MPI_Comm_split and MPI_Comm_create
 * on it; errors on intracommunicators. */
#include "testutil.h"

static int rank, size;

/* World rank of rank r of g. */
static int world_of(MPI_Group g, int r)
{
    MPI_Group wg;
    int w;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_MPI(MPI_Group_translate_ranks(g, 1, &r, wg, &w));
    CHECK_MPI(MPI_Group_free(&wg));
    return w;
}

/* Every member of one side sends its world rank to remote rank
 * (local rank mod remote size); each receives what is meant for it. */
static void check_p2p(MPI_Comm ic, int tag)
{
    int lrank, lsize, rsize;
    CHECK_MPI(MPI_Comm_rank(ic, &lrank));
    CHECK_MPI(MPI_Comm_size(ic, &lsize));
    CHECK_MPI(MPI_Comm_remote_size(ic, &rsize));
    MPI_Request sr;
    CHECK_MPI(MPI_Isend(&rank, 1, MPI_INT, lrank % rsize, tag, ic, &sr));
    for (int j = 0; j < rsize; j++) {
        if (j % lsize != lrank)
            continue;
        int got = -1;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, j, tag, ic, &st));
        CHECK_EQ(st.MPI_SOURCE, j);
        /* Remote rank j of the other parity is world rank 2j (+1). */
        CHECK_EQ(got, 2 * j + (rank % 2 ? 0 : 1));
    }
    CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
}

/* Split by world rank mod 3, keys reversing the order: each piece faces
 * the other group's members of its color; then Comm_create with the
 * local group minus its first member. */
static void test_split_create(MPI_Comm ic, int even)
{
    MPI_Comm sc;
    int color = rank % 3;
    CHECK_MPI(MPI_Comm_split(ic, color, -rank, &sc));
    /* World ranks of my color on each side, in descending order. */
    int lcount = 0, rcount = 0, lpos = -1, rsum = 0;
    for (int w = size - 1; w >= 0; w--) {
        if (w % 3 != color)
            continue;
        if ((w % 2 == 0) == even) {
            if (w == rank)
                lpos = lcount;
            lcount++;
        } else {
            rcount++;
            rsum += w;
        }
    }
    if (rcount == 0) {
        CHECK(sc == MPI_COMM_NULL);
    } else {
        int n, r, rn, flag, sum = -1;
        CHECK_MPI(MPI_Comm_test_inter(sc, &flag));
        CHECK(flag);
        CHECK_MPI(MPI_Comm_size(sc, &n));
        CHECK_MPI(MPI_Comm_rank(sc, &r));
        CHECK_MPI(MPI_Comm_remote_size(sc, &rn));
        CHECK_EQ(n, lcount);
        CHECK_EQ(r, lpos);
        CHECK_EQ(rn, rcount);
        /* Each side gets the sum of the other side's world ranks. */
        CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, sc));
        CHECK_EQ(sum, rsum);
        CHECK_MPI(MPI_Comm_free(&sc));
    }

    MPI_Group lg, sub;
    int lsize, lrank, first = 0, flag;
    CHECK_MPI(MPI_Comm_group(ic, &lg));
    CHECK_MPI(MPI_Comm_size(ic, &lsize));
    CHECK_MPI(MPI_Comm_rank(ic, &lrank));
    CHECK_MPI(MPI_Group_excl(lg, 1, &first, &sub));
    MPI_Comm cc;
    CHECK_MPI(MPI_Comm_create(ic, sub, &cc));
    int rsize;
    CHECK_MPI(MPI_Comm_remote_size(ic, &rsize));
    if (lrank == 0 || lsize == 1 || rsize == 1) {
        CHECK(cc == MPI_COMM_NULL);
    } else {
        int n, r, rn;
        CHECK_MPI(MPI_Comm_test_inter(cc, &flag));
        CHECK(flag);
        CHECK_MPI(MPI_Comm_size(cc, &n));
        CHECK_MPI(MPI_Comm_rank(cc, &r));
        CHECK_MPI(MPI_Comm_remote_size(cc, &rn));
        CHECK_EQ(n, lsize - 1);
        CHECK_EQ(r, lrank - 1);
        CHECK_EQ(rn, rsize - 1);
        CHECK_MPI(MPI_Comm_free(&cc));
    }
    CHECK_MPI(MPI_Group_free(&sub));
    CHECK_MPI(MPI_Group_free(&lg));
}

static void test_inter(void)
{
    int even = rank % 2 == 0;
    MPI_Comm half, ic;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, even ? 1 : 0, 99, &ic));
    int flag, lsize, rsize, lrank;
    int neven = (size + 1) / 2, nodd = size / 2;
    CHECK_MPI(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag);
    CHECK_MPI(MPI_Comm_size(ic, &lsize));
    CHECK_MPI(MPI_Comm_rank(ic, &lrank));
    CHECK_MPI(MPI_Comm_remote_size(ic, &rsize));
    CHECK_EQ(lsize, even ? neven : nodd);
    CHECK_EQ(rsize, even ? nodd : neven);
    CHECK_EQ(lrank, rank / 2);
    MPI_Group rg;
    CHECK_MPI(MPI_Comm_remote_group(ic, &rg));
    for (int j = 0; j < rsize; j++)
        CHECK_EQ(world_of(rg, j), 2 * j + (even ? 1 : 0));
    CHECK_MPI(MPI_Group_free(&rg));
    check_p2p(ic, 5);

    MPI_Comm dup;
    int cmp;
    CHECK_MPI(MPI_Comm_dup(ic, &dup));
    CHECK_MPI(MPI_Comm_compare(ic, dup, &cmp));
    CHECK_EQ(cmp, MPI_CONGRUENT);
    CHECK_MPI(MPI_Comm_compare(ic, half, &cmp));
    CHECK_EQ(cmp, MPI_UNEQUAL);
    CHECK_MPI(MPI_Comm_test_inter(dup, &flag));
    CHECK(flag);
    check_p2p(dup, 5);

    /* Merge: odd ranks high, so the even group comes first; then all say
     * low, and the group whose leader has the lower world rank (even)
     * comes first again; then even high: odd first. */
    for (int way = 0; way < 3; way++) {
        int high = way == 0 ? !even : way == 1 ? 0 : even;
        MPI_Comm m;
        CHECK_MPI(MPI_Intercomm_merge(dup, high, &m));
        int mrank, msize, sum = 0;
        CHECK_MPI(MPI_Comm_size(m, &msize));
        CHECK_MPI(MPI_Comm_rank(m, &mrank));
        CHECK_EQ(msize, size);
        int first_even = way < 2;
        int expect = even == first_even ? rank / 2 : (first_even ? neven : nodd) + rank / 2;
        CHECK_EQ(mrank, expect);
        CHECK_MPI(MPI_Comm_test_inter(m, &flag));
        CHECK(!flag);
        CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, m));
        CHECK_EQ(sum, size * (size - 1) / 2);
        CHECK_MPI(MPI_Comm_free(&m));
    }
    CHECK_MPI(MPI_Comm_free(&dup));
    test_split_create(ic, even);
    CHECK_MPI(MPI_Comm_free(&ic));
    CHECK_MPI(MPI_Comm_free(&half));
}

static void test_errors(void)
{
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int flag, n;
    MPI_Comm m;
    MPI_Group g;
    CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(!flag);
    CHECK_ERR(MPI_Comm_remote_size(MPI_COMM_WORLD, &n), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_remote_group(MPI_COMM_WORLD, &g), MPI_ERR_COMM);
    CHECK_ERR(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &m), MPI_ERR_COMM);
    CHECK_ERR(MPI_Intercomm_create(MPI_COMM_WORLD, size, MPI_COMM_WORLD, 0, 1, &m), MPI_ERR_RANK);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (size > 1)
        test_inter();
    test_errors();
    CHECK_MPI(MPI_Finalize());
    return 0;
}
