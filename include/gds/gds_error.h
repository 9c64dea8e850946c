/**
 * \file gds_error.h
 * \brief Open Resilience: error descriptors, predicates, handlers, checks
 *        (GVR 1.0, chapter 4 and section 6.4.2, and GDS extensions).
 *
 * An error is a *descriptor*: a set of typed attributes. Any layer raises
 * one, locally (this process) or globally (every process of an array), and
 * GDS hands it to the one registered handler whose *predicate* fits it best:
 * of the handlers all of whose terms hold, the one with the most terms, then
 * the most VALUE terms, then the most RANGE terms. A tie that remains is an
 * error (GDS_STATUS_AMBIGUOUS_HANDLER), never an arbitrary choice.
 *
 * Handlers registered on an array are tried first; GDS_ROOT's handlers only
 * when none of the array's matches (an inner scope before the outer one).
 *
 * Delivery:
 * - a local error is queued and delivered at the raising process's next GDS
 *   call on that array (any call taking a handle of it, or GDS_ROOT), before
 *   the call's own work; GDS_invoke_local_error_handler() delivers at once.
 * - a global error is delivered on every process of the array's communicator
 *   at the next stable point: GDS_fence(), GDS_version_inc(),
 *   GDS_check_all_errors() or GDS_invoke_global_error_handler(). Errors
 *   pending from several processes are delivered in the same order
 *   everywhere: by raising rank, then in the order each process raised them.
 *   A stable point returns only when no global error raised before or during
 *   it is pending.
 *
 * Inside a handler GDS calls work but deliver nothing (errors raised there
 * are queued); a handler ends recovery with GDS_resume_local() or
 * GDS_resume_global(), which frees the descriptor. A handler that returns a
 * failure, or returns without resuming, has failed: the call that delivered
 * the error returns GDS_STATUS_RECOVERY_FAILED. An error no handler matches
 * makes that call return GDS_STATUS_UNHANDLED_ERROR and print a message. A
 * call that fails this way does not do its own work, except collective calls,
 * which still meet the other processes and agree on the failure.
 */
#ifndef GDS_ERROR_H
#define GDS_ERROR_H

#include "gds_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An error descriptor. */
typedef struct GDS_error_s *GDS_error_t;
/** An error matching predicate: a set of terms. */
typedef struct GDS_error_pred_s *GDS_error_pred_t;
/** One term of a predicate. */
typedef struct GDS_error_pred_term_s *GDS_error_pred_term_t;
#define GDS_ERROR_NULL ((GDS_error_t)0)                     /**< no error descriptor */
#define GDS_ERROR_PRED_NULL ((GDS_error_pred_t)0)           /**< no predicate */
#define GDS_ERROR_PRED_TERM_NULL ((GDS_error_pred_term_t)0) /**< no predicate term */

/** An error attribute key (predefined GDS_EATTR_* or from GDS_define_error_attr_key()). */
typedef int GDS_error_attr_key_t;
/** The manual's prototypes also call it this. */
typedef GDS_error_attr_key_t GDS_error_attr_t;

/**
 * Value types of error attributes. A value's size must fit its type: 1 byte
 * (BYTE), 8 bytes (INT: int64_t, FLOAT: double), sizeof(MPI_Comm) (MPIOBJ: any
 * MPI handle), or a multiple of that for the arrays (possibly 0).
 */
typedef GDS_ENUM(GDS_error_attr_value_type) {
  GDS_EAVTYPE_BYTE = 1,         /**< one byte, compared as unsigned */
  GDS_EAVTYPE_INT = 2,          /**< one int64_t */
  GDS_EAVTYPE_FLOAT = 3,        /**< one double */
  GDS_EAVTYPE_BYTE_ARRAY = 4,   /**< bytes */
  GDS_EAVTYPE_INT_ARRAY = 5,    /**< int64_t[] */
  GDS_EAVTYPE_FLOAT_ARRAY = 6,  /**< double[] */
  GDS_EAVTYPE_MPIOBJ = 7,       /**< one MPI handle (MPI_Comm, MPI_Group, ...) */
  GDS_EAVTYPE_MPIOBJ_ARRAY = 8  /**< MPI handles */
} GDS_error_attr_value_type_t;

/** Match expressions of predicate terms. */
typedef GDS_ENUM(GDS_error_match_expr) {
  GDS_EMEXP_ANY = 1,   /**< the key is present, any value */
  GDS_EMEXP_VALUE = 2, /**< the key is present with this value (floats compare numerically) */
  GDS_EMEXP_RANGE = 3, /**< present, min <= value <= max (arrays: element-wise, same length) */
  GDS_EMEXP_NOT = 4    /**< the key is absent */
} GDS_error_match_expr_t;
#define GDS_EPRED_ANY GDS_EMEXP_ANY     /**< GDS_EMEXP_ANY as the manual's miniFE example spells it */
#define GDS_EPRED_VALUE GDS_EMEXP_VALUE /**< GDS_EMEXP_VALUE as the manual's miniFE example spells it */
#define GDS_EPRED_RANGE GDS_EMEXP_RANGE /**< GDS_EMEXP_RANGE as the manual's miniFE example spells it */
#define GDS_EPRED_NOT GDS_EMEXP_NOT     /**< GDS_EMEXP_NOT as the manual's miniFE example spells it */

/**
 * \name Predefined error attribute keys (GVR 1.0, 6.4.2), with their value types
 */
/**@{*/
/* Data corruption */
#define GDS_EATTR_MEMORY_VADDR 1             /**< INT: start virtual address of the affected region */
#define GDS_EATTR_MEMORY_SIZE 2              /**< INT: size of the affected region in bytes */
#define GDS_EATTR_MEMORY_AFFECTED_SIZE 3     /**< INT: bytes actually affected */
#define GDS_EATTR_MEMORY_N_RANGES 4          /**< INT: number of array index ranges affected */
#define GDS_EATTR_MEMORY_DATA 5              /**< BYTE_ARRAY: the remaining (possibly corrupted) data */
#define GDS_EATTR_MEMORY_CHECK_BITS 6        /**< BYTE_ARRAY: check bits of the region */
#define GDS_EATTR_MEMORY_LOCATION_REUSABLE 7 /**< INT: nonzero if the location may be written again */
#define GDS_EATTR_APP 8                      /**< BYTE_ARRAY: an application-semantic error */
#define GDS_EATTR_DETECTED_BY 9              /**< BYTE_ARRAY: who detected it ("GDS" for the library) */
#define GDS_EATTR_GDS_INDEX 10               /**< INT_ARRAY: first index of the affected box */
#define GDS_EATTR_GDS_COUNT 11               /**< INT_ARRAY: extents of the affected box */
#define GDS_EATTR_GDS_AFFECTED_COUNT 12      /**< INT_ARRAY: extents actually affected */
#define GDS_EATTR_GDS_VERSION 13             /**< INT: the version concerned */
#define GDS_EATTR_GDS_LATENCY 14             /**< INT: latency between corruption and detection */
/* Resource loss */
#define GDS_EATTR_LOST_PROCESSES 15          /**< MPIOBJ: an MPI_Group of the lost processes */
#define GDS_EATTR_LOST_COMMUNICATOR 16       /**< MPIOBJ: the communicator before the error */
#define GDS_EATTR_REPLACED_COMMUNICATOR 17   /**< MPIOBJ: the communicator after the error */
#define GDS_EATTR_LOST_COMPUTATION 18        /**< FLOAT: amount of lost computation */
#define GDS_EATTR_MPI_RANK_UNRESPONSIVE 19   /**< INT: a rank not responding */
/* GDS extensions: set on the errors the library detects itself */
#define GDS_EATTR_GDS_STATUS 20              /**< INT: the GDS_status_t the failing call returns */
#define GDS_EATTR_GDS_FUNCTION 21            /**< BYTE_ARRAY: the GDS function that failed */
#define GDS_EATTR_MPI_ERROR_CLASS 22         /**< INT: the MPI error class, for MPI failures */
#define GDS_EATTR_GDS_PROCESS 23             /**< INT: the process (rank in the array's communicator) whose data failed */
#define GDS_EATTR_GDS_FILE 24                /**< BYTE_ARRAY: the file concerned and what went wrong with it */
/**@}*/

/** A handler: the array's primary handle (or GDS_ROOT) and the error. */
typedef GDS_status_t (*GDS_recovery_func_t)(GDS_gds_t gds, GDS_error_t error_desc);
/** An error check: the handle to check (its version) and the priority it runs at. */
typedef GDS_status_t (*GDS_check_func_t)(GDS_gds_t gds, GDS_priority_t check_priority);
/** Handler with a context pointer (GDS extension, for closures). */
typedef GDS_status_t (*GDS_recovery_context_func_t)(GDS_gds_t gds, GDS_error_t error_desc, void *context);
/** Check with a context pointer (GDS extension). */
typedef GDS_status_t (*GDS_check_context_func_t)(GDS_gds_t gds, GDS_priority_t check_priority, void *context);
/** Frees a context when its handler or check goes (with the array, or at GDS_finalize()). */
typedef void (*GDS_context_free_func_t)(void *context);

/* ---- attribute keys ---------------------------------------------------------------- */

/**
 * \brief Defines an error attribute key.
 *
 * Defining a name again with the same type returns the same key (predefined
 * names included: "GDS_EATTR_GDS_INDEX" gives GDS_EATTR_GDS_INDEX).
 *
 * Completion: on return the key is usable on every process. Collective over
 * GDS_COMM_WORLD; every process passes the same name and type, and if they
 * do not, all return GDS_STATUS_COLLECTIVE_MISMATCH and nothing is defined.
 *
 * \param[in] attr_name the name (attr_name_size bytes, no NUL needed)
 * \param[in] attr_name_size its length (1 - 256)
 * \param[in] value_type the type of the key's values
 * \param[out] new_key the key
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID (name length, value type),
 *         GDS_STATUS_ERROR_KEY_CONFLICT (the name has another type), GDS_STATUS_COLLECTIVE_MISMATCH,
 *         GDS_STATUS_REMOTE_ERROR, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_define_error_attr_key(const char *attr_name, GDS_size_t attr_name_size,
                                               GDS_error_attr_value_type_t value_type,
                                               GDS_error_attr_key_t *new_key);

/**
 * \brief The value type and name of a key (GDS extension). Local.
 * \param[in] key the key
 * \param[out] value_type its type
 * \param[out] name its name, GDS's NUL-terminated copy (may be NULL if not wanted)
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID_ERROR_KEY
 */
GDS_API GDS_status_t GDS_get_error_attr_key_info(GDS_error_attr_key_t key, GDS_error_attr_value_type_t *value_type,
                                                 const char **name);

/* ---- descriptors ------------------------------------------------------------------- */

/**
 * \brief A new, empty error descriptor. Local.
 *
 * It belongs to the caller until passed to GDS_raise_local_error() or
 * GDS_raise_global_error(), which take it over (the handle then reads as
 * freed); GDS_free_error_descriptor() frees one that is not raised.
 *
 * \param[out] error_desc the descriptor
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT
 */
GDS_API GDS_status_t GDS_create_error_descriptor(GDS_error_t *error_desc);

/**
 * \brief Frees a descriptor that was not raised. Local.
 * \param[in,out] error_desc the descriptor; set to GDS_ERROR_NULL
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, handle statuses (a raised descriptor
 *         reads as freed), GDS_STATUS_DESCRIPTOR_IN_USE (the one a handler is handling)
 */
GDS_API GDS_status_t GDS_free_error_descriptor(GDS_error_t *error_desc);

/**
 * \brief Adds an attribute (or replaces the key's value). Local.
 * \param[in] error_desc the descriptor
 * \param[in] attr_key the key
 * \param[in] attr_len size of the value in bytes: fits the key's type
 * \param[in] attr_val the value (may be NULL if attr_len is 0)
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID_ERROR_KEY,
 *         GDS_STATUS_INVALID_ATTR_VALUE, handle statuses
 */
GDS_API GDS_status_t GDS_add_error_attr(GDS_error_t error_desc, GDS_error_attr_key_t attr_key,
                                        GDS_size_t attr_len, const void *attr_val);

/**
 * \brief Copies an attribute's value out. Local.
 * \param[in] error_desc the descriptor
 * \param[in] attr_key the key
 * \param[out] attr_val where to copy the value (GDS_get_error_attr_len() bytes); unused if absent
 * \param[out] flag 1 if the descriptor has the key, else 0
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID_ERROR_KEY, handle statuses
 */
GDS_API GDS_status_t GDS_get_error_attr(GDS_error_t error_desc, GDS_error_attr_key_t attr_key, void *attr_val,
                                        int *flag);

/**
 * \brief The size in bytes of an attribute's value. Local.
 * \param[in] error_desc the descriptor
 * \param[in] attr_key the key
 * \param[out] attr_len its size (0 if absent)
 * \param[out] flag 1 if the descriptor has the key, else 0
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID_ERROR_KEY, handle statuses
 */
GDS_API GDS_status_t GDS_get_error_attr_len(GDS_error_t error_desc, GDS_error_attr_key_t attr_key,
                                            GDS_size_t *attr_len, int *flag);

/* ---- predicates -------------------------------------------------------------------- */

/**
 * \brief A new predicate with no terms (it matches every error). Local.
 * \param[out] pred the predicate
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT
 */
GDS_API GDS_status_t GDS_create_error_pred(GDS_error_pred_t *pred);

/**
 * \brief Frees a predicate (handlers registered with it keep their own copy). Local.
 * \param[in,out] pred the predicate; set to GDS_ERROR_PRED_NULL
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, handle statuses
 */
GDS_API GDS_status_t GDS_free_error_pred(GDS_error_pred_t *pred);

/**
 * \brief A new predicate term. Local.
 *
 * VALUE takes one value of the key's type (\p value_len bytes, sized as for
 * GDS_add_error_attr(); floats may not be NaN). RANGE takes the minimum then
 * the maximum, \p value_len bytes together; it needs a numeric type (BYTE,
 * INT, FLOAT or their arrays), min <= max element-wise, and for arrays the
 * descriptor's value must have as many elements. ANY and NOT ignore
 * \p value_len and \p values.
 *
 * \param[in] attr_key the key
 * \param[in] match_expr GDS_EMEXP_ANY, _VALUE, _RANGE or _NOT
 * \param[in] value_len bytes at \p values
 * \param[in] values the value, or min and max
 * \param[out] term the term
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID (match_expr, or RANGE
 *         on a non-numeric type), GDS_STATUS_INVALID_ERROR_KEY, GDS_STATUS_INVALID_ATTR_VALUE
 */
GDS_API GDS_status_t GDS_create_error_pred_term(GDS_error_attr_key_t attr_key, GDS_error_match_expr_t match_expr,
                                                GDS_size_t value_len, const void *values,
                                                GDS_error_pred_term_t *term);

/**
 * \brief Frees a term (predicates it was added to keep their own copy). Local.
 * \param[in,out] term the term; set to GDS_ERROR_PRED_TERM_NULL
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, handle statuses
 */
GDS_API GDS_status_t GDS_free_error_pred_term(GDS_error_pred_term_t *term);

/**
 * \brief Adds a copy of a term to a predicate. Local.
 * \param[in] pred the predicate
 * \param[in] term the term
 * \return GDS_STATUS_OK, handle statuses
 */
GDS_API GDS_status_t GDS_add_error_pred_term(GDS_error_pred_t pred, GDS_error_pred_term_t term);

/* ---- handlers and checks ----------------------------------------------------------- */

/**
 * \brief Registers a handler for local errors on an array (or on every array: GDS_ROOT). Local.
 *
 * The handler runs on this process for local errors raised here whose
 * descriptor the predicate (copied: free it when you like) fits best. It
 * gets the array's primary handle (GDS_ROOT for errors raised on GDS_ROOT).
 * A handler whose predicate equals one already registered in the same place
 * could never be told apart from it and is refused. Handlers stay until the
 * array is freed (GDS_ROOT's: until GDS_finalize()).
 *
 * \param[in] gds any handle of the array, or GDS_ROOT
 * \param[in] pred the predicate
 * \param[in] recovery_func the handler
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_AMBIGUOUS_HANDLER, handle statuses
 */
GDS_API GDS_status_t GDS_register_local_error_handler(GDS_gds_t gds, GDS_error_pred_t pred,
                                                      GDS_recovery_func_t recovery_func);

/**
 * \brief Registers a handler for global errors on an array (or GDS_ROOT).
 *
 * Completion: registered on every process on return. Collective over the
 * array's communicator (GDS_COMM_WORLD for GDS_ROOT); processes register
 * equal predicates in the same order (GDS_STATUS_COLLECTIVE_MISMATCH
 * otherwise), so every process picks the same handler for an error.
 *
 * \param[in] gds any handle of the array, or GDS_ROOT
 * \param[in] pred the predicate
 * \param[in] recovery_func the handler
 * \return as GDS_register_local_error_handler(), GDS_STATUS_COLLECTIVE_MISMATCH,
 *         GDS_STATUS_REMOTE_ERROR, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_register_global_error_handler(GDS_gds_t gds, GDS_error_pred_t pred,
                                                       GDS_recovery_func_t recovery_func);

/** GDS_register_local_error_handler() for a function with a context pointer (GDS extension). */
GDS_API GDS_status_t GDS_register_local_error_handler_with_context(GDS_gds_t gds, GDS_error_pred_t pred,
                                                                   GDS_recovery_context_func_t recovery_func,
                                                                   void *context,
                                                                   GDS_context_free_func_t free_context);
/** GDS_register_global_error_handler() for a function with a context pointer (GDS extension). */
GDS_API GDS_status_t GDS_register_global_error_handler_with_context(GDS_gds_t gds, GDS_error_pred_t pred,
                                                                    GDS_recovery_context_func_t recovery_func,
                                                                    void *context,
                                                                    GDS_context_free_func_t free_context);

/**
 * \brief Registers a local error check. Local.
 *
 * GDS runs it on this process: GDS_PRIORITY_HIGH checks at every
 * GDS_version_inc() of the array, before the snapshot (so corrupted data is
 * caught before it is versioned); checks of every priority, high first, in
 * GDS_check_all_errors() and GDS_check_local_error(). A check reports what it
 * finds with GDS_raise_local_error() or GDS_raise_global_error(); it must not
 * write the array. Checks stay until the array is freed.
 *
 * \param[in] gds any handle of the array, or GDS_ROOT
 * \param[in] check_func the check
 * \param[in] check_priority GDS_PRIORITY_HIGH, _MEDIUM or _LOW
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID (priority), handle statuses
 */
GDS_API GDS_status_t GDS_register_local_error_check(GDS_gds_t gds, GDS_check_func_t check_func,
                                                    GDS_priority_t check_priority);

/**
 * \brief Registers a global error check: run by every process together, at the
 *        times local checks run (GDS_check_global_error() instead of _local_).
 *
 * Completion: registered everywhere on return. Collective over the array's
 * communicator; equal priorities in the same order on every process.
 *
 * \param[in] gds any handle of the array, or GDS_ROOT
 * \param[in] check_func the check (it may call collective GDS functions on the array)
 * \param[in] check_priority GDS_PRIORITY_HIGH, _MEDIUM or _LOW
 * \return as GDS_register_local_error_check(), GDS_STATUS_COLLECTIVE_MISMATCH,
 *         GDS_STATUS_REMOTE_ERROR, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_register_global_error_check(GDS_gds_t gds, GDS_check_func_t check_func,
                                                     GDS_priority_t check_priority);

/** GDS_register_local_error_check() with a context pointer (GDS extension). */
GDS_API GDS_status_t GDS_register_local_error_check_with_context(GDS_gds_t gds, GDS_check_context_func_t check_func,
                                                                 GDS_priority_t check_priority, void *context,
                                                                 GDS_context_free_func_t free_context);
/** GDS_register_global_error_check() with a context pointer (GDS extension). */
GDS_API GDS_status_t GDS_register_global_error_check_with_context(GDS_gds_t gds,
                                                                  GDS_check_context_func_t check_func,
                                                                  GDS_priority_t check_priority, void *context,
                                                                  GDS_context_free_func_t free_context);

/* ---- raising and delivering -------------------------------------------------------- */

/**
 * \brief Raises an error on this process.
 *
 * Completion: the error is queued; it is delivered at this process's next
 * GDS call on the array (or GDS_invoke_local_error_handler()), before that
 * call's work. GDS takes the descriptor over: the handle reads as freed.
 * Local.
 *
 * \param[in] gds any handle of the array, or GDS_ROOT
 * \param[in] error_desc the descriptor
 * \return GDS_STATUS_OK, handle statuses, GDS_STATUS_DESCRIPTOR_IN_USE (the
 *         descriptor a handler is handling: raise a new one)
 */
GDS_API GDS_status_t GDS_raise_local_error(GDS_gds_t gds, GDS_error_t error_desc);

/**
 * \brief Raises an error that every process of the array handles.
 *
 * Completion: the descriptor's content is captured and queued; every process
 * of the array's communicator runs the matching global handler with that
 * content at the next stable point. Not collective: any one process raises.
 * GDS takes the descriptor over.
 *
 * \param[in] gds any handle of the array, or GDS_ROOT (every process)
 * \param[in] error_desc the descriptor
 * \return as GDS_raise_local_error()
 */
GDS_API GDS_status_t GDS_raise_global_error(GDS_gds_t gds, GDS_error_t error_desc);

/**
 * \brief Ends the recovery of a local error: the delivering call goes on. Local.
 *
 * Call it inside the local handler, with the handle the handler got (or any
 * handle of the same array) and its descriptor, which it frees.
 *
 * \param[in] gds the array (or GDS_ROOT)
 * \param[in] error_desc the descriptor being handled
 * \return GDS_STATUS_OK, GDS_STATUS_NOT_IN_HANDLER (no local handler is handling this
 *         descriptor, or it was resumed already), GDS_STATUS_INVALID (another array), handle statuses
 */
GDS_API GDS_status_t GDS_resume_local(GDS_gds_t gds, GDS_error_t error_desc);

/**
 * \brief Ends the recovery of a global error on this process. Local; every process's
 *        handler calls it, and the stable point succeeds when all did.
 * \param[in] gds the array (or GDS_ROOT)
 * \param[in] error_desc the descriptor being handled
 * \return as GDS_resume_local()
 */
GDS_API GDS_status_t GDS_resume_global(GDS_gds_t gds, GDS_error_t error_desc);

/**
 * \brief Delivers this process's pending local errors of the array now. Local.
 * \param[in] gds any handle of the array, or GDS_ROOT (GDS_ROOT's own errors and every array's)
 * \return GDS_STATUS_OK (also if nothing was pending), GDS_STATUS_UNHANDLED_ERROR,
 *         GDS_STATUS_AMBIGUOUS_HANDLER, GDS_STATUS_RECOVERY_FAILED, handle statuses
 */
GDS_API GDS_status_t GDS_invoke_local_error_handler(GDS_gds_t gds);

/**
 * \brief A stable point: completes every process's operations on the array
 *        (as GDS_fence()) and delivers the pending global errors.
 *
 * Collective over the array's communicator (GDS_COMM_WORLD for GDS_ROOT,
 * which delivers errors raised on GDS_ROOT). All processes return the same status.
 *
 * \param[in] gds any handle of the array, or GDS_ROOT
 * \return GDS_STATUS_OK, GDS_STATUS_UNHANDLED_ERROR, GDS_STATUS_AMBIGUOUS_HANDLER,
 *         GDS_STATUS_RECOVERY_FAILED, handle statuses, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_invoke_global_error_handler(GDS_gds_t gds);

/**
 * \brief Runs every check of the array and delivers what they find.
 *
 * A stable point: completes every process's operations, runs the checks of
 * every priority, high first (each priority: local checks, then global
 * ones), with \p gds as their handle (so a handle at an old version checks
 * that version), then delivers the errors pending anywhere, local and global.
 * Inside a handler nothing is delivered: found errors stay queued and the
 * call returns GDS_STATUS_ERROR_FOUND.
 *
 * Collective over the array's communicator; every process returns the same status.
 *
 * \param[in] gds any handle of the array, or GDS_ROOT (the checks registered on GDS_ROOT)
 * \return GDS_STATUS_OK (nothing found, or all of it recovered), GDS_STATUS_ERROR_FOUND,
 *         GDS_STATUS_CHECK_FAILED, GDS_STATUS_UNHANDLED_ERROR, GDS_STATUS_AMBIGUOUS_HANDLER,
 *         GDS_STATUS_RECOVERY_FAILED, GDS_STATUS_REMOTE_ERROR, handle statuses
 */
GDS_API GDS_status_t GDS_check_all_errors(GDS_gds_t gds);

/**
 * \brief Asks this process's local checks whether the version \p gds points at is sound
 *        (GDS extension). Local.
 *
 * Runs every local check of the array, high priority first, with \p gds.
 * Errors they raise are counted, not queued: this is a question, usable
 * inside handlers (e.g. to find the newest sound version).
 *
 * \param[in] gds any handle of the array (at any version), or GDS_ROOT
 * \return GDS_STATUS_OK (no check found anything), GDS_STATUS_ERROR_FOUND,
 *         GDS_STATUS_CHECK_FAILED, handle statuses
 */
GDS_API GDS_status_t GDS_check_local_error(GDS_gds_t gds);

/**
 * \brief Asks the global checks whether the version \p gds points at is sound
 *        (GDS extension; the manual's miniMD example calls it).
 *
 * As GDS_check_local_error() with the global checks. Collective over the
 * array's communicator; every process returns the same status.
 *
 * \param[in] gds any handle of the array, or GDS_ROOT
 * \return as GDS_check_local_error(), GDS_STATUS_REMOTE_ERROR, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_check_global_error(GDS_gds_t gds);

/* ---- testing handlers -------------------------------------------------------------- */

/** Faults GDS_inject_fault() can simulate (GDS extension). */
typedef GDS_ENUM(GDS_fault) {
  GDS_FAULT_NONE = 0,           /**< cancel pending injections */
  GDS_FAULT_RMA = 1,            /**< an RMA operation fails as if MPI reported MPI_ERR_OTHER */
  GDS_FAULT_VERSION_MEMORY = 2, /**< memory for a version cannot be allocated */
  GDS_FAULT_VERSION_PHASE = 3,  /**< GDS_version_inc fails in a given phase */
  GDS_FAULT_MEMORY_SYNC = 4,    /**< a memory synchronization (MPI_Win_sync) fails */
  GDS_FAULT_VERSION_CORRUPT = 5, /**< a bit of a version's stored copy flips after it was checksummed */
  GDS_FAULT_LATE_WRITE = 6       /**< the array's memory changes while a version is stored above memory */
} GDS_fault_t;

/**
 * \brief Makes the \p after -th next operation of a kind fail on this process,
 *        so programs can test their handlers (GDS extension). Local.
 *
 * GDS_FAULT_RMA: the operation is not issued and the call returns
 * GDS_STATUS_MPI_ERROR. GDS_FAULT_VERSION_MEMORY: the next GDS_version_inc()
 * that needs memory fails with GDS_STATUS_NOMEM on this process (and
 * GDS_STATUS_REMOTE_ERROR on the others). GDS_FAULT_VERSION_PHASE: the next
 * GDS_version_inc() on this process fails in phase \p after (1 settle,
 * 2 exchange, 3 reserve, 4 freeze, 5 persist; the last phase, commit, cannot fail) as if
 * MPI had failed there, with GDS_STATUS_MPI_ERROR (GDS_STATUS_REMOTE_ERROR on
 * the others): no version is made, and the next GDS_version_inc() versions
 * everything written before. GDS_FAULT_MEMORY_SYNC: the synchronization of
 * this process's memory with the others' (at a stable point, in
 * GDS_version_inc or GDS_version_restore) fails with GDS_STATUS_MPI_ERROR; a
 * collective call fails on every process, except a GDS_fence or
 * GDS_check_all_errors whose agreement was already made (it then fails on
 * this process only). Either way the library raises the failure as a
 * local error with GDS_EATTR_DETECTED_BY "GDS", as it does for real failures.
 * GDS_FAULT_VERSION_CORRUPT: the next GDS_version_inc() on this process, once
 * it has copied and checksummed its changed blocks, flips the lowest bit of
 * the first byte of the stored copy of the \p after -th of them (in the order
 * of this process's part; the last if it changed fewer): a latent error that
 * GDS_version_verify() finds. The version is made as usual.
 * GDS_FAULT_LATE_WRITE: the \p after -th next GDS_version_inc() or
 * GDS_group_version_inc() on this process, once every process agreed to make
 * the version and before the levels above memory (the cache, the prefix)
 * store it, overwrites every byte of this process's part of every member with
 * 0xA5, as a write landing in the array's memory at that moment would: the
 * version, at every level, holds the content frozen before it (what its
 * checksums describe), and the current content holds the 0xA5 bytes, which
 * the next version takes.
 *
 * \param[in] fault the kind
 * \param[in] after 1 for the next operation, 2 for the one after, ...; for
 *            GDS_FAULT_VERSION_PHASE the phase (1-5); for GDS_FAULT_VERSION_CORRUPT
 *            the changed block (1 for the first)
 * \return GDS_STATUS_OK, GDS_STATUS_INVALID
 */
GDS_API GDS_status_t GDS_inject_fault(GDS_fault_t fault, GDS_size_t after);

#ifdef __cplusplus
}
#endif

#endif /* GDS_ERROR_H */
