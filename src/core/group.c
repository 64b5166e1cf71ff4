/* group.c — process groups: ordered lists of world ranks, and the set
 * operations of MPI-3.1 chapter 6.3 on them.
 *
 * A group is immutable once built, so operations always make a new one;
 * empty results are the predefined fab_group_empty (never freed).
 * Membership tests use a position table indexed by world rank, which keeps
 * every operation linear in the group sizes plus the largest world rank. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "util/status.h"
#include "util/handle_pool.h"

struct fm_group fab_group_empty = {
    .magic = FM_MAGIC_GROUP, .refcount = 1, .predefined = 1, .size = 0,
    .rank = MPI_UNDEFINED, .world = NULL,
};

static int self_world_rank = -1;

void fm_group_set_self(int world_rank) { self_world_rank = world_rank; }

int fm_group_valid(MPI_Group g) { return g != NULL && g->magic == FM_MAGIC_GROUP; }

static void say(char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(char *why, const char *fmt, ...)
{
    if (!why)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, FM_WHY_LEN, fmt, ap);
    va_end(ap);
}

/* Groups behind user handles (handle_pool.h). */
static fm_handle_pool group_pool = FM_HANDLE_POOL(struct fm_group);

/* Takes ownership of `world` (malloc'd, `size` entries); frees it when the
 * result is empty or on failure. */
static struct fm_group *group_adopt(int size, int *world)
{
    if (size == 0) {
        free(world);
        return &fab_group_empty;
    }
    struct fm_group *g = fm_handle_get(&group_pool);
    if (!g) {
        free(world);
        return NULL;
    }
    g->magic = FM_MAGIC_GROUP;
    g->refcount = 1;
    g->size = size;
    g->world = world;
    g->rank = fm_group_rank_of(g, self_world_rank);
    return g;
}

struct fm_group *fm_group_new(int size, const int *world)
{
    if (size == 0)
        return &fab_group_empty;
    int *copy = malloc((size_t)size * sizeof(int));
    if (!copy)
        return NULL;
    memcpy(copy, world, (size_t)size * sizeof(int));
    return group_adopt(size, copy);
}

void fm_group_release(struct fm_group *g)
{
    if (!g || g->predefined)
        return;
    if (--g->refcount > 0)
        return;
    free(g->world);
    fm_handle_put(&group_pool, g);
}

int fm_group_rank_of(const struct fm_group *g, int wr)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == wr)
            return i;
    return MPI_UNDEFINED;
}

/* pos[w] = rank of world rank w in g, or -1; table covers 0..maxw. */
static int *position_table(const struct fm_group *g, int maxw)
{
    int *pos = malloc(((size_t)maxw + 1) * sizeof(int));
    if (!pos)
        return NULL;
    memset(pos, 0xff, ((size_t)maxw + 1) * sizeof(int)); /* all -1 */
    for (int i = 0; i < g->size; i++)
        pos[g->world[i]] = i;
    return pos;
}

static int max_world(const struct fm_group *a, const struct fm_group *b)
{
    int m = 0;
    for (int i = 0; i < a->size; i++)
        if (a->world[i] > m)
            m = a->world[i];
    for (int i = 0; b && i < b->size; i++)
        if (b->world[i] > m)
            m = b->world[i];
    return m;
}

/* Check ranks[] names distinct ranks of g; marks them in `seen`. */
static int check_ranks(const struct fm_group *g, int n, const int *ranks, char *seen, char *why)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size) {
            say(why, "ranks[%d]=%d is not a rank of the group (size %d)", i, r, g->size);
            return FM_ERR_RANK;
        }
        if (seen[r]) {
            say(why, "ranks[%d]=%d appears twice", i, r);
            return FM_ERR_RANK;
        }
        seen[r] = 1;
    }
    return FM_OK;
}

static int check_n(const struct fm_group *g, int n, const void *ranks, char *why)
{
    if (n < 0 || n > g->size) {
        say(why, "n=%d must be in 0..%d (the group size)", n, g->size);
        return FM_ERR_ARG;
    }
    if (n > 0 && !ranks) {
        say(why, "ranks=NULL with n=%d", n);
        return FM_ERR_ARG;
    }
    return FM_OK;
}

/* Build a group from g's members picked in `order` (n ranks of g). */
static int pick(const struct fm_group *g, int n, const int *order, struct fm_group **out)
{
    int *w = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!w)
        return FM_ERR_NOMEM;
    for (int i = 0; i < n; i++)
        w[i] = g->world[order[i]];
    struct fm_group *r = group_adopt(n, w);
    if (!r)
        return FM_ERR_NOMEM;
    *out = r;
    return FM_OK;
}

/* Keep g's members whose seen[] flag equals `keep`, in g's order. */
static int filter(const struct fm_group *g, const char *seen, char keep, struct fm_group **out)
{
    int *w = malloc((size_t)(g->size ? g->size : 1) * sizeof(int));
    if (!w)
        return FM_ERR_NOMEM;
    int n = 0;
    for (int i = 0; i < g->size; i++)
        if ((seen[i] != 0) == (keep != 0))
            w[n++] = g->world[i];
    struct fm_group *r = group_adopt(n, w);
    if (!r)
        return FM_ERR_NOMEM;
    *out = r;
    return FM_OK;
}

int fm_group_incl(struct fm_group *g, int n, const int *ranks, struct fm_group **out, char *why)
{
    int rc = check_n(g, n, ranks, why);
    if (rc != FM_OK)
        return rc;
    char *seen = calloc((size_t)g->size + 1, 1);
    if (!seen)
        return FM_ERR_NOMEM;
    rc = check_ranks(g, n, ranks, seen, why);
    if (rc == FM_OK)
        rc = pick(g, n, ranks, out);
    free(seen);
    return rc;
}

int fm_group_excl(struct fm_group *g, int n, const int *ranks, struct fm_group **out, char *why)
{
    int rc = check_n(g, n, ranks, why);
    if (rc != FM_OK)
        return rc;
    char *seen = calloc((size_t)g->size + 1, 1);
    if (!seen)
        return FM_ERR_NOMEM;
    rc = check_ranks(g, n, ranks, seen, why);
    if (rc == FM_OK)
        rc = filter(g, seen, 0, out);
    free(seen);
    return rc;
}

/* Expand the triplets into `list` (NULL: only count and validate), marking
 * ranks in `seen`.  Per the standard a triplet names first, first+stride,
 * ... while not past last; first > last with a positive stride (or the
 * reverse) names nothing.  Every named rank must exist and be new. */
static int expand_ranges(const struct fm_group *g, int n, int ranges[][3], char *seen, int *list,
                         int *count, char *why)
{
    int c = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0) {
            say(why, "ranges[%d]={%d,%d,%d}: stride must not be 0", i, first, last, stride);
            return FM_ERR_ARG;
        }
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            continue;
        long steps = ((long)last - first) / stride;
        long end = first + steps * stride; /* last rank actually named */
        if (first < 0 || first >= g->size || end < 0 || end >= g->size) {
            say(why, "ranges[%d]={%d,%d,%d}: %ld is not a rank of the group (size %d)", i, first,
                last, stride, (first < 0 || first >= g->size) ? (long)first : end, g->size);
            return FM_ERR_RANK;
        }
        /* Both ends are ranks of g, so every step between them is too. */
        for (long k = 0; k <= steps; k++) {
            int r = (int)(first + k * stride);
            if (seen[r]) {
                say(why, "ranges[%d]={%d,%d,%d}: rank %d is named twice", i, first, last, stride,
                    r);
                return FM_ERR_RANK;
            }
            seen[r] = 1;
            if (list)
                list[c] = r;
            c++;
        }
    }
    *count = c;
    return FM_OK;
}

int fm_group_range(struct fm_group *g, int n, int ranges[][3], int excl, struct fm_group **out,
                   char *why)
{
    if (n < 0) {
        say(why, "n=%d must be >= 0", n);
        return FM_ERR_ARG;
    }
    if (n > 0 && !ranges) {
        say(why, "ranges=NULL with n=%d", n);
        return FM_ERR_ARG;
    }
    char *seen = calloc((size_t)g->size + 1, 1);
    int *list = malloc(((size_t)g->size + 1) * sizeof(int));
    int count = 0, rc = FM_ERR_NOMEM;
    if (seen && list) {
        rc = expand_ranges(g, n, ranges, seen, list, &count, why);
        if (rc == FM_OK)
            rc = excl ? filter(g, seen, 0, out) : pick(g, count, list, out);
    }
    free(seen);
    free(list);
    return rc;
}

/* Shared body of union / intersection / difference.  Result order: a's
 * members first in a's order, then (union only) b's extras in b's order. */
enum setop { SET_UNION, SET_INTER, SET_DIFF };
static int set_op(struct fm_group *a, struct fm_group *b, enum setop op, struct fm_group **out)
{
    int maxw = max_world(a, b);
    int *pos = position_table(b, maxw);
    int *w = malloc(((size_t)a->size + b->size + 1) * sizeof(int));
    char *in_a = calloc((size_t)maxw + 1, 1);
    if (!pos || !w || !in_a) {
        free(pos);
        free(w);
        free(in_a);
        return FM_ERR_NOMEM;
    }
    int n = 0;
    for (int i = 0; i < a->size; i++) {
        int wr = a->world[i], inb = pos[wr] >= 0;
        in_a[wr] = 1;
        if (op == SET_UNION || (op == SET_INTER && inb) || (op == SET_DIFF && !inb))
            w[n++] = wr;
    }
    if (op == SET_UNION)
        for (int i = 0; i < b->size; i++)
            if (!in_a[b->world[i]])
                w[n++] = b->world[i];
    free(pos);
    free(in_a);
    struct fm_group *r = group_adopt(n, w);
    if (!r)
        return FM_ERR_NOMEM;
    *out = r;
    return FM_OK;
}

int fm_group_union(struct fm_group *a, struct fm_group *b, struct fm_group **out)
{
    return set_op(a, b, SET_UNION, out);
}

int fm_group_intersection(struct fm_group *a, struct fm_group *b, struct fm_group **out)
{
    return set_op(a, b, SET_INTER, out);
}

int fm_group_difference(struct fm_group *a, struct fm_group *b, struct fm_group **out)
{
    return set_op(a, b, SET_DIFF, out);
}

int fm_group_compare(const struct fm_group *a, const struct fm_group *b)
{
    if (a == b)
        return MPI_IDENT;
    if (a->size != b->size)
        return MPI_UNEQUAL;
    if (a->size == 0 || memcmp(a->world, b->world, (size_t)a->size * sizeof(int)) == 0)
        return MPI_IDENT;
    int *pos = position_table(b, max_world(a, b));
    if (!pos)
        return MPI_UNEQUAL; /* cannot tell without memory; callers see no error */
    int res = MPI_SIMILAR;
    for (int i = 0; i < a->size && res == MPI_SIMILAR; i++)
        if (pos[a->world[i]] < 0)
            res = MPI_UNEQUAL;
    free(pos);
    return res;
}

int fm_group_translate(const struct fm_group *a, int n, const int *ranks1,
                       const struct fm_group *b, int *ranks2, char *why)
{
    if (n < 0) {
        say(why, "n=%d must be >= 0", n);
        return FM_ERR_ARG;
    }
    if (n > 0 && (!ranks1 || !ranks2)) {
        say(why, "%s=NULL with n=%d", ranks1 ? "ranks2" : "ranks1", n);
        return FM_ERR_ARG;
    }
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->size)) {
            say(why, "ranks1[%d]=%d is not a rank of group1 (size %d)", i, ranks1[i], a->size);
            return FM_ERR_RANK;
        }
    if (n == 0)
        return FM_OK;
    int *pos = position_table(b, max_world(a, b));
    if (!pos)
        return FM_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
        } else {
            int p = pos[a->world[ranks1[i]]];
            ranks2[i] = p >= 0 ? p : MPI_UNDEFINED;
        }
    }
    free(pos);
    return FM_OK;
}
