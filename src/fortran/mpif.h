! mpif.h - fabmpi's MPI interface for Fortran programs that INCLUDE it
! (fixed or free form).  The constants, handles and sentinels are generated
! from mpi.h at build time (mpif-constants.h); the procedures are
! libfabmpi_fortran's mpi_x_, without explicit interfaces (use the mpi
! module for those).
      INCLUDE 'mpif-constants.h'
      DOUBLE PRECISION MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK
      EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK
      INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF
      EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF
!     The predefined attribute callbacks (callbacks_predefined.c).
      EXTERNAL MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_DUP_FN
      EXTERNAL MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN
      EXTERNAL MPI_COMM_DUP_FN
      EXTERNAL MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN
      EXTERNAL MPI_TYPE_DUP_FN
      EXTERNAL MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN
      EXTERNAL MPI_WIN_DUP_FN
