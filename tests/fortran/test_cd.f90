! The Fortran module containment_domains (the CD document's Appendix A over
! cd.h and gds_cd.h): per-process CDs made with Fortran and C strings, memory
! of different sizes per process preserved via copy and via parent,
! restore, advance, the refused commit of a CD with a live child, delete,
! a file position, and a box of a GDS array preserved by gds_cd_preserve_box.
! Prints each failed check; exits non-zero on any process's failure.
MODULE CD_TEST_LIBC
  USE, INTRINSIC :: ISO_C_BINDING
  IMPLICIT NONE
  INTERFACE
    TYPE(C_PTR) FUNCTION c_tmpfile() BIND(C, NAME="tmpfile")
      IMPORT :: C_PTR
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_fileno(stream) BIND(C, NAME="fileno")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: stream
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_fclose(stream) BIND(C, NAME="fclose")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: stream
    END FUNCTION
    INTEGER(C_INT64_T) FUNCTION c_lseek(fd, offset, whence) BIND(C, NAME="lseek")
      IMPORT :: C_INT, C_INT64_T
      INTEGER(C_INT), VALUE :: fd, whence
      INTEGER(C_INT64_T), VALUE :: offset
    END FUNCTION
  END INTERFACE
  INTEGER(C_INT), PARAMETER :: SEEK_SET = 0, SEEK_CUR = 1
CONTAINS
  ! A regeneration function (add_to_cd_via_regen): sets what it is given to 42.
  INTEGER(C_INT) FUNCTION SET_42(addrlist, ascount) BIND(C)
    USE CONTAINMENT_DOMAINS, ONLY: cd_addrspec
    TYPE(cd_addrspec) :: addrlist(*)
    INTEGER(C_INT), VALUE :: ascount
    INTEGER(C_INT), POINTER :: v
    INTEGER :: k
    DO k = 1, ascount
      CALL C_F_POINTER(addrlist(k)%address, v)
      v = 42
    END DO
    SET_42 = 0
  END FUNCTION
END MODULE

PROGRAM TEST_CD
  USE, INTRINSIC :: ISO_C_BINDING
  USE GDS
  USE CONTAINMENT_DOMAINS
  USE CD_TEST_LIBC
  IMPLICIT NONE

  TYPE(C_PTR) :: root, child, pcd, cd, parent, g, stream
  TYPE(cd_addrspec) :: as(2), jspec, fspec(1)
  INTEGER, TARGET :: fixed(6), one_int
  INTEGER(C_INT), TARGET :: regen_a, regen_b
  TYPE(C_FUNPTR) :: fill  ! C_FUNLOC(SET_42), set at run time: a constant one is a text relocation
  CHARACTER(KIND=C_CHAR, LEN=13), TARGET :: cmemory
  INTEGER, ALLOCATABLE, TARGET :: ia(:), ja(:), ia0(:), box(:, :), whole(:, :), before(:, :)
  REAL(C_DOUBLE), ALLOCATABLE, TARGET :: ra(:), ra0(:)
  CHARACTER(KIND=C_CHAR, LEN=8), TARGET :: cname
  INTEGER(C_INT) :: err, r, fd
  INTEGER(8) :: bytes, count2(2), lo(2), hi(2), blo(2), bhi(2), zero2(2), ld(1), pos
  INTEGER :: stat, provided, rank, np, i, j, n, m, failures, all_failures, ierr, again, owns
  LOGICAL :: ok

  failures = 0
  CALL GDS_INIT(GDS_THREAD_SINGLE, provided, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_INIT")
  CALL GDS_COMM_RANK(GDS_COMM_WORLD, rank, stat)
  CALL GDS_COMM_SIZE(GDS_COMM_WORLD, np, stat)

  ! The cd_addrspec layout is C's: void*, size_t, int, int.
  CALL CHECK(C_SIZEOF(as(1)) == C_SIZEOF(C_NULL_PTR) + C_SIZEOF(0_C_SIZE_T) + 2 * C_SIZEOF(0_C_INT), &
    "cd_addrspec is laid out as struct cd_addrspec")
  CALL CHECK(READ_ONLY == 0 .AND. READ_WRITE == 1 .AND. GLOBAL == 0 .AND. CONSTRAINED == 1 .AND. &
    COMM_LOGGING_DISABLED == 0 .AND. COMM_LOGGING_ENABLED == 1 .AND. COMM_LOGGING_INHERIT == 2 .AND. &
    MPI_LOGGING_INHERIT == COMM_LOGGING_INHERIT .AND. FAILURE == 1, "the constants have C's values")

  ! Arrays of different sizes per process.
  n = 5 + 3 * rank
  m = 2 + rank
  ALLOCATE(ia(n), ra(m), ja(3 + rank))
  ia = [(100 * rank + i, i = 1, n)]
  ra = [(rank + 0.5D0 * i, i = 1, m)]
  ja = 7
  ia0 = ia
  ra0 = ra

  ! A root CD, named, with Fortran strings.
  root = create_cd(C_NULL_PTR, "level=memory", COMM_LOGGING_DISABLED, "root", err)
  CALL CHECK(err == 0 .AND. C_ASSOCIATED(root), "create_cd of a root with Fortran strings")
  CALL GDS_CD_CURRENT(cd, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. C_ASSOCIATED(cd, root), "the new root is current")
  ! A second live root of this process may not have the same name.
  cd = create_cd(C_NULL_PTR, "", COMM_LOGGING_DISABLED, "root", err)
  CALL CHECK(err == FAILURE .AND. gds_cd_last_status() == GDS_STATUS_INVALID, "a duplicate root name is refused")

  as(1) = cd_addrspec(C_LOC(ia), INT(SIZE(ia), C_SIZE_T) * C_SIZEOF(ia(1)), READ_WRITE, GLOBAL)
  as(2) = cd_addrspec(C_LOC(ra), INT(SIZE(ra), C_SIZE_T) * C_SIZEOF(ra(1)), READ_WRITE, GLOBAL)
  CALL CHECK(as(1)%length == 4 * n .AND. as(2)%length == 8 * m, "C_SIZEOF of the arrays")
  CALL CHECK(add_to_cd_via_copy(root, as, 2) == 0, "add_to_cd_via_copy of two arrays")
  CALL CHECK(gds_cd_last_status() == GDS_STATUS_OK, "gds_cd_last_status after a success")
  CALL GDS_CD_GET_PRESERVED_BYTES(root, bytes, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. bytes == 4 * n + 8 * m, "gds_cd_get_preserved_bytes")

  ! Modify, restore: the preserved values come back.
  ia = -1
  ra = -1
  CALL CHECK(restore_cd(root) == 0, "restore_cd")
  CALL CHECK(ALL(ia == ia0), "restore_cd brings the integers back")
  CALL CHECK(ALL(ra == ra0), "restore_cd brings the reals back")
  CALL GDS_CD_RESTORED(root, again, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. again == 1, "gds_cd_restored after a restore")
  CALL GDS_CD_RESTORED(current_cd(), again, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. again == 0, "gds_cd_restored clears it (through current_cd())")

  ! Advance, modify, restore: the advanced values come back.
  ia = 2 * ia0 + 1
  ra = 3 * ra0
  CALL CHECK(advance_cd_point_in_time(root) == 0, "advance_cd_point_in_time")
  ia = 0
  ra = 0
  CALL CHECK(restore_cd(current_cd()) == 0, "restore_cd(current_cd())")
  CALL CHECK(ALL(ia == 2 * ia0 + 1), "restore after advance gives the advanced integers")
  CALL CHECK(ALL(ra == 3 * ra0), "restore after advance gives the advanced reals")

  ! A child: a name is refused (only roots have one); "" is NULL.
  child = create_cd(root, "", MPI_LOGGING_INHERIT, "child", err)
  CALL CHECK(err == FAILURE .AND. gds_cd_last_status() == GDS_STATUS_INVALID .AND. .NOT. C_ASSOCIATED(child), &
    "a child with a name is refused")
  child = create_cd(current_cd(), C_NULL_PTR, MPI_LOGGING_INHERIT, "", err)
  CALL CHECK(err == 0 .AND. C_ASSOCIATED(child), "create_cd of a child (C storage_info, Fortran name)")
  CALL GDS_CD_GET_PARENT(child, parent, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. C_ASSOCIATED(parent, root), "gds_cd_get_parent")
  jspec = cd_addrspec(C_LOC(ja), INT(SIZE(ja), C_SIZE_T) * C_SIZEOF(ja(1)), READ_WRITE, GLOBAL)
  CALL CHECK(add_to_cd_via_copy(child, jspec, 1) == 0, &
    "add_to_cd_via_copy of one range")
  CALL CHECK(add_to_cd_via_parent(child, as(1:1), 1) == 0, "add_to_cd_via_parent")
  CALL CHECK(add_to_cd_via_copy(child, as(2), 2) == FAILURE .AND. gds_cd_last_status() == GDS_STATUS_INVALID, &
    "one range with a count of 2 is refused")

  ! Section 2.5.5's forms: storage_info after ascount (before regen), a
  ! Fortran or a C string. A child keeps its entries in memory, so
  ! level=memory is its own and a persisted level is refused.
  cmemory = "level=memory" // C_NULL_CHAR
  fill = C_FUNLOC(SET_42)
  CALL CHECK(add_to_cd_via_copy(child, jspec, 1, "level=memory") == 0, "add_to_cd_via_copy with storage_info")
  CALL CHECK(add_to_cd_via_copy(child, [jspec], 1, C_NULL_PTR) == 0, "add_to_cd_via_copy with C's NULL")
  CALL CHECK(add_to_cd_via_parent(child, as(1:1), 1, " ") == 0, "add_to_cd_via_parent with a blank storage_info")
  CALL CHECK(add_to_cd_via_parent(child, as(1), 1, "level=memory") == 0, "add_to_cd_via_parent of one range")
  CALL CHECK(add_to_cd_via_parent(child, as(1:1), 1, C_LOC(cmemory)) == 0, "add_to_cd_via_parent with a C string")
  CALL CHECK(add_to_cd_via_copy(child, as(2:2), 1, "level=cache") == FAILURE .AND. &
    gds_cd_last_status() == GDS_STATUS_INVALID_INFO, "a persisted level on a child is refused")
  CALL CHECK(add_to_cd_via_copy(child, as(2), 1, "level") == FAILURE .AND. &
    gds_cd_last_status() == GDS_STATUS_INVALID_INFO, "a storage_info that is not key=value is refused")
  CALL CHECK(add_to_cd_via_regen(child, cd_addrspec(C_LOC(regen_a), C_SIZEOF(regen_a), READ_ONLY, CONSTRAINED), &
    1, "", fill) == 0, "add_to_cd_via_regen with storage_info")
  CALL CHECK(add_to_cd_via_regen(child, [cd_addrspec(C_LOC(regen_b), C_SIZEOF(regen_b), READ_ONLY, CONSTRAINED)], &
    1, C_LOC(cmemory), fill) == 0, "add_to_cd_via_regen with a C storage_info")
  CALL CHECK(add_to_cd_via_regen(child, [cd_addrspec(C_LOC(regen_b), C_SIZEOF(regen_b), READ_ONLY, CONSTRAINED)], &
    1, "level=prefix", fill) == FAILURE .AND. gds_cd_last_status() == GDS_STATUS_INVALID_INFO, &
    "add_to_cd_via_regen at a persisted level is refused")

  ! The parent cannot commit while the child lives.
  CALL CHECK(commit_cd(root) == FAILURE, "commit_cd of a CD with an uncommitted child fails")
  CALL CHECK(gds_cd_last_status() == GDS_STATUS_CD_STATE, "... with GDS_STATUS_CD_STATE")
  CALL CHECK(advance_cd_point_in_time(root) == FAILURE .AND. gds_cd_last_status() == GDS_STATUS_CD_STATE, &
    "advance of a CD with an uncommitted child fails")

  ! delete_from_cd: ja is no longer restored; deleting it again fails.
  CALL CHECK(delete_from_cd(child, jspec, 1) == 0, &
    "delete_from_cd")
  CALL CHECK(delete_from_cd(child, jspec, 1) == FAILURE &
    .AND. gds_cd_last_status() == GDS_STATUS_NOT_PRESERVED, "delete_from_cd of what is not preserved fails")
  ja = 8
  ia = -3
  regen_a = 0
  regen_b = 0
  CALL CHECK(restore_cd(child) == 0, "restore_cd of the child")
  CALL CHECK(regen_a == 42 .AND. regen_b == 42, "ranges added via regen with storage_info are regenerated")
  CALL CHECK(ALL(ja == 8), "a deleted range is not restored")
  CALL CHECK(ALL(ia == 2 * ia0 + 1), "a range via parent is restored from the parent")

  ! A file position (a POSIX descriptor).
  stream = c_tmpfile()
  IF (C_ASSOCIATED(stream)) THEN
    fd = c_fileno(stream)
    CALL CHECK(add_file_to_cd(child, fd) == 0, "add_file_to_cd")
    pos = c_lseek(fd, 100_C_INT64_T, SEEK_SET)
    CALL CHECK(restore_cd(child) == 0 .AND. c_lseek(fd, 0_C_INT64_T, SEEK_CUR) == 0, "a file position is restored")
    CALL CHECK(delete_file_from_cd(child, fd) == 0, "delete_file_from_cd")
    CALL CHECK(delete_file_from_cd(child, fd) == FAILURE, "delete_file_from_cd of a file not preserved fails")
    r = c_fclose(stream)
  ELSE
    CALL CHECK(.FALSE., "tmpfile")
  END IF

  CALL CHECK(commit_cd(child) == 0, "commit_cd of the child")
  CALL GDS_CD_CURRENT(cd, stat)
  CALL CHECK(C_ASSOCIATED(cd, root), "the parent is current again")
  CALL CHECK(commit_cd(current_cd()) == 0, "commit_cd of the root (current_cd())")
  CALL CHECK(gds_cd_last_status() == GDS_STATUS_OK, "gds_cd_last_status is OK again")
  CALL GDS_CD_CURRENT(cd, stat)
  CALL CHECK(.NOT. C_ASSOCIATED(cd), "no CD is current")

  ! The document's form: C strings (type(c_ptr)), c_null_ptr for NULL.
  cname = "c-root" // C_NULL_CHAR
  cd = create_cd(C_NULL_PTR, C_NULL_PTR, COMM_LOGGING_ENABLED, C_LOC(cname), err)
  CALL CHECK(err == 0 .AND. C_ASSOCIATED(cd), "create_cd with C strings")
  ! Local variables: the compiler must know that restore_cd writes them (at -O3 too).
  fixed = [(i, i = 1, 6)]
  one_int = 42
  fspec(1) = cd_addrspec(C_LOC(fixed), C_SIZEOF(fixed), READ_WRITE, GLOBAL)
  CALL CHECK(add_to_cd_via_copy(cd, fspec, 1) == 0, "add_to_cd_via_copy of a local array")
  CALL CHECK(add_to_cd_via_copy(cd, cd_addrspec(C_LOC(one_int), C_SIZEOF(one_int), READ_WRITE, CONSTRAINED), 1) &
    == 0, "add_to_cd_via_copy of a local scalar")
  fixed = 0
  one_int = 0
  CALL CHECK(restore_cd(cd) == 0, "restore_cd of the C-string root")
  CALL CHECK(ALL(fixed == [(i, i = 1, 6)]), "a local array is restored")
  CALL CHECK(one_int == 42, "a local scalar is restored")
  CALL CHECK(commit_cd(cd) == 0, "commit_cd of the C-string root")

  ! A box of a GDS array (0-based, dimension 1 first, as GDS_PUT) in a per-process CD.
  count2 = [5_8, 2_8 * np]
  zero2 = 0
  CALL GDS_ALLOC(2_8, count2, [0_8, 0_8], GDS_DATA_INTEGER, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &
    g, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_ALLOC 5 x 2np")
  CALL GDS_DISTRIBUTION(g, rank, lo, hi, owns, stat)
  IF (owns /= 0) THEN
    ALLOCATE(box(lo(1):hi(1), lo(2):hi(2)))
    DO j = INT(lo(2)), INT(hi(2))
      DO i = INT(lo(1)), INT(hi(1))
        box(i, j) = 1000 * i + j
      END DO
    END DO
    ld(1) = hi(1) - lo(1) + 1
    CALL GDS_PUT(C_LOC(box), ld, lo, hi, g, stat)
  END IF
  CALL GDS_FENCE(g, stat)
  ALLOCATE(whole(0:4, 0:2 * np - 1), before(0:4, 0:2 * np - 1))
  ld(1) = 5
  CALL GDS_GET(C_LOC(before), ld, zero2, count2 - 1, g, stat)
  CALL GDS_FENCE(g, stat)
  CALL CHECK(before(3, 1) == 3001 .AND. before(4, 2 * np - 1) == 4000 + 2 * np - 1, "the array's first values")

  ! Rows 1..3 of every column: only the owner's part is preserved, with no other process.
  pcd = create_cd(C_NULL_PTR, "", COMM_LOGGING_DISABLED, "", err)
  CALL CHECK(err == 0, "create_cd of a per-process root")
  blo = [1_8, 0_8]
  bhi = [3_8, 2_8 * np - 1]
  CALL GDS_CD_PRESERVE_BOX(pcd, GDS_CD_VIA_COPY, g, blo, bhi, READ_WRITE, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "gds_cd_preserve_box")
  CALL GDS_FENCE(g, stat)
  IF (owns /= 0) THEN
    box = -7
    ld(1) = hi(1) - lo(1) + 1
    CALL GDS_PUT(C_LOC(box), ld, lo, hi, g, stat)
    CALL GDS_WAIT(g, stat)
  END IF
  CALL GDS_FENCE(g, stat)
  ld(1) = 5
  CALL GDS_GET(C_LOC(whole), ld, zero2, count2 - 1, g, stat)
  CALL GDS_FENCE(g, stat)
  CALL CHECK(ALL(whole == -7), "the owners changed the array")
  CALL CHECK(restore_cd(pcd) == 0, "restore_cd of the per-process CD")
  CALL GDS_FENCE(g, stat)
  ld(1) = 5
  CALL GDS_GET(C_LOC(whole), ld, zero2, count2 - 1, g, stat)
  CALL GDS_FENCE(g, stat)
  ok = .TRUE.
  DO j = 0, 2 * np - 1
    DO i = 0, 4
      IF (i >= 1 .AND. i <= 3) THEN
        ok = ok .AND. whole(i, j) == before(i, j)
      ELSE
        ok = ok .AND. whole(i, j) == -7
      END IF
    END DO
  END DO
  CALL CHECK(ok, "the box (rows 1..3) is restored, rows 0 and 4 keep their change")
  CALL CHECK(commit_cd(pcd) == 0, "commit_cd of the per-process CD")

  ! A collective CD over GDS_COMM_WORLD: the whole array's box, a pinned version.
  CALL GDS_CD_CREATE(C_NULL_PTR, GDS_COMM_WORLD, "collective", COMM_LOGGING_DISABLED, pcd, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "gds_cd_create over GDS_COMM_WORLD")
  CALL GDS_CD_PRESERVE_BOX(pcd, GDS_CD_VIA_COPY, g, zero2, count2 - 1, READ_WRITE, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "gds_cd_preserve_box, collective")
  IF (owns /= 0) THEN
    box = 11 + rank
    ld(1) = hi(1) - lo(1) + 1
    CALL GDS_PUT(C_LOC(box), ld, lo, hi, g, stat)
    CALL GDS_WAIT(g, stat)
  END IF
  CALL GDS_FENCE(g, stat)
  CALL GDS_CD_RESTORE(pcd, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "gds_cd_restore, collective")
  CALL GDS_FENCE(g, stat)
  ld(1) = 5
  CALL GDS_GET(C_LOC(whole), ld, zero2, count2 - 1, g, stat)
  CALL GDS_FENCE(g, stat)
  ok = .TRUE.
  DO j = 0, 2 * np - 1
    DO i = 0, 4
      IF (i >= 1 .AND. i <= 3) THEN
        ok = ok .AND. whole(i, j) == before(i, j)
      ELSE
        ok = ok .AND. whole(i, j) == -7
      END IF
    END DO
  END DO
  CALL CHECK(ok, "the collective CD restored the array to its point in time")
  CALL GDS_CD_COMMIT(pcd, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. .NOT. C_ASSOCIATED(pcd), "gds_cd_commit, collective")
  CALL GDS_FREE(g, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_FREE")

  DEALLOCATE(ia, ra, ja, ia0, ra0, whole, before)
  IF (ALLOCATED(box)) DEALLOCATE(box)
  CALL MPI_ALLREDUCE(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, GDS_COMM_WORLD, ierr)
  CALL GDS_FINALIZE(stat)
  IF (rank == 0) PRINT '(A, I0, A)', "test_cd (Fortran): ", all_failures, " failure(s)"
  IF (all_failures /= 0) ERROR STOP 1

CONTAINS

  SUBROUTINE CHECK(ok, what)
    LOGICAL, INTENT(IN) :: ok
    CHARACTER(*), INTENT(IN) :: what
    IF (.NOT. ok) THEN
      failures = failures + 1
      PRINT '(A, I0, A, A)', "[rank ", rank, "] FAILED: ", what
    END IF
  END SUBROUTINE

END PROGRAM
