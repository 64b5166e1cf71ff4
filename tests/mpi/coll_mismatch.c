/* coll_mismatch.c — collectives called with counts that differ between
 * members (an erroneous program) must return on every member, with
 * MPI_ERR_TRUNCATE where a member's buffer is smaller than what arrives,
 * an error on every member whose result depends on a failed one, and never
 * hang.  Each case runs on its own duplicate of MPI_COMM_WORLD (after an
 * error its state is undefined) under MPI_ERRORS_RETURN.
 *
 * COLL_MISMATCH_INTS (environment): the full count, 8 by default (inline
 * in the one-sided flags); 200 moves 800 and 400 bytes, through the data
 * areas, still inside one algorithm's size class on every member; 32768
 * (128 and 64 KiB) at 2 members, where a bcast crosses through the
 * receiver's cache (src/coll/rma/exchange.c). */
#include "testutil.h"

static int rank, size;

/* Bcast from root 0 where the members in `short_mask` pass half the
 * root's count.  Those get MPI_ERR_TRUNCATE or, when a member above them
 * in the tree failed first, MPI_ERR_OTHER; the root succeeds; a member with
 * the full count either gets the exact data or an error. */
static void bcast_case(int n, unsigned short_mask)
{
    MPI_Comm c = tu_fresh_comm();
    int *buf = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        buf[i] = rank == 0 ? 1000 + i : -1;
    const int mine = (short_mask >> rank) & 1 ? n / 2 : n;
    int rc = MPI_Bcast(buf, mine, MPI_INT, 0, c);
    int cls = tu_class_of(rc);
    if (rank == 0) {
        CHECKF(rc == MPI_SUCCESS, "bcast n=%d mask=%#x: root got class %d", n, short_mask, cls);
    } else if (mine < n) {
        CHECKF(cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_OTHER,
               "bcast n=%d mask=%#x: a short member got class %d", n, short_mask, cls);
    } else if (rc == MPI_SUCCESS) {
        for (int i = 0; i < n; i++)
            CHECKF(buf[i] == 1000 + i, "bcast n=%d mask=%#x: buf[%d] = %d", n, short_mask, i,
                   buf[i]);
    } else {
        CHECKF(cls == MPI_ERR_OTHER, "bcast n=%d mask=%#x: full member got class %d", n,
               short_mask, cls);
    }
    /* The member right below the root in every tree shape we use is rank
     * 1: with it short, it must report the truncation itself. */
    if (rank == 1 && (short_mask & 2))
        CHECKF(cls == MPI_ERR_TRUNCATE, "bcast n=%d: rank 1 got class %d, not TRUNCATE", n, cls);
    free(buf);
    MPI_Comm_free(&c);
}

/* Allreduce (and reduce to 0) where member `odd` passes half the count:
 * everyone's result depends on it, so every member returns an error, and
 * the odd member's is MPI_ERR_TRUNCATE or MPI_ERR_OTHER. */
static void allreduce_case(int n, int odd, int reduce)
{
    MPI_Comm c = tu_fresh_comm();
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        in[i] = i;
    const int mine = rank == odd ? n / 2 : n;
    int rc = reduce ? MPI_Reduce(in, out, mine, MPI_INT, MPI_SUM, 0, c)
                    : MPI_Allreduce(in, out, mine, MPI_INT, MPI_SUM, c);
    int cls = tu_class_of(rc);
    if (!reduce || rank == 0)
        CHECKF(cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_OTHER,
               "%s n=%d odd=%d: class %d (%s)", reduce ? "reduce" : "allreduce", n, odd, cls,
               rc == MPI_SUCCESS ? "a mismatch went unnoticed" : "wrong class");
    free(in);
    free(out);
    MPI_Comm_free(&c);
}

/* Allgather and scan with one member's count smaller: every call returns
 * (an error where a member's data depends on the odd one). */
static void others_case(int n, int odd)
{
    MPI_Comm c = tu_fresh_comm();
    const int mine = rank == odd ? n / 2 : n;
    int *in = calloc((size_t)n, sizeof(int)), *out = calloc((size_t)n * (size_t)size, sizeof(int));
    int rc = MPI_Allgather(in, mine, MPI_INT, out, mine, MPI_INT, c);
    CHECKF(size == 1 || rc != MPI_SUCCESS || rank != odd,
           "allgather: the odd member (count %d of %d) succeeded", mine, n);
    MPI_Comm_free(&c);
    c = tu_fresh_comm();
    rc = MPI_Scan(in, out, mine, MPI_INT, MPI_SUM, c);
    CHECKF(rank == 0 || rc != MPI_SUCCESS || rank < odd,
           "scan: rank %d depends on the odd member %d and succeeded", rank, odd);
    free(in);
    free(out);
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *ints = getenv("COLL_MISMATCH_INTS");
    const int n = ints ? atoi(ints) : 8;
    if (size > 1) {
        bcast_case(n, 1u << (size - 1));              /* the last member short */
        bcast_case(n, ~1u);                          /* every non-root short */
        bcast_case(n, 2u);                           /* rank 1 (an inner node) short */
        for (int odd = 0; odd < size; odd++) {
            allreduce_case(n, odd, 0);
            allreduce_case(n, odd, 1);
        }
        others_case(n, size - 1);
    }
    /* The library still works on a fresh communicator after all that. */
    MPI_Comm c = tu_fresh_comm();
    int v = rank, sum = -1;
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK_EQ(sum, size * (size - 1) / 2);
    MPI_Comm_free(&c);
    if (rank == 0)
        printf("coll_mismatch: ok (%d members, %d ints)\n", size, n);
    MPI_Finalize();
    return 0;
}
