/* coll_basic: data-movement collectives — Barrier, Bcast, Gather(v),
 * Scatter(v), Allgather(v), Alltoall(v) — at every root, counts 0 / 1 /
 * 1000 / 100000, with contiguous and non-contiguous (MPI_DOUBLE_INT)
 * datatypes, MPI_IN_PLACE where the standard allows it, and v-variant gaps
 * left untouched. */
#include "testutil.h"

static int rank, size;

typedef struct {
    MPI_Datatype dt;
    int ext, sz;
    const char *name;
} tinfo;

static tinfo types[5];
static int ntypes;

static void fillblk(void *buf, int count, const tinfo *t, unsigned seed)
{
    tu_fill(buf, (size_t)count * (size_t)t->ext, seed);
}

static void chkblk(const void *buf, int count, const tinfo *t, unsigned seed, const char *what,
                   int root, int blk)
{
    const unsigned char *b = buf;
    for (int i = 0; i < count; i++)
        for (int k = 0; k < t->sz; k++) {
            size_t off = (size_t)i * (size_t)t->ext + (size_t)k;
            CHECKF(b[off] == tu_pat(off, seed),
                   "%s %s count %d root %d block %d: element %d byte %d wrong", what, t->name,
                   count, root, blk, i, k);
        }
}

static void chkguard(const void *buf, size_t from, size_t to, const char *what)
{
    const unsigned char *b = buf;
    for (size_t i = from; i < to; i++)
        CHECKF(b[i] == 0xCD, "%s: byte %zu outside the data was written", what, i);
}

static unsigned seed_of(int r, int x) { return (unsigned)(r * 131 + x * 7 + 1); }

static void t_bcast(const tinfo *t, int count, int root)
{
    size_t n = (size_t)count * (size_t)t->ext;
    unsigned char *b = tu_malloc(n + 16);
    memset(b, 0xCD, n + 16);
    if (rank == root)
        fillblk(b, count, t, seed_of(root, 1));
    CHECK_MPI(MPI_Bcast(b, count, t->dt, root, MPI_COMM_WORLD));
    chkblk(b, count, t, seed_of(root, 1), "Bcast", root, 0);
    chkguard(b, n, n + 16, "Bcast tail");
    free(b);
}

static void t_gather(const tinfo *t, int count, int root, int inplace)
{
    size_t bl = (size_t)count * (size_t)t->ext;
    unsigned char *s = tu_malloc(bl), *r = tu_malloc(bl * (size_t)size + 16);
    fillblk(s, count, t, seed_of(rank, 2));
    memset(r, 0xCD, bl * (size_t)size + 16);
    if (rank == root && inplace) {
        fillblk(r + bl * (size_t)rank, count, t, seed_of(rank, 2));
        CHECK_MPI(MPI_Gather(MPI_IN_PLACE, count, t->dt, r, count, t->dt, root, MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Gather(s, count, t->dt, r, count, t->dt, root, MPI_COMM_WORLD));
    }
    if (rank == root) {
        for (int i = 0; i < size; i++)
            chkblk(r + bl * (size_t)i, count, t, seed_of(i, 2), "Gather", root, i);
        chkguard(r, bl * (size_t)size, bl * (size_t)size + 16, "Gather tail");
    } else {
        chkguard(r, 0, bl * (size_t)size + 16, "Gather non-root recvbuf");
    }
    free(s);
    free(r);
}

/* Varied counts (rank i contributes count + i, or 0 when count is 0),
 * placed in reverse order with one-element gaps. */
static void vlayout(int count, int *cnt, int *disp, int *total)
{
    int pos = 1;
    for (int i = size - 1; i >= 0; i--) {
        cnt[i] = count ? count + i : 0;
        disp[i] = pos;
        pos += cnt[i] + 1;
    }
    *total = pos;
}

static void chkv(const unsigned char *r, const tinfo *t, const int *cnt, const int *disp, int total,
                 unsigned (*seed)(int), const char *what, int root)
{
    unsigned char *mask = calloc((size_t)total, 1);
    for (int i = 0; i < size; i++) {
        chkblk(r + (size_t)disp[i] * (size_t)t->ext, cnt[i], t, seed(i), what, root, i);
        memset(mask + disp[i], 1, (size_t)cnt[i]);
    }
    for (int e = 0; e < total; e++)
        if (!mask[e])
            chkguard(r, (size_t)e * (size_t)t->ext, (size_t)(e + 1) * (size_t)t->ext, what);
    free(mask);
}

static unsigned seed3(int i) { return seed_of(i, 3); }
static unsigned seed4(int i) { return seed_of(i, 4); }
static unsigned seed6(int i) { return seed_of(i, 6); }

static void t_gatherv(const tinfo *t, int count, int root, int inplace)
{
    int *cnt = tu_malloc(sizeof(int) * (size_t)size), *disp = tu_malloc(sizeof(int) * (size_t)size), total;
    vlayout(count, cnt, disp, &total);
    unsigned char *s = tu_malloc((size_t)cnt[rank] * (size_t)t->ext);
    unsigned char *r = tu_malloc((size_t)total * (size_t)t->ext);
    fillblk(s, cnt[rank], t, seed3(rank));
    memset(r, 0xCD, (size_t)total * (size_t)t->ext);
    if (rank == root && inplace) {
        fillblk(r + (size_t)disp[rank] * (size_t)t->ext, cnt[rank], t, seed3(rank));
        CHECK_MPI(MPI_Gatherv(MPI_IN_PLACE, cnt[rank], t->dt, r, cnt, disp, t->dt, root,
                              MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Gatherv(s, cnt[rank], t->dt, r, cnt, disp, t->dt, root, MPI_COMM_WORLD));
    }
    if (rank == root)
        chkv(r, t, cnt, disp, total, seed3, "Gatherv", root);
    free(s);
    free(r);
    free(cnt);
    free(disp);
}

static void t_scatter(const tinfo *t, int count, int root, int inplace)
{
    size_t bl = (size_t)count * (size_t)t->ext;
    unsigned char *s = tu_malloc(bl * (size_t)size), *r = tu_malloc(bl + 16);
    memset(s, 0xCD, bl * (size_t)size);
    if (rank == root)
        for (int i = 0; i < size; i++)
            fillblk(s + bl * (size_t)i, count, t, seed_of(i, 5));
    memset(r, 0xCD, bl + 16);
    if (rank == root && inplace) {
        CHECK_MPI(MPI_Scatter(s, count, t->dt, MPI_IN_PLACE, count, t->dt, root, MPI_COMM_WORLD));
        for (int i = 0; i < size; i++) /* root's send buffer is unchanged */
            chkblk(s + bl * (size_t)i, count, t, seed_of(i, 5), "Scatter in-place", root, i);
        chkguard(r, 0, bl + 16, "Scatter in-place recvbuf");
    } else {
        CHECK_MPI(MPI_Scatter(s, count, t->dt, r, count, t->dt, root, MPI_COMM_WORLD));
        chkblk(r, count, t, seed_of(rank, 5), "Scatter", root, rank);
        chkguard(r, bl, bl + 16, "Scatter tail");
    }
    free(s);
    free(r);
}

static void t_scatterv(const tinfo *t, int count, int root, int inplace)
{
    int *cnt = tu_malloc(sizeof(int) * (size_t)size), *disp = tu_malloc(sizeof(int) * (size_t)size), total;
    vlayout(count, cnt, disp, &total);
    unsigned char *s = tu_malloc((size_t)total * (size_t)t->ext);
    unsigned char *r = tu_malloc((size_t)(cnt[rank] + 1) * (size_t)t->ext);
    memset(s, 0xCD, (size_t)total * (size_t)t->ext);
    if (rank == root)
        for (int i = 0; i < size; i++)
            fillblk(s + (size_t)disp[i] * (size_t)t->ext, cnt[i], t, seed4(i));
    memset(r, 0xCD, (size_t)(cnt[rank] + 1) * (size_t)t->ext);
    if (rank == root && inplace) {
        CHECK_MPI(MPI_Scatterv(s, cnt, disp, t->dt, MPI_IN_PLACE, cnt[rank], t->dt, root,
                               MPI_COMM_WORLD));
        chkv(s, t, cnt, disp, total, seed4, "Scatterv in-place sendbuf", root);
    } else {
        CHECK_MPI(MPI_Scatterv(s, cnt, disp, t->dt, r, cnt[rank], t->dt, root, MPI_COMM_WORLD));
        chkblk(r, cnt[rank], t, seed4(rank), "Scatterv", root, rank);
        chkguard(r, (size_t)cnt[rank] * (size_t)t->ext, (size_t)(cnt[rank] + 1) * (size_t)t->ext,
                 "Scatterv tail");
    }
    free(s);
    free(r);
    free(cnt);
    free(disp);
}

static void t_allgather(const tinfo *t, int count, int inplace)
{
    size_t bl = (size_t)count * (size_t)t->ext;
    unsigned char *s = tu_malloc(bl), *r = tu_malloc(bl * (size_t)size + 16);
    fillblk(s, count, t, seed_of(rank, 8));
    memset(r, 0xCD, bl * (size_t)size + 16);
    if (inplace) {
        fillblk(r + bl * (size_t)rank, count, t, seed_of(rank, 8));
        CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, count, t->dt, MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Allgather(s, count, t->dt, r, count, t->dt, MPI_COMM_WORLD));
    }
    for (int i = 0; i < size; i++)
        chkblk(r + bl * (size_t)i, count, t, seed_of(i, 8), "Allgather", -1, i);
    chkguard(r, bl * (size_t)size, bl * (size_t)size + 16, "Allgather tail");
    free(s);
    free(r);
}

static void t_allgatherv(const tinfo *t, int count, int inplace)
{
    int *cnt = tu_malloc(sizeof(int) * (size_t)size), *disp = tu_malloc(sizeof(int) * (size_t)size), total;
    vlayout(count, cnt, disp, &total);
    /* Each rank places blocks by its own displs: odd ranks in rank order,
     * even ones in reverse, so no rank may assume another's layout. */
    if (rank % 2)
        for (int i = 0, pos = 1; i < size; pos += cnt[i] + 1, i++)
            disp[i] = pos;
    unsigned char *s = tu_malloc((size_t)cnt[rank] * (size_t)t->ext);
    unsigned char *r = tu_malloc((size_t)total * (size_t)t->ext);
    fillblk(s, cnt[rank], t, seed6(rank));
    memset(r, 0xCD, (size_t)total * (size_t)t->ext);
    if (inplace) {
        fillblk(r + (size_t)disp[rank] * (size_t)t->ext, cnt[rank], t, seed6(rank));
        CHECK_MPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, cnt, disp, t->dt,
                                 MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Allgatherv(s, cnt[rank], t->dt, r, cnt, disp, t->dt, MPI_COMM_WORLD));
    }
    chkv(r, t, cnt, disp, total, seed6, "Allgatherv", -1);
    free(s);
    free(r);
    free(cnt);
    free(disp);
}

/* Block from i to j uses seed 1000*i + j (+ 7 for the v-variant). */
static void t_alltoall(const tinfo *t, int count, int inplace)
{
    size_t bl = (size_t)count * (size_t)t->ext;
    unsigned char *s = tu_malloc(bl * (size_t)size), *r = tu_malloc(bl * (size_t)size + 16);
    memset(r, 0xCD, bl * (size_t)size + 16);
    unsigned char *fillp = inplace ? r : s;
    for (int j = 0; j < size; j++)
        fillblk(fillp + bl * (size_t)j, count, t, (unsigned)(1000 * rank + j));
    if (inplace)
        CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, count, t->dt, MPI_COMM_WORLD));
    else
        CHECK_MPI(MPI_Alltoall(s, count, t->dt, r, count, t->dt, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        chkblk(r + bl * (size_t)i, count, t, (unsigned)(1000 * i + rank), "Alltoall", -1, i);
    chkguard(r, bl * (size_t)size, bl * (size_t)size + 16, "Alltoall tail");
    free(s);
    free(r);
}

static void t_alltoallv(const tinfo *t, int count, int inplace)
{
    /* i sends j: count ? count + (i + 2*j) % 5 : 0 elements; layouts in
     * reverse peer order with one-element gaps on both sides. */
    int *sc = tu_malloc(sizeof(int) * (size_t)size), *sd = tu_malloc(sizeof(int) * (size_t)size);
    int *rc = tu_malloc(sizeof(int) * (size_t)size), *rd = tu_malloc(sizeof(int) * (size_t)size);
    int spos = 1, rpos = 1;
    for (int j = size - 1; j >= 0; j--) {
        sc[j] = count ? count + (rank + 2 * j) % 5 : 0;
        sd[j] = spos;
        spos += sc[j] + 1;
        rc[j] = count ? count + (j + 2 * rank) % 5 : 0;
        rd[j] = rpos;
        rpos += rc[j] + 1;
    }
    if (inplace) {
        /* In-place: send layout = receive layout (counts must be symmetric,
         * so use rc for both and only when rc matches the peer's sc). */
        for (int j = 0; j < size; j++)
            rc[j] = count;
        rpos = 1;
        for (int j = size - 1; j >= 0; j--) {
            rd[j] = rpos;
            rpos += rc[j] + 1;
        }
    }
    unsigned char *s = tu_malloc((size_t)spos * (size_t)t->ext);
    unsigned char *r = tu_malloc((size_t)rpos * (size_t)t->ext);
    memset(r, 0xCD, (size_t)rpos * (size_t)t->ext);
    if (inplace) {
        for (int j = 0; j < size; j++)
            fillblk(r + (size_t)rd[j] * (size_t)t->ext, rc[j], t, (unsigned)(1000 * rank + j + 7));
        CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r, rc, rd, t->dt,
                                MPI_COMM_WORLD));
    } else {
        for (int j = 0; j < size; j++)
            fillblk(s + (size_t)sd[j] * (size_t)t->ext, sc[j], t, (unsigned)(1000 * rank + j + 7));
        CHECK_MPI(MPI_Alltoallv(s, sc, sd, t->dt, r, rc, rd, t->dt, MPI_COMM_WORLD));
    }
    unsigned char *mask = calloc((size_t)rpos, 1);
    for (int i = 0; i < size; i++) {
        chkblk(r + (size_t)rd[i] * (size_t)t->ext, rc[i], t, (unsigned)(1000 * i + rank + 7),
               "Alltoallv", -1, i);
        memset(mask + rd[i], 1, (size_t)rc[i]);
    }
    for (int e = 0; e < rpos; e++)
        if (!mask[e])
            chkguard(r, (size_t)e * (size_t)t->ext, (size_t)(e + 1) * (size_t)t->ext, "Alltoallv gap");
    free(mask);
    free(s);
    free(r);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

    MPI_Datatype c3;
    CHECK_MPI(MPI_Type_contiguous(3, MPI_SHORT, &c3));
    CHECK_MPI(MPI_Type_commit(&c3));
    types[ntypes++] = (tinfo){MPI_INT, sizeof(int), sizeof(int), "MPI_INT"};
    types[ntypes++] = (tinfo){MPI_DOUBLE_INT, sizeof(struct { double d; int i; }),
                              sizeof(double) + sizeof(int), "MPI_DOUBLE_INT"};
    types[ntypes++] = (tinfo){MPI_CHAR, 1, 1, "MPI_CHAR"};
    types[ntypes++] = (tinfo){MPI_DOUBLE, sizeof(double), sizeof(double), "MPI_DOUBLE"};
    types[ntypes++] = (tinfo){c3, 3 * sizeof(short), 3 * sizeof(short), "contig(3,SHORT)"};

    static const int counts[] = {0, 1, 1000, 100000};
    for (int i = 0; i < 20; i++)
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    for (int ci = 0; ci < 4; ci++) {
        int count = counts[ci];
        for (int ti = 0; ti < ntypes; ti++) {
            const tinfo *t = &types[ti];
            if (count == 100000 && ti >= 2)
                continue; /* large counts: one contiguous, one non-contiguous type */
            /* Large counts are costly with 8 ranks on 2 cores: fewer roots,
             * and in-place only for the contiguous type. */
            int big = count == 100000, nip = big && ti == 1 ? 1 : 2;
            for (int root = 0; root < size; root++) {
                if (big && root != size - 1 && (ti == 1 || root != 0))
                    continue;
                t_bcast(t, count, root);
                for (int ip = 0; ip < nip; ip++) {
                    t_gather(t, count, root, ip);
                    t_gatherv(t, count, root, ip);
                    t_scatter(t, count, root, ip);
                    t_scatterv(t, count, root, ip);
                }
            }
            for (int ip = 0; ip < nip; ip++) {
                t_allgather(t, count, ip);
                t_allgatherv(t, big ? 20000 : count, ip);
                t_alltoall(t, big ? 20000 : count, ip);
                t_alltoallv(t, big ? 20000 : count, ip);
            }
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Type_free(&c3));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
