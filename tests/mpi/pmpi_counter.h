/* pmpi_counter.h — how the pmpi_calls programs ask the profiling library
 * pmpi_counter.c what it saw (through MPI_Pcontrol). */
#ifndef FM_TEST_PMPI_COUNTER_H
#define FM_TEST_PMPI_COUNTER_H

/* MPI_Pcontrol(PMPI_COUNTER_QUERY, const char *name, long *calls, long *argsum) */
#define PMPI_COUNTER_QUERY 4242

#endif
