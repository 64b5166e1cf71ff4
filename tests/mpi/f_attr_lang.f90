! f_attr_lang - attributes across C and Fortran (MPI-4.0 19.3.7), with
! the C half in f_attr_lang_c.c:
! - a value Fortran sets (MPI_Comm_set_attr, MPI_Attr_put) is read in C as
!   a pointer to that integer, and in Fortran as the integer;
! - a value C sets (a pointer) is read in Fortran as its address;
! - a C copy callback is given the pointer to a Fortran value, and a
!   Fortran copy callback (MPI_COMM_DUP_FN) makes a copy both read alike,
!   as does C's MPI_COMM_DUP_FN, also once the original is gone.
program f_attr_lang
  use mpi
  use ftestutil
  use, intrinsic :: iso_c_binding, only : c_int, c_intptr_t
  implicit none
  interface
    ! The C half (f_attr_lang_c.c); MPI_Fint is c_int, MPI_Aint c_intptr_t.
    subroutine c_read_aint(comm, keyval, value, flag) bind(C, name='c_read_aint')
      import :: c_int, c_intptr_t
      integer(c_int), value :: comm, keyval
      integer(c_intptr_t), intent(out) :: value
      integer(c_int), intent(out) :: flag
    end subroutine
    subroutine c_read_int(comm, keyval, value, flag) bind(C, name='c_read_int')
      import :: c_int
      integer(c_int), value :: comm, keyval
      integer(c_int), intent(out) :: value, flag
    end subroutine
    subroutine c_set_pointer(comm, keyval, address) bind(C, name='c_set_pointer')
      import :: c_int, c_intptr_t
      integer(c_int), value :: comm, keyval
      integer(c_intptr_t), intent(out) :: address
    end subroutine
    integer(c_int) function c_keyval_with_copy() bind(C, name='c_keyval_with_copy')
      import :: c_int
    end function
    integer(c_int) function c_keyval_dup_fn() bind(C, name='c_keyval_dup_fn')
      import :: c_int
    end function
    integer(c_intptr_t) function c_copy_saw() bind(C, name='c_copy_saw')
      import :: c_intptr_t
    end function
  end interface
  integer :: ierr, fkey, ckey, ckey2, ckey3, key1, dup, dup3, flag, ival
  integer(kind=MPI_ADDRESS_KIND) :: v, address
  logical :: found

  test_name = 'f_attr_lang'
  call MPI_Init(ierr)

  ! Fortran sets, C and Fortran read.
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, fkey, &
                              0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, fkey, 5555_MPI_ADDRESS_KIND, ierr)
  call c_read_aint(MPI_COMM_WORLD, fkey, v, flag)
  call check(flag == 1 .and. v == 5555, 'C reads a Fortran value through a pointer')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, fkey, v, found, ierr)
  call check(found .and. v == 5555, 'Fortran reads its own value')
  ! Set again: the new value, both ways.
  call MPI_Comm_set_attr(MPI_COMM_WORLD, fkey, -(2_MPI_ADDRESS_KIND**40), ierr)
  call c_read_aint(MPI_COMM_WORLD, fkey, v, flag)
  call check(flag == 1 .and. v == -(2_MPI_ADDRESS_KIND**40), 'C reads the value set again')

  ! MPI_COMM_DUP_FN copies it; the copy reads alike from both languages.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_get_attr(dup, fkey, v, found, ierr)
  call check(found .and. v == -(2_MPI_ADDRESS_KIND**40), 'Fortran reads the copy')
  call c_read_aint(dup, fkey, v, flag)
  call check(flag == 1 .and. v == -(2_MPI_ADDRESS_KIND**40), 'C reads the copy')

  ! MPI-1: an INTEGER, read in C as a pointer to int.
  call MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, key1, 0, ierr)
  call MPI_Attr_put(dup, key1, -5, ierr)
  call c_read_int(dup, key1, ival, flag)
  call check(flag == 1 .and. ival == -5, 'C reads an MPI_Attr_put value as an int')
  call c_read_aint(dup, key1, v, flag)
  call check(flag == 1 .and. v == -5, 'and as an MPI_Aint, sign-extended')
  call MPI_Attr_get(dup, key1, ival, found, ierr)
  call check(found .and. ival == -5, 'MPI_Attr_get reads it back')

  ! C sets a pointer; Fortran reads the address.
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, ckey, &
                              0_MPI_ADDRESS_KIND, ierr)
  call c_set_pointer(dup, ckey, address)
  call MPI_Comm_get_attr(dup, ckey, v, found, ierr)
  call check(found .and. v == address .and. address /= 0, 'Fortran reads a C pointer as its address')

  ! A C copy callback on a Fortran value is given the pointer to it.
  ckey2 = c_keyval_with_copy()
  call MPI_Comm_set_attr(dup, ckey2, 77_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_set_attr(dup, ckey2, 78_MPI_ADDRESS_KIND, ierr)
  block
    integer :: dup2
    call MPI_Comm_dup(dup, dup2, ierr)
    call check(c_copy_saw() == 78, 'a C copy callback dereferences the Fortran value')
    call MPI_Comm_free(dup2, ierr)
  end block

  ! C's MPI_COMM_DUP_FN passes the pointer on: the copy keeps the integer.
  ckey3 = c_keyval_dup_fn()
  call MPI_Comm_set_attr(dup, ckey3, 91_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(dup, dup3, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_get_attr(dup3, ckey3, v, found, ierr)
  call check(found .and. v == 91, 'Fortran reads what C''s MPI_COMM_DUP_FN copied')
  call c_read_aint(dup3, ckey3, v, flag)
  call check(flag == 1 .and. v == 91, 'C reads it, the original freed')
  call MPI_Comm_free(dup3, ierr)
  call MPI_Comm_free_keyval(ckey3, ierr)

  call MPI_Comm_delete_attr(MPI_COMM_WORLD, fkey, ierr)
  call MPI_Comm_free_keyval(fkey, ierr)
  call MPI_Comm_free_keyval(ckey, ierr)
  call MPI_Comm_free_keyval(ckey2, ierr)
  call MPI_Keyval_free(key1, ierr)
  call MPI_Finalize(ierr)
end program f_attr_lang
