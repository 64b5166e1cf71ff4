/* select_sched.c — the choice for MPI_Ibarrier / MPI_Iallreduce and their
 * persistent forms: the flat algorithm recorded into the schedule where the
 * blocking call would run it (select.c), and the replay of such schedules. */
#include "coll/rma/select.h"

#include "coll/coll.h"
#include "coll/coll_call.h"
#include "coll/sched.h"
#include "util/log.h"
#include "util/param.h"
#include "util/pvar.h"

/* The nonblocking and persistent forms take the flat algorithm where the
 * blocking one would, once the communicator's cache is set up.  Setting it
 * up is a blocking collective, which neither MPI_Iallreduce nor
 * MPI_Allreduce_init may make; so where it is not there yet, the schedule
 * holds the two-sided algorithm too and each start chooses (a persistent
 * one started after some blocking collective runs flat from then on).
 * Whether the cache is there is the same on every member at the same
 * collective: blocking ones made it, in the same order everywhere. */
static int flat_ready(MPI_Comm comm, enum kind k, size_t bytes, MPI_Datatype dt, fm_crma **c)
{
    const char *why = "not the one-round case (oversubscribed node, small contiguous data; "
                      "2 members on one node, up to 4 KiB contiguous); "
                      "the other one-sided algorithms do not run in schedules";
    *c = NULL;
    const int crowded = flat_fits(comm, bytes, dt);
    int flat = (crowded || push_fits(comm, bytes, dt)) &&
               !(why = fm_sel_two_sided_why(comm, k, bytes, 1));
    if (flat && comm->coll_rma && !(*c = fm_crma_get(comm))) { /* taken, never set up */
        why = "cache setup failed (FABMPI_VERBOSE=1 says why)";
        flat = 0;
    }
    if (fm_param.COLL_VERBOSE && comm->rank == 0)
        fm_log_print("coll",
                     "%s, nonblocking or persistent, comm=%s ctx=%u size=%d bytes=%zu: %s%s",
                     fm_sel_call_name[k], comm->name[0] ? comm->name : "<unnamed>", comm->ctx,
                     comm->size, bytes,
                     !flat     ? "two-sided — "
                     : crowded ? "rma over shm flat (one round of flags)"
                     : bytes > FM_CRMA_PUSH_PAIR_ABOVE
                         ? "rma over shm pair, pushed (each member writes its vector into the "
                           "other's cache)"
                         : "rma over shm flat, pushed (each member writes into the other's lane)",
                     !flat ? why
                     : *c  ? ""
                           : " once a blocking collective has set up the one-sided cache, "
                             "two-sided until then");
    return flat;
}

/* Keys of the replayable flat schedules (coll/sched.h, "Replay"). */
static const fm_sched_key barrier_key = {.kind = FM_SK_BARRIER};

static fm_sched_key allreduce_key(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                                  MPI_Op op)
{
    return (fm_sched_key){.kind = FM_SK_ALLREDUCE, .sbuf = sbuf, .rbuf = rbuf, .count = count,
                          .dt = dt, .op = op};
}

void fm_coll_sel_ibarrier(fm_coll_call *cc)
{
    fm_crma *c;
    void *f = NULL;
    if (flat_ready(cc->comm, K_BARRIER, 0, NULL, &c)) {
        f = fm_crma_record_flat(cc, c, NULL, NULL, 0, MPI_BYTE, MPI_OP_NULL);
        if (c) {
            FM_PV_INC(coll_barrier_flat);
            fm_sched_reusable(cc, &barrier_key);
            return;
        }
    }
    int first = fm_sched_steps(cc);
    fm_cc_barrier(cc);
    fm_crma_record_flat_alt_end(cc, f, first);
}

int fm_coll_sel_ibarrier_again(MPI_Comm comm, struct fm_request **req)
{
    if (!fm_sched_replay(comm, &barrier_key, req))
        return 0;
    FM_PV_INC(coll_barrier_flat);
    return 1;
}

int fm_coll_sel_iallreduce_again(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                                 MPI_Op op, MPI_Comm comm, struct fm_request **req)
{
    const fm_sched_key key = allreduce_key(sbuf, rbuf, count, dt, op);
    if (!fm_sched_replay(comm, &key, req))
        return 0;
    FM_PV_INC(coll_allreduce_flat);
    return 1;
}

void fm_coll_sel_iallreduce(fm_coll_call *cc, const void *sbuf, void *rbuf, MPI_Count count,
                            MPI_Datatype dt, MPI_Op op)
{
    fm_crma *c;
    void *f = NULL;
    if (flat_ready(cc->comm, K_ALLREDUCE, (size_t)count * (size_t)dt->size, dt, &c)) {
        f = fm_crma_record_flat(cc, c, sbuf, rbuf, count, dt, op);
        if (c) {
            FM_PV_INC(coll_allreduce_flat);
            const fm_sched_key key = allreduce_key(sbuf, rbuf, count, dt, op);
            fm_sched_reusable(cc, &key);
            return;
        }
    }
    int first = fm_sched_steps(cc);
    fm_cc_allreduce(cc, sbuf, rbuf, count, dt, op);
    fm_crma_record_flat_alt_end(cc, f, first);
}
