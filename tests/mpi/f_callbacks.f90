! f_callbacks - user callbacks written in Fortran (use mpi), called by the
! library with Fortran's conventions:
!   - communicator and window error handlers: an error (a send to a rank
!     that does not exist, a put to one) and MPI_*_call_errhandler reach
!     the handler with the object's INTEGER handle and the error code the
!     call then returns; a dup inherits the handler and reports itself;
!   - communicator, datatype and window keyvals: copy callbacks run on
!     MPI_Comm_dup / MPI_Type_dup with the old handle, keyval, extra_state
!     and value (INTEGER(KIND=MPI_ADDRESS_KIND), all 64 bits) and their
!     result and flag decide the copy; delete callbacks run on free,
!     delete and replace with the value; a copy callback's ierror fails
!     the dup; the predefined MPI_*_NULL_COPY_FN, _DUP_FN, _NULL_DELETE_FN;
!   - generalized requests: query_fn fills the status MPI_Wait returns
!     (source, tag, count, cancelled), free_fn runs once after it (or from
!     MPI_Grequest_complete after MPI_Request_free), cancel_fn gets
!     .FALSE. / .TRUE. for complete; each sees the program's extra_state.
module f_callbacks_fns
  use mpi
  implicit none
  integer :: nerrh = 0, errh_obj = -1, errh_code = -1
  integer :: ncopy = 0, ndelete = 0, copy_obj = -1, copy_key = -1, delete_obj = -1, delete_key = -1
  integer(kind=MPI_ADDRESS_KIND) :: copy_extra = -1, copy_in = -1, delete_extra = -1, delete_val = -1
  character(len=200) :: glog = ''  ! ' Q1 F1 ...': which ran, in order
contains
  subroutine comm_handler(comm, code)
    integer :: comm, code
    nerrh = nerrh + 1
    errh_obj = comm
    errh_code = code
  end subroutine comm_handler

  subroutine win_handler(win, code)
    integer :: win, code
    nerrh = nerrh + 1
    errh_obj = win
    errh_code = code
  end subroutine win_handler

  ! Copies value + 1; a value of -1 fails with MPI_ERR_OTHER, -2 is not copied.
  subroutine copy_fn(old, keyval, extra_state, val_in, val_out, flag, ierror)
    integer :: old, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
    logical :: flag
    ncopy = ncopy + 1
    copy_obj = old
    copy_key = keyval
    copy_extra = extra_state
    copy_in = val_in
    ierror = MPI_SUCCESS
    flag = val_in /= -2
    val_out = val_in + 1
    if (val_in == -1) ierror = MPI_ERR_OTHER
  end subroutine copy_fn

  subroutine delete_fn(obj, keyval, val, extra_state, ierror)
    integer :: obj, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra_state
    ndelete = ndelete + 1
    delete_obj = obj
    delete_key = keyval
    delete_val = val
    delete_extra = extra_state
    ierror = MPI_SUCCESS
  end subroutine delete_fn

  ! Generalized requests: extra_state is the request's number.
  subroutine query_fn(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: status(MPI_STATUS_SIZE), ierror, ierr
    glog = trim(glog) // ' Q' // achar(48 + int(extra_state))
    status(MPI_SOURCE) = 100 + int(extra_state)
    status(MPI_TAG) = 200 + int(extra_state)
    call MPI_Status_set_elements(status, MPI_INTEGER, int(extra_state) + 1, ierr)
    call MPI_Status_set_cancelled(status, index(glog, 'C' // achar(48 + int(extra_state))) > 0, ierr)
    ierror = MPI_SUCCESS
  end subroutine query_fn

  subroutine free_fn(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    glog = trim(glog) // ' F' // achar(48 + int(extra_state))
    ierror = MPI_SUCCESS
  end subroutine free_fn

  subroutine cancel_fn(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    glog = trim(glog) // ' C' // achar(48 + int(extra_state)) // ':' // merge('T', 'F', complete)
    ierror = MPI_SUCCESS
  end subroutine cancel_fn
end module f_callbacks_fns

program f_callbacks
  use mpi
  use ftestutil
  use f_callbacks_fns
  implicit none
  integer :: ierr, rank, nproc, cls, errh, errh2, got, dup, c1, c2, t, t2, win, code
  integer :: key, nkey, dkey, tkey, wkey, req, status(MPI_STATUS_SIZE), count
  integer :: winbuf(2)
  integer(kind=MPI_ADDRESS_KIND) :: val, big
  logical :: flag

  test_name = 'f_callbacks'
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)

  ! --- communicator error handler ----------------------------------------------
  call MPI_Comm_dup(MPI_COMM_WORLD, c1, ierr)
  call MPI_Comm_create_errhandler(comm_handler, errh, ierr)
  call check_ok(ierr, 'MPI_Comm_create_errhandler')
  call MPI_Comm_set_errhandler(c1, errh, ierr)
  call MPI_Comm_get_errhandler(c1, errh2, ierr)
  call check(errh2 == errh, 'MPI_Comm_get_errhandler gives the handler back')
  call MPI_Errhandler_free(errh2, ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, nproc + 3, 0, c1, code)
  call check(nerrh == 1, 'the handler ran once for a bad rank')
  call check(errh_obj == c1, 'the handler got the communicator')
  call check(errh_code == code .and. code /= MPI_SUCCESS, 'the handler got the code the call returned')
  call MPI_Error_class(code, cls, ierr)
  call check(cls == MPI_ERR_RANK, 'the code is of class MPI_ERR_RANK')
  call MPI_Comm_call_errhandler(c1, MPI_ERR_TAG, ierr)
  call check(nerrh == 2 .and. errh_obj == c1 .and. errh_code == MPI_ERR_TAG, &
             'MPI_Comm_call_errhandler reaches the handler with the code')
  call MPI_Comm_dup(c1, dup, ierr)
  call MPI_Recv(got, 1, MPI_INTEGER, 0, -5, dup, MPI_STATUS_IGNORE, code)
  call check(nerrh == 3 .and. errh_obj == dup .and. errh_code == code, &
             'a dup inherits the handler, which gets the dup')
  call MPI_Error_class(code, cls, ierr)
  call check(cls == MPI_ERR_TAG, 'bad tag: class MPI_ERR_TAG')
  call MPI_Comm_free(dup, ierr)
  call MPI_Errhandler_free(errh, ierr)
  call check(errh == MPI_ERRHANDLER_NULL, 'freed handler handle')
  call MPI_Send(rank, 1, MPI_INTEGER, nproc + 3, 0, c1, code)
  call check(nerrh == 4 .and. errh_obj == c1, 'the communicator keeps its freed handler')
  call MPI_Comm_set_errhandler(c1, MPI_ERRORS_RETURN, ierr)

  ! --- window error handler ---------------------------------------------------------
  winbuf = 0
  call MPI_Win_create(winbuf, 8_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, c1, win, ierr)
  call MPI_Win_create_errhandler(win_handler, errh, ierr)
  call check_ok(ierr, 'MPI_Win_create_errhandler')
  call MPI_Win_set_errhandler(win, errh, ierr)
  call MPI_Errhandler_free(errh, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Put(rank, 1, MPI_INTEGER, nproc + 1, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, code)
  call check(nerrh == 5 .and. errh_obj == win .and. errh_code == code, &
             'the window handler got the window and the code')
  call MPI_Error_class(code, cls, ierr)
  call check(cls == MPI_ERR_RANK, 'put to a bad rank: MPI_ERR_RANK')
  call MPI_Win_call_errhandler(win, MPI_ERR_COUNT, ierr)
  call check(nerrh == 6 .and. errh_obj == win .and. errh_code == MPI_ERR_COUNT, &
             'MPI_Win_call_errhandler')
  call MPI_Win_fence(0, win, ierr)

  ! --- window keyval: delete at MPI_Win_free ------------------------------------------
  call MPI_Win_create_keyval(copy_fn, delete_fn, wkey, 55_MPI_ADDRESS_KIND, ierr)
  call check_ok(ierr, 'MPI_Win_create_keyval')
  call MPI_Win_set_attr(win, wkey, 5_MPI_ADDRESS_KIND, ierr)
  call MPI_Win_get_attr(win, wkey, val, flag, ierr)
  call check(flag .and. val == 5, 'window attribute value')
  call MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, nkey, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Win_set_attr(win, nkey, 6_MPI_ADDRESS_KIND, ierr)
  code = win
  call MPI_Win_free(win, ierr)
  call check(ndelete == 1 .and. delete_obj == code .and. delete_key == wkey .and. delete_val == 5 &
             .and. delete_extra == 55, 'the window delete callback ran at MPI_Win_free')
  call MPI_Win_free_keyval(wkey, ierr)
  call MPI_Win_free_keyval(nkey, ierr)

  ! --- communicator keyvals -------------------------------------------------------------
  big = 2_MPI_ADDRESS_KIND**40 + 7
  call MPI_Comm_create_keyval(copy_fn, delete_fn, key, big, ierr)
  call check_ok(ierr, 'MPI_Comm_create_keyval')
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, nkey, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, dkey, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(c1, key, 42_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(c1, nkey, 1_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(c1, dkey, big, ierr)
  ndelete = 0
  call MPI_Comm_dup(c1, c2, ierr)
  call check_ok(ierr, 'MPI_Comm_dup')
  call check(ncopy == 1 .and. copy_obj == c1 .and. copy_key == key .and. copy_extra == big &
             .and. copy_in == 42, 'the copy callback got the old comm, keyval, extra_state and value')
  call MPI_Comm_get_attr(c2, key, val, flag, ierr)
  call check(flag .and. val == 43, 'the copy callback''s value')
  call MPI_Comm_get_attr(c2, nkey, val, flag, ierr)
  call check(.not. flag, 'MPI_COMM_NULL_COPY_FN copies nothing')
  call MPI_Comm_get_attr(c2, dkey, val, flag, ierr)
  call check(flag .and. val == big, 'MPI_COMM_DUP_FN copies all 64 bits')
  code = c2
  call MPI_Comm_free(c2, ierr)
  call check(ndelete == 1 .and. delete_obj == code .and. delete_key == key .and. delete_val == 43 &
             .and. delete_extra == big, 'the delete callback ran at MPI_Comm_free')
  call MPI_Comm_set_attr(c1, key, 50_MPI_ADDRESS_KIND, ierr)
  call check(ndelete == 2 .and. delete_obj == c1 .and. delete_val == 42, &
             'replacing a value deletes the old one')
  call MPI_Comm_set_attr(c1, key, -2_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(c1, c2, ierr)
  call MPI_Comm_get_attr(c2, key, val, flag, ierr)
  call check(.not. flag, 'flag .FALSE. from the copy callback: no attribute')
  call MPI_Comm_free(c2, ierr)
  ! A copy callback's error fails the dup.
  call MPI_Comm_set_attr(c1, key, -1_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(c1, c2, code)
  call MPI_Error_class(code, cls, ierr)
  call check(cls == MPI_ERR_OTHER, 'a copy callback''s ierror fails MPI_Comm_dup')
  call MPI_Comm_delete_attr(c1, key, ierr)
  call check(delete_val == -1, 'MPI_Comm_delete_attr runs the delete callback')
  call MPI_Comm_free_keyval(key, ierr)
  call check(key == MPI_KEYVAL_INVALID, 'freed keyval')
  call MPI_Comm_free_keyval(nkey, ierr)
  call MPI_Comm_free_keyval(dkey, ierr)

  ! --- datatype keyvals ----------------------------------------------------------------
  ncopy = 0
  ndelete = 0
  call MPI_Type_contiguous(2, MPI_INTEGER, t, ierr)
  call MPI_Type_create_keyval(copy_fn, delete_fn, tkey, 9_MPI_ADDRESS_KIND, ierr)
  call check_ok(ierr, 'MPI_Type_create_keyval')
  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, dkey, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, nkey, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_set_attr(t, tkey, 99_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_set_attr(t, dkey, big, ierr)
  call MPI_Type_set_attr(t, nkey, 3_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_dup(t, t2, ierr)
  call check(ncopy == 1 .and. copy_obj == t .and. copy_key == tkey .and. copy_extra == 9 &
             .and. copy_in == 99, 'the type copy callback got the old type and value')
  call MPI_Type_get_attr(t2, tkey, val, flag, ierr)
  call check(flag .and. val == 100, 'the type copy callback''s value')
  call MPI_Type_get_attr(t2, dkey, val, flag, ierr)
  call check(flag .and. val == big, 'MPI_TYPE_DUP_FN')
  call MPI_Type_get_attr(t2, nkey, val, flag, ierr)
  call check(.not. flag, 'MPI_TYPE_NULL_COPY_FN')
  code = t2
  call MPI_Type_free(t2, ierr)
  call check(ndelete == 1 .and. delete_obj == code .and. delete_val == 100 .and. delete_extra == 9, &
             'the type delete callback ran at MPI_Type_free')
  call MPI_Type_free(t, ierr)
  call check(ndelete == 2 .and. delete_val == 99, 'and for the original')
  call MPI_Type_free_keyval(tkey, ierr)
  call MPI_Type_free_keyval(dkey, ierr)
  call MPI_Type_free_keyval(nkey, ierr)

  ! --- generalized requests ---------------------------------------------------------------
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, 1_MPI_ADDRESS_KIND, req, ierr)
  call check_ok(ierr, 'MPI_Grequest_start')
  call MPI_Test(req, flag, status, ierr)
  call check(.not. flag .and. glog == '', 'nothing before MPI_Grequest_complete')
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call check_ok(ierr, 'MPI_Wait')
  call check(glog == ' Q1 F1', 'MPI_Wait ran query_fn, then free_fn: ' // trim(glog))
  call check(req == MPI_REQUEST_NULL, 'the request is freed')
  call check(status(MPI_SOURCE) == 101 .and. status(MPI_TAG) == 201, 'the status query_fn made')
  call MPI_Get_count(status, MPI_INTEGER, count, ierr)
  call check(count == 2, 'the count query_fn set')
  call MPI_Test_cancelled(status, flag, ierr)
  call check(.not. flag, 'not cancelled')
  glog = ''
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, 2_MPI_ADDRESS_KIND, req, ierr)
  call MPI_Cancel(req, ierr)
  call MPI_Grequest_complete(req, ierr)
  call MPI_Cancel(req, ierr)
  call MPI_Wait(req, status, ierr)
  call check(glog == ' C2:F C2:T Q2 F2', 'cancel_fn gets complete, then query, free: ' // trim(glog))
  call MPI_Test_cancelled(status, flag, ierr)
  call check(flag, 'cancelled, as query_fn said')
  glog = ''
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, 3_MPI_ADDRESS_KIND, req, ierr)
  code = req
  call MPI_Request_free(req, ierr)
  call check(glog == '' .and. req == MPI_REQUEST_NULL, 'MPI_Request_free of an incomplete one')
  req = code
  call MPI_Grequest_complete(req, ierr)
  call check(glog == ' F3', 'free_fn runs from MPI_Grequest_complete: ' // trim(glog))

  call MPI_Comm_free(c1, ierr)
  call MPI_Finalize(ierr)
end program f_callbacks
