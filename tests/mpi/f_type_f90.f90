! f_type_f90 - MPI_Type_create_f90_integer, _real and _complex from Fortran
! (use mpi): for every r and (p, r) of a sweep, the type's size is that of
! the kind SELECTED_INT_KIND / SELECTED_REAL_KIND give (and MPI_ERR_ARG
! where they give none); then data of kinds chosen that way goes around
! the ring with the returned types and is summed exactly, also the
! extended (p=18) and quad (p=30) kinds, whose sums a wrong layout spoils.
program f_type_f90
  use mpi
  use ftestutil
  implicit none
  integer, parameter :: i1 = selected_int_kind(2), i2 = selected_int_kind(4)
  integer, parameter :: i8 = selected_int_kind(15), i16 = selected_int_kind(30)
  integer, parameter :: r4 = selected_real_kind(6, 37), r8 = selected_real_kind(12)
  integer, parameter :: rx = selected_real_kind(18), rq = selected_real_kind(30)
  integer, parameter :: n = 5
  integer :: ierr, ierr2, rank, nproc, left, right, i, p, r, k, t, tc, sz, cls, ip, ri
  integer :: ranksum, t1, t2, t8, t16, tr4, tr8, trx, trq, tc8, tcx
  integer :: ni, na, nd, comb, ints(2), dts(1), ps(39), rs(11)
  integer(kind=MPI_ADDRESS_KIND) :: addrs(1)
  integer(kind=i1) :: a1(n), b1(n), s1(n)
  integer(kind=i2) :: a2(n), b2(n), s2(n)
  integer(kind=i8) :: a8(n), b8(n), s8(n)
  integer(kind=i16) :: a16(n), b16(n), s16(n)
  real(kind=r4) :: ar4(n), br4(n), sr4(n)
  real(kind=r8) :: ar8(n), br8(n), sr8(n)
  real(kind=rx) :: arx(n), brx(n), srx(n), tinyx
  real(kind=rq) :: arq(n), brq(n), srq(n), tinyq
  complex(kind=r8) :: ac8(n), bc8(n), sc8(n)
  complex(kind=rx) :: acx(n), bcx(n), scx(n)

  test_name = 'f_type_f90'
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)
  ranksum = nproc * (nproc - 1) / 2

  ! --- the kinds, against the compiler's own choice -------------------------
  do r = -1, 40
    k = selected_int_kind(r)
    call MPI_Type_create_f90_integer(r, t, ierr)
    if (k < 0) then
      call MPI_Error_class(ierr, cls, ierr2)
      call check(cls == MPI_ERR_ARG, 'integer without a kind: MPI_ERR_ARG')
    else
      call check_ok(ierr, 'MPI_Type_create_f90_integer')
      call MPI_Type_size(t, sz, ierr)
      call check(sz == int_bytes(k), 'integer size is the kind''s')
      call MPI_Type_get_envelope(t, ni, na, nd, comb, ierr)
      call check(comb == MPI_COMBINER_F90_INTEGER .and. ni == 1 .and. na == 0 .and. nd == 0, &
                 'integer envelope')
      call MPI_Type_get_contents(t, 1, 0, 0, ints, addrs, dts, ierr)
      call check(ints(1) == r, 'integer contents are (r)')
    end if
  end do
  ps = [MPI_UNDEFINED, (i, i = -1, 36)]
  rs = [MPI_UNDEFINED, -1, 1, 30, 37, 38, 300, 307, 308, 4931, 4932]
  do ip = 1, size(ps)
    do ri = 1, size(rs)
      p = ps(ip)
      r = rs(ri)
      if (p == MPI_UNDEFINED .and. r == MPI_UNDEFINED) cycle
      if (p == MPI_UNDEFINED) then
        k = selected_real_kind(r=r)
      else if (r == MPI_UNDEFINED) then
        k = selected_real_kind(p=p)
      else
        k = selected_real_kind(p, r)
      end if
      call MPI_Type_create_f90_real(p, r, t, ierr)
      call MPI_Type_create_f90_complex(p, r, tc, ierr2)
      if (k < 0) then
        call check(ierr /= MPI_SUCCESS .and. ierr2 /= MPI_SUCCESS, 'a real without a kind succeeded')
        call MPI_Error_class(ierr, cls, ierr2)
        call check(cls == MPI_ERR_ARG, 'real without a kind: MPI_ERR_ARG')
      else
        call check_ok(ierr, 'MPI_Type_create_f90_real')
        call check_ok(ierr2, 'MPI_Type_create_f90_complex')
        call MPI_Type_size(t, sz, ierr)
        call check(sz == real_bytes(k), 'real size is the kind''s')
        call MPI_Type_size(tc, sz, ierr)
        call check(sz == 2 * real_bytes(k), 'complex size is twice the kind''s')
        call MPI_Type_get_envelope(tc, ni, na, nd, comb, ierr)
        call check(comb == MPI_COMBINER_F90_COMPLEX .and. ni == 2 .and. nd == 0, 'complex envelope')
        call MPI_Type_get_contents(tc, 2, 0, 0, ints, addrs, dts, ierr)
        call check(ints(1) == p .and. ints(2) == r, 'complex contents are (p, r)')
      end if
    end do
  end do
  ! Not freeable, and the same handle again.
  call MPI_Type_create_f90_real(precision(1.0_r8), range(1.0_r8), tr8, ierr)
  call MPI_Type_create_f90_real(precision(1.0_r8), range(1.0_r8), t, ierr)
  call check(t == tr8, 'the same (p, r) gives the same handle')
  call MPI_Type_free(t, ierr)
  call MPI_Error_class(ierr, cls, ierr2)
  call check(cls == MPI_ERR_TYPE .and. t == tr8, 'MPI_Type_free refuses it')

  ! --- data of those kinds ----------------------------------------------------
  call MPI_Type_create_f90_integer(2, t1, ierr)
  call MPI_Type_create_f90_integer(4, t2, ierr)
  call MPI_Type_create_f90_integer(15, t8, ierr)
  call MPI_Type_create_f90_integer(30, t16, ierr)
  call MPI_Type_create_f90_real(6, 37, tr4, ierr)
  call MPI_Type_create_f90_real(12, MPI_UNDEFINED, tr8, ierr)
  call MPI_Type_create_f90_real(18, MPI_UNDEFINED, trx, ierr)
  call MPI_Type_create_f90_real(30, MPI_UNDEFINED, trq, ierr)
  call MPI_Type_create_f90_complex(12, MPI_UNDEFINED, tc8, ierr)
  call MPI_Type_create_f90_complex(MPI_UNDEFINED, 4000, tcx, ierr)
  call check_ok(ierr, 'MPI_Type_create_f90_complex(MPI_UNDEFINED, 4000)')

  a1 = [(int(rank + i, i1), i = 1, n)]
  call MPI_Sendrecv(a1, n, t1, right, 1, b1, n, t1, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(a1, s1, n, t1, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(b1 == [(int(left + i, i1), i = 1, n)]), 'INTEGER(1) ring')
  call check(all(s1 == [(int(ranksum + nproc * i, i1), i = 1, n)]), 'INTEGER(1) sum')

  a2 = [(int(1000 * rank + i, i2), i = 1, n)]
  call MPI_Sendrecv(a2, n, t2, right, 2, b2, n, t2, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(a2, s2, n, t2, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(b2 == [(int(1000 * left + i, i2), i = 1, n)]), 'INTEGER(2) ring')
  call check(all(s2 == [(int(1000 * ranksum + nproc * i, i2), i = 1, n)]), 'INTEGER(2) sum')

  a8 = [(int(rank, i8) * 2_i8**40 + i, i = 1, n)]
  call MPI_Sendrecv(a8, n, t8, right, 3, b8, n, t8, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(a8, s8, n, t8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(b8 == [(int(left, i8) * 2_i8**40 + i, i = 1, n)]), 'INTEGER(8) ring')
  call check(all(s8 == [(int(ranksum, i8) * 2_i8**40 + nproc * i, i = 1, n)]), 'INTEGER(8) sum')

  a16 = [(int(rank, i16) * 2_i16**100 + i, i = 1, n)]
  call MPI_Sendrecv(a16, n, t16, right, 4, b16, n, t16, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(a16, s16, n, t16, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(b16 == [(int(left, i16) * 2_i16**100 + i, i = 1, n)]), 'INTEGER(16) ring')
  call check(all(s16 == [(int(ranksum, i16) * 2_i16**100 + nproc * i, i = 1, n)]), 'INTEGER(16) sum')

  ar4 = [(real(rank, r4) + 0.25_r4 * i, i = 1, n)]
  call MPI_Sendrecv(ar4, n, tr4, right, 5, br4, n, tr4, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(ar4, sr4, n, tr4, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(br4 == [(real(left, r4) + 0.25_r4 * i, i = 1, n)]), 'REAL(4) ring')
  call check(all(sr4 == [(real(ranksum, r4) + 0.25_r4 * i * nproc, i = 1, n)]), 'REAL(4) sum')

  ar8 = [(real(rank, r8) + 0.125_r8 * i, i = 1, n)]
  call MPI_Sendrecv(ar8, n, tr8, right, 6, br8, n, tr8, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(ar8, sr8, n, tr8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(br8 == [(real(left, r8) + 0.125_r8 * i, i = 1, n)]), 'REAL(8) ring')
  call check(all(sr8 == [(real(ranksum, r8) + 0.125_r8 * i * nproc, i = 1, n)]), 'REAL(8) sum')

  ! (rank + 1) * 2**-58 above a small number: exact in 64 bits of mantissa
  ! (every partial sum below 64 at up to 8 ranks), lost in a double's 53.
  tinyx = 2.0_rx**(-58)
  arx = [(1.0_rx + 0.5_rx * i + (rank + 1) * tinyx, i = 1, n)]
  call MPI_Sendrecv(arx, n, trx, right, 7, brx, n, trx, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(arx, srx, n, trx, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(brx == [(1.0_rx + 0.5_rx * i + (left + 1) * tinyx, i = 1, n)]), 'extended ring')
  call check(all(srx == [(nproc * (1.0_rx + 0.5_rx * i) + (nproc * (nproc + 1) / 2) * tinyx, &
                          i = 1, n)]), 'extended sum')

  tinyq = 2.0_rq**(-100)
  arq = [(1.0_rq + 0.5_rq * i + (rank + 1) * tinyq, i = 1, n)]
  call MPI_Sendrecv(arq, n, trq, right, 8, brq, n, trq, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(arq, srq, n, trq, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(brq == [(1.0_rq + 0.5_rq * i + (left + 1) * tinyq, i = 1, n)]), 'quad ring')
  call check(all(srq == [(nproc * (1.0_rq + 0.5_rq * i) + (nproc * (nproc + 1) / 2) * tinyq, &
                          i = 1, n)]), 'quad sum')

  ac8 = [(cmplx(rank, -i, r8), i = 1, n)]
  call MPI_Sendrecv(ac8, n, tc8, right, 9, bc8, n, tc8, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(ac8, sc8, n, tc8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(bc8 == [(cmplx(left, -i, r8), i = 1, n)]), 'COMPLEX(8) ring')
  call check(all(sc8 == [(cmplx(ranksum, -i * nproc, r8), i = 1, n)]), 'COMPLEX(8) sum')

  acx = [(cmplx((rank + 1) * tinyx, 1.0_rx * i, rx), i = 1, n)]
  call MPI_Sendrecv(acx, n, tcx, right, 10, bcx, n, tcx, left, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(acx, scx, n, tcx, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(bcx == [(cmplx((left + 1) * tinyx, 1.0_rx * i, rx), i = 1, n)]), 'extended complex ring')
  call check(all(scx == [(cmplx((nproc * (nproc + 1) / 2) * tinyx, 1.0_rx * i * nproc, rx), i = 1, n)]), &
             'extended complex sum')

  call MPI_Finalize(ierr)
contains
  ! Bytes of INTEGER(k) and REAL(k) for the kinds gfortran has.
  integer function int_bytes(k)
    integer, intent(in) :: k
    int_bytes = -1
    if (k == i1) int_bytes = storage_size(a1) / 8
    if (k == i2) int_bytes = storage_size(a2) / 8
    if (k == selected_int_kind(9)) int_bytes = storage_size(0) / 8
    if (k == i8) int_bytes = storage_size(a8) / 8
    if (k == i16) int_bytes = storage_size(a16) / 8
  end function int_bytes

  integer function real_bytes(k)
    integer, intent(in) :: k
    real_bytes = -1
    if (k == r4) real_bytes = storage_size(ar4) / 8
    if (k == r8) real_bytes = storage_size(ar8) / 8
    if (k == rx) real_bytes = storage_size(arx) / 8
    if (k == rq) real_bytes = storage_size(arq) / 8
  end function real_bytes
end program f_type_f90
