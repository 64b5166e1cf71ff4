! fortran_only.f90 - the two procedures the standard has in Fortran only
! (MPI-4.0 19.1.9 and 19.1.17), offered by both modules (mpif.h programs
! call MPI_F_SYNC_REG through its external name).
!
! MPI_Sizeof: the bytes of one element of x, for every type and kind
! gfortran has on this target; a DIMENSION(..) dummy takes a scalar or an
! array of any rank.  ierror is OPTIONAL, as mpi_f08 asks (`use mpi`
! programs pass it).
!
! MPI_F_sync_reg: an external procedure the compiler cannot see into
! (src/fortran/special.c), so a buffer passed to it is taken as read and
! written there: registers holding it are stored before and loaded after.
module fabmpi_fortran_only
  implicit none
  private
  public :: MPI_Sizeof, MPI_F_sync_reg
  interface MPI_Sizeof
    module procedure fm_sizeof_integer1, fm_sizeof_integer2, fm_sizeof_integer4, &
        fm_sizeof_integer8, fm_sizeof_integer16, fm_sizeof_real4, &
        fm_sizeof_real8, fm_sizeof_real10, fm_sizeof_real16, &
        fm_sizeof_complex4, fm_sizeof_complex8, fm_sizeof_complex10, &
        fm_sizeof_complex16, fm_sizeof_logical1, fm_sizeof_logical2, &
        fm_sizeof_logical4, fm_sizeof_logical8
  end interface MPI_Sizeof
  interface
    subroutine MPI_F_sync_reg(buf)
      implicit none
!GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
    end subroutine MPI_F_sync_reg
  end interface
contains
  subroutine fm_sizeof_integer1(x, size, ierror)
    integer(1), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_integer1
  subroutine fm_sizeof_integer2(x, size, ierror)
    integer(2), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_integer2
  subroutine fm_sizeof_integer4(x, size, ierror)
    integer(4), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_integer4
  subroutine fm_sizeof_integer8(x, size, ierror)
    integer(8), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_integer8
  subroutine fm_sizeof_integer16(x, size, ierror)
    integer(16), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_integer16
  subroutine fm_sizeof_real4(x, size, ierror)
    real(4), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_real4
  subroutine fm_sizeof_real8(x, size, ierror)
    real(8), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_real8
  subroutine fm_sizeof_real10(x, size, ierror)
    real(10), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_real10
  subroutine fm_sizeof_real16(x, size, ierror)
    real(16), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_real16
  subroutine fm_sizeof_complex4(x, size, ierror)
    complex(4), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_complex4
  subroutine fm_sizeof_complex8(x, size, ierror)
    complex(8), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_complex8
  subroutine fm_sizeof_complex10(x, size, ierror)
    complex(10), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_complex10
  subroutine fm_sizeof_complex16(x, size, ierror)
    complex(16), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_complex16
  subroutine fm_sizeof_logical1(x, size, ierror)
    logical(1), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_logical1
  subroutine fm_sizeof_logical2(x, size, ierror)
    logical(2), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_logical2
  subroutine fm_sizeof_logical4(x, size, ierror)
    logical(4), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_logical4
  subroutine fm_sizeof_logical8(x, size, ierror)
    logical(8), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = 0
  end subroutine fm_sizeof_logical8
end module fabmpi_fortran_only
