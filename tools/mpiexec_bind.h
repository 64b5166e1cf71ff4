/* mpiexec_bind.h — --bind-to core, shared by mpiexec (fork launcher) and
 * fabmpi_hostd (ssh launcher). */
#ifndef FM_TOOLS_MPIEXEC_BIND_H
#define FM_TOOLS_MPIEXEC_BIND_H

/* Load the topology once, before forking; 0 ok, -1 with a message. */
int fm_mx_bind_init(const char *who);
/* In a rank's child before exec: bind to core local_rank % cores. */
void fm_mx_bind_child(int local_rank);

#endif
