/* boot.h — bootstrap: who am I, key-value exchange, fence, abort.
 *
 * Backends, tried in this order (boot.c; the choice and its reason are
 * logged at FABMPI_VERBOSE=1):
 *   mpiexec    our launcher: FABMPI_BOOT_ADDR/KEY/RANK/SIZE (TCP socket,
 *              authenticated by the per-job key)
 *   pmix       a PMIx server: srun --mpi=pmix, Open MPI's mpirun (PMIX_RANK)
 *   pmi2       a PMI-2 server: srun --mpi=pmi2, MPICH's hydra (PMI_FD)
 *   singleton  no launcher variables at all: a job of one
 * If launcher variables are present but unusable (incomplete, library not
 * built in, handshake fails, srun without a PMI plugin), fm_boot_init()
 * returns FM_ERR_BOOT with a message naming what was expected; it never
 * falls back to a singleton. */
#ifndef FM_BOOT_BOOT_H
#define FM_BOOT_BOOT_H

#include <stddef.h>

typedef struct fm_boot_info {
    int rank, size;             /* in MPI_COMM_WORLD */
    int local_rank, local_size; /* among ranks on this node */
    int node_id;                /* index of this node in the job (0 on one node) */
    int singleton;              /* 1 when started without a launcher */
    const char *launcher;       /* backend in use: "mpiexec", "pmix", "pmi2", "singleton" */
    char jobid[64];             /* unique per job; names shm segments */
} fm_boot_info;

/* Connect to the launcher (or become a singleton).  On failure returns
 * FM_ERR_BOOT and writes a message into err.  Blocks. */
int fm_boot_init(fm_boot_info *info, char *err, size_t errlen);

/* Publish key=value (value up to 4 KiB) under this rank's name.  Visible to
 * others after the next fm_boot_fence(). */
int fm_boot_put(const char *key, const void *val, size_t len);
/* Collective over all ranks: completes when every rank has called it; all
 * puts made before it are then visible to fm_boot_get(). */
int fm_boot_fence(void);
/* Fetch the value `rank` put under `key`.  *len: in = capacity, out = size.
 * Returns FM_ERR_ARG if absent. */
int fm_boot_get(int rank, const char *key, void *val, size_t *len);

/* End the whole job with exit code `code` (the launcher kills every rank,
 * mpiexec exits with `code`).  `why` is printed by the launcher.  Never returns. */
void fm_boot_abort(int code, const char *why) __attribute__((noreturn));

/* Tell the launcher this rank finalized cleanly and close the connection. */
int fm_boot_finalize(void);

#endif
