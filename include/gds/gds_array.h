/**
 * \file gds_array.h
 * \brief Creating, describing and freeing global data structures (GVR 1.0, section 6.2).
 */
#ifndef GDS_ARRAY_H
#define GDS_ARRAY_H

#include "gds_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Allocates an n-dimensional array distributed in blocks over a process grid.
 *
 * Layout: the processes of \p users form a grid with grid[d] blocks along
 * dimension d (query it with GDS_get_attr(GDS_GLOBAL_LAYOUT)). The grid uses
 * as many processes as the extents and \p min_chunks allow and, among such
 * grids, makes blocks as close to cubes as possible. Along dimension d, with
 * n = count[d] and b = grid[d], block k holds n/b + (k < n%b) consecutive
 * indices, so every block has at least min_chunks[d] elements (a min_chunks[d]
 * larger than count[d] keeps that dimension whole). The process of rank r in
 * \p users owns the block whose grid coordinates are r written in the array's
 * order (row-major: last grid dimension fastest); ranks >= the product of the
 * grid own nothing. Each process stores its block in the array's order. The
 * memory is zeroed.
 *
 * Info keys: GDS_ORDER_KEY (GDS_ORDER_DEFAULT, GDS_ORDER_ROW_MAJOR,
 * GDS_ORDER_COL_MAJOR). Other keys starting with "gds_" are errors; other keys
 * are ignored.
 *
 * Completion: on return the array is ready for data access on every process.
 * Collective over \p users; all processes must pass the same ndims, count,
 * min_chunks, element_type and order (else GDS_STATUS_COLLECTIVE_MISMATCH on
 * all of them), and all return the same status.
 *
 * \param[in] ndims number of dimensions (>= 1)
 * \param[in] count extent of every dimension (ndims values, each >= 1)
 * \param[in] min_chunks minimum block extent per dimension (0 = no minimum), or NULL
 * \param[in] element_type a predefined MPI datatype (see gds_types.h)
 * \param[in] resilience_priority GDS_PRIORITY_HIGH, _MEDIUM or _LOW
 * \param[in] users the processes that share the array
 * \param[in] info hints, or MPI_INFO_NULL
 * \param[out] gds the new handle
 * \return GDS_STATUS_OK or a status naming the bad argument
 */
GDS_API GDS_status_t GDS_alloc(GDS_size_t ndims, const GDS_size_t count[],
                               const GDS_size_t min_chunks[], GDS_datatype_t element_type,
                               GDS_priority_t resilience_priority, GDS_comm_t users,
                               GDS_info_t info, GDS_gds_t *gds);

/**
 * \brief Makes a global array out of buffers the application provides.
 *
 * Every global index i is stored at element global_to_local(i).local_offset of
 * the buffer of process global_to_local(i).local_rank (a rank in \p users).
 * local_to_global must be the inverse on each process. The mapping functions
 * are called by GDS on any process during data access and must give the same
 * answers everywhere. A process may pass a NULL buffer with count 0.
 *
 * Both mapping functions NULL (GDS extension): the array is laid out as
 * GDS_alloc() lays it out (min_chunks NULL; docs/api.md), and each
 * process's buffer holds its block in the array's order (row-major, or
 * GDS_ORDER_KEY's). For a 1-D array of N elements per process that is
 * buffer element k = global index rank * N + k. \p local_buffer_count must be
 * at least the block's size (GDS_STATUS_INVALID_COUNT); elements beyond it are
 * not the array's. One of the two NULL is GDS_STATUS_NULL_ARGUMENT.
 *
 * The buffers must stay valid while any process accesses the array, up to
 * the GDS_fence() (or other collective on the array) after the last access;
 * GDS_free() itself never touches them. Access through GDS_put() and
 * friends goes through an MPI window over them. The application goes on
 * storing into its buffer directly, with no GDS_access()/GDS_release()
 * bracket: GDS_version_inc() finds what changed by the kernel's write
 * tracking or by comparing every block with its last version
 * (docs/versions.md, which says what the kernel's tracking cannot see), so
 * a version holds every store made before it, bracketed or not. Other
 * processes read such stores one-sidedly after a GDS_fence() on the array
 * (it synchronizes the window, MPI_Win_sync, on every process before and
 * after its agreement), or after a GDS_release() of a DIRECT access over
 * them followed by a synchronization of the application's own; likewise
 * the application's loads see other processes' puts after a GDS_fence().
 * A DIRECT access to a GDS_create() array gives the buffer itself and
 * changes nothing for versions.
 *
 * Checks: the local counts must add up to at least the array's size (more
 * is allowed: elements no global index maps to are never read); with
 * GDS_SANITY_CHECK set, every local offset is mapped to global and back and
 * must come back to the same process and offset.
 *
 * Completion: on return the array is ready on every process. Collective over
 * \p users; agreement and status as for GDS_alloc().
 *
 * \param[in] ndims number of dimensions (>= 1)
 * \param[in] count extent of every dimension
 * \param[in] element_type a predefined MPI datatype
 * \param[in] global_to_local_func global index to (rank, local offset), or NULL with the other NULL
 * \param[in] local_to_global_func local offset to global index, or NULL with the other NULL
 * \param[in] local_buffer this process's elements, or NULL if it holds none
 * \param[in] local_buffer_count number of elements in \p local_buffer
 * \param[in] resilience_priority GDS_PRIORITY_HIGH, _MEDIUM or _LOW
 * \param[in] users the processes that share the array
 * \param[in] info hints (GDS_ORDER_KEY), or MPI_INFO_NULL
 * \param[out] gds the new handle
 * \return GDS_STATUS_OK or a status naming the bad argument
 */
GDS_API GDS_status_t GDS_create(GDS_size_t ndims, const GDS_size_t count[],
                                GDS_datatype_t element_type,
                                GDS_global_to_local_func_t global_to_local_func,
                                GDS_local_to_global_func_t local_to_global_func,
                                void *local_buffer, GDS_size_t local_buffer_count,
                                GDS_priority_t resilience_priority, GDS_comm_t users,
                                GDS_info_t info, GDS_gds_t *gds);

/** global_to_local with an application context (GDS extension). */
typedef GDS_status_t (*GDS_global_to_local_ctx_func_t)(const GDS_size_t global_indices[],
                                                       int *local_rank,
                                                       GDS_size_t *local_offset,
                                                       void *context);
/** local_to_global with an application context (GDS extension). */
typedef GDS_status_t (*GDS_local_to_global_ctx_func_t)(GDS_size_t local_offset,
                                                       GDS_size_t global_indices[],
                                                       void *context);

/**
 * \brief GDS_create() with mapping functions that receive \p context (GDS extension).
 *
 * Lets C++ closures and Fortran procedures with state serve as mappings.
 * \p context must stay valid until GDS_free(). Otherwise as GDS_create().
 */
GDS_API GDS_status_t GDS_create_with_context(
    GDS_size_t ndims, const GDS_size_t count[], GDS_datatype_t element_type,
    GDS_global_to_local_ctx_func_t global_to_local_func,
    GDS_local_to_global_ctx_func_t local_to_global_func, void *context, void *local_buffer,
    GDS_size_t local_buffer_count, GDS_priority_t resilience_priority, GDS_comm_t users,
    GDS_info_t info, GDS_gds_t *gds);

/**
 * \brief Frees an array handle and sets it to GDS_NULL.
 *
 * On a handle returned by GDS_alloc() or GDS_create(): collective over the
 * array's communicator; completes all outstanding operations, frees the array
 * (and, for GDS_alloc(), its memory) and invalidates every clone of it. It
 * fails on every process, freeing nothing, if any process still has a region
 * open with GDS_access().
 *
 * GDS_free() never reads or writes the buffers of a GDS_create() array
 * (after the processes agree that every operation completed, it only
 * releases the MPI window over them): a program may free its buffer before
 * GDS_free() (a C++ array's destructor), once no process accesses the array
 * any more, that is after a GDS_fence() (or another collective on the
 * array) that follows the last operation on it.
 *
 * On a handle made by GDS_descriptor_clone(): local; frees only that handle.
 *
 * A NULL \p gds, or a handle that names no array, names no communicator
 * either: the call returns GDS_STATUS_NULL_ARGUMENT or a handle status at once
 * on that process, and the others, which passed the array, wait for it in
 * the collective (as MPI_Comm_free() with an invalid communicator on one
 * process). Every other refusal is agreed on.
 *
 * \param[in,out] gds the handle
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, handle statuses,
 *         GDS_STATUS_ACCESS_CONFLICT, GDS_STATUS_REMOTE_ERROR, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_free(GDS_gds_t *gds);

/**
 * \brief Queries an attribute of an array. Local.
 *
 * \p attribute_value receives, by key:
 * - GDS_TYPE: a GDS_datatype_t
 * - GDS_CREATE_FLAVOR: a GDS_flavor_t
 * - GDS_NUMBER_DIMENSIONS: a GDS_size_t
 * - GDS_COUNT: ndims GDS_size_t, the extents
 * - GDS_CHUNK_SIZE: ndims GDS_size_t, the largest block extent per dimension
 *   (GDS_alloc() arrays; *flag = 0 for GDS_create() arrays)
 * - GDS_GLOBAL_LAYOUT: ndims GDS_size_t, the process grid: the number of
 *   blocks each dimension is cut into (GDS_alloc() arrays; see GDS_alloc()
 *   for which process owns which block and GDS_distribution() for the box of
 *   a process). For GDS_create() arrays the layout is the application's
 *   mapping functions and *flag = 0.
 *
 * \param[in] gds the array
 * \param[in] attribute_key one of GDS_attr_t
 * \param[out] attribute_value where to store the value (large enough for it)
 * \param[out] flag 1 if the attribute is defined for this array, else 0
 * \return GDS_STATUS_OK, GDS_STATUS_INVALID_ATTR, GDS_STATUS_NULL_ARGUMENT,
 *         handle statuses
 */
GDS_API GDS_status_t GDS_get_attr(GDS_gds_t gds, GDS_attr_t attribute_key,
                                  void *attribute_value, int *flag);

/**
 * \brief A duplicate of the array's communicator; the caller frees it with MPI_Comm_free().
 * Collective over the array's communicator (it calls MPI_Comm_dup()). A NULL
 * \p comm on any process fails the call on every process, as GDS_alloc()'s
 * NULL \p gds does: that process returns GDS_STATUS_NULL_ARGUMENT, the others
 * GDS_STATUS_REMOTE_ERROR, and no communicator is made.
 * \param[in] gds the array
 * \param[out] comm the duplicate
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_REMOTE_ERROR, handle statuses,
 *         GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_get_comm(GDS_gds_t gds, GDS_comm_t *comm);

/**
 * \brief The box a process owns in a GDS_alloc() array (GDS extension, like GA's
 *        NGA_Distribution). Local.
 * \param[in] gds the array
 * \param[in] rank a rank in the array's communicator
 * \param[out] lo first index of the box (ndims values)
 * \param[out] hi last index of the box (ndims values)
 * \param[out] owns 1 if the process owns a block, else 0 (lo and hi untouched)
 * \return GDS_STATUS_OK, GDS_STATUS_RANGE (rank), GDS_STATUS_INVALID (a
 *         GDS_create() array), GDS_STATUS_NULL_ARGUMENT, handle statuses
 */
GDS_API GDS_status_t GDS_distribution(GDS_gds_t gds, int rank, GDS_size_t lo[],
                                      GDS_size_t hi[], int *owns);

/**
 * \brief Which process stores an element, and where (GDS extension, like GA's NGA_Locate).
 * Local.
 * \param[in] gds the array
 * \param[in] index the element's global index (ndims values)
 * \param[out] rank its owner, a rank in the array's communicator
 * \param[out] local_offset its offset, in elements, in the owner's local buffer
 * \return GDS_STATUS_OK, GDS_STATUS_RANGE, GDS_STATUS_INVALID_MAPPING,
 *         GDS_STATUS_NULL_ARGUMENT, handle statuses
 */
GDS_API GDS_status_t GDS_locate(GDS_gds_t gds, const GDS_size_t index[], int *rank,
                                GDS_size_t *local_offset);

#ifdef __cplusplus
}
#endif

#endif /* GDS_ARRAY_H */
