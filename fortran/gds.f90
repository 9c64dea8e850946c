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
    GDS_STATUS_VERSION_DROPPED = 30, GDS_STATUS_INTERNAL = 31

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

  ! The C entry points stay inside the module.
  PRIVATE :: c_init, c_finalize, c_comm_rank, c_comm_size, c_alloc, c_create, c_free, c_get_attr, &
    c_get_comm, c_put, c_get, c_acc, c_get_acc, c_cas, c_wait, c_wait_local, c_fence, c_access, &
    c_get_access_buffer_type, c_get_access_buffer_ld, c_release, c_distribution, c_locate, &
    c_status_string, c_last_error_message, c_strlen, c_version_inc, c_get_version_number, &
    c_get_version_label, c_move_to_newest, c_move_to_next, c_move_to_prev, c_version_dec, c_descriptor_clone, &
    c_version_restore


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
    TYPE(C_FUNPTR), INTENT(IN) :: global_to_local_func, local_to_global_func
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

  ! A one-line description of a status.
  SUBROUTINE GDS_STATUS_STRING(status, text)
    INTEGER, INTENT(IN) :: status
    CHARACTER(*), INTENT(OUT) :: text
    CALL c_status_string(status, text, LEN(text))
  END SUBROUTINE

  ! The message of this process's most recent failed GDS call.
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
