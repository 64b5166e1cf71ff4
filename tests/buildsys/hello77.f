C     hello77.f - fixed-form Fortran with mpif.h, as old codes are written.
      PROGRAM HELLO77
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROC, ISUM
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROC, IERR)
      CALL MPI_ALLREDUCE(RANK, ISUM, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      IF (ISUM .EQ. NPROC * (NPROC - 1) / 2) THEN
         WRITE (*, '(A,I0,A,I0,A)') 'F77 rank ', RANK, ' of ', NPROC,
     &        ' on fabmpi: sum ok'
      ELSE
         WRITE (*, '(A)') 'F77: sum WRONG'
      END IF
      CALL MPI_FINALIZE(IERR)
      END
