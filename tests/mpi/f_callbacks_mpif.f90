! f_callbacks_mpif - Fortran callbacks through mpif.h (no interfaces: the
! callbacks are external subroutines): MPI-1 keyvals from MPI_Keyval_create
! with MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN and with the
! program's INTEGER-valued copy and delete callbacks (MPI_Attr_put /
! MPI_Attr_get, negative values kept), an MPI-2 keyval with
! MPI_COMM_DUP_FN, and a communicator error handler that receives the
! communicator and the code of a send to a rank that does not exist.
module f_callbacks_mpif_state
  implicit none
  integer :: ncopy = 0, ndelete = 0, nerrh = 0
  integer :: last_obj = -1, last_key = -1, last_extra = -1, last_val = -1, last_code = -1
end module f_callbacks_mpif_state

program f_callbacks_mpif
  use f_callbacks_mpif_state
  implicit none
  include 'mpif.h'
  external copy1, delete1, handler
  integer :: ierr, rank, nproc, c1, c2, k1, k2, k3, key, errh, code, cls, val, old
  integer(kind=MPI_ADDRESS_KIND) :: aval
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, c1, ierr)

  call MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, k1, 0, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Keyval_create with MPI_NULL_COPY_FN')
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, k2, 0, ierr)
  call MPI_Keyval_create(copy1, delete1, k3, 17, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Keyval_create with the program''s callbacks')
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Attr_put(c1, k1, 11, ierr)
  call MPI_Attr_put(c1, k2, -22, ierr)
  call MPI_Attr_put(c1, k3, 33, ierr)
  call MPI_Comm_set_attr(c1, key, -(2_MPI_ADDRESS_KIND**35), ierr)

  call MPI_Comm_dup(c1, c2, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Comm_dup')
  call MPI_Attr_get(c2, k1, val, flag, ierr)
  call check(.not. flag, 'MPI_NULL_COPY_FN copies nothing')
  call MPI_Attr_get(c2, k2, val, flag, ierr)
  call check(flag .and. val == -22, 'MPI_DUP_FN copies the INTEGER value')
  call check(ncopy == 1 .and. last_obj == c1 .and. last_key == k3 .and. last_extra == 17 &
             .and. last_val == 33, 'the copy callback got comm, keyval, extra_state and value')
  call MPI_Attr_get(c2, k3, val, flag, ierr)
  call check(flag .and. val == 66, 'the copy callback''s value')
  call MPI_Comm_get_attr(c2, key, aval, flag, ierr)
  call check(flag .and. aval == -(2_MPI_ADDRESS_KIND**35), 'MPI_COMM_DUP_FN through mpif.h')

  old = c2
  call MPI_Comm_free(c2, ierr)
  call check(ndelete == 1 .and. last_obj == old .and. last_key == k3 .and. last_val == 66 &
             .and. last_extra == 17, 'the delete callback ran at MPI_Comm_free')
  call MPI_Attr_delete(c1, k3, ierr)
  call check(ndelete == 2 .and. last_obj == c1 .and. last_val == 33, 'MPI_Attr_delete')
  call MPI_Keyval_free(k1, ierr)
  call MPI_Keyval_free(k2, ierr)
  call MPI_Keyval_free(k3, ierr)
  call check(k3 == MPI_KEYVAL_INVALID, 'freed keyval')
  call MPI_Comm_free_keyval(key, ierr)

  call MPI_Comm_create_errhandler(handler, errh, ierr)
  call MPI_Comm_set_errhandler(c1, errh, ierr)
  call MPI_Errhandler_free(errh, ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, nproc, 0, c1, code)
  call check(nerrh == 1 .and. last_obj == c1 .and. last_code == code, &
             'the error handler got the communicator and the code')
  call MPI_Error_class(code, cls, ierr)
  call check(cls == MPI_ERR_RANK, 'MPI_ERR_RANK')
  call MPI_Comm_free(c1, ierr)
  call MPI_Finalize(ierr)
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (ok) return
    write (0, '(A,A,A,I0,A)') 'FAIL f_callbacks_mpif: ', what, ' (rank ', rank, ')'
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine check
end program f_callbacks_mpif

! MPI_Copy_function: doubles the value.
subroutine copy1(comm, keyval, extra_state, val_in, val_out, flag, ierr)
  use f_callbacks_mpif_state
  implicit none
  include 'mpif.h'
  integer :: comm, keyval, extra_state, val_in, val_out, ierr
  logical :: flag
  ncopy = ncopy + 1
  last_obj = comm
  last_key = keyval
  last_extra = extra_state
  last_val = val_in
  val_out = 2 * val_in
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine copy1

subroutine delete1(comm, keyval, val, extra_state, ierr)
  use f_callbacks_mpif_state
  implicit none
  include 'mpif.h'
  integer :: comm, keyval, val, extra_state, ierr
  ndelete = ndelete + 1
  last_obj = comm
  last_key = keyval
  last_val = val
  last_extra = extra_state
  ierr = MPI_SUCCESS
end subroutine delete1

subroutine handler(comm, code)
  use f_callbacks_mpif_state
  implicit none
  integer :: comm, code
  nerrh = nerrh + 1
  last_obj = comm
  last_code = code
end subroutine handler
