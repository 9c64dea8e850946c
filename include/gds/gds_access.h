/**
 * \file gds_access.h
 * \brief Reading and writing global data structures (GVR 1.0, section 6.3).
 *
 * Boxes: lo_index and hi_index give the first and last global index of an
 * n-dimensional box (inclusive, 0-based). A box may span any number of
 * processes; GDS issues one MPI operation per process that owns part of it.
 *
 * Origin buffers: laid out in the array's order (row-major by default in C).
 * origin_ld holds ndims-1 leading dimensions as in Global Arrays: for a
 * row-major array origin_ld[d] is the allocated extent of the buffer's
 * dimension d+1; for a column-major array it is that of dimension d. NULL, or
 * an entry 0, means the buffer is dense along that dimension (the box's
 * extent). For 1-D arrays origin_ld is ignored.
 *
 * Completion: put, get, acc, get_acc and compare_and_swap are nonblocking.
 * Their buffers must not be touched until GDS_wait() (local completion), and
 * other processes see the writes after GDS_fence() (or after GDS_wait() plus
 * synchronization of the application's own, e.g. a barrier after a
 * GDS_fence()). Concurrent writes to one element without synchronization in
 * between give an undefined value; accumulates to one element are atomic
 * per element with respect to each other when they use the same op.
 */
#ifndef GDS_ACCESS_H
#define GDS_ACCESS_H

#include "gds_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Writes a box of the array from a local buffer. Nonblocking.
 * \param[in] origin_addr the data (not to be modified before GDS_wait())
 * \param[in] origin_ld leading dimensions of the origin buffer (see the file comment)
 * \param[in] lo_index first index of the box
 * \param[in] hi_index last index of the box
 * \param[in] gds the array (its current version)
 * \return GDS_STATUS_OK or a status naming the bad argument; GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_put(const void *origin_addr, const GDS_size_t origin_ld[],
                             const GDS_size_t lo_index[], const GDS_size_t hi_index[],
                             GDS_gds_t gds);

/**
 * \brief Reads a box of the array into a local buffer. Nonblocking: the
 *        buffer is valid after GDS_wait(), GDS_wait_local() (own data) or GDS_fence().
 * \param[out] origin_addr where the data goes
 * \param[in] origin_ld leading dimensions of the origin buffer
 * \param[in] lo_index first index of the box
 * \param[in] hi_index last index of the box
 * \param[in] gds the array
 * \return GDS_STATUS_OK or a status naming the bad argument; GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_get(void *origin_addr, const GDS_size_t origin_ld[],
                             const GDS_size_t lo_index[], const GDS_size_t hi_index[],
                             GDS_gds_t gds);

/**
 * \brief Combines a local buffer into a box of the array with an MPI op. Nonblocking.
 *
 * \p accumulate_op is any predefined reduction op valid for the element type
 * (MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND,
 * MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC), MPI_REPLACE or MPI_NO_OP, with
 * MPI's rules for which op suits which type (GDS_STATUS_TYPE_MISMATCH otherwise).
 * MPI_NO_OP checks the arguments and changes nothing (no communication).
 *
 * \param[in] origin_addr the operands
 * \param[in] origin_ld leading dimensions of the origin buffer
 * \param[in] lo_index first index of the box
 * \param[in] hi_index last index of the box
 * \param[in] accumulate_op the op
 * \param[in] gds the array
 * \return GDS_STATUS_OK or a status naming the bad argument; GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_acc(const void *origin_addr, const GDS_size_t origin_ld[],
                             const GDS_size_t lo_index[], const GDS_size_t hi_index[],
                             GDS_op_t accumulate_op, GDS_gds_t gds);

/**
 * \brief Accumulates like GDS_acc() and returns the box's previous content. Nonblocking.
 *
 * With MPI_NO_OP it is an atomic read and \p origin_addr may be NULL; with
 * MPI_SUM on one element it is fetch-and-add. The origin and result buffers
 * must not overlap (GDS_STATUS_BUFFER_OVERLAP).
 *
 * \param[in] origin_addr the operands
 * \param[in] origin_ld leading dimensions of the origin buffer
 * \param[out] result_addr receives the previous content (valid after GDS_wait())
 * \param[in] result_ld leading dimensions of the result buffer
 * \param[in] lo_index first index of the box
 * \param[in] hi_index last index of the box
 * \param[in] accumulate_op the op (as for GDS_acc())
 * \param[in] gds the array
 * \return GDS_STATUS_OK or a status naming the bad argument; GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_get_acc(const void *origin_addr, const GDS_size_t origin_ld[],
                                 void *result_addr, const GDS_size_t result_ld[],
                                 const GDS_size_t lo_index[], const GDS_size_t hi_index[],
                                 GDS_op_t accumulate_op, GDS_gds_t gds);

/**
 * \brief Atomically replaces one element by *swap_source_addr if it equals
 *        *compare_addr, and returns its previous value. Nonblocking.
 *
 * Element types: C and Fortran integers, logical, byte and the multi-language
 * types (MPI_AINT, MPI_OFFSET, MPI_COUNT); others give GDS_STATUS_TYPE_MISMATCH.
 * The three buffers must not overlap.
 *
 * \param[in] compare_addr the expected value
 * \param[in] swap_source_addr the new value
 * \param[out] swap_result_addr receives the previous value (valid after GDS_wait())
 * \param[in] gds_offset the element's global index (ndims values)
 * \param[in] gds the array
 * \return GDS_STATUS_OK or a status naming the bad argument; GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_compare_and_swap(const void *compare_addr, const void *swap_source_addr,
                                          void *swap_result_addr, const GDS_size_t gds_offset[],
                                          GDS_gds_t gds);

/**
 * \brief Completes locally every operation this process issued on the array.
 *
 * On return, get, get_acc and compare_and_swap results are in their buffers
 * and the buffers of put and acc may be reused. Writes are not yet
 * guaranteed visible to other processes (use GDS_fence()). Local.
 * GDS_ROOT waits on every array.
 *
 * \param[in] gds the array, or GDS_ROOT
 * \return GDS_STATUS_OK, handle statuses, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_wait(GDS_gds_t gds);

/**
 * \brief Completes the operations this process issued on its own part of the array.
 *
 * On return, those reads are in their buffers and those writes are in the
 * local memory (seen by GDS_access(), GDS_get() and, for GDS_create()
 * arrays, by direct loads of the application's buffer). Local. GDS_ROOT
 * applies to every array.
 *
 * \param[in] gds the array, or GDS_ROOT
 * \return GDS_STATUS_OK, handle statuses, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_wait_local(GDS_gds_t gds);

/**
 * \brief Synchronizes all processes of the array: every read after the fence
 *        sees every write issued before it, by any process.
 *
 * Completes this process's operations at their targets, then synchronizes
 * with one collective that also agrees on the outcome: if any process's
 * operations failed, every process returns an error. Collective over the
 * array's communicator. GDS_ROOT fences every array, in creation order.
 *
 * \param[in] gds the array, or GDS_ROOT
 * \return GDS_STATUS_OK, handle statuses, GDS_STATUS_MPI_ERROR, GDS_STATUS_REMOTE_ERROR
 */
GDS_API GDS_status_t GDS_fence(GDS_gds_t gds);

/**
 * \brief Gives the application a pointer to a box of the array.
 *
 * GDS_ACCESS_BUFFER_DIRECT: the box must be stored on the calling process
 * (GDS_STATUS_NOT_LOCAL otherwise); the pointer addresses element lo_index in
 * the process's local memory, laid out as the local block (leading
 * dimensions from GDS_get_access_buffer_ld()). For a GDS_create() array it is
 * the application's local buffer, indexed by the mapping's local offsets.
 * GDS_ACCESS_BUFFER_COPY: a dense copy of the box (any box, local or not),
 * written back by GDS_release(). GDS_ACCESS_BUFFER_ANY: DIRECT for a local
 * box of a GDS_alloc() array, COPY otherwise.
 *
 * On return the buffer holds the current data, including this process's
 * earlier writes and other processes' writes completed by a GDS_fence().
 * Until GDS_release(), this process's other GDS calls on an overlapping box
 * fail with GDS_STATUS_ACCESS_CONFLICT, and GDS_free() of the array fails;
 * other processes must not write the box (synchronize as for any write).
 * Local (COPY of a remote box reads it one-sidedly).
 *
 * \param[in] gds the array (current version)
 * \param[in] lo_index first index of the box
 * \param[in] hi_index last index of the box
 * \param[in] buffer_type DIRECT, COPY or ANY
 * \param[out] access_buffer the pointer
 * \param[out] access_handle for GDS_release()
 * \return GDS_STATUS_OK, GDS_STATUS_RANGE, GDS_STATUS_NOT_LOCAL,
 *         GDS_STATUS_ACCESS_CONFLICT, GDS_STATUS_NOMEM, argument statuses
 */
GDS_API GDS_status_t GDS_access(GDS_gds_t gds, const GDS_size_t lo_index[],
                                const GDS_size_t hi_index[], GDS_access_buffer_t buffer_type,
                                void **access_buffer, GDS_access_handle_t *access_handle);

/**
 * \brief Whether GDS_access() returned the array's memory or a copy. Local.
 * \param[in] access_handle an open access
 * \param[out] buffer_type GDS_ACCESS_BUFFER_DIRECT or GDS_ACCESS_BUFFER_COPY
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, handle statuses
 */
GDS_API GDS_status_t GDS_get_access_buffer_type(GDS_access_handle_t access_handle,
                                                GDS_access_buffer_t *buffer_type);

/**
 * \brief The leading dimensions of an access buffer (GDS extension). Local.
 *
 * Fills ndims-1 values with the convention of origin_ld: the box's extents
 * for a COPY, the local block's for a DIRECT access to a GDS_alloc() array,
 * and 0 for DIRECT access to a GDS_create() array (indexed by local offsets).
 *
 * \param[in] access_handle an open access
 * \param[out] ld ndims-1 values (may be NULL for 1-D arrays)
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, handle statuses
 */
GDS_API GDS_status_t GDS_get_access_buffer_ld(GDS_access_handle_t access_handle,
                                              GDS_size_t ld[]);

/**
 * \brief Ends an access: makes the buffer's content the array's and sets the handle to
 *        GDS_ACCESS_HANDLE_NULL.
 *
 * DIRECT: synchronizes the local memory so later operations by any process
 * see the stores. COPY: writes the copy back to the array and completes the
 * write locally; other processes see it after GDS_fence(). Local.
 *
 * \param[in,out] access_handle the access
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, handle statuses, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_release(GDS_access_handle_t *access_handle);

#ifdef __cplusplus
}
#endif

#endif /* GDS_ACCESS_H */
