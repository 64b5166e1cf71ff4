! f_errh - errors seen from Fortran: with MPI_ERRORS_RETURN a bad rank, a
! bad count and a handle that names nothing come back as their error
! classes with messages naming the call; MPI_TAG_UB read as an attribute
! value; with the default handler (fatal) the job ends (TESTLIST runs that
! half with FATAL=1 and expects the failure).
program f_errh
  use mpi
  use ftestutil
  implicit none
  integer :: ierr, rank, size, cls, rlen, errh, bogus, code
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub
  logical :: flag
  character(len=MPI_MAX_ERROR_STRING) :: msg
  character(len=16) :: env

  test_name = 'f_errh'
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)

  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  call check(flag .and. tag_ub >= 32767, 'MPI_TAG_UB attribute value')

  call get_environment_variable('FATAL', env)
  if (env /= '1') then
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    call MPI_Comm_get_errhandler(MPI_COMM_WORLD, errh, ierr)
    call check(errh == MPI_ERRORS_RETURN, 'MPI_Comm_get_errhandler')
  end if

  call MPI_Send(rank, 1, MPI_INTEGER, size + 3, 0, MPI_COMM_WORLD, code)
  call check(code /= MPI_SUCCESS, 'a bad rank succeeded')
  call MPI_Error_class(code, cls, ierr)
  call check(cls == MPI_ERR_RANK, 'bad rank: class is not MPI_ERR_RANK')

  call MPI_Send(rank, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, code)
  call MPI_Error_class(code, cls, ierr)
  call check(cls == MPI_ERR_COUNT, 'bad count: class is not MPI_ERR_COUNT')
  call MPI_Error_string(code, msg, rlen, ierr)
  call check(index(msg, 'MPI_Send') > 0 .and. index(msg, 'count=-1') > 0, &
             'message names the call and the argument: ' // trim(msg))
  call check(rlen == len_trim(msg), 'resultlen')

  bogus = 12345
  call MPI_Barrier(bogus, code)
  call MPI_Error_class(code, cls, ierr)
  call check(cls == MPI_ERR_COMM, 'a Fortran handle naming nothing: class is not MPI_ERR_COMM')
  call MPI_Finalize(ierr)
end program f_errh
