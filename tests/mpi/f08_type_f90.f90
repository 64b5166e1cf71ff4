! f08_type_f90 - MPI_Type_create_f90_* through mpi_f08: TYPE(MPI_Datatype)
! handles of kinds chosen with SELECTED_INT_KIND / SELECTED_REAL_KIND carry
! those kinds around the ring and sum exactly (the extended kind's low
! bits too); the envelope and contents; the same handle for the same
! arguments; MPI_Type_free refused; MPI_ERR_ARG where no kind exists.
program f08_type_f90
  use mpi_f08
  implicit none
  integer, parameter :: ik = selected_int_kind(12), rk = selected_real_kind(15, 300)
  integer, parameter :: xk = selected_real_kind(p=17), ck = selected_real_kind(5)
  integer, parameter :: n = 4
  integer :: ierr, rank, nproc, left, right, i, cls, ni, na, nd, comb, ints(2), sz
  integer(kind=MPI_ADDRESS_KIND) :: addrs(1)
  type(MPI_Datatype) :: ti, tr, tx, tz, again, dts(1)
  integer(kind=ik) :: ai(n), bi(n), si(n)
  real(kind=rk) :: ar(n), br(n), sr(n)
  real(kind=xk) :: ax(n), bx(n), sx(n), tinyx
  complex(kind=ck) :: az(n), bz(n), sz_(n)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)

  call MPI_Type_create_f90_integer(range(ai), ti, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Type_create_f90_integer')
  call MPI_Type_create_f90_real(precision(ar), range(ar), tr)
  call MPI_Type_create_f90_real(17, MPI_UNDEFINED, tx)
  call MPI_Type_create_f90_complex(5, MPI_UNDEFINED, tz)
  call MPI_Type_size(ti, sz)
  call check(sz == storage_size(ai) / 8, 'integer size')
  call MPI_Type_size(tr, sz)
  call check(sz == storage_size(ar) / 8, 'real size')
  call MPI_Type_size(tx, sz)
  call check(sz == storage_size(ax) / 8, 'extended real size')
  call MPI_Type_size(tz, sz)
  call check(sz == storage_size(az) / 8, 'complex size')

  call MPI_Type_get_envelope(tr, ni, na, nd, comb)
  call check(comb == MPI_COMBINER_F90_REAL .and. ni == 2 .and. na == 0 .and. nd == 0, 'envelope')
  call MPI_Type_get_contents(tr, 2, 0, 0, ints, addrs, dts)
  call check(ints(1) == precision(ar) .and. ints(2) == range(ar), 'contents (p, r)')
  call MPI_Type_get_envelope(ti, ni, na, nd, comb)
  call check(comb == MPI_COMBINER_F90_INTEGER .and. ni == 1, 'integer envelope')
  call MPI_Type_create_f90_real(precision(ar), range(ar), again)
  call check(again == tr, 'the same handle for the same (p, r)')
  call MPI_Type_create_f90_real(precision(ar), MPI_UNDEFINED, again)
  call check(again /= tr, 'another handle for another (p, r)')
  call MPI_Type_free(again, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_TYPE .and. again /= MPI_DATATYPE_NULL, 'MPI_Type_free refuses it')
  call MPI_Type_create_f90_real(40, MPI_UNDEFINED, again, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_ARG, 'p=40 has no kind')

  ai = [(int(rank, ik) * 2_ik**36 + i, i = 1, n)]
  call MPI_Sendrecv(ai, n, ti, right, 1, bi, n, ti, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Allreduce(ai, si, n, ti, MPI_SUM, MPI_COMM_WORLD)
  call check(all(bi == [(int(left, ik) * 2_ik**36 + i, i = 1, n)]), 'integer ring')
  call check(all(si == [(int(nproc * (nproc - 1) / 2, ik) * 2_ik**36 + nproc * i, i = 1, n)]), &
             'integer sum')

  ar = [(rank + 0.5_rk * i, i = 1, n)]
  call MPI_Sendrecv(ar, n, tr, right, 2, br, n, tr, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Allreduce(ar, sr, n, tr, MPI_SUM, MPI_COMM_WORLD)
  call check(all(br == [(left + 0.5_rk * i, i = 1, n)]), 'real ring')
  call check(all(sr == [(nproc * (nproc - 1) / 2 + 0.5_rk * i * nproc, i = 1, n)]), 'real sum')

  ! Exact in the extended kind's 64 bits, not in a double's 53.
  tinyx = 2.0_xk**(-58)
  ax = [(1.0_xk + 0.5_xk * i + (rank + 1) * tinyx, i = 1, n)]
  call MPI_Sendrecv(ax, n, tx, right, 3, bx, n, tx, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Allreduce(ax, sx, n, tx, MPI_SUM, MPI_COMM_WORLD)
  call check(all(bx == [(1.0_xk + 0.5_xk * i + (left + 1) * tinyx, i = 1, n)]), 'extended ring')
  call check(all(sx == [(nproc * (1.0_xk + 0.5_xk * i) + (nproc * (nproc + 1) / 2) * tinyx, &
                         i = 1, n)]), 'extended sum')

  az = [(cmplx(rank, i, ck), i = 1, n)]
  call MPI_Sendrecv(az, n, tz, right, 4, bz, n, tz, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Allreduce(az, sz_, n, tz, MPI_SUM, MPI_COMM_WORLD)
  call check(all(bz == [(cmplx(left, i, ck), i = 1, n)]), 'complex ring')
  call check(all(sz_ == [(cmplx(nproc * (nproc - 1) / 2, i * nproc, ck), i = 1, n)]), 'complex sum')

  call MPI_Finalize()
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) return
    write (0, '(A,A,A,I0,A)') 'FAIL f08_type_f90: ', what, ' (rank ', rank, ')'
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine check
end program f08_type_f90
