/* fortran_sentinels.c — storage of the Fortran sentinels.  mpif.h and the
 * mpi module declare MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, ... as
 * variables in common blocks /fab_f_bottom/, ...; gfortran names a common
 * block's storage like these (lower case, one underscore), so a Fortran
 * program's MPI_BOTTOM is this object and the bindings recognise its
 * address.  C programs see two of them as MPI_F_STATUS_IGNORE and
 * MPI_F_STATUSES_IGNORE.  Nothing in this file reads them: the compiler may
 * not assume their values or fold their addresses. */
#include <mpi.h>

MPI_Fint fab_f_bottom_;
MPI_Fint fab_f_in_place_;
MPI_Fint fab_f_status_ignore_[MPI_STATUS_SIZE];
MPI_Fint fab_f_statuses_ignore_[MPI_STATUS_SIZE];
MPI_Fint fab_f_unweighted_[1];
MPI_Fint fab_f_weights_empty_[1];
MPI_Fint fab_f_errcodes_ignore_[1];
