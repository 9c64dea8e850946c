! GDS for Fortran: the GVR 1.0 Fortran interface (module GDS, library gdsf90).
!
! Every procedure ends with an INTEGER status (GDS_STATUS_OK on success).
! Handles are TYPE(C_PTR); MPI handles (communicators, datatypes, ops, info)
! are the usual Fortran INTEGERs; indices are INTEGER(8) and 0-based, as in
! C. GDS_ORDER_DEFAULT means column-major here, so arrays are laid out as
! Fortran lays out its own: origin_ld(d) is the allocated extent of the
! buffer's dimension d. The module re-exports MPI (MPI_INFO_NULL, MPI_SUM,
! ...), as GVR programs expect from USE GDS alone.
!
!   mpif90.mpich -I<prefix>/include/gds prog.f90 -L<prefix>/lib -lgdsf90 -lgds
! The libgds entry points behind MODULE GDS (not for direct use).
MODULE GDS_C_INTERFACES
  USE, INTRINSIC :: ISO_C_BINDING
  IMPLICIT NONE
  ! GDS_restart_info_t (gds_version.h), re-exported by MODULE GDS.
  TYPE, BIND(C) :: GDS_RESTART_INFO_T
    INTEGER(C_INT) :: restarted          ! 1 if the array started from persisted versions
    INTEGER(C_INT) :: level              ! GDS_LEVEL_CACHE or GDS_LEVEL_PREFIX when restarted, else GDS_LEVEL_NONE
    INTEGER(C_INT64_T) :: version        ! the newest complete version: the current content equals it
    INTEGER(C_INT64_T) :: versions       ! persisted versions made navigable again
    INTEGER(C_INT) :: rebuilt_processes  ! processes whose files were rebuilt from PARTNER, XOR or RS
    INTEGER(C_INT64_T) :: rebuilt_files  ! version files rebuilt
  END TYPE
  ! GDS_persisted_t (gds_group.h), re-exported by MODULE GDS: what GDS_RESTART_QUERY found.
  TYPE, BIND(C) :: GDS_PERSISTED_T
    INTEGER(C_INT) :: found                ! 1 if this job has persisted state (for the name asked about)
    INTEGER(C_INT) :: level                ! GDS_LEVEL_CACHE or GDS_LEVEL_PREFIX, else GDS_LEVEL_NONE
    INTEGER(C_INT64_T) :: version          ! the newest version persisted: what a restart brings back
    INTEGER(C_INT64_T) :: current          ! the current version number after the restart
    CHARACTER(KIND=C_CHAR) :: holds(256)   ! what the version holds (its successor's label), NUL-terminated
    INTEGER(C_SIZE_T) :: holds_size        ! that label's full length
  END TYPE
  ! GDS_cost_t and GDS_costs_t (gds_costs.h), re-exported by MODULE GDS:
  ! what resilience cost this process (GDS_GET_COSTS).
  TYPE, BIND(C) :: GDS_COST_T
    INTEGER(C_INT64_T) :: calls  ! calls (or operations)
    REAL(C_DOUBLE) :: seconds    ! seconds inside them, on the calling thread
    INTEGER(C_INT64_T) :: bytes  ! bytes copied, written, sent or read
  END TYPE
  TYPE, BIND(C) :: GDS_COSTS_T
    REAL(C_DOUBLE) :: elapsed            ! seconds since GDS_INIT or GDS_RESET_COSTS
    TYPE(GDS_COST_T) :: versions         ! GDS_VERSION_INC, GDS_GROUP_VERSION_INC
    TYPE(GDS_COST_T) :: restores         ! GDS_VERSION_RESTORE, GDS_GROUP_VERSION_RESTORE
    TYPE(GDS_COST_T) :: cache            ! the cache's part of them; cache file bytes
    TYPE(GDS_COST_T) :: redundancy       ! PARTNER copies, XOR and RS chunks
    TYPE(GDS_COST_T) :: flushes          ! flushes to the prefix
    TYPE(GDS_COST_T) :: restarts         ! arrays restarted from persisted versions
    TYPE(GDS_COST_T) :: tracking         ! GDS_CREATE arrays' changes found by the kernel
  END TYPE
  INTERFACE
    INTEGER(C_INT) FUNCTION c_get_costs(costs) BIND(C, NAME="GDS_get_costs")
      IMPORT :: C_INT, GDS_COSTS_T
      TYPE(GDS_COSTS_T), INTENT(OUT) :: costs
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_reset_costs() BIND(C, NAME="GDS_reset_costs")
      IMPORT :: C_INT
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_need_version(gds, flag) BIND(C, NAME="GDS_need_version")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
      INTEGER(C_INT) :: flag
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_group_need_version(group, flag) BIND(C, NAME="GDS_group_need_version")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: group
      INTEGER(C_INT) :: flag
    END FUNCTION
  END INTERFACE
  INTERFACE
    INTEGER(C_INT) FUNCTION c_group_create(name, count, arrays, group) BIND(C, NAME="GDS_group_create")
      IMPORT :: C_INT, C_PTR, C_CHAR
      CHARACTER(KIND=C_CHAR), INTENT(IN) :: name(*)
      INTEGER(C_INT), VALUE :: count
      TYPE(C_PTR), INTENT(IN) :: arrays(*)
      TYPE(C_PTR) :: group
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_group_free(group) BIND(C, NAME="GDS_group_free")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR) :: group
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_group_version_inc(group, increment, label, label_size) &
        BIND(C, NAME="GDS_group_version_inc")
      IMPORT :: C_INT, C_INT64_T, C_PTR, C_CHAR, C_SIZE_T
      TYPE(C_PTR), VALUE :: group
      INTEGER(C_INT64_T), VALUE :: increment
      CHARACTER(KIND=C_CHAR) :: label(*)
      INTEGER(C_SIZE_T), VALUE :: label_size
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_group_version_restore(group, version) BIND(C, NAME="GDS_group_version_restore")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: group
      INTEGER(C_INT64_T), VALUE :: version
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_group_version_restore_newest(group, version) &
        BIND(C, NAME="GDS_group_version_restore_newest")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: group
      INTEGER(C_INT64_T) :: version
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_group_get_version_label(group, label, label_size) &
        BIND(C, NAME="GDS_group_get_version_label")
      IMPORT :: C_INT, C_SIZE_T, C_PTR
      TYPE(C_PTR), VALUE :: group
      TYPE(C_PTR) :: label
      INTEGER(C_SIZE_T) :: label_size
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_group_version_verify(group, version) BIND(C, NAME="GDS_group_version_verify")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: group
      INTEGER(C_INT64_T), VALUE :: version
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_group_get_version_number(group, version) BIND(C, NAME="GDS_group_get_version_number")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: group
      INTEGER(C_INT64_T) :: version
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_group_move_to_newest(group) BIND(C, NAME="GDS_group_move_to_newest")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: group
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_group_move_to_prev(group) BIND(C, NAME="GDS_group_move_to_prev")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: group
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_group_move_to_next(group) BIND(C, NAME="GDS_group_move_to_next")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: group
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_group_version_dec(group, dec) BIND(C, NAME="GDS_group_version_dec")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: group
      INTEGER(C_INT64_T), VALUE :: dec
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_group_get_restart_info(group, info) BIND(C, NAME="GDS_group_get_restart_info")
      IMPORT :: C_INT, C_PTR, GDS_RESTART_INFO_T
      TYPE(C_PTR), VALUE :: group
      TYPE(GDS_RESTART_INFO_T), INTENT(OUT) :: info
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_restart_query(name, state) BIND(C, NAME="GDS_restart_query")
      IMPORT :: C_INT, C_PTR, GDS_PERSISTED_T
      TYPE(C_PTR), VALUE :: name
      TYPE(GDS_PERSISTED_T), INTENT(OUT) :: state
    END FUNCTION
  END INTERFACE
  INTERFACE
    INTEGER(C_INT) FUNCTION c_init(requested, provided, world, root) BIND(C, NAME="gdsf90_init")
      IMPORT :: C_INT, C_PTR
      INTEGER(C_INT), VALUE :: requested
      INTEGER(C_INT) :: provided, world
      TYPE(C_PTR) :: root
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_finalize() BIND(C, NAME="GDS_finalize")
      IMPORT :: C_INT
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_comm_rank(comm, rank) BIND(C, NAME="gdsf90_comm_rank")
      IMPORT :: C_INT
      INTEGER(C_INT), VALUE :: comm
      INTEGER(C_INT) :: rank
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_comm_size(comm, size) BIND(C, NAME="gdsf90_comm_size")
      IMPORT :: C_INT
      INTEGER(C_INT), VALUE :: comm
      INTEGER(C_INT) :: size
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_failure_group(rank, group, ngroups) BIND(C, NAME="GDS_failure_group")
      IMPORT :: C_INT
      INTEGER(C_INT), VALUE :: rank
      INTEGER(C_INT) :: group, ngroups
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_alloc(ndims, count, min_chunks, element_type, priority, users, info, gds) &
        BIND(C, NAME="gdsf90_alloc")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      INTEGER(C_INT64_T), VALUE :: ndims
      INTEGER(C_INT64_T), INTENT(IN) :: count(*), min_chunks(*)
      INTEGER(C_INT), VALUE :: element_type, priority, users, info
      TYPE(C_PTR) :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_create(ndims, count, element_type, g2l, l2g, local_buffer, local_buffer_count, &
        priority, users, info, gds) BIND(C, NAME="gdsf90_create")
      IMPORT :: C_INT, C_INT64_T, C_PTR, C_FUNPTR
      INTEGER(C_INT64_T), VALUE :: ndims, local_buffer_count
      INTEGER(C_INT64_T), INTENT(IN) :: count(*)
      INTEGER(C_INT), VALUE :: element_type, priority, users, info
      TYPE(C_FUNPTR), VALUE :: g2l, l2g
      TYPE(C_PTR), VALUE :: local_buffer
      TYPE(C_PTR) :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_free(gds) BIND(C, NAME="GDS_free")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR) :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_get_attr(gds, key, value, flag) BIND(C, NAME="gdsf90_get_attr")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds, value
      INTEGER(C_INT), VALUE :: key
      INTEGER(C_INT) :: flag
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_get_comm(gds, comm) BIND(C, NAME="gdsf90_get_comm")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
      INTEGER(C_INT) :: comm
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_put(origin, ld, lo, hi, gds) BIND(C, NAME="GDS_put")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: origin, gds
      INTEGER(C_INT64_T), INTENT(IN) :: ld(*), lo(*), hi(*)
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_get(origin, ld, lo, hi, gds) BIND(C, NAME="GDS_get")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: origin, gds
      INTEGER(C_INT64_T), INTENT(IN) :: ld(*), lo(*), hi(*)
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_acc(origin, ld, lo, hi, op, gds) BIND(C, NAME="gdsf90_acc")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: origin, gds
      INTEGER(C_INT64_T), INTENT(IN) :: ld(*), lo(*), hi(*)
      INTEGER(C_INT), VALUE :: op
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_get_acc(origin, origin_ld, result, result_ld, lo, hi, op, gds) &
        BIND(C, NAME="gdsf90_get_acc")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: origin, result, gds
      INTEGER(C_INT64_T), INTENT(IN) :: origin_ld(*), result_ld(*), lo(*), hi(*)
      INTEGER(C_INT), VALUE :: op
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_cas(compare, source, result, offset, gds) BIND(C, NAME="GDS_compare_and_swap")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: compare, source, result, gds
      INTEGER(C_INT64_T), INTENT(IN) :: offset(*)
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_wait(gds) BIND(C, NAME="GDS_wait")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_wait_local(gds) BIND(C, NAME="GDS_wait_local")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_fence(gds) BIND(C, NAME="GDS_fence")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_access(gds, lo, hi, buffer_type, buffer, handle) BIND(C, NAME="GDS_access")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: gds
      INTEGER(C_INT64_T), INTENT(IN) :: lo(*), hi(*)
      INTEGER(C_INT), VALUE :: buffer_type
      TYPE(C_PTR) :: buffer, handle
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_get_access_buffer_type(handle, buffer_type) &
        BIND(C, NAME="GDS_get_access_buffer_type")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: handle
      INTEGER(C_INT) :: buffer_type
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_get_access_buffer_ld(handle, ld) BIND(C, NAME="GDS_get_access_buffer_ld")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: handle
      INTEGER(C_INT64_T) :: ld(*)
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_release(handle) BIND(C, NAME="GDS_release")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR) :: handle
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_distribution(gds, rank, lo, hi, owns) BIND(C, NAME="GDS_distribution")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: gds
      INTEGER(C_INT), VALUE :: rank
      INTEGER(C_INT64_T) :: lo(*), hi(*)
      INTEGER(C_INT) :: owns
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_locate(gds, index, rank, offset) BIND(C, NAME="GDS_locate")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: gds
      INTEGER(C_INT64_T), INTENT(IN) :: index(*)
      INTEGER(C_INT) :: rank
      INTEGER(C_INT64_T) :: offset
    END FUNCTION
    SUBROUTINE c_status_string(status, text, length) BIND(C, NAME="gdsf90_status_string")
      IMPORT :: C_INT, C_CHAR
      INTEGER(C_INT), VALUE :: status, length
      CHARACTER(KIND=C_CHAR) :: text(*)
    END SUBROUTINE
    INTEGER(C_INT) FUNCTION c_version_inc(gds, increment, label, label_size) BIND(C, NAME="GDS_version_inc")
      IMPORT :: C_INT, C_INT64_T, C_PTR, C_CHAR, C_SIZE_T
      TYPE(C_PTR), VALUE :: gds
      INTEGER(C_INT64_T), VALUE :: increment
      CHARACTER(KIND=C_CHAR) :: label(*)
      INTEGER(C_SIZE_T), VALUE :: label_size
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_get_version_number(gds, number) BIND(C, NAME="GDS_get_version_number")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: gds
      INTEGER(C_INT64_T) :: number
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_get_version_label(gds, label, label_size) BIND(C, NAME="GDS_get_version_label")
      IMPORT :: C_INT, C_SIZE_T, C_PTR
      TYPE(C_PTR), VALUE :: gds
      TYPE(C_PTR) :: label
      INTEGER(C_SIZE_T) :: label_size
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_get_version_holds(gds, label, label_size) BIND(C, NAME="GDS_get_version_holds")
      IMPORT :: C_INT, C_SIZE_T, C_PTR
      TYPE(C_PTR), VALUE :: gds
      TYPE(C_PTR) :: label
      INTEGER(C_SIZE_T) :: label_size
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_move_to_newest(gds) BIND(C, NAME="GDS_move_to_newest")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_move_to_next(gds) BIND(C, NAME="GDS_move_to_next")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_move_to_prev(gds) BIND(C, NAME="GDS_move_to_prev")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_version_dec(gds, dec) BIND(C, NAME="GDS_version_dec")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: gds
      INTEGER(C_INT64_T), VALUE :: dec
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_descriptor_clone(gds, clone) BIND(C, NAME="GDS_descriptor_clone")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
      TYPE(C_PTR) :: clone
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_version_restore(gds, version) BIND(C, NAME="GDS_version_restore")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: gds
      INTEGER(C_INT64_T), VALUE :: version
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_version_verify(gds, version, lo, hi) BIND(C, NAME="GDS_version_verify")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: gds
      INTEGER(C_INT64_T), VALUE :: version
      INTEGER(C_INT64_T), INTENT(IN), OPTIONAL :: lo(*), hi(*)
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_get_restart_info(gds, info) BIND(C, NAME="GDS_get_restart_info")
      IMPORT :: C_INT, C_PTR, GDS_RESTART_INFO_T
      TYPE(C_PTR), VALUE :: gds
      TYPE(GDS_RESTART_INFO_T), INTENT(OUT) :: info
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_flush_wait(gds) BIND(C, NAME="GDS_flush_wait")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_cache_wait(gds) BIND(C, NAME="GDS_cache_wait")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_should_exit(flag) BIND(C, NAME="GDS_should_exit")
      IMPORT :: C_INT
      INTEGER(C_INT) :: flag
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_define_error_attr_key(name, name_size, value_type, new_key) &
        BIND(C, NAME="GDS_define_error_attr_key")
      IMPORT :: C_INT, C_INT64_T, C_CHAR
      CHARACTER(KIND=C_CHAR) :: name(*)
      INTEGER(C_INT64_T), VALUE :: name_size
      INTEGER(C_INT), VALUE :: value_type
      INTEGER(C_INT) :: new_key
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_create_error_descriptor(e) BIND(C, NAME="GDS_create_error_descriptor")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR) :: e
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_free_error_descriptor(e) BIND(C, NAME="GDS_free_error_descriptor")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR) :: e
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_add_error_attr(e, key, length, value) BIND(C, NAME="GDS_add_error_attr")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: e, value
      INTEGER(C_INT), VALUE :: key
      INTEGER(C_INT64_T), VALUE :: length
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_get_error_attr(e, key, value, flag) BIND(C, NAME="GDS_get_error_attr")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: e, value
      INTEGER(C_INT), VALUE :: key
      INTEGER(C_INT) :: flag
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_get_error_attr_len(e, key, length, flag) BIND(C, NAME="GDS_get_error_attr_len")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      TYPE(C_PTR), VALUE :: e
      INTEGER(C_INT), VALUE :: key
      INTEGER(C_INT64_T) :: length
      INTEGER(C_INT) :: flag
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_create_error_pred(p) BIND(C, NAME="GDS_create_error_pred")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR) :: p
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_free_error_pred(p) BIND(C, NAME="GDS_free_error_pred")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR) :: p
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_create_error_pred_term(key, expr, length, values, term) &
        BIND(C, NAME="GDS_create_error_pred_term")
      IMPORT :: C_INT, C_INT64_T, C_PTR
      INTEGER(C_INT), VALUE :: key, expr
      INTEGER(C_INT64_T), VALUE :: length
      TYPE(C_PTR), VALUE :: values
      TYPE(C_PTR) :: term
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_free_error_pred_term(term) BIND(C, NAME="GDS_free_error_pred_term")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR) :: term
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_add_error_pred_term(p, term) BIND(C, NAME="GDS_add_error_pred_term")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: p, term
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_register_handler(gds, p, f) BIND(C, NAME="GDS_register_local_error_handler")
      IMPORT :: C_INT, C_PTR, C_FUNPTR
      TYPE(C_PTR), VALUE :: gds, p
      TYPE(C_FUNPTR), VALUE :: f
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_register_global_handler(gds, p, f) BIND(C, NAME="GDS_register_global_error_handler")
      IMPORT :: C_INT, C_PTR, C_FUNPTR
      TYPE(C_PTR), VALUE :: gds, p
      TYPE(C_FUNPTR), VALUE :: f
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_register_check(gds, f, priority) BIND(C, NAME="GDS_register_local_error_check")
      IMPORT :: C_INT, C_PTR, C_FUNPTR
      TYPE(C_PTR), VALUE :: gds
      TYPE(C_FUNPTR), VALUE :: f
      INTEGER(C_INT), VALUE :: priority
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_register_global_check(gds, f, priority) BIND(C, NAME="GDS_register_global_error_check")
      IMPORT :: C_INT, C_PTR, C_FUNPTR
      TYPE(C_PTR), VALUE :: gds
      TYPE(C_FUNPTR), VALUE :: f
      INTEGER(C_INT), VALUE :: priority
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_raise_local(gds, e) BIND(C, NAME="GDS_raise_local_error")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds, e
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_raise_global(gds, e) BIND(C, NAME="GDS_raise_global_error")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds, e
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_resume_local(gds, e) BIND(C, NAME="GDS_resume_local")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds, e
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_resume_global(gds, e) BIND(C, NAME="GDS_resume_global")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds, e
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_check_all_errors(gds) BIND(C, NAME="GDS_check_all_errors")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_check_local_error(gds) BIND(C, NAME="GDS_check_local_error")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_check_global_error(gds) BIND(C, NAME="GDS_check_global_error")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_invoke_local(gds) BIND(C, NAME="GDS_invoke_local_error_handler")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_invoke_global(gds) BIND(C, NAME="GDS_invoke_global_error_handler")
      IMPORT :: C_INT, C_PTR
      TYPE(C_PTR), VALUE :: gds
    END FUNCTION
    INTEGER(C_INT) FUNCTION c_inject_fault(fault, after) BIND(C, NAME="GDS_inject_fault")
      IMPORT :: C_INT, C_INT64_T
      INTEGER(C_INT), VALUE :: fault
      INTEGER(C_INT64_T), VALUE :: after
    END FUNCTION
    TYPE(C_PTR) FUNCTION c_last_error_message() BIND(C, NAME="GDS_last_error_message")
      IMPORT :: C_PTR
    END FUNCTION
    INTEGER(C_SIZE_T) FUNCTION c_strlen(s) BIND(C, NAME="strlen")
      IMPORT :: C_SIZE_T, C_PTR
      TYPE(C_PTR), VALUE :: s
    END FUNCTION
  END INTERFACE
END MODULE GDS_C_INTERFACES

MODULE GDS
  USE, INTRINSIC :: ISO_C_BINDING
  USE MPI
  USE GDS_C_INTERFACES
  IMPLICIT NONE

  ! Status codes (gds_types.h).
  INTEGER, PARAMETER :: GDS_STATUS_OK = 0, GDS_STATUS_RANGE = 1, GDS_STATUS_INVALID = 2, &
    GDS_STATUS_NOT_INITIALIZED = 3, GDS_STATUS_ALREADY_INITIALIZED = 4, GDS_STATUS_NULL_ARGUMENT = 5, &
    GDS_STATUS_NULL_HANDLE = 6, GDS_STATUS_FREED_HANDLE = 7, GDS_STATUS_INVALID_HANDLE = 8, &
    GDS_STATUS_INVALID_NDIMS = 9, GDS_STATUS_INVALID_COUNT = 10, GDS_STATUS_INVALID_BOX = 11, &
    GDS_STATUS_INVALID_LD = 12, GDS_STATUS_INVALID_TYPE = 13, GDS_STATUS_INVALID_OP = 14, &
    GDS_STATUS_TYPE_MISMATCH = 15, GDS_STATUS_INVALID_COMM = 16, GDS_STATUS_INVALID_INFO = 17, &
    GDS_STATUS_INVALID_ATTR = 18, GDS_STATUS_INVALID_MAPPING = 19, GDS_STATUS_NOT_LOCAL = 20, &
    GDS_STATUS_ACCESS_CONFLICT = 21, GDS_STATUS_BUFFER_OVERLAP = 22, GDS_STATUS_COLLECTIVE_MISMATCH = 23, &
    GDS_STATUS_REMOTE_ERROR = 24, GDS_STATUS_WRONG_THREAD = 25, GDS_STATUS_NOMEM = 26, &
    GDS_STATUS_MPI_ERROR = 27, GDS_STATUS_NOT_CURRENT = 28, GDS_STATUS_NO_VERSION = 29, &
    GDS_STATUS_VERSION_DROPPED = 30, GDS_STATUS_INTERNAL = 31, GDS_STATUS_INVALID_ERROR_KEY = 32, &
    GDS_STATUS_INVALID_ATTR_VALUE = 33, GDS_STATUS_ERROR_KEY_CONFLICT = 34, GDS_STATUS_UNHANDLED_ERROR = 35, &
    GDS_STATUS_AMBIGUOUS_HANDLER = 36, GDS_STATUS_RECOVERY_FAILED = 37, GDS_STATUS_NOT_IN_HANDLER = 38, &
    GDS_STATUS_ERROR_FOUND = 39, GDS_STATUS_CHECK_FAILED = 40, GDS_STATUS_DESCRIPTOR_IN_USE = 41, &
    GDS_STATUS_MPI_BUG = 42, &
    GDS_STATUS_IO_ERROR = 43, &
    GDS_STATUS_CORRUPT = 44, &
    GDS_STATUS_UNRECOVERABLE = 45, &
    GDS_STATUS_CD_STATE = 46, GDS_STATUS_NOT_PRESERVED = 47, GDS_STATUS_NOT_CONTAINED = 48

  ! Open Resilience (gds_error.h). Handlers are BIND(C) functions
  !   INTEGER(C_INT) FUNCTION h(gds, error_desc) BIND(C); TYPE(C_PTR), VALUE :: gds, error_desc
  ! and checks
  !   INTEGER(C_INT) FUNCTION c(gds, priority) BIND(C); TYPE(C_PTR), VALUE :: gds; INTEGER(C_INT), VALUE :: priority
  ! passed by value: C_FUNLOC(h) straight in the call. Attribute values are passed by address (C_LOC); INT values are INTEGER(8),
  ! FLOAT values DOUBLE PRECISION.
  INTEGER, PARAMETER :: GDS_EAVTYPE_BYTE = 1, GDS_EAVTYPE_INT = 2, GDS_EAVTYPE_FLOAT = 3, &
    GDS_EAVTYPE_BYTE_ARRAY = 4, GDS_EAVTYPE_INT_ARRAY = 5, GDS_EAVTYPE_FLOAT_ARRAY = 6, &
    GDS_EAVTYPE_MPIOBJ = 7, GDS_EAVTYPE_MPIOBJ_ARRAY = 8
  INTEGER, PARAMETER :: GDS_EMEXP_ANY = 1, GDS_EMEXP_VALUE = 2, GDS_EMEXP_RANGE = 3, GDS_EMEXP_NOT = 4, &
    GDS_EPRED_ANY = 1, GDS_EPRED_VALUE = 2, GDS_EPRED_RANGE = 3, GDS_EPRED_NOT = 4
  INTEGER, PARAMETER :: GDS_EATTR_MEMORY_VADDR = 1, GDS_EATTR_MEMORY_SIZE = 2, &
    GDS_EATTR_MEMORY_AFFECTED_SIZE = 3, GDS_EATTR_MEMORY_N_RANGES = 4, GDS_EATTR_MEMORY_DATA = 5, &
    GDS_EATTR_MEMORY_CHECK_BITS = 6, GDS_EATTR_MEMORY_LOCATION_REUSABLE = 7, GDS_EATTR_APP = 8, &
    GDS_EATTR_DETECTED_BY = 9, GDS_EATTR_GDS_INDEX = 10, GDS_EATTR_GDS_COUNT = 11, &
    GDS_EATTR_GDS_AFFECTED_COUNT = 12, GDS_EATTR_GDS_VERSION = 13, GDS_EATTR_GDS_LATENCY = 14, &
    GDS_EATTR_LOST_PROCESSES = 15, GDS_EATTR_LOST_COMMUNICATOR = 16, GDS_EATTR_REPLACED_COMMUNICATOR = 17, &
    GDS_EATTR_LOST_COMPUTATION = 18, GDS_EATTR_MPI_RANK_UNRESPONSIVE = 19, GDS_EATTR_GDS_STATUS = 20, &
    GDS_EATTR_GDS_FUNCTION = 21, GDS_EATTR_MPI_ERROR_CLASS = 22, GDS_EATTR_GDS_PROCESS = 23, &
    GDS_EATTR_GDS_FILE = 24
  INTEGER, PARAMETER :: GDS_FAULT_NONE = 0, GDS_FAULT_RMA = 1, GDS_FAULT_VERSION_MEMORY = 2, &
    GDS_FAULT_VERSION_PHASE = 3, GDS_FAULT_MEMORY_SYNC = 4, &
    GDS_FAULT_VERSION_CORRUPT = 5, GDS_FAULT_LATE_WRITE = 6
  INTEGER, PARAMETER :: GDS_LEVEL_NONE = 0, GDS_LEVEL_CACHE = 1, GDS_LEVEL_PREFIX = 2
  TYPE(C_PTR), PARAMETER :: GDS_ERROR_NULL = C_NULL_PTR, GDS_ERROR_PRED_NULL = C_NULL_PTR, &
    GDS_ERROR_PRED_TERM_NULL = C_NULL_PTR

  INTEGER, PARAMETER :: GDS_THREAD_SINGLE = 0, GDS_THREAD_FUNNELED = 1, GDS_THREAD_SERIALIZED = 2, &
    GDS_THREAD_MULTIPLE = 3
  INTEGER, PARAMETER :: GDS_PRIORITY_HIGH = 0, GDS_PRIORITY_MEDIUM = 1, GDS_PRIORITY_LOW = 2, &
    GDS_PRIORITY_CRITICAL = 0, GDS_PRIORITY_EXPENSIVE = 1, GDS_PRIORITY_CHEAP = 2
  INTEGER, PARAMETER :: GDS_FLAVOR_CREATE = 1, GDS_FLAVOR_ALLOC = 2
  INTEGER, PARAMETER :: GDS_TYPE = 1, GDS_CREATE_FLAVOR = 2, GDS_GLOBAL_LAYOUT = 3, &
    GDS_NUMBER_DIMENSIONS = 4, GDS_COUNT = 5, GDS_CHUNK_SIZE = 6
  INTEGER, PARAMETER :: GDS_ACCESS_BUFFER_DIRECT = 1, GDS_ACCESS_BUFFER_COPY = 2, GDS_ACCESS_BUFFER_ANY = 3

  CHARACTER(*), PARAMETER :: GDS_ORDER_KEY = "gds_order", GDS_ORDER_DEFAULT = "default", &
    GDS_ORDER_ROW_MAJOR = "row_major", GDS_ORDER_COL_MAJOR = "col_major"

  ! Element types: any predefined MPI datatype handle works; these name the common ones.
  INTEGER, PARAMETER :: GDS_DATA_BYTE = MPI_BYTE, GDS_DATA_CHAR = MPI_CHAR, GDS_DATA_INT = MPI_INT, &
    GDS_DATA_LONG = MPI_LONG, GDS_DATA_FLOAT = MPI_FLOAT, GDS_DATA_DBL = MPI_DOUBLE, &
    GDS_DATA_DOUBLE = MPI_DOUBLE, GDS_DATA_INTEGER = MPI_INTEGER, GDS_DATA_REAL = MPI_REAL, &
    GDS_DATA_DOUBLE_PRECISION = MPI_DOUBLE_PRECISION, GDS_DATA_COMPLEX = MPI_COMPLEX, &
    GDS_DATA_DOUBLE_COMPLEX = MPI_DOUBLE_COMPLEX, GDS_DATA_LOGICAL = MPI_LOGICAL, &
    GDS_DATA_INTEGER8 = MPI_INTEGER8

  ! Set by GDS_INIT.
  INTEGER, PROTECTED :: GDS_COMM_WORLD = MPI_COMM_NULL
  TYPE(C_PTR), PROTECTED :: GDS_ROOT = C_NULL_PTR
  TYPE(C_PTR), PARAMETER :: GDS_NULL = C_NULL_PTR
  TYPE(C_PTR), PARAMETER :: GDS_GROUP_NULL = C_NULL_PTR

  ! The C entry points stay inside the module.
  PRIVATE :: c_group_create, c_group_free, c_group_version_inc, c_group_version_restore, c_group_version_verify, &
    c_group_version_restore_newest, c_group_get_version_label, &
    c_group_get_version_number, c_group_move_to_newest, c_group_move_to_prev, c_group_move_to_next, &
    c_group_version_dec, c_group_get_restart_info, c_restart_query
  PRIVATE :: c_get_costs, c_reset_costs, c_need_version, c_group_need_version
  PRIVATE :: c_init, c_finalize, c_comm_rank, c_comm_size, c_failure_group, c_alloc, c_create, c_free, c_get_attr, &
    c_get_comm, c_put, c_get, c_acc, c_get_acc, c_cas, c_wait, c_wait_local, c_fence, c_access, &
    c_get_access_buffer_type, c_get_access_buffer_ld, c_release, c_distribution, c_locate, &
    c_status_string, c_last_error_message, c_strlen, c_version_inc, c_get_version_number, &
    c_get_version_label, c_get_version_holds, c_to_string, c_move_to_newest, c_move_to_next, c_move_to_prev, &
    c_version_dec, c_descriptor_clone, &
    c_version_restore, c_version_verify, c_get_restart_info, c_flush_wait, c_cache_wait, c_should_exit, &
    c_define_error_attr_key, &
    c_create_error_descriptor, &
    c_free_error_descriptor, &
    c_add_error_attr, c_get_error_attr, c_get_error_attr_len, c_create_error_pred, c_free_error_pred, &
    c_create_error_pred_term, c_free_error_pred_term, c_add_error_pred_term, c_register_handler, &
    c_register_global_handler, c_register_check, c_register_global_check, c_raise_local, c_raise_global, &
    c_resume_local, c_resume_global, c_check_all_errors, c_check_local_error, c_check_global_error, &
    c_invoke_local, c_invoke_global, c_inject_fault


CONTAINS

  SUBROUTINE GDS_INIT(requested_thread_support, provided_thread_support, status)
    INTEGER, INTENT(IN) :: requested_thread_support
    INTEGER, INTENT(OUT) :: provided_thread_support, status
    INTEGER(C_INT) :: provided, world
    TYPE(C_PTR) :: root
    provided = 0
    status = c_init(requested_thread_support, provided, world, root)
    provided_thread_support = provided
    IF (status == GDS_STATUS_OK) THEN
      GDS_COMM_WORLD = world
      GDS_ROOT = root
    END IF
  END SUBROUTINE

  SUBROUTINE GDS_FINALIZE(status)
    INTEGER, INTENT(OUT) :: status
    status = c_finalize()
    IF (status == GDS_STATUS_OK) GDS_COMM_WORLD = MPI_COMM_NULL
  END SUBROUTINE

  SUBROUTINE GDS_COMM_RANK(comm, rank, status)
    INTEGER, INTENT(IN) :: comm
    INTEGER, INTENT(OUT) :: rank, status
    status = c_comm_rank(comm, rank)
  END SUBROUTINE

  SUBROUTINE GDS_COMM_SIZE(comm, size, status)
    INTEGER, INTENT(IN) :: comm
    INTEGER, INTENT(OUT) :: size, status
    status = c_comm_size(comm, size)
  END SUBROUTINE

  SUBROUTINE GDS_FAILURE_GROUP(rank, group, ngroups, status)
    INTEGER, INTENT(IN) :: rank
    INTEGER, INTENT(OUT) :: group, ngroups, status
    INTEGER(C_INT) :: g, n
    g = -1
    n = 0
    status = c_failure_group(rank, g, n)
    group = g
    ngroups = n
  END SUBROUTINE

  SUBROUTINE GDS_ALLOC(ndims, count, min_chunks, element_type, resilience_priority, users, info, gds, status)
    INTEGER(8), INTENT(IN) :: ndims
    INTEGER(8), DIMENSION(*), INTENT(IN) :: count, min_chunks
    INTEGER, INTENT(IN) :: element_type, resilience_priority, users, info
    TYPE(C_PTR), INTENT(OUT) :: gds
    INTEGER, INTENT(OUT) :: status
    gds = C_NULL_PTR
    status = c_alloc(ndims, count, min_chunks, element_type, resilience_priority, users, info, gds)
  END SUBROUTINE

  SUBROUTINE GDS_CREATE(ndims, count, element_type, global_to_local_func, local_to_global_func, local_buffer, &
                        local_buffer_count, resilience_priority, users, info, gds, status)
    INTEGER(8), INTENT(IN) :: ndims, local_buffer_count
    INTEGER(8), DIMENSION(*), INTENT(IN) :: count
    INTEGER, INTENT(IN) :: element_type, resilience_priority, users, info
    TYPE(C_FUNPTR), VALUE :: global_to_local_func, local_to_global_func
    TYPE(C_PTR), INTENT(IN) :: local_buffer
    TYPE(C_PTR), INTENT(OUT) :: gds
    INTEGER, INTENT(OUT) :: status
    gds = C_NULL_PTR
    status = c_create(ndims, count, element_type, global_to_local_func, local_to_global_func, local_buffer, &
                      local_buffer_count, resilience_priority, users, info, gds)
  END SUBROUTINE

  SUBROUTINE GDS_FREE(gds, status)
    TYPE(C_PTR), INTENT(INOUT) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_free(gds)
  END SUBROUTINE

  ! attr_val receives an INTEGER for GDS_TYPE (a Fortran datatype handle),
  ! GDS_CREATE_FLAVOR; an INTEGER(8) for GDS_NUMBER_DIMENSIONS; ndims
  ! INTEGER(8) for GDS_COUNT, GDS_CHUNK_SIZE and GDS_GLOBAL_LAYOUT.
  SUBROUTINE GDS_GET_ATTR(gds, attr_key, attr_val, flag, status)
    TYPE(C_PTR), INTENT(IN) :: gds, attr_val
    INTEGER, INTENT(IN) :: attr_key
    INTEGER, INTENT(OUT) :: flag, status
    status = c_get_attr(gds, attr_key, attr_val, flag)
  END SUBROUTINE

  SUBROUTINE GDS_GET_COMM(gds, comm, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: comm, status
    status = c_get_comm(gds, comm)
  END SUBROUTINE

  SUBROUTINE GDS_PUT(orig_addr, orig_ld, lo_idx, hi_idx, gds, status)
    TYPE(C_PTR), INTENT(IN) :: orig_addr, gds
    INTEGER(8), DIMENSION(*), INTENT(IN) :: orig_ld, lo_idx, hi_idx
    INTEGER, INTENT(OUT) :: status
    status = c_put(orig_addr, orig_ld, lo_idx, hi_idx, gds)
  END SUBROUTINE

  SUBROUTINE GDS_GET(orig_addr, orig_ld, lo_idx, hi_idx, gds, status)
    TYPE(C_PTR), INTENT(IN) :: orig_addr, gds
    INTEGER(8), DIMENSION(*), INTENT(IN) :: orig_ld, lo_idx, hi_idx
    INTEGER, INTENT(OUT) :: status
    status = c_get(orig_addr, orig_ld, lo_idx, hi_idx, gds)
  END SUBROUTINE

  SUBROUTINE GDS_ACC(orig_addr, orig_ld, lo_idx, hi_idx, acc_op, gds, status)
    TYPE(C_PTR), INTENT(IN) :: orig_addr, gds
    INTEGER(8), DIMENSION(*), INTENT(IN) :: orig_ld, lo_idx, hi_idx
    INTEGER, INTENT(IN) :: acc_op
    INTEGER, INTENT(OUT) :: status
    status = c_acc(orig_addr, orig_ld, lo_idx, hi_idx, acc_op, gds)
  END SUBROUTINE

  SUBROUTINE GDS_GET_ACC(origin_addr, origin_ld, result_addr, result_ld, lo_index, hi_index, accumulate_op, &
                         gds, status)
    TYPE(C_PTR), INTENT(IN) :: origin_addr, result_addr, gds
    INTEGER(8), DIMENSION(*), INTENT(IN) :: origin_ld, result_ld, lo_index, hi_index
    INTEGER, INTENT(IN) :: accumulate_op
    INTEGER, INTENT(OUT) :: status
    status = c_get_acc(origin_addr, origin_ld, result_addr, result_ld, lo_index, hi_index, accumulate_op, gds)
  END SUBROUTINE

  SUBROUTINE GDS_COMPARE_AND_SWAP(compare_addr, swap_source_addr, swap_result_addr, gds_offset, gds, status)
    TYPE(C_PTR), INTENT(IN) :: compare_addr, swap_source_addr, swap_result_addr, gds
    INTEGER(8), DIMENSION(*), INTENT(IN) :: gds_offset
    INTEGER, INTENT(OUT) :: status
    status = c_cas(compare_addr, swap_source_addr, swap_result_addr, gds_offset, gds)
  END SUBROUTINE

  SUBROUTINE GDS_WAIT(gds, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_wait(gds)
  END SUBROUTINE

  SUBROUTINE GDS_WAIT_LOCAL(gds, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_wait_local(gds)
  END SUBROUTINE

  SUBROUTINE GDS_FENCE(gds, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_fence(gds)
  END SUBROUTINE

  SUBROUTINE GDS_ACCESS(gds, lo_index, hi_index, buf_type, access_buf, access_handle, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER(8), DIMENSION(*), INTENT(IN) :: lo_index, hi_index
    INTEGER, INTENT(IN) :: buf_type
    TYPE(C_PTR), INTENT(OUT) :: access_buf, access_handle
    INTEGER, INTENT(OUT) :: status
    access_buf = C_NULL_PTR
    access_handle = C_NULL_PTR
    status = c_access(gds, lo_index, hi_index, buf_type, access_buf, access_handle)
  END SUBROUTINE

  SUBROUTINE GDS_GET_ACCESS_BUFFER_TYPE(access_handle, buffer_type, status)
    TYPE(C_PTR), INTENT(IN) :: access_handle
    INTEGER, INTENT(OUT) :: buffer_type, status
    status = c_get_access_buffer_type(access_handle, buffer_type)
  END SUBROUTINE

  ! GDS extension: the ndims-1 leading dimensions of an access buffer.
  SUBROUTINE GDS_GET_ACCESS_BUFFER_LD(access_handle, ld, status)
    TYPE(C_PTR), INTENT(IN) :: access_handle
    INTEGER(8), DIMENSION(*), INTENT(OUT) :: ld
    INTEGER, INTENT(OUT) :: status
    status = c_get_access_buffer_ld(access_handle, ld)
  END SUBROUTINE

  SUBROUTINE GDS_RELEASE(access_handle, status)
    TYPE(C_PTR), INTENT(INOUT) :: access_handle
    INTEGER, INTENT(OUT) :: status
    status = c_release(access_handle)
  END SUBROUTINE

  ! GDS extension: the box a rank owns in a GDS_ALLOC array (owns = 0 if none).
  SUBROUTINE GDS_DISTRIBUTION(gds, rank, lo, hi, owns, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(IN) :: rank
    INTEGER(8), DIMENSION(*), INTENT(OUT) :: lo, hi
    INTEGER, INTENT(OUT) :: owns, status
    status = c_distribution(gds, rank, lo, hi, owns)
  END SUBROUTINE

  ! GDS extension: the owner of an element and its offset in the owner's buffer.
  SUBROUTINE GDS_LOCATE(gds, index, rank, local_offset, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER(8), DIMENSION(*), INTENT(IN) :: index
    INTEGER, INTENT(OUT) :: rank, status
    INTEGER(8), INTENT(OUT) :: local_offset
    status = c_locate(gds, index, rank, local_offset)
  END SUBROUTINE

  SUBROUTINE GDS_VERSION_INC(gds, incre, label, label_size, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER(8), INTENT(IN) :: incre, label_size
    CHARACTER(*), INTENT(IN) :: label
    INTEGER, INTENT(OUT) :: status
    status = c_version_inc(gds, incre, label, INT(label_size, C_SIZE_T))
  END SUBROUTINE

  SUBROUTINE GDS_GET_VERSION_NUMBER(gds, ver_num, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER(8), INTENT(OUT) :: ver_num
    INTEGER, INTENT(OUT) :: status
    status = c_get_version_number(gds, ver_num)
  END SUBROUTINE

  ! label points at GDS's copy (valid while the version is retained).
  SUBROUTINE GDS_GET_VERSION_LABEL(gds, label, label_size, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    CHARACTER, POINTER, INTENT(OUT) :: label(:)
    INTEGER(8), INTENT(OUT) :: label_size
    INTEGER, INTENT(OUT) :: status
    TYPE(C_PTR) :: p
    INTEGER(C_SIZE_T) :: n
    NULLIFY(label)
    label_size = 0
    status = c_get_version_label(gds, p, n)
    IF (status /= GDS_STATUS_OK) RETURN
    label_size = INT(n, 8)
    CALL C_F_POINTER(p, label, [MAX(n, 1_C_SIZE_T)])
    label => label(1:n)
  END SUBROUTINE

  ! The label of the version the handle points at, as a Fortran string (blank-padded, cut to LEN(label)).
  SUBROUTINE GDS_GET_VERSION_LABEL_STRING(gds, label, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    CHARACTER(*), INTENT(OUT) :: label
    INTEGER, INTENT(OUT) :: status
    TYPE(C_PTR) :: p
    INTEGER(C_SIZE_T) :: n
    label = ""
    status = c_get_version_label(gds, p, n)
    IF (status == GDS_STATUS_OK) CALL c_to_string(p, n, label)
  END SUBROUTINE

  ! What the version the handle points at holds (its successor's label), as a Fortran string.
  SUBROUTINE GDS_GET_VERSION_HOLDS(gds, label, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    CHARACTER(*), INTENT(OUT) :: label
    INTEGER, INTENT(OUT) :: status
    TYPE(C_PTR) :: p
    INTEGER(C_SIZE_T) :: n
    label = ""
    status = c_get_version_holds(gds, p, n)
    IF (status == GDS_STATUS_OK) CALL c_to_string(p, n, label)
  END SUBROUTINE

  SUBROUTINE c_to_string(p, n, text)
    TYPE(C_PTR), INTENT(IN) :: p
    INTEGER(C_SIZE_T), INTENT(IN) :: n
    CHARACTER(*), INTENT(INOUT) :: text
    CHARACTER(KIND=C_CHAR), POINTER :: chars(:)
    INTEGER :: i
    IF (n == 0) RETURN
    CALL C_F_POINTER(p, chars, [n])
    DO i = 1, INT(MIN(n, INT(LEN(text), C_SIZE_T)))
      text(i:i) = chars(i)
    END DO
  END SUBROUTINE

  SUBROUTINE GDS_MOVE_TO_NEWEST(gds, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_move_to_newest(gds)
  END SUBROUTINE

  SUBROUTINE GDS_MOVE_TO_NEXT(gds, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_move_to_next(gds)
  END SUBROUTINE

  SUBROUTINE GDS_MOVE_TO_PREV(gds, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_move_to_prev(gds)
  END SUBROUTINE

  SUBROUTINE GDS_VERSION_DEC(gds, dec, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER(8), INTENT(IN) :: dec
    INTEGER, INTENT(OUT) :: status
    status = c_version_dec(gds, dec)
  END SUBROUTINE

  SUBROUTINE GDS_DESCRIPTOR_CLONE(in_gds, clone_gds, status)
    TYPE(C_PTR), INTENT(IN) :: in_gds
    TYPE(C_PTR), INTENT(OUT) :: clone_gds
    INTEGER, INTENT(OUT) :: status
    clone_gds = C_NULL_PTR
    status = c_descriptor_clone(in_gds, clone_gds)
  END SUBROUTINE

  ! GDS extension: roll the current content back to a retained version (collective).
  SUBROUTINE GDS_VERSION_RESTORE(gds, version, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER(8), INTENT(IN) :: version
    INTEGER, INTENT(OUT) :: status
    status = c_version_restore(gds, version)
  END SUBROUTINE

  ! GDS extension: checks a retained version against the checksums taken when it was made
  ! (collective): all of it, or the blocks holding the box lo_index..hi_index (both or neither).
  ! GDS_STATUS_CORRUPT on every process if any block differs (raised on its owner).
  SUBROUTINE GDS_VERSION_VERIFY(gds, version, status, lo_index, hi_index)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER(8), INTENT(IN) :: version
    INTEGER, INTENT(OUT) :: status
    INTEGER(8), DIMENSION(*), INTENT(IN), OPTIONAL :: lo_index, hi_index
    status = c_version_verify(gds, version, lo_index, hi_index)
  END SUBROUTINE

  ! GDS extension: what GDS_ALLOC/GDS_CREATE found of the array's persisted versions.
  SUBROUTINE GDS_GET_RESTART_INFO(gds, info, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    TYPE(GDS_RESTART_INFO_T), INTENT(OUT) :: info
    INTEGER, INTENT(OUT) :: status
    status = c_get_restart_info(gds, info)
  END SUBROUTINE

  ! GDS extension: waits for the array's flushes to the prefix (collective);
  ! GDS_STATUS_IO_ERROR if one of them failed (it was raised when it did).
  SUBROUTINE GDS_FLUSH_WAIT(gds, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_flush_wait(gds)
  END SUBROUTINE

  ! GDS extension: completes the array's cached versions written in the
  ! background (collective); GDS_STATUS_IO_ERROR if one of them failed.
  SUBROUTINE GDS_CACHE_WAIT(gds, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_cache_wait(gds)
  END SUBROUTINE

  ! GDS extension: whether the job should stop now, right after a persisted
  ! version (GDS_should_exit: a halt file or too little time left, and the
  ! newest version persisted). flag is 1 (stop) or 0 (go on), the same on
  ! every process. Collective over GDS_COMM_WORLD.
  SUBROUTINE GDS_SHOULD_EXIT(flag, status)
    INTEGER, INTENT(OUT) :: flag, status
    INTEGER(C_INT) :: f
    f = 0
    status = c_should_exit(f)
    flag = f
  END SUBROUTINE

  ! ---- Open Resilience (GVR 1.0, 6.4.2) -------------------------------------------------

  ! Collective over GDS_COMM_WORLD.
  SUBROUTINE GDS_DEFINE_ERROR_ATTR_KEY(attr_name, attr_name_size, value_type, new_key, status)
    CHARACTER(*), INTENT(IN) :: attr_name
    INTEGER(8), INTENT(IN) :: attr_name_size
    INTEGER, INTENT(IN) :: value_type
    INTEGER, INTENT(OUT) :: new_key, status
    INTEGER(C_INT) :: key
    key = 0
    status = c_define_error_attr_key(attr_name, attr_name_size, value_type, key)
    new_key = key
  END SUBROUTINE

  SUBROUTINE GDS_CREATE_ERROR_DESCRIPTOR(error_desc, status)
    TYPE(C_PTR), INTENT(OUT) :: error_desc
    INTEGER, INTENT(OUT) :: status
    error_desc = C_NULL_PTR
    status = c_create_error_descriptor(error_desc)
  END SUBROUTINE

  SUBROUTINE GDS_FREE_ERROR_DESCRIPTOR(error_desc, status)
    TYPE(C_PTR), INTENT(INOUT) :: error_desc
    INTEGER, INTENT(OUT) :: status
    status = c_free_error_descriptor(error_desc)
  END SUBROUTINE

  SUBROUTINE GDS_ADD_ERROR_ATTR(error_desc, attr_key, attr_len, attr_val, status)
    TYPE(C_PTR), INTENT(IN) :: error_desc, attr_val
    INTEGER, INTENT(IN) :: attr_key
    INTEGER(8), INTENT(IN) :: attr_len
    INTEGER, INTENT(OUT) :: status
    status = c_add_error_attr(error_desc, attr_key, attr_len, attr_val)
  END SUBROUTINE

  SUBROUTINE GDS_GET_ERROR_ATTR(error_desc, attr_key, attr_val, flag, status)
    TYPE(C_PTR), INTENT(IN) :: error_desc, attr_val
    INTEGER, INTENT(IN) :: attr_key
    INTEGER, INTENT(OUT) :: flag, status
    INTEGER(C_INT) :: f
    f = 0
    status = c_get_error_attr(error_desc, attr_key, attr_val, f)
    flag = f
  END SUBROUTINE

  SUBROUTINE GDS_GET_ERROR_ATTR_LEN(error_desc, attr_key, attr_len, flag, status)
    TYPE(C_PTR), INTENT(IN) :: error_desc
    INTEGER, INTENT(IN) :: attr_key
    INTEGER(8), INTENT(OUT) :: attr_len
    INTEGER, INTENT(OUT) :: flag, status
    INTEGER(C_INT) :: f
    f = 0
    attr_len = 0
    status = c_get_error_attr_len(error_desc, attr_key, attr_len, f)
    flag = f
  END SUBROUTINE

  SUBROUTINE GDS_CREATE_ERROR_PRED(pred, status)
    TYPE(C_PTR), INTENT(OUT) :: pred
    INTEGER, INTENT(OUT) :: status
    pred = C_NULL_PTR
    status = c_create_error_pred(pred)
  END SUBROUTINE

  SUBROUTINE GDS_FREE_ERROR_PRED(pred, status)
    TYPE(C_PTR), INTENT(INOUT) :: pred
    INTEGER, INTENT(OUT) :: status
    status = c_free_error_pred(pred)
  END SUBROUTINE

  ! values: C_LOC of the value (VALUE) or of min and max (RANGE); ignored for ANY and NOT.
  SUBROUTINE GDS_CREATE_ERROR_PRED_TERM(attr_key, match_expr, value_len, values, term, status)
    INTEGER, INTENT(IN) :: attr_key, match_expr
    INTEGER(8), INTENT(IN) :: value_len
    TYPE(C_PTR), INTENT(IN) :: values
    TYPE(C_PTR), INTENT(OUT) :: term
    INTEGER, INTENT(OUT) :: status
    term = C_NULL_PTR
    status = c_create_error_pred_term(attr_key, match_expr, value_len, values, term)
  END SUBROUTINE

  SUBROUTINE GDS_FREE_ERROR_PRED_TERM(term, status)
    TYPE(C_PTR), INTENT(INOUT) :: term
    INTEGER, INTENT(OUT) :: status
    status = c_free_error_pred_term(term)
  END SUBROUTINE

  SUBROUTINE GDS_ADD_ERROR_PRED_TERM(pred, term, status)
    TYPE(C_PTR), INTENT(IN) :: pred, term
    INTEGER, INTENT(OUT) :: status
    status = c_add_error_pred_term(pred, term)
  END SUBROUTINE

  SUBROUTINE GDS_REGISTER_LOCAL_ERROR_HANDLER(gds, pred, recovery_func, status)
    TYPE(C_PTR), INTENT(IN) :: gds, pred
    TYPE(C_FUNPTR), VALUE :: recovery_func
    INTEGER, INTENT(OUT) :: status
    status = c_register_handler(gds, pred, recovery_func)
  END SUBROUTINE

  ! Collective.
  SUBROUTINE GDS_REGISTER_GLOBAL_ERROR_HANDLER(gds, pred, recovery_func, status)
    TYPE(C_PTR), INTENT(IN) :: gds, pred
    TYPE(C_FUNPTR), VALUE :: recovery_func
    INTEGER, INTENT(OUT) :: status
    status = c_register_global_handler(gds, pred, recovery_func)
  END SUBROUTINE

  SUBROUTINE GDS_REGISTER_LOCAL_ERROR_CHECK(gds, check_func, check_priority, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    TYPE(C_FUNPTR), VALUE :: check_func
    INTEGER, INTENT(IN) :: check_priority
    INTEGER, INTENT(OUT) :: status
    status = c_register_check(gds, check_func, check_priority)
  END SUBROUTINE

  ! Collective.
  SUBROUTINE GDS_REGISTER_GLOBAL_ERROR_CHECK(gds, check_func, check_priority, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    TYPE(C_FUNPTR), VALUE :: check_func
    INTEGER, INTENT(IN) :: check_priority
    INTEGER, INTENT(OUT) :: status
    status = c_register_global_check(gds, check_func, check_priority)
  END SUBROUTINE

  SUBROUTINE GDS_RAISE_LOCAL_ERROR(gds, error_desc, status)
    TYPE(C_PTR), INTENT(IN) :: gds, error_desc
    INTEGER, INTENT(OUT) :: status
    status = c_raise_local(gds, error_desc)
  END SUBROUTINE

  SUBROUTINE GDS_RAISE_GLOBAL_ERROR(gds, error_desc, status)
    TYPE(C_PTR), INTENT(IN) :: gds, error_desc
    INTEGER, INTENT(OUT) :: status
    status = c_raise_global(gds, error_desc)
  END SUBROUTINE

  SUBROUTINE GDS_RESUME_LOCAL(gds, error_desc, status)
    TYPE(C_PTR), INTENT(IN) :: gds, error_desc
    INTEGER, INTENT(OUT) :: status
    status = c_resume_local(gds, error_desc)
  END SUBROUTINE

  SUBROUTINE GDS_RESUME_GLOBAL(gds, error_desc, status)
    TYPE(C_PTR), INTENT(IN) :: gds, error_desc
    INTEGER, INTENT(OUT) :: status
    status = c_resume_global(gds, error_desc)
  END SUBROUTINE

  ! Collective.
  SUBROUTINE GDS_CHECK_ALL_ERRORS(gds, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_check_all_errors(gds)
  END SUBROUTINE

  ! GDS extension: do the local checks find an error (GDS_STATUS_ERROR_FOUND)?
  SUBROUTINE GDS_CHECK_LOCAL_ERROR(gds, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_check_local_error(gds)
  END SUBROUTINE

  ! GDS extension: do the global checks find an error? Collective.
  SUBROUTINE GDS_CHECK_GLOBAL_ERROR(gds, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_check_global_error(gds)
  END SUBROUTINE

  SUBROUTINE GDS_INVOKE_LOCAL_ERROR_HANDLER(gds, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_invoke_local(gds)
  END SUBROUTINE

  ! Collective.
  SUBROUTINE GDS_INVOKE_GLOBAL_ERROR_HANDLER(gds, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: status
    status = c_invoke_global(gds)
  END SUBROUTINE

  ! GDS extension: make the after-th next operation of a kind fail, to test handlers.
  SUBROUTINE GDS_INJECT_FAULT(fault, after, status)
    INTEGER, INTENT(IN) :: fault
    INTEGER(8), INTENT(IN) :: after
    INTEGER, INTENT(OUT) :: status
    status = c_inject_fault(fault, after)
  END SUBROUTINE

  ! A one-line description of a status.
  SUBROUTINE GDS_STATUS_STRING(status, text)
    INTEGER, INTENT(IN) :: status
    CHARACTER(*), INTENT(OUT) :: text
    CALL c_status_string(status, text, LEN(text))
  END SUBROUTINE

  ! The message of this process's most recent failed GDS call.
  ! GDS extension: version groups (gds_group.h). A group versions, restores,
  ! navigates and persists its arrays as one; group is a TYPE(C_PTR).
  SUBROUTINE GDS_GROUP_CREATE(name, count, arrays, group, status)
    CHARACTER(*), INTENT(IN) :: name
    INTEGER, INTENT(IN) :: count
    TYPE(C_PTR), DIMENSION(*), INTENT(IN) :: arrays
    TYPE(C_PTR), INTENT(OUT) :: group
    INTEGER, INTENT(OUT) :: status
    group = C_NULL_PTR
    status = c_group_create(TRIM(name) // C_NULL_CHAR, INT(count, C_INT), arrays, group)
  END SUBROUTINE

  SUBROUTINE GDS_GROUP_FREE(group, status)
    TYPE(C_PTR), INTENT(INOUT) :: group
    INTEGER, INTENT(OUT) :: status
    status = c_group_free(group)
  END SUBROUTINE

  SUBROUTINE GDS_GROUP_VERSION_INC(group, incre, label, label_size, status)
    TYPE(C_PTR), INTENT(IN) :: group
    INTEGER(8), INTENT(IN) :: incre, label_size
    CHARACTER(*), INTENT(IN) :: label
    INTEGER, INTENT(OUT) :: status
    status = c_group_version_inc(group, incre, label, INT(label_size, C_SIZE_T))
  END SUBROUTINE

  SUBROUTINE GDS_GROUP_VERSION_RESTORE(group, version, status)
    TYPE(C_PTR), INTENT(IN) :: group
    INTEGER(8), INTENT(IN) :: version
    INTEGER, INTENT(OUT) :: status
    status = c_group_version_restore(group, version)
  END SUBROUTINE

  ! GDS extension: every member back to the newest version they all retain;
  ! version receives its number (GDS_STATUS_NO_VERSION before the first group version).
  SUBROUTINE GDS_GROUP_VERSION_RESTORE_NEWEST(group, version, status)
    TYPE(C_PTR), INTENT(IN) :: group
    INTEGER(8), INTENT(OUT) :: version
    INTEGER, INTENT(OUT) :: status
    INTEGER(C_INT64_T) :: v
    v = 0
    status = c_group_version_restore_newest(group, v)
    version = v
  END SUBROUTINE

  ! GDS extension: the label of the version the group's handles point at, as a
  ! Fortran string (blank-padded, cut to LEN(label)). Local.
  SUBROUTINE GDS_GROUP_GET_VERSION_LABEL(group, label, status)
    TYPE(C_PTR), INTENT(IN) :: group
    CHARACTER(*), INTENT(OUT) :: label
    INTEGER, INTENT(OUT) :: status
    TYPE(C_PTR) :: p
    INTEGER(C_SIZE_T) :: n
    label = ""
    status = c_group_get_version_label(group, p, n)
    IF (status == GDS_STATUS_OK) CALL c_to_string(p, n, label)
  END SUBROUTINE

  ! GDS extension: every member's stored copy of a version against its checksums (GDS_STATUS_CORRUPT if damaged).
  SUBROUTINE GDS_GROUP_VERSION_VERIFY(group, version, status)
    TYPE(C_PTR), INTENT(IN) :: group
    INTEGER(8), INTENT(IN) :: version
    INTEGER, INTENT(OUT) :: status
    status = c_group_version_verify(group, version)
  END SUBROUTINE

  SUBROUTINE GDS_GROUP_GET_VERSION_NUMBER(group, ver_num, status)
    TYPE(C_PTR), INTENT(IN) :: group
    INTEGER(8), INTENT(OUT) :: ver_num
    INTEGER, INTENT(OUT) :: status
    status = c_group_get_version_number(group, ver_num)
  END SUBROUTINE

  SUBROUTINE GDS_GROUP_MOVE_TO_NEWEST(group, status)
    TYPE(C_PTR), INTENT(IN) :: group
    INTEGER, INTENT(OUT) :: status
    status = c_group_move_to_newest(group)
  END SUBROUTINE

  SUBROUTINE GDS_GROUP_MOVE_TO_PREV(group, status)
    TYPE(C_PTR), INTENT(IN) :: group
    INTEGER, INTENT(OUT) :: status
    status = c_group_move_to_prev(group)
  END SUBROUTINE

  SUBROUTINE GDS_GROUP_MOVE_TO_NEXT(group, status)
    TYPE(C_PTR), INTENT(IN) :: group
    INTEGER, INTENT(OUT) :: status
    status = c_group_move_to_next(group)
  END SUBROUTINE

  SUBROUTINE GDS_GROUP_VERSION_DEC(group, dec, status)
    TYPE(C_PTR), INTENT(IN) :: group
    INTEGER(8), INTENT(IN) :: dec
    INTEGER, INTENT(OUT) :: status
    status = c_group_version_dec(group, dec)
  END SUBROUTINE

  SUBROUTINE GDS_GROUP_GET_RESTART_INFO(group, info, status)
    TYPE(C_PTR), INTENT(IN) :: group
    TYPE(GDS_RESTART_INFO_T), INTENT(OUT) :: info
    INTEGER, INTENT(OUT) :: status
    status = c_group_get_restart_info(group, info)
  END SUBROUTINE

  ! GDS extension: whether this job is restarting, before any array exists
  ! (collective over GDS_COMM_WORLD). name: an array's or group's name, or ""
  ! for any. state%holds is the label of what the newest version holds;
  ! GDS_PERSISTED_HOLDS turns it into a Fortran string.
  SUBROUTINE GDS_RESTART_QUERY(name, state, status)
    CHARACTER(*), INTENT(IN) :: name
    TYPE(GDS_PERSISTED_T), INTENT(OUT) :: state
    INTEGER, INTENT(OUT) :: status
    CHARACTER(KIND=C_CHAR, LEN=LEN_TRIM(name) + 1), TARGET :: cname
    IF (LEN_TRIM(name) == 0) THEN
      status = c_restart_query(C_NULL_PTR, state)
    ELSE
      cname = TRIM(name) // C_NULL_CHAR
      status = c_restart_query(C_LOC(cname), state)
    END IF
  END SUBROUTINE

  ! The label in state%holds as a Fortran string (blank-padded, cut to LEN(text)).
  SUBROUTINE GDS_PERSISTED_HOLDS(state, text)
    TYPE(GDS_PERSISTED_T), INTENT(IN) :: state
    CHARACTER(*), INTENT(OUT) :: text
    INTEGER :: i
    text = ""
    DO i = 1, MIN(INT(state%holds_size), 255, LEN(text))
      text(i:i) = state%holds(i)
    END DO
  END SUBROUTINE

  ! GDS extension: what resilience cost this process so far (GDS_get_costs):
  ! calls, seconds and bytes of each kind of work. Local.
  SUBROUTINE GDS_GET_COSTS(costs, status)
    TYPE(GDS_COSTS_T), INTENT(OUT) :: costs
    INTEGER, INTENT(OUT) :: status
    status = c_get_costs(costs)
  END SUBROUTINE

  ! GDS extension: starts this process's cost accounts afresh. Local.
  SUBROUTINE GDS_RESET_COSTS(status)
    INTEGER, INTENT(OUT) :: status
    status = c_reset_costs()
  END SUBROUTINE

  ! GDS extension (SCR_Need_checkpoint): whether to make a version of the
  ! array now. Call once per step and version when flag is 1; the same flag
  ! on every process (docs/versions.md gives the interval it follows). Local.
  SUBROUTINE GDS_NEED_VERSION(gds, flag, status)
    TYPE(C_PTR), INTENT(IN) :: gds
    INTEGER, INTENT(OUT) :: flag, status
    INTEGER(C_INT) :: f
    f = 0
    status = c_need_version(gds, f)
    flag = f
  END SUBROUTINE

  ! GDS extension: GDS_NEED_VERSION for a version group. Local.
  SUBROUTINE GDS_GROUP_NEED_VERSION(group, flag, status)
    TYPE(C_PTR), INTENT(IN) :: group
    INTEGER, INTENT(OUT) :: flag, status
    INTEGER(C_INT) :: f
    f = 0
    status = c_group_need_version(group, f)
    flag = f
  END SUBROUTINE

  SUBROUTINE GDS_LAST_ERROR_MESSAGE(text)
    CHARACTER(*), INTENT(OUT) :: text
    CHARACTER(KIND=C_CHAR), POINTER :: chars(:)
    TYPE(C_PTR) :: p
    INTEGER :: i, n
    p = c_last_error_message()
    n = INT(c_strlen(p))
    CALL C_F_POINTER(p, chars, [n])
    text = ""
    DO i = 1, MIN(n, LEN(text))
      text(i:i) = chars(i)
    END DO
  END SUBROUTINE

END MODULE GDS
