! status_type.f90 - TYPE(MPI_Status), defined once for both modules: the
! mpi_f08 status, which `use mpi` offers too (MPI_Status_f2f08 and
! MPI_Status_f082f convert between it and the INTEGER status), so a status
! declared through either module is the same type.  Its layout is the
! INTEGER status's (C's MPI_F08_status and MPI_Status alike).
module fabmpi_status
  use, intrinsic :: iso_c_binding, only : c_int
  implicit none
  private
  public :: MPI_Status
  ! MPI_SOURCE, MPI_TAG, MPI_ERROR, then the library's (cancelled flag and
  ! received byte count).
  type, bind(C) :: MPI_Status
    integer(c_int) :: MPI_SOURCE, MPI_TAG, MPI_ERROR
    integer(c_int) :: fm_internal(3)
  end type MPI_Status
end module fabmpi_status
