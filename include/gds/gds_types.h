/**
 * \file gds_types.h
 * \brief GDS types, handles, constants and status codes (GVR 1.0, section 6.5).
 *
 * Include <gds.h> rather than this file.
 */
#ifndef GDS_TYPES_H
#define GDS_TYPES_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "gds_config.h"

/** Marks the functions the library exports (default visibility). */
#if defined(__GNUC__)
#define GDS_API __attribute__((visibility("default")))
#else
#define GDS_API
#endif

/*
 * Enums are int-sized in C. In C++ they get int as fixed underlying type, so
 * any int a C caller passes is a valid value and GDS can check it.
 */
/** An enum of int size in C and C++ (fixed underlying type int in C++). */
#ifdef __cplusplus
#define GDS_ENUM(name) enum name : int
#else
#define GDS_ENUM(name) enum name
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Index, extent and count type: 64 bits on every platform. */
typedef uint64_t GDS_size_t;

/** \name Types that are the MPI types (GVR 1.0, 6.5.1): values cast either way. */
/**@{*/
typedef MPI_Comm GDS_comm_t;         /**< a communicator */
typedef MPI_Datatype GDS_datatype_t; /**< an element type */
typedef MPI_Op GDS_op_t;             /**< a reduction operation */
typedef MPI_Info GDS_info_t;         /**< an info object */
/**@}*/

/** Handle to a global data structure: a cursor (a version) onto a shared array. */
typedef struct GDS_gds_s *GDS_gds_t;
/** Handle to an open GDS_access() region. */
typedef struct GDS_access_handle_s *GDS_access_handle_t;

/** The null array handle; GDS_free() sets its argument to it. */
#define GDS_NULL ((GDS_gds_t)0)
/** The null access handle; GDS_release() sets its argument to it. */
#define GDS_ACCESS_HANDLE_NULL ((GDS_access_handle_t)0)
/**
 * Every array registered with the library. Accepted only by synchronization
 * (GDS_fence(), GDS_wait(), GDS_wait_local()) and by error functions.
 */
#define GDS_ROOT ((GDS_gds_t)(uintptr_t)0xA000000000000000ULL)

/**
 * Status of every GDS call. GDS_status_string() describes each one.
 *
 * GDS_STATUS_OK and GDS_STATUS_RANGE keep their GVR 1.0 meaning; the others
 * name one kind of failure each, so a program can tell them apart.
 */
typedef GDS_ENUM(GDS_status) {
  GDS_STATUS_OK = 0,               /**< success */
  GDS_STATUS_RANGE = 1,            /**< an index or box lies outside the array */
  GDS_STATUS_INVALID = 2,          /**< an argument value is invalid (no more specific status applies) */
  GDS_STATUS_NOT_INITIALIZED = 3,  /**< GDS_init() has not been called, or GDS_finalize() has */
  GDS_STATUS_ALREADY_INITIALIZED = 4, /**< GDS_init() called twice */
  GDS_STATUS_NULL_ARGUMENT = 5,    /**< a required pointer argument is NULL */
  GDS_STATUS_NULL_HANDLE = 6,      /**< a handle argument is a null handle */
  GDS_STATUS_FREED_HANDLE = 7,     /**< a handle that has been freed (or whose array has) */
  GDS_STATUS_INVALID_HANDLE = 8,   /**< not a handle of the kind the argument needs */
  GDS_STATUS_INVALID_NDIMS = 9,    /**< number of dimensions is zero or too large */
  GDS_STATUS_INVALID_COUNT = 10,   /**< an extent is zero, or the size overflows */
  GDS_STATUS_INVALID_BOX = 11,     /**< lo[d] > hi[d] */
  GDS_STATUS_INVALID_LD = 12,      /**< a leading dimension is smaller than the box */
  GDS_STATUS_INVALID_TYPE = 13,    /**< not a supported element datatype */
  GDS_STATUS_INVALID_OP = 14,      /**< not a predefined MPI reduction op, MPI_REPLACE or MPI_NO_OP */
  GDS_STATUS_TYPE_MISMATCH = 15,   /**< op or operation not defined for the element type */
  GDS_STATUS_INVALID_COMM = 16,    /**< null, invalid or inter-communicator */
  GDS_STATUS_INVALID_INFO = 17,    /**< invalid info object, or bad value for a gds_* key */
  GDS_STATUS_INVALID_ATTR = 18,    /**< unknown attribute key */
  GDS_STATUS_INVALID_MAPPING = 19, /**< a GDS_create() mapping function failed or is inconsistent */
  GDS_STATUS_NOT_LOCAL = 20,       /**< GDS_ACCESS_BUFFER_DIRECT on data not stored locally */
  GDS_STATUS_ACCESS_CONFLICT = 21, /**< the box overlaps a region open by GDS_access() */
  GDS_STATUS_BUFFER_OVERLAP = 22,  /**< buffers that must be disjoint overlap */
  GDS_STATUS_COLLECTIVE_MISMATCH = 23, /**< processes passed different arguments to a collective */
  GDS_STATUS_REMOTE_ERROR = 24,    /**< another process failed this collective call */
  GDS_STATUS_WRONG_THREAD = 25,    /**< called from a thread the thread level does not allow */
  GDS_STATUS_NOMEM = 26,           /**< out of memory */
  GDS_STATUS_MPI_ERROR = 27,       /**< the MPI library reported an error */
  GDS_STATUS_NOT_CURRENT = 28,     /**< a write or GDS_access through a handle at an old version */
  GDS_STATUS_NO_VERSION = 29,      /**< no such version (navigation past either end, a skipped number) */
  GDS_STATUS_VERSION_DROPPED = 30, /**< the version was dropped by retention */
  GDS_STATUS_INTERNAL = 31,        /**< a GDS bug: please report it */
  GDS_STATUS_INVALID_ERROR_KEY = 32,   /**< not a defined error attribute key */
  GDS_STATUS_INVALID_ATTR_VALUE = 33,  /**< an error attribute value of the wrong size for its type, or a bad range */
  GDS_STATUS_ERROR_KEY_CONFLICT = 34,  /**< an error attribute name already defined with another value type */
  GDS_STATUS_UNHANDLED_ERROR = 35,     /**< an error was delivered and no registered handler matches it */
  GDS_STATUS_AMBIGUOUS_HANDLER = 36,   /**< several handlers match an error equally well */
  GDS_STATUS_RECOVERY_FAILED = 37,     /**< a handler failed or returned without GDS_resume_local/global */
  GDS_STATUS_NOT_IN_HANDLER = 38,      /**< GDS_resume_* outside the handler of that error */
  GDS_STATUS_ERROR_FOUND = 39,         /**< an error check found an error */
  GDS_STATUS_CHECK_FAILED = 40,        /**< an error check function returned a failure status */
  GDS_STATUS_DESCRIPTOR_IN_USE = 41,   /**< the error descriptor is being handled (GDS_resume_* frees it) */
  GDS_STATUS_MPI_BUG = 42,             /**< the MPI library computes this operation wrongly and GDS could not
                                            work around it; refused rather than answered wrongly */
  GDS_STATUS_IO_ERROR = 43,            /**< a file operation of a persistent level failed (unwritable
                                            directory, full disk, ...) */
  GDS_STATUS_CORRUPT = 44,             /**< stored version data or a file failed its checksum or checks */
  GDS_STATUS_UNRECOVERABLE = 45,       /**< persisted versions were lost beyond what their redundancy rebuilds */
  GDS_STATUS_CD_STATE = 46,            /**< the containment domain cannot do this now: it has uncommitted children
                                            (commit, advance), it has no parent (via parent), or it is replaying */
  GDS_STATUS_NOT_PRESERVED = 47,       /**< the range is not preserved where the call needs it (delete from a CD,
                                            preserve via parent) */
  GDS_STATUS_NOT_CONTAINED = 48        /**< a containment domain changed state that no enclosing domain covers:
                                            one-sided writes to other processes, or a collective in a logged
                                            per-process domain */
} GDS_status_t;

/** The largest GDS_status_t value. */
#define GDS_STATUS_LAST GDS_STATUS_NOT_CONTAINED

/** Thread support levels (GVR 1.0, 6.1), in increasing order. */
typedef GDS_ENUM(GDS_thread_support) {
  GDS_THREAD_SINGLE = 0,
  GDS_THREAD_FUNNELED = 1,
  GDS_THREAD_SERIALIZED = 2,
  GDS_THREAD_MULTIPLE = 3
} GDS_thread_support_t;

/** Resilience priority of an array, and priority of an error check. */
typedef GDS_ENUM(GDS_priority) {
  GDS_PRIORITY_HIGH = 0,
  GDS_PRIORITY_MEDIUM = 1,
  GDS_PRIORITY_LOW = 2
} GDS_priority_t;
#define GDS_PRIORITY_CRITICAL GDS_PRIORITY_HIGH   /**< another name of GDS_PRIORITY_HIGH */
#define GDS_PRIORITY_EXPENSIVE GDS_PRIORITY_MEDIUM /**< another name of GDS_PRIORITY_MEDIUM */
#define GDS_PRIORITY_CHEAP GDS_PRIORITY_LOW        /**< another name of GDS_PRIORITY_LOW */

/** How an array was made (attribute GDS_CREATE_FLAVOR). */
typedef GDS_ENUM(GDS_flavor) {
  GDS_FLAVOR_CREATE = 1, /**< GDS_create(): the application's buffers and mapping */
  GDS_FLAVOR_ALLOC = 2   /**< GDS_alloc(): block distribution, memory owned by GDS */
} GDS_flavor_t;

/** Attribute keys for GDS_get_attr(). */
typedef GDS_ENUM(GDS_attr) {
  GDS_TYPE = 1,              /**< GDS_datatype_t: the element type */
  GDS_CREATE_FLAVOR = 2,     /**< GDS_flavor_t */
  GDS_GLOBAL_LAYOUT = 3,     /**< GDS_size_t[ndims]: the process grid (see GDS_get_attr()) */
  GDS_NUMBER_DIMENSIONS = 4, /**< GDS_size_t */
  GDS_COUNT = 5,             /**< GDS_size_t[ndims]: extent of every dimension */
  GDS_CHUNK_SIZE = 6         /**< GDS_size_t[ndims]: largest block extent (GDS_alloc only) */
} GDS_attr_t;

/** Kinds of buffer GDS_access() returns. */
typedef GDS_ENUM(GDS_access_buffer) {
  GDS_ACCESS_BUFFER_DIRECT = 1, /**< the array's own local memory */
  GDS_ACCESS_BUFFER_COPY = 2,   /**< a copy, written back by GDS_release() */
  GDS_ACCESS_BUFFER_ANY = 3     /**< DIRECT where possible, otherwise COPY */
} GDS_access_buffer_t;

/** \name Info key and values for the storage order of multi-dimensional arrays. */
/**@{*/
#define GDS_ORDER_KEY "gds_order"       /**< the info key of the storage order */
#define GDS_ORDER_DEFAULT "default"     /**< row-major in C and C++, column-major in Fortran */
#define GDS_ORDER_ROW_MAJOR "row_major" /**< last index varies fastest */
#define GDS_ORDER_COL_MAJOR "col_major" /**< first index varies fastest */
/**@}*/

/**
 * \name Element types
 * Any predefined MPI datatype that names a C or Fortran value (integers of all
 * widths, floating point, complex, logical, byte, character, and the pair
 * types for MPI_MAXLOC/MPI_MINLOC) may be cast to GDS_datatype_t; these
 * constants name the common ones.
 */
/**@{*/
#define GDS_DATA_BYTE MPI_BYTE /**< MPI_BYTE */
#define GDS_DATA_CHAR MPI_CHAR /**< MPI_CHAR */
#define GDS_DATA_SHORT MPI_SHORT /**< MPI_SHORT */
#define GDS_DATA_INT MPI_INT /**< MPI_INT */
#define GDS_DATA_LONG MPI_LONG /**< MPI_LONG */
#define GDS_DATA_LONG_LONG MPI_LONG_LONG /**< MPI_LONG_LONG */
#define GDS_DATA_UNSIGNED MPI_UNSIGNED /**< MPI_UNSIGNED */
#define GDS_DATA_UNSIGNED_LONG MPI_UNSIGNED_LONG /**< MPI_UNSIGNED_LONG */
#define GDS_DATA_INT8 MPI_INT8_T /**< MPI_INT8_T */
#define GDS_DATA_INT16 MPI_INT16_T /**< MPI_INT16_T */
#define GDS_DATA_INT32 MPI_INT32_T /**< MPI_INT32_T */
#define GDS_DATA_INT64 MPI_INT64_T /**< MPI_INT64_T */
#define GDS_DATA_UINT8 MPI_UINT8_T /**< MPI_UINT8_T */
#define GDS_DATA_UINT16 MPI_UINT16_T /**< MPI_UINT16_T */
#define GDS_DATA_UINT32 MPI_UINT32_T /**< MPI_UINT32_T */
#define GDS_DATA_UINT64 MPI_UINT64_T /**< MPI_UINT64_T */
#define GDS_DATA_FLOAT MPI_FLOAT /**< MPI_FLOAT */
#define GDS_DATA_DBL MPI_DOUBLE /**< MPI_DOUBLE */
#define GDS_DATA_DOUBLE MPI_DOUBLE /**< MPI_DOUBLE */
#define GDS_DATA_LONG_DBL MPI_LONG_DOUBLE /**< MPI_LONG_DOUBLE */
#define GDS_DATA_FLOAT_COMPLEX MPI_C_FLOAT_COMPLEX /**< MPI_C_FLOAT_COMPLEX */
#define GDS_DATA_DOUBLE_COMPLEX MPI_C_DOUBLE_COMPLEX /**< MPI_C_DOUBLE_COMPLEX */
#define GDS_DATA_BOOL MPI_C_BOOL /**< MPI_C_BOOL */
#define GDS_DATA_INTEGER MPI_INTEGER /**< MPI_INTEGER */
#define GDS_DATA_REAL MPI_REAL /**< MPI_REAL */
#define GDS_DATA_DOUBLE_PRECISION MPI_DOUBLE_PRECISION /**< MPI_DOUBLE_PRECISION */
#define GDS_DATA_COMPLEX MPI_COMPLEX /**< MPI_COMPLEX */
#define GDS_DATA_LOGICAL MPI_LOGICAL /**< MPI_LOGICAL */
/**@}*/

/**
 * Mapping from a global index to its owner and the offset (in elements) in
 * the owner's local buffer, for GDS_create().
 */
typedef GDS_status_t (*GDS_global_to_local_func_t)(const GDS_size_t global_indices[],
                                                   int *local_rank, GDS_size_t *local_offset);
/** Mapping from an offset in the calling process's local buffer to its global index. */
typedef GDS_status_t (*GDS_local_to_global_func_t)(GDS_size_t local_offset,
                                                   GDS_size_t global_indices[]);

/**
 * \brief A one-line description of a status, for people.
 * \param[in] status any value
 * \return a static string; never NULL (unknown values give "unknown GDS status").
 * Local; may be called before GDS_init().
 */
GDS_API const char *GDS_status_string(GDS_status_t status);

/**
 * \brief The message of the most recent failed GDS call of this process (GDS extension).
 * \return a string valid until the next GDS call; "" if no call has failed.
 * Local; may be called before GDS_init().
 */
GDS_API const char *GDS_last_error_message(void);

#ifdef __cplusplus
}
#endif

#endif /* GDS_TYPES_H */
