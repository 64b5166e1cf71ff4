C     mixed77.f - one MPI call given buffers of two types, as Fortran 77
C     codes do: mpif.h declares no interfaces, and mpif77 must let
C     gfortran >= 10 compile it (-fallow-argument-mismatch).
      PROGRAM MIXED77
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROC, ISUM
      DOUBLE PRECISION DRANK, DSUM
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROC, IERR)
      DRANK = RANK + 0.5D0
      CALL MPI_ALLREDUCE(RANK, ISUM, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      CALL MPI_ALLREDUCE(DRANK, DSUM, 1, MPI_DOUBLE_PRECISION,
     &                   MPI_SUM, MPI_COMM_WORLD, IERR)
      IF (ISUM .EQ. NPROC * (NPROC - 1) / 2 .AND.
     &    DSUM .EQ. ISUM + 0.5D0 * NPROC) THEN
         WRITE (*, '(A,I0,A,I0,A)') 'F77 rank ', RANK, ' of ', NPROC,
     &        ' on fabmpi: sum ok'
      ELSE
         WRITE (*, '(A)') 'F77: sum WRONG'
      END IF
      CALL MPI_FINALIZE(IERR)
      END
