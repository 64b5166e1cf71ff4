/* mpit_cvar — MPI_T control variables: every FABMPI_* knob of the table
 * (util/param.h, expanded here from the macro, not asked of the library)
 * is a cvar of the same name with its type, description and enum items;
 * MPI_T works before MPI_Init, nests, and after MPI_Finalize; errors come
 * as MPI_T_ERR_* classes; a knob written before MPI_Init is what MPI_Init
 * uses, one read at MPI_Init only refuses later writes, a fixed one always
 * does; lowering FABMPI_EAGER_LIMIT with MPI_T_cvar_write turns the next
 * messages from eager into rendezvous, and FABMPI_COLL_RMA=off/on moves an
 * allreduce between the two-sided and one-sided algorithms (pvar counters
 * say which). */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util/param.h"

/* An MPI_T call must return exactly this class. */

struct knob {
    const char *name, *type, *accepted, *doc;
};
#define KNOB(name, type, def, acc, cat, verb, scope, set, doc) {"FABMPI_" #name, #type, acc, doc},
static const struct knob knobs[] = {FM_PARAMS(KNOB)};
#undef KNOB
#define NKNOBS ((int)(sizeof knobs / sizeof knobs[0]))

static int cvar(const char *name)
{
    int i = -1;
    CHECK_MPI(MPI_T_cvar_get_index(name, &i));
    return i;
}

static MPI_T_cvar_handle handle(const char *name)
{
    MPI_T_cvar_handle h;
    int count = 0;
    CHECK_MPI(MPI_T_cvar_handle_alloc(cvar(name), NULL, &h, &count));
    CHECK_EQ(count, 1);
    return h;
}

static long read_num(const char *name)
{
    MPI_T_cvar_handle h = handle(name);
    MPI_Datatype dt;
    CHECK_MPI(MPI_T_cvar_get_info(cvar(name), NULL, NULL, NULL, &dt, NULL, NULL, NULL, NULL, NULL));
    long v;
    if (dt == MPI_UNSIGNED_LONG) {
        unsigned long u;
        CHECK_MPI(MPI_T_cvar_read(h, &u));
        v = (long)u;
    } else {
        int i;
        CHECK_MPI(MPI_T_cvar_read(h, &i));
        v = i;
    }
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    return v;
}

/* Every knob, as the table has it. */
static void check_table(void)
{
    int num = 0;
    CHECK_MPI(MPI_T_cvar_get_num(&num));
    CHECK_EQ(num, NKNOBS);
    for (int k = 0; k < NKNOBS; k++) {
        const struct knob *kn = &knobs[k];
        int i = cvar(kn->name);
        char name[128], desc[2048];
        int name_len = sizeof name, desc_len = sizeof desc, verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_MPI(MPI_T_cvar_get_info(i, name, &name_len, &verb, &dt, &en, desc, &desc_len, &bind,
                                      &scope));
        CHECKF(!strcmp(name, kn->name), "cvar %d is %s, expected %s", i, name, kn->name);
        CHECK_EQ(name_len, (int)strlen(kn->name) + 1);
        CHECKF(!strcmp(desc, kn->doc), "%s: description differs from the table", kn->name);
        CHECK(verb >= MPI_T_VERBOSITY_USER_BASIC && verb <= MPI_T_VERBOSITY_MPIDEV_ALL);
        CHECK_EQ(bind, MPI_T_BIND_NO_OBJECT);
        CHECK(scope == MPI_T_SCOPE_CONSTANT || scope == MPI_T_SCOPE_LOCAL ||
              scope == MPI_T_SCOPE_ALL_EQ);
        MPI_Datatype want = !strcmp(kn->type, "SIZE") ? MPI_UNSIGNED_LONG
                            : !strcmp(kn->type, "STR") ? MPI_CHAR
                                                       : MPI_INT;
        CHECKF(dt == want, "%s (%s): wrong datatype", kn->name, kn->type);
        if (strcmp(kn->type, "ENUM")) {
            CHECKF(en == MPI_T_ENUM_NULL, "%s: an enum on a %s knob", kn->name, kn->type);
            continue;
        }
        /* The items are the accepted names, in order; the value is the index. */
        CHECKF(en != MPI_T_ENUM_NULL, "%s: ENUM knob without an enum", kn->name);
        int items = 0;
        char ename[128];
        int elen = sizeof ename;
        CHECK_MPI(MPI_T_enum_get_info(en, &items, ename, &elen));
        CHECKF(!strcmp(ename, kn->name), "enum of %s is named %s", kn->name, ename);
        const char *p = kn->accepted;
        for (int j = 0; j < items; j++) {
            char item[64];
            int ilen = sizeof item, val = -1;
            CHECK_MPI(MPI_T_enum_get_item(en, j, &val, item, &ilen));
            size_t n = strcspn(p, "|");
            CHECKF(strlen(item) == n && !strncmp(item, p, n), "%s item %d is %s, accepted %s",
                   kn->name, j, item, kn->accepted);
            CHECK_EQ(val, j);
            p += n + (p[n] == '|');
        }
        CHECKF(!*p, "%s: enum has %d items, accepted is %s", kn->name, items, kn->accepted);
        int val;
        CHECK_T(MPI_T_enum_get_item(en, items, &val, NULL, NULL), MPI_T_ERR_INVALID_ITEM);
        CHECK_T(MPI_T_enum_get_item(en, -1, &val, NULL, NULL), MPI_T_ERR_INVALID_ITEM);
    }
    /* A string knob reads as text, NUL-terminated within its count. */
    MPI_T_cvar_handle h;
    int count = 0;
    CHECK_MPI(MPI_T_cvar_handle_alloc(cvar("FABMPI_SSH"), NULL, &h, &count));
    CHECK(count > (int)strlen("ssh -o BatchMode=yes"));
    char *s = tu_malloc((size_t)count);
    CHECK_MPI(MPI_T_cvar_read(h, s));
    CHECKF(!strcmp(s, "ssh -o BatchMode=yes"), "FABMPI_SSH reads \"%s\"", s);
    free(s);
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL);
    /* The string convention: length 0 asks for the length. */
    int len = 0;
    CHECK_MPI(MPI_T_cvar_get_info(cvar("FABMPI_EAGER_LIMIT"), NULL, &len, NULL, NULL, NULL, NULL,
                                  NULL, NULL, NULL));
    CHECK_EQ(len, (int)strlen("FABMPI_EAGER_LIMIT") + 1);
    char shortname[8];
    len = sizeof shortname;
    CHECK_MPI(MPI_T_cvar_get_info(cvar("FABMPI_EAGER_LIMIT"), shortname, &len, NULL, NULL, NULL,
                                  NULL, NULL, NULL, NULL));
    CHECKF(!strcmp(shortname, "FABMPI_"), "truncated name \"%s\"", shortname);
    CHECK_EQ(len, (int)strlen("FABMPI_EAGER_LIMIT") + 1);
}

static void check_errors(void)
{
    int num, i;
    CHECK_MPI(MPI_T_cvar_get_num(&num));
    MPI_T_cvar_handle h;
    int count;
    CHECK_T(MPI_T_cvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_cvar_handle_alloc(num, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_cvar_get_index("FABMPI_NO_SUCH_KNOB", &i), MPI_T_ERR_INVALID_NAME);
    CHECK_T(MPI_T_cvar_get_index("EAGER_LIMIT", &i), MPI_T_ERR_INVALID_NAME);
    int v = 0;
    CHECK_T(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_cvar_write(MPI_T_CVAR_HANDLE_NULL, &v), MPI_T_ERR_INVALID_HANDLE);
    MPI_T_cvar_handle none = MPI_T_CVAR_HANDLE_NULL;
    CHECK_T(MPI_T_cvar_handle_free(&none), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &num, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    /* Values are checked as the environment's are. */
    h = handle("FABMPI_EAGER_LIMIT");
    unsigned long big = 2ul << 20, ok = 4096;
    CHECK_T(MPI_T_cvar_write(h, &big), MPI_T_ERR_INVALID);
    CHECK_MPI(MPI_T_cvar_write(h, &ok));
    CHECK_EQ(read_num("FABMPI_EAGER_LIMIT"), 4096);
    ok = 32768;
    CHECK_MPI(MPI_T_cvar_write(h, &ok));
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    h = handle("FABMPI_COLL_VERBOSE");
    v = 2;
    CHECK_T(MPI_T_cvar_write(h, &v), MPI_T_ERR_INVALID); /* a bool is 0 or 1 */
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    h = handle("FABMPI_SHM_COPY");
    v = 3; /* auto|cma|pipeline: 0..2 */
    CHECK_T(MPI_T_cvar_write(h, &v), MPI_T_ERR_INVALID);
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    /* Set by mpiexec: never written. */
    h = handle("FABMPI_RANK");
    v = 5;
    CHECK_T(MPI_T_cvar_write(h, &v), MPI_T_ERR_CVAR_SET_NEVER);
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    /* Error strings name the MPI_T class. */
    char text[MPI_MAX_ERROR_STRING];
    int len, cls;
    CHECK_MPI(MPI_Error_string(MPI_T_ERR_INVALID_INDEX, text, &len));
    CHECKF(strstr(text, "MPI_T_ERR_INVALID_INDEX") != NULL, "error string \"%s\"", text);
    CHECK_MPI(MPI_Error_class(MPI_T_ERR_CVAR_SET_NEVER, &cls));
    CHECK_EQ(cls, MPI_T_ERR_CVAR_SET_NEVER);
    CHECK(MPI_T_ERR_INVALID <= MPI_ERR_LASTCODE);
}

/* Messages of `bytes` to the next rank (and from the previous one) while
 * counters of eager and rendezvous sends run; returns them in *eager, *rndv. */
static void send_round(int n, int bytes, unsigned long long *eager, unsigned long long *rndv)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_T_pvar_session s;
    MPI_T_pvar_handle he, hr;
    int ie, ir, count;
    CHECK_MPI(MPI_T_pvar_get_index("pt2pt_eager_sent", MPI_T_PVAR_CLASS_COUNTER, &ie));
    CHECK_MPI(MPI_T_pvar_get_index("pt2pt_rndv_sent", MPI_T_PVAR_CLASS_COUNTER, &ir));
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, ie, NULL, &he, &count));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, ir, NULL, &hr, &count));
    char *sb = tu_malloc((size_t)bytes * (size_t)n), *rb = tu_malloc((size_t)bytes * (size_t)n);
    MPI_Request *rq = tu_malloc(sizeof *rq * 2 * (size_t)n);
    tu_fill(sb, (size_t)bytes * (size_t)n, (unsigned)rank);
    CHECK_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    for (int i = 0; i < n; i++)
        CHECK_MPI(MPI_Irecv(rb + (size_t)i * (size_t)bytes, bytes, MPI_CHAR, (rank + size - 1) % size,
                            i, MPI_COMM_WORLD, &rq[i]));
    for (int i = 0; i < n; i++)
        CHECK_MPI(MPI_Isend(sb + (size_t)i * (size_t)bytes, bytes, MPI_CHAR, (rank + 1) % size, i,
                            MPI_COMM_WORLD, &rq[n + i]));
    CHECK_MPI(MPI_Waitall(2 * n, rq, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_PATTERN(rb, (size_t)bytes * (size_t)n, (unsigned)((rank + size - 1) % size));
    CHECK_MPI(MPI_T_pvar_read(s, he, eager));
    CHECK_MPI(MPI_T_pvar_read(s, hr, rndv));
    CHECK_MPI(MPI_T_pvar_session_free(&s));
    free(sb);
    free(rb);
    free(rq);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* One 8-byte allreduce; how it ran: *two = two-sided, *one = one-sided
 * (through the cache, flat or tree). */
static void allreduce_round(unsigned long long *two, unsigned long long *one)
{
    static const char *const names[] = {"coll_allreduce_two_sided", "coll_allreduce_rma",
                                        "coll_allreduce_flat"};
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h[3];
    int idx, count;
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    for (int i = 0; i < 3; i++) {
        CHECK_MPI(MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &idx));
        CHECK_MPI(MPI_T_pvar_handle_alloc(s, idx, NULL, &h[i], &count));
    }
    long in = 1, out = 0;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_EQ(out, size);
    unsigned long long v[3];
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_T_pvar_read(s, h[i], &v[i]));
    *two = v[0];
    *one = v[1] + v[2];
    CHECK_MPI(MPI_T_pvar_session_free(&s));
}

/* FABMPI_EAGER_LIMIT, changed while running: 4 KiB messages go eagerly
 * under the limit MPI_Init set (32 KiB or more), by rendezvous under 1 KiB, eagerly again once
 * restored.  (Each rank sends to the next; with one rank, to itself.)
 * With FABMPI_NET=ofi the next rank is reached over OFI, whose limit is
 * FABMPI_OFI_EAGER_LIMIT (8 KiB): that one, alike. */
static void check_eager_limit(int nranks)
{
    const char *net = getenv("FABMPI_NET");
    const char *knob = net && !strcmp(net, "ofi") && nranks > 1 ? "FABMPI_OFI_EAGER_LIMIT"
                                                                : "FABMPI_EAGER_LIMIT";
    unsigned long long eager, rndv;
    send_round(5, 4096, &eager, &rndv);
    CHECK_EQ(eager, 5);
    CHECK_EQ(rndv, 0);
    MPI_T_cvar_handle lim = handle(knob);
    unsigned long small = 1024, dflt = (unsigned long)read_num(knob);
    CHECK_MPI(MPI_T_cvar_write(lim, &small));
    send_round(5, 4096, &eager, &rndv);
    CHECK_EQ(eager, 0);
    CHECK_EQ(rndv, 5);
    send_round(3, 512, &eager, &rndv); /* below the new limit: still eager */
    CHECK_EQ(eager, 3);
    CHECK_EQ(rndv, 0);
    CHECK_MPI(MPI_T_cvar_write(lim, &dflt));
    send_round(5, 4096, &eager, &rndv);
    CHECK_EQ(eager, 5);
    CHECK_EQ(rndv, 0);
    CHECK_MPI(MPI_T_cvar_handle_free(&lim));
}

int main(int argc, char **argv)
{
    int provided, num;
    /* Before MPI_T_init_thread: not initialized. */
    CHECK_T(MPI_T_cvar_get_num(&num), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_T(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    /* Before MPI_Init, nested. */
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    CHECK_EQ(provided, MPI_THREAD_MULTIPLE);
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK_MPI(MPI_T_finalize());
    CHECK_MPI(MPI_T_cvar_get_num(&num)); /* still one init open */
    check_table();
    check_errors();
    CHECK_EQ(read_num("FABMPI_EAGER_LIMIT"), 32768);

    /* A knob read at MPI_Init, written before it: MPI_Init keeps the value. */
    MPI_T_cvar_handle fan = handle("FABMPI_COLL_FANOUT");
    int v = 3;
    CHECK_MPI(MPI_T_cvar_write(fan, &v));

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* MPI_Init may size it for the node (net/shm/segment.c) */
    const long eager_in_use = read_num("FABMPI_EAGER_LIMIT");
    CHECK_EQ(read_num("FABMPI_COLL_FANOUT"), 3);
    v = 4;
    CHECK_T(MPI_T_cvar_write(fan, &v), MPI_T_ERR_CVAR_SET_NEVER);
    CHECK_EQ(read_num("FABMPI_COLL_FANOUT"), 3);
    CHECK_MPI(MPI_T_cvar_handle_free(&fan));

    /* The counters are the software engine's: with FABMPI_PT2PT=ofi the
     * provider decides how a message travels. */
    int nranks;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *engine = getenv("FABMPI_PT2PT");
    if (!(engine && !strcmp(engine, "ofi") && nranks > 1))
        check_eager_limit(nranks);

    /* FABMPI_COLL_RMA (scope ALL_EQ: every rank writes it alike): off runs
     * the allreduce two-sided, on one-sided (all ranks share this node). */
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_T_cvar_handle crma = handle("FABMPI_COLL_RMA");
    int scope;
    CHECK_MPI(MPI_T_cvar_get_info(cvar("FABMPI_COLL_RMA"), NULL, NULL, NULL, NULL, NULL, NULL,
                                  NULL, NULL, &scope));
    CHECK_EQ(scope, MPI_T_SCOPE_ALL_EQ);
    int off = 0, on = 1, automatic = 2; /* off|on|auto */
    unsigned long long two, one;
    CHECK_MPI(MPI_T_cvar_write(crma, &off));
    allreduce_round(&two, &one);
    CHECK_EQ(two, 1);
    CHECK_EQ(one, 0);
    CHECK_MPI(MPI_T_cvar_write(crma, &on));
    allreduce_round(&two, &one);
    CHECK_EQ(two, size == 1); /* one member: nothing to do one-sided */
    CHECK_EQ(one, size > 1);
    CHECK_MPI(MPI_T_cvar_write(crma, &automatic));
    CHECK_MPI(MPI_T_cvar_handle_free(&crma));

    MPI_Finalize();
    /* After MPI_Finalize: still answers. */
    CHECK_EQ(read_num("FABMPI_EAGER_LIMIT"), eager_in_use);
    CHECK_MPI(MPI_T_finalize());
    CHECK_T(MPI_T_cvar_get_num(&num), MPI_T_ERR_NOT_INITIALIZED);
    /* And can start again. */
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK_MPI(MPI_T_cvar_get_num(&num));
    CHECK_EQ(num, NKNOBS);
    CHECK_MPI(MPI_T_finalize());
    return 0;
}
