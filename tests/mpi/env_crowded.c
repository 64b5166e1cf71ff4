/* env_crowded — the shared-memory knobs left at their defaults take the
 * values net/shm/segment.c gives a node: up to 8 ranks, 512 KiB rings;
 * with more ranks than usable CPUs, larger rings (1 MiB up to 4 ranks)
 * and no split copies; an eager limit of an eighth of a ring in both
 * cases; knobs the user set stay as set.
 *
 * FM_TEST_PIN, applied before MPI_Init (the mask is published there):
 *   zero    every rank on CPU 0: crowded from 2 ranks on, on any machine;
 *   spread  rank r on CPU r mod (online CPUs): crowded only when ranks
 *           outnumber the online CPUs, or a cgroup v2 quota (cpu.max)
 *           lower than them.
 * Then every rank sends 100000 bytes to the next one (more than the 64 KiB
 * eager limit of a node with a CPU per rank, within the crowded one at up
 * to 4 ranks) and checks the payload byte by byte, and the MPI_T counters
 * say whether it went eagerly or by rendezvous, as the effective eager
 * limit says it must. */
#include <sched.h>
#include <unistd.h>

#include "testutil.h"

enum { BYTES = 100000 };

static void pin(void)
{
    const char *how = getenv("FM_TEST_PIN"), *r = getenv("FABMPI_RANK");
    CHECKF(how && r, "FM_TEST_PIN and FABMPI_RANK must be set (FM_TEST_PIN=%s)",
           how ? how : "(unset)");
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int cpu = !strcmp(how, "zero") ? 0 : (int)(atol(r) % online);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    CHECKF(sched_setaffinity(0, sizeof set, &set) == 0, "sched_setaffinity(CPU %d) failed", cpu);
}

/* Whole CPUs of a cgroup v2 quota, 0 when there is none. */
static long quota_cpus(void)
{
    long n = 0, period = 0;
    char quota[32];
    FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
    if (f) {
        if (fscanf(f, "%31s %ld", quota, &period) == 2 && strcmp(quota, "max") != 0 && period > 0)
            n = (atol(quota) + period - 1) / period;
        fclose(f);
    }
    return n;
}

/* The value a knob must have: the user's when set, else the default or
 * the crowded one. */
static unsigned long want(const char *name, unsigned long def, unsigned long crowd, int crowded)
{
    const char *set = getenv(name);
    if (set) {
        char *end;
        unsigned long v = strtoul(set, &end, 10);
        return *end == 'k' ? v << 10 : *end == 'm' ? v << 20 : v;
    }
    return crowded ? crowd : def;
}

int main(int argc, char **argv)
{
    pin();
    CHECK_MPI(MPI_Init(&argc, &argv));
    int provided, rank, size;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

    long online = sysconf(_SC_NPROCESSORS_ONLN), quota = quota_cpus();
    long used = size < online ? size : online; /* CPUs the spread ranks sit on */
    if (quota > 0 && quota < used)
        used = quota;
    int crowded = !strcmp(getenv("FM_TEST_PIN"), "zero") ? size > 1 : size > used;
    unsigned long ring_roomy = size <= 8 ? 512ul << 10 : 256ul << 10;
    unsigned long ring_crowd = size <= 4 ? 1ul << 20 : ring_roomy;
    unsigned long ring = want("FABMPI_SHM_RING_SIZE", ring_roomy, ring_crowd, crowded);
    unsigned long eager_unset = ring / 8 > (32ul << 10) ? ring / 8 : 32ul << 10;
    unsigned long eager = want("FABMPI_EAGER_LIMIT", eager_unset, eager_unset, crowded);
    unsigned long split = want("FABMPI_SHM_SPLIT_MIN", 64ul << 10, 0, crowded);
    CHECKF(tu_cvar("FABMPI_SHM_RING_SIZE") == ring, "FABMPI_SHM_RING_SIZE is %lu, expected %lu (%s)",
           tu_cvar("FABMPI_SHM_RING_SIZE"), ring, crowded ? "crowded" : "a CPU per rank");
    CHECKF(tu_cvar("FABMPI_EAGER_LIMIT") == eager, "FABMPI_EAGER_LIMIT is %lu, expected %lu (%s)",
           tu_cvar("FABMPI_EAGER_LIMIT"), eager, crowded ? "crowded" : "a CPU per rank");
    CHECKF(tu_cvar("FABMPI_SHM_SPLIT_MIN") == split, "FABMPI_SHM_SPLIT_MIN is %lu, expected %lu (%s)",
           tu_cvar("FABMPI_SHM_SPLIT_MIN"), split, crowded ? "crowded" : "a CPU per rank");

    /* The counters from before the exchange. */
    MPI_T_pvar_session session;
    MPI_T_pvar_handle eager_h, rndv_h;
    int idx, count;
    CHECK_MPI(MPI_T_pvar_session_create(&session));
    CHECK_MPI(MPI_T_pvar_get_index("pt2pt_eager_sent", MPI_T_PVAR_CLASS_COUNTER, &idx));
    CHECK_MPI(MPI_T_pvar_handle_alloc(session, idx, NULL, &eager_h, &count));
    CHECK_MPI(MPI_T_pvar_get_index("pt2pt_rndv_sent", MPI_T_PVAR_CLASS_COUNTER, &idx));
    CHECK_MPI(MPI_T_pvar_handle_alloc(session, idx, NULL, &rndv_h, &count));
    CHECK_MPI(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES));

    unsigned char *out = malloc(BYTES), *in = malloc(BYTES);
    CHECK(out && in);
    for (int i = 0; i < BYTES; i++)
        out[i] = (unsigned char)(rank * 31 + i * 7 + i / 251);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    CHECK_MPI(MPI_Sendrecv(out, BYTES, MPI_BYTE, to, 5, in, BYTES, MPI_BYTE, from, 5,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < BYTES; i++)
        CHECKF(in[i] == (unsigned char)(from * 31 + i * 7 + i / 251),
               "byte %d from rank %d is %u, expected %u", i, from, in[i],
               (unsigned char)(from * 31 + i * 7 + i / 251));

    unsigned long long e = 0, r = 0;
    CHECK_MPI(MPI_T_pvar_read(session, eager_h, &e));
    CHECK_MPI(MPI_T_pvar_read(session, rndv_h, &r));
    CHECK_MPI(MPI_T_pvar_session_free(&session));
    if (size > 1) {
        int eagerly = BYTES <= eager;
        CHECKF(r == (eagerly ? 0u : 1u) && e == (eagerly ? 1u : 0u),
               "%d bytes with an eager limit of %lu: %llu eager and %llu rendezvous sends, "
               "expected %s", BYTES, eager, e, r, eagerly ? "eager" : "rendezvous");
    }
    free(out);
    free(in);
    CHECK_MPI(MPI_T_finalize());
    CHECK_MPI(MPI_Finalize());
    return 0;
}
