! f08_callbacks - Fortran callbacks through mpi_f08: module procedures with
! the standard's abstract interfaces (TYPE(MPI_Comm), TYPE(MPI_Win),
! TYPE(MPI_Datatype), TYPE(MPI_Status) arguments; the compiler checks them
! against the module's interfaces), ierror left out of the calls:
!   - communicator and window error handlers get the handle and the code
!     of a real error and of MPI_*_call_errhandler;
!   - communicator, datatype and window keyvals: copy on dup with the old
!     handle, keyval, extra_state and value, delete on free; the
!     predefined MPI_COMM_DUP_FN, MPI_TYPE_NULL_COPY_FN, ... from mpi_f08;
!   - a generalized request whose query_fn fills the TYPE(MPI_Status)
!     MPI_Wait returns, then free_fn; cancel_fn with complete.
module f08_callbacks_fns
  use mpi_f08
  implicit none
  integer :: nerrh = 0, errh_code = -1, ncopy = 0, ndelete = 0, copy_key = -1, delete_key = -1
  type(MPI_Comm) :: errh_comm, copy_comm, delete_comm
  type(MPI_Win) :: errh_win, delete_win
  type(MPI_Datatype) :: copy_type, delete_type
  integer(kind=MPI_ADDRESS_KIND) :: copy_extra = -1, copy_in = -1, delete_val = -1
  integer(kind=MPI_ADDRESS_KIND) :: delete_extra = -1, greq_extra = -1
  character(len=100) :: glog = ''
contains
  subroutine comm_handler(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    nerrh = nerrh + 1
    errh_comm = comm
    errh_code = error_code
  end subroutine comm_handler

  subroutine win_handler(win, error_code)
    type(MPI_Win) :: win
    integer :: error_code
    nerrh = nerrh + 1
    errh_win = win
    errh_code = error_code
  end subroutine win_handler

  subroutine comm_copy(oldcomm, comm_keyval, extra_state, attribute_val_in, attribute_val_out, &
                       flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    ncopy = ncopy + 1
    copy_comm = oldcomm
    copy_key = comm_keyval
    copy_extra = extra_state
    copy_in = attribute_val_in
    attribute_val_out = attribute_val_in * 10
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine comm_copy

  subroutine comm_delete(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    ndelete = ndelete + 1
    delete_comm = comm
    delete_key = comm_keyval
    delete_val = attribute_val
    delete_extra = extra_state
    ierror = MPI_SUCCESS
  end subroutine comm_delete

  subroutine type_copy(oldtype, type_keyval, extra_state, attribute_val_in, attribute_val_out, &
                       flag, ierror)
    type(MPI_Datatype) :: oldtype
    integer :: type_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    ncopy = ncopy + 1
    copy_type = oldtype
    copy_key = type_keyval
    copy_extra = extra_state
    copy_in = attribute_val_in
    attribute_val_out = -attribute_val_in
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine type_copy

  subroutine type_delete(datatype, type_keyval, attribute_val, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer :: type_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    ndelete = ndelete + 1
    delete_type = datatype
    delete_key = type_keyval
    delete_val = attribute_val
    delete_extra = extra_state
    ierror = MPI_SUCCESS
  end subroutine type_delete

  subroutine win_delete(win, win_keyval, attribute_val, extra_state, ierror)
    type(MPI_Win) :: win
    integer :: win_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    ndelete = ndelete + 1
    delete_win = win
    delete_key = win_keyval
    delete_val = attribute_val
    delete_extra = extra_state
    ierror = MPI_SUCCESS
  end subroutine win_delete

  subroutine greq_query(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
    glog = trim(glog) // ' Q'
    status%MPI_SOURCE = int(extra_state)
    status%MPI_TAG = 7
    call MPI_Status_set_elements(status, MPI_DOUBLE_PRECISION, 3)
    call MPI_Status_set_cancelled(status, .false.)
    ierror = MPI_SUCCESS
  end subroutine greq_query

  subroutine greq_free(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    glog = trim(glog) // ' F'
    greq_extra = extra_state
    ierror = MPI_SUCCESS
  end subroutine greq_free

  subroutine greq_cancel(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    glog = trim(glog) // ' C' // merge('T', 'F', complete)
    greq_extra = extra_state
    ierror = MPI_SUCCESS
  end subroutine greq_cancel
end module f08_callbacks_fns

program f08_callbacks
  use mpi_f08
  use f08_callbacks_fns
  implicit none
  integer :: ierr, rank, nproc, cls, key, nkey, dkey, tkey, wkey, count
  type(MPI_Comm) :: c1, c2, old
  type(MPI_Errhandler) :: errh
  type(MPI_Win) :: win, oldwin
  type(MPI_Datatype) :: t, t2, oldt
  type(MPI_Request) :: req
  type(MPI_Status) :: status
  integer :: winbuf(2)
  integer(kind=MPI_ADDRESS_KIND) :: val
  logical :: flag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call MPI_Comm_dup(MPI_COMM_WORLD, c1)

  ! --- error handlers -------------------------------------------------------------
  call MPI_Comm_create_errhandler(comm_handler, errh)
  call MPI_Comm_set_errhandler(c1, errh)
  call MPI_Errhandler_free(errh)
  call check(errh == MPI_ERRHANDLER_NULL, 'freed handler')
  call MPI_Send(rank, 1, MPI_INTEGER, nproc + 2, 0, c1, ierr)
  call check(nerrh == 1 .and. errh_comm == c1 .and. errh_code == ierr, &
             'the handler got the communicator and the code')
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_RANK, 'MPI_ERR_RANK')
  call MPI_Comm_call_errhandler(c1, MPI_ERR_ARG)
  call check(nerrh == 2 .and. errh_code == MPI_ERR_ARG, 'MPI_Comm_call_errhandler')

  winbuf = 0
  call MPI_Win_create(winbuf, 8_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, c1, win)
  call MPI_Win_create_errhandler(win_handler, errh)
  call MPI_Win_set_errhandler(win, errh)
  call MPI_Errhandler_free(errh)
  call MPI_Win_fence(0, win)
  call MPI_Get(winbuf(2), 1, MPI_INTEGER, -7, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
  call check(nerrh == 3 .and. errh_win == win .and. errh_code == ierr, &
             'the window handler got the window and the code')
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_RANK, 'get from a bad rank: MPI_ERR_RANK')
  call MPI_Win_call_errhandler(win, MPI_ERR_OTHER)
  call check(nerrh == 4 .and. errh_win == win .and. errh_code == MPI_ERR_OTHER, &
             'MPI_Win_call_errhandler')
  call MPI_Win_fence(0, win)

  ! --- window keyval --------------------------------------------------------------
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, wkey, 3_MPI_ADDRESS_KIND)
  call MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, nkey, 0_MPI_ADDRESS_KIND)
  call MPI_Win_set_attr(win, wkey, 77_MPI_ADDRESS_KIND)
  call MPI_Win_set_attr(win, nkey, 78_MPI_ADDRESS_KIND)
  oldwin = win
  call MPI_Win_free(win)
  call check(ndelete == 1 .and. delete_win == oldwin .and. delete_val == 77 .and. &
             delete_key == wkey .and. delete_extra == 3, &
             'the window delete callback at MPI_Win_free')
  call MPI_Win_free_keyval(wkey)
  call MPI_Win_free_keyval(nkey)

  ! --- communicator keyvals ---------------------------------------------------------
  call MPI_Comm_create_keyval(comm_copy, comm_delete, key, 1234_MPI_ADDRESS_KIND)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, dkey, 0_MPI_ADDRESS_KIND)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, nkey, &
                              0_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(c1, key, 5_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(c1, dkey, 2_MPI_ADDRESS_KIND**50)
  call MPI_Comm_set_attr(c1, nkey, 1_MPI_ADDRESS_KIND)
  ndelete = 0
  call MPI_Comm_dup(c1, c2)
  call check(ncopy == 1 .and. copy_comm == c1 .and. copy_key == key .and. copy_extra == 1234 &
             .and. copy_in == 5, 'the copy callback''s arguments')
  call MPI_Comm_get_attr(c2, key, val, flag)
  call check(flag .and. val == 50, 'the copied value')
  call MPI_Comm_get_attr(c2, dkey, val, flag)
  call check(flag .and. val == 2_MPI_ADDRESS_KIND**50, 'MPI_COMM_DUP_FN')
  call MPI_Comm_get_attr(c2, nkey, val, flag)
  call check(.not. flag, 'MPI_COMM_NULL_COPY_FN')
  old = c2
  call MPI_Comm_free(c2)
  call check(ndelete == 1 .and. delete_comm == old .and. delete_val == 50 .and. &
             delete_key == key .and. delete_extra == 1234, &
             'the delete callback at MPI_Comm_free')
  call MPI_Comm_free_keyval(key)
  call MPI_Comm_free_keyval(dkey)
  call MPI_Comm_free_keyval(nkey)

  ! --- datatype keyvals ---------------------------------------------------------------
  ncopy = 0
  ndelete = 0
  call MPI_Type_contiguous(3, MPI_DOUBLE_PRECISION, t)
  call MPI_Type_create_keyval(type_copy, type_delete, tkey, 8_MPI_ADDRESS_KIND)
  call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, nkey, &
                              0_MPI_ADDRESS_KIND)
  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, dkey, 0_MPI_ADDRESS_KIND)
  call MPI_Type_set_attr(t, tkey, 21_MPI_ADDRESS_KIND)
  call MPI_Type_set_attr(t, nkey, 22_MPI_ADDRESS_KIND)
  call MPI_Type_set_attr(t, dkey, 23_MPI_ADDRESS_KIND)
  call MPI_Type_dup(t, t2)
  call check(ncopy == 1 .and. copy_type == t .and. copy_key == tkey .and. copy_extra == 8 &
             .and. copy_in == 21, 'the type copy callback''s arguments')
  call MPI_Type_get_attr(t2, tkey, val, flag)
  call check(flag .and. val == -21, 'the copied type value')
  call MPI_Type_get_attr(t2, nkey, val, flag)
  call check(.not. flag, 'MPI_TYPE_NULL_COPY_FN')
  call MPI_Type_get_attr(t2, dkey, val, flag)
  call check(flag .and. val == 23, 'MPI_TYPE_DUP_FN')
  oldt = t2
  call MPI_Type_free(t2)
  call check(ndelete == 1 .and. delete_type == oldt .and. delete_val == -21 .and. &
             delete_key == tkey .and. delete_extra == 8, &
             'the type delete callback at MPI_Type_free')
  call MPI_Type_free(t)
  call MPI_Type_free_keyval(tkey)
  call MPI_Type_free_keyval(nkey)
  call MPI_Type_free_keyval(dkey)

  ! --- a generalized request -----------------------------------------------------------
  call MPI_Grequest_start(greq_query, greq_free, greq_cancel, 40_MPI_ADDRESS_KIND + rank, req)
  call MPI_Cancel(req)
  call MPI_Grequest_complete(req)
  call MPI_Wait(req, status)
  call check(glog == ' CF Q F' .and. greq_extra == 40 + rank, 'cancel, query, free: ' // trim(glog))
  call check(req == MPI_REQUEST_NULL, 'request freed')
  call check(status%MPI_SOURCE == 40 + rank .and. status%MPI_TAG == 7, 'the status query made')
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, count)
  call check(count == 3, 'its count')
  call MPI_Test_cancelled(status, flag)
  call check(.not. flag, 'not cancelled')

  call MPI_Comm_free(c1)
  call MPI_Finalize()
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) return
    write (0, '(A,A,A,I0,A)') 'FAIL f08_callbacks: ', what, ' (rank ', rank, ')'
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine check
end program f08_callbacks
