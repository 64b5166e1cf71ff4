! ftestutil.f90 - checks for the Fortran MPI test programs, as testutil.h
! for C: a failed check prints "FAIL <test>: <what> (rank r)" to stderr and
! aborts the job.
module ftestutil
  use mpi
  implicit none
  character(len=32) :: test_name = '?'
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: rank, ierr
    if (ok) return
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    write (0, '(A,A,A,A,A,I0,A)') 'FAIL ', trim(test_name), ': ', what, ' (rank ', rank, ')'
    flush (0)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine check

  subroutine check_ok(ierr, what)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: what
    call check(ierr == MPI_SUCCESS, what // ' did not return MPI_SUCCESS')
  end subroutine check_ok
end module ftestutil
