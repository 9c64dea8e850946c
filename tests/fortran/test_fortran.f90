! The Fortran module: the GVR manual's example sequence, column-major
! layout, GDS_CREATE with Fortran mapping functions, direct access and
! error statuses. Prints each failed check; exits non-zero on any process's
! failure.
MODULE CYCLIC_MAPPING
  USE, INTRINSIC :: ISO_C_BINDING
  IMPLICIT NONE
  INTEGER :: nprocs = 1, me = 0
CONTAINS
  ! Global index i lives on rank MOD(i, nprocs) at offset i / nprocs.
  INTEGER(C_INT) FUNCTION TO_LOCAL(global_indices, local_rank, local_offset) BIND(C)
    INTEGER(C_INT64_T), DIMENSION(*), INTENT(IN) :: global_indices
    INTEGER(C_INT), INTENT(OUT) :: local_rank
    INTEGER(C_INT64_T), INTENT(OUT) :: local_offset
    local_rank = INT(MOD(global_indices(1), INT(nprocs, 8)), C_INT)
    local_offset = global_indices(1) / nprocs
    TO_LOCAL = 0
  END FUNCTION
  INTEGER(C_INT) FUNCTION TO_GLOBAL(local_offset, global_indices) BIND(C)
    INTEGER(C_INT64_T), VALUE :: local_offset
    INTEGER(C_INT64_T), DIMENSION(*), INTENT(OUT) :: global_indices
    global_indices(1) = local_offset * nprocs + me
    TO_GLOBAL = 0
  END FUNCTION
END MODULE

! Open Resilience handlers and a check, as BIND(C) functions.
MODULE HANDLERS
  USE, INTRINSIC :: ISO_C_BINDING
  USE GDS
  IMPLICIT NONE
  INTEGER :: local_calls = 0, global_calls = 0, check_calls = 0, id_key = 0
  INTEGER(8) :: seen = -1
CONTAINS
  INTEGER(C_INT) FUNCTION ON_LOCAL(gds, err) BIND(C)
    TYPE(C_PTR), VALUE :: gds, err
    INTEGER(8), TARGET :: v
    INTEGER :: flag, st
    CALL GDS_GET_ERROR_ATTR(err, id_key, C_LOC(v), flag, st)
    seen = v
    local_calls = local_calls + 1
    CALL GDS_RESUME_LOCAL(gds, err, st)
    ON_LOCAL = st
  END FUNCTION
  INTEGER(C_INT) FUNCTION ON_GLOBAL(gds, err) BIND(C)
    TYPE(C_PTR), VALUE :: gds, err
    INTEGER(8), TARGET :: v
    INTEGER(8) :: n
    INTEGER :: flag, st
    CALL GDS_GET_ERROR_ATTR_LEN(err, id_key, n, flag, st)
    IF (n == 8) CALL GDS_GET_ERROR_ATTR(err, id_key, C_LOC(v), flag, st)
    seen = v
    global_calls = global_calls + 1
    CALL GDS_RESUME_GLOBAL(gds, err, st)
    ON_GLOBAL = st
  END FUNCTION
  INTEGER(C_INT) FUNCTION A_CHECK(gds, priority) BIND(C)
    TYPE(C_PTR), VALUE :: gds
    INTEGER(C_INT), VALUE :: priority
    IF (priority == GDS_PRIORITY_HIGH .AND. C_ASSOCIATED(gds)) check_calls = check_calls + 1
    A_CHECK = GDS_STATUS_OK
  END FUNCTION
END MODULE

PROGRAM TEST_FORTRAN
  USE, INTRINSIC :: ISO_C_BINDING
  USE GDS
  USE CYCLIC_MAPPING
  USE HANDLERS
  IMPLICIT NONE

  TYPE(C_PTR) :: g, h, buffer, pred, term, err, grp
  INTEGER(8), TARGET :: ival

  INTEGER(8) :: ndim, cts(1), min_chunk(1), lo_idx(1), hi_idx(1), ld(1), count2(2), lo2(2), hi2(2), zero2(2)
  INTEGER(8) :: ld2(1), offset, n
  INTEGER(8), TARGET :: dims(2)
  INTEGER, TARGET :: put_buf, acc_buf, get_buf
  INTEGER, TARGET :: a(4, 3), b(4, 3)
  DOUBLE PRECISION, TARGET :: local(5), whole(40)
  DOUBLE PRECISION, POINTER :: block(:, :)
  INTEGER :: stat, provided, rank, np, owner, owns, i, j, failures, all_failures, flag, kind, ierr
  INTEGER, TARGET :: type_handle
  TYPE(GDS_RESTART_INFO_T) :: restart
  TYPE(GDS_COSTS_T) :: costs
  CHARACTER(80) :: text
  CHARACTER, POINTER :: label(:)

  failures = 0
  CALL GDS_INIT(GDS_THREAD_SINGLE, provided, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_INIT")
  CALL GDS_COMM_RANK(GDS_COMM_WORLD, rank, stat)
  CALL GDS_COMM_SIZE(GDS_COMM_WORLD, np, stat)
  CALL GDS_FAILURE_GROUP(rank, owner, owns, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. owner >= 0 .AND. owner < owns .AND. owns >= 1 .AND. owns <= np, &
    "GDS_FAILURE_GROUP")
  CALL GDS_FAILURE_GROUP(np, owner, owns, stat)
  CALL CHECK(stat == GDS_STATUS_RANGE, "GDS_FAILURE_GROUP of a rank past the last")
  ! No halt file, no end time (the test's environment sets neither): go on.
  owner = -1
  CALL GDS_SHOULD_EXIT(owner, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. owner == 0, "GDS_SHOULD_EXIT")

  ! The manual's example (GVR 1.0, section 3.5), with the values checked.
  ndim = 1; cts(1) = 1; min_chunk(1) = 0; lo_idx(1) = 0; hi_idx(1) = 0; ld(1) = 0
  put_buf = 1; acc_buf = 1; get_buf = 0
  CALL GDS_ALLOC(ndim, cts, min_chunk, GDS_DATA_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, g, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_ALLOC 1-D")
  IF (rank == 0) CALL GDS_PUT(C_LOC(put_buf), ld, lo_idx, hi_idx, g, stat)
  CALL GDS_FENCE(g, stat)
  CALL GDS_ACC(C_LOC(acc_buf), ld, lo_idx, hi_idx, MPI_SUM, g, stat)
  CALL GDS_FENCE(g, stat)
  CALL GDS_GET(C_LOC(get_buf), ld, lo_idx, hi_idx, g, stat)
  CALL GDS_FENCE(g, stat)
  CALL CHECK(get_buf == 1 + np, "put then MPI_SUM")
  acc_buf = 2
  CALL GDS_ACC(C_LOC(acc_buf), ld, lo_idx, hi_idx, MPI_PROD, g, stat)
  CALL GDS_FENCE(g, stat)
  CALL GDS_GET(C_LOC(get_buf), ld, lo_idx, hi_idx, g, stat)
  CALL GDS_FENCE(g, stat)
  CALL CHECK(get_buf == (1 + np) * 2**np, "MPI_PROD")
  CALL GDS_GET_ATTR(g, GDS_TYPE, C_LOC(type_handle), flag, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. type_handle == MPI_INT, "GDS_TYPE is the Fortran handle")
  CALL GDS_FREE(g, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. .NOT. C_ASSOCIATED(g), "GDS_FREE nulls the handle")

  ! Column-major by default: a Fortran array goes in and comes out as it is,
  ! and element (i, j) of a process's 4x3 block is at offset i + 4 j.
  count2 = [4_8, 3_8]; zero2 = 0; hi2 = [3_8, 2_8]; ld2(1) = 0
  CALL GDS_ALLOC(2_8, count2, [0_8, 0_8], GDS_DATA_INTEGER, GDS_PRIORITY_HIGH, MPI_COMM_SELF, MPI_INFO_NULL, g, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_ALLOC 2-D")
  DO j = 1, 3
    DO i = 1, 4
      a(i, j) = 10 * i + j
    END DO
  END DO
  CALL GDS_PUT(C_LOC(a), ld2, zero2, hi2, g, stat)
  CALL GDS_WAIT(g, stat)
  CALL GDS_GET(C_LOC(b), ld2, zero2, hi2, g, stat)
  CALL GDS_WAIT(g, stat)
  CALL CHECK(ALL(a == b), "column-major round trip")
  CALL GDS_LOCATE(g, [2_8, 1_8], owner, offset, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. offset == 2 + 4 * 1, "column-major offsets")
  CALL GDS_GET_ATTR(g, GDS_COUNT, C_LOC(dims), flag, stat)
  CALL CHECK(flag == 1 .AND. ALL(dims == count2), "GDS_COUNT")
  ! A box out of range is an error status, not a crash.
  CALL GDS_PUT(C_LOC(a), ld2, zero2, [4_8, 2_8], g, stat)
  CALL CHECK(stat == GDS_STATUS_RANGE, "out-of-range box")
  CALL GDS_LAST_ERROR_MESSAGE(text)
  CALL CHECK(text(1:8) == "GDS_put:", "message names the call")
  CALL GDS_STATUS_STRING(GDS_STATUS_RANGE, text)
  CALL CHECK(TRIM(text) == "index or box outside the array", "GDS_STATUS_STRING")
  CALL GDS_FREE(g, stat)

  ! Direct access to this process's block of a distributed 2-D array.
  count2 = [2_8 * np, 5_8]
  CALL GDS_ALLOC(2_8, count2, [0_8, 0_8], GDS_DATA_DBL, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, g, stat)
  CALL GDS_DISTRIBUTION(g, rank, lo2, hi2, owns, stat)
  CALL CHECK(owns == 1, "every process owns a block")
  CALL GDS_ACCESS(g, lo2, hi2, GDS_ACCESS_BUFFER_DIRECT, buffer, h, stat)
  CALL GDS_GET_ACCESS_BUFFER_TYPE(h, kind, stat)
  CALL GDS_GET_ACCESS_BUFFER_LD(h, ld2, stat)
  CALL CHECK(kind == GDS_ACCESS_BUFFER_DIRECT .AND. ld2(1) == hi2(1) - lo2(1) + 1, "direct access")
  CALL C_F_POINTER(buffer, block, [INT(ld2(1)), INT(hi2(2) - lo2(2) + 1)])
  DO j = 1, SIZE(block, 2)
    DO i = 1, SIZE(block, 1)
      block(i, j) = DBLE(100 * (lo2(1) + i - 1) + (lo2(2) + j - 1))
    END DO
  END DO
  CALL GDS_RELEASE(h, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. .NOT. C_ASSOCIATED(h), "GDS_RELEASE")
  CALL GDS_FENCE(g, stat)
  CALL GDS_GET(C_LOC(whole), [0_8], [0_8, 0_8], count2 - 1, g, stat)
  CALL GDS_WAIT(g, stat)
  DO j = 0, 4
    DO i = 0, 2 * np - 1
      IF (whole(1 + i + 2 * np * j) /= DBLE(100 * i + j)) failures = failures + 1
    END DO
  END DO
  CALL CHECK(failures == 0, "stores seen by everyone")
  CALL GDS_FENCE(g, stat)
  CALL GDS_FREE(g, stat)

  ! GDS_CREATE with mapping functions written in Fortran (cyclic).
  nprocs = np; me = rank
  n = 5 * np
  DO i = 1, 5
    local(i) = DBLE((i - 1) * np + rank)
  END DO
  ! Function pointers straight from C_FUNLOC, as the manual passes them (by value).
  CALL GDS_CREATE(1_8, [n], GDS_DATA_DBL, C_FUNLOC(TO_LOCAL), C_FUNLOC(TO_GLOBAL), C_LOC(local), 5_8, &
                  GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, g, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_CREATE")
  CALL GDS_GET(C_LOC(whole), [0_8], [0_8], [n - 1], g, stat)
  CALL GDS_WAIT(g, stat)
  DO i = 1, INT(n)
    IF (whole(i) /= DBLE(i - 1)) failures = failures + 1
  END DO
  CALL CHECK(failures == 0, "cyclic mapping")
  CALL GDS_FENCE(g, stat)
  CALL GDS_FREE(g, stat)

  ! Versions: freeze twice, read the first version through a clone.
  CALL GDS_ALLOC(1_8, [4_8], [0_8], GDS_DATA_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, g, stat)
  DO i = 1, 2
    put_buf = 10 * i
    IF (rank == 0) CALL GDS_PUT(C_LOC(put_buf), [0_8], [1_8], [1_8], g, stat)
    CALL GDS_WAIT(g, stat)
    CALL GDS_VERSION_INC(g, 1_8, "v", 1_8, stat)
    CALL CHECK(stat == GDS_STATUS_OK, "GDS_VERSION_INC")
  END DO
  CALL GDS_GET_VERSION_NUMBER(g, n, stat)
  CALL CHECK(n == 2, "version number")
  ! Costs and interval guidance (GDS extensions).
  CALL GDS_GET_COSTS(costs, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. costs%versions%calls == 2 .AND. costs%versions%seconds > 0 .AND. &
    costs%elapsed >= costs%versions%seconds .AND. costs%restores%calls == 0, "GDS_GET_COSTS")
  CALL GDS_NEED_VERSION(g, flag, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. (flag == 0 .OR. flag == 1), "GDS_NEED_VERSION")
  CALL GDS_NEED_VERSION(GDS_NULL, flag, stat)
  CALL CHECK(stat == GDS_STATUS_NULL_HANDLE, "GDS_NEED_VERSION of GDS_NULL")
  CALL GDS_DESCRIPTOR_CLONE(g, h, stat)
  CALL GDS_VERSION_DEC(h, 2_8, stat)
  CALL GDS_GET(C_LOC(get_buf), [0_8], [1_8], [1_8], h, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. get_buf == 10, "old version read")
  CALL GDS_GET_VERSION_HOLDS(h, text, stat)  ! version 0 was frozen by the inc labelled "v"
  CALL CHECK(stat == GDS_STATUS_OK .AND. text == "v", "GDS_GET_VERSION_HOLDS")
  CALL GDS_GET_VERSION_HOLDS(g, text, stat)
  CALL CHECK(stat == GDS_STATUS_NO_VERSION .AND. text == "", "GDS_GET_VERSION_HOLDS of the current version")
  CALL GDS_GET_VERSION_LABEL_STRING(g, text, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. text == "v", "GDS_GET_VERSION_LABEL_STRING")
  CALL GDS_MOVE_TO_PREV(h, stat)
  CALL CHECK(stat == GDS_STATUS_NO_VERSION, "no version before 0")
  CALL GDS_GET_VERSION_LABEL(g, label, n, stat)
  CALL CHECK(n == 1 .AND. label(1) == "v", "label")
  CALL GDS_PUT(C_LOC(put_buf), [0_8], [1_8], [1_8], h, stat)
  CALL CHECK(stat == GDS_STATUS_NOT_CURRENT, "writes need the current version")
  CALL GDS_FREE(h, stat)
  ! Checksums: version 0 is whole, then a version made with a latent error on rank 0.
  CALL GDS_VERSION_VERIFY(g, 0_8, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_VERSION_VERIFY of a whole version")
  CALL GDS_VERSION_VERIFY(g, 0_8, stat, [1_8], [1_8])
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_VERSION_VERIFY of a box")
  CALL GDS_GET_RESTART_INFO(g, restart, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. restart%restarted == 0 .AND. restart%level == GDS_LEVEL_NONE, &
    "GDS_GET_RESTART_INFO of a fresh array")
  CALL CHECK(restart%level /= GDS_LEVEL_PREFIX, "GDS_LEVEL_PREFIX is another level")
  CALL GDS_FLUSH_WAIT(g, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_FLUSH_WAIT without a prefix")
  put_buf = 77
  IF (rank == 0) CALL GDS_PUT(C_LOC(put_buf), [0_8], [0_8], [0_8], g, stat)
  CALL GDS_FENCE(g, stat)
  IF (rank == 0) CALL GDS_INJECT_FAULT(GDS_FAULT_VERSION_CORRUPT, 1_8, stat)
  CALL GDS_VERSION_INC(g, 1_8, "c", 1_8, stat)
  CALL GDS_VERSION_VERIFY(g, 2_8, stat)
  CALL CHECK(stat == GDS_STATUS_CORRUPT, "GDS_VERSION_VERIFY finds the damaged block")
  CALL GDS_FENCE(g, stat)
  CALL GDS_VERSION_RESTORE(g, 0_8, stat)
  CALL GDS_GET(C_LOC(get_buf), [0_8], [1_8], [1_8], g, stat)
  CALL GDS_WAIT(g, stat)
  CALL CHECK(get_buf == 10, "restore")
  CALL GDS_FENCE(g, stat)
  ! A group of one: verify by group (version 2 has rank 0's damaged block).
  CALL GDS_GROUP_CREATE("f90group", 1, [g], grp, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_GROUP_CREATE")
  CALL GDS_GROUP_NEED_VERSION(grp, flag, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. (flag == 0 .OR. flag == 1), "GDS_GROUP_NEED_VERSION")
  CALL GDS_RESET_COSTS(stat)
  CALL GDS_GET_COSTS(costs, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. costs%versions%calls == 0 .AND. costs%restores%bytes == 0, "GDS_RESET_COSTS")
  CALL GDS_GROUP_VERSION_VERIFY(grp, 0_8, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_GROUP_VERSION_VERIFY of a sound version")
  CALL GDS_GROUP_VERSION_VERIFY(grp, 2_8, stat)
  CALL CHECK(stat == GDS_STATUS_CORRUPT, "GDS_GROUP_VERSION_VERIFY finds the damaged block")
  ! The group's label, and a restore of its newest version.
  CALL GDS_GROUP_VERSION_INC(grp, 1_8, "f90", 3_8, stat)
  CALL GDS_GROUP_GET_VERSION_LABEL(grp, text, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. text == "f90", "GDS_GROUP_GET_VERSION_LABEL")
  CALL GDS_GROUP_GET_VERSION_NUMBER(grp, n, stat)
  CALL GDS_GROUP_VERSION_RESTORE_NEWEST(grp, offset, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. offset == n - 1, "GDS_GROUP_VERSION_RESTORE_NEWEST")
  CALL GDS_GROUP_FREE(grp, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_GROUP_FREE")
  CALL GDS_GROUP_GET_VERSION_LABEL(grp, text, stat)
  CALL CHECK(stat == GDS_STATUS_NULL_HANDLE, "GDS_GROUP_GET_VERSION_LABEL of a freed group")
  CALL GDS_FREE(g, stat)

  CALL GDS_FREE(g, stat)
  CALL CHECK(stat == GDS_STATUS_NULL_HANDLE, "freeing a null handle")

  ! Open Resilience: a key, a predicate, local and global handlers, a check.
  CALL GDS_DEFINE_ERROR_ATTR_KEY("f90_id", 6_8, GDS_EAVTYPE_INT, id_key, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. id_key > GDS_EATTR_MPI_ERROR_CLASS, "GDS_DEFINE_ERROR_ATTR_KEY")
  CALL GDS_ALLOC(1_8, [4_8 * np], [0_8], GDS_DATA_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, g, stat)
  CALL GDS_CREATE_ERROR_PRED(pred, stat)
  CALL GDS_CREATE_ERROR_PRED_TERM(id_key, GDS_EMEXP_ANY, 0_8, C_NULL_PTR, term, stat)
  CALL GDS_ADD_ERROR_PRED_TERM(pred, term, stat)
  CALL GDS_FREE_ERROR_PRED_TERM(term, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. .NOT. C_ASSOCIATED(term), "predicate")
  CALL GDS_REGISTER_LOCAL_ERROR_HANDLER(g, pred, C_FUNLOC(ON_LOCAL), stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_REGISTER_LOCAL_ERROR_HANDLER")
  CALL GDS_REGISTER_GLOBAL_ERROR_HANDLER(g, pred, C_FUNLOC(ON_GLOBAL), stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_REGISTER_GLOBAL_ERROR_HANDLER")
  CALL GDS_REGISTER_LOCAL_ERROR_CHECK(g, C_FUNLOC(A_CHECK), GDS_PRIORITY_HIGH, stat)
  CALL GDS_FREE_ERROR_PRED(pred, stat)
  ival = 41 + rank
  CALL GDS_CREATE_ERROR_DESCRIPTOR(err, stat)
  CALL GDS_ADD_ERROR_ATTR(err, id_key, 8_8, C_LOC(ival), stat)
  CALL GDS_RAISE_LOCAL_ERROR(g, err, stat)
  CALL CHECK(local_calls == 0, "a local error waits for the next call")
  CALL GDS_INVOKE_LOCAL_ERROR_HANDLER(g, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. local_calls == 1 .AND. seen == 41 + rank, "local handler")
  CALL GDS_FREE_ERROR_DESCRIPTOR(err, stat)
  CALL CHECK(stat == GDS_STATUS_FREED_HANDLE, "a raised descriptor belongs to GDS")
  IF (rank == np - 1) THEN
    ival = 99
    CALL GDS_CREATE_ERROR_DESCRIPTOR(err, stat)
    CALL GDS_ADD_ERROR_ATTR(err, id_key, 8_8, C_LOC(ival), stat)
    CALL GDS_RAISE_GLOBAL_ERROR(g, err, stat)
  END IF
  CALL GDS_FENCE(g, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. global_calls == 1 .AND. seen == 99, "global handler at the fence")
  CALL GDS_CHECK_ALL_ERRORS(g, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. check_calls == 1, "GDS_CHECK_ALL_ERRORS")
  CALL GDS_VERSION_INC(g, 1_8, "", 0_8, stat)
  CALL CHECK(stat == GDS_STATUS_OK .AND. check_calls == 2, "high checks before a version")
  CALL GDS_CHECK_LOCAL_ERROR(g, stat)
  CALL CHECK(stat == GDS_STATUS_OK, "GDS_CHECK_LOCAL_ERROR")
  CALL GDS_RESUME_LOCAL(g, err, stat)
  CALL CHECK(stat /= GDS_STATUS_OK, "resume without an error")
  CALL GDS_FREE(g, stat)
  CALL MPI_ALLREDUCE(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, GDS_COMM_WORLD, ierr)
  CALL GDS_FINALIZE(stat)
  IF (rank == 0) PRINT '(A, I0, A)', "test_fortran: ", all_failures, " failure(s)"
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
