/**
 * \file gds_runtime.h
 * \brief Initialization, finalization and communicators (GVR 1.0, sections 3 and 6.1).
 */
#ifndef GDS_RUNTIME_H
#define GDS_RUNTIME_H

#include "gds_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Initializes the GDS library; must precede every other GDS call but
 *        GDS_status_string() and GDS_last_error_message().
 *
 * If MPI is not initialized yet, GDS_init() calls MPI_Init_thread() and
 * GDS_finalize() will call MPI_Finalize(). If the application initialized MPI,
 * GDS uses it as it is and leaves finalizing it to the application.
 *
 * GDS supports GDS_THREAD_SINGLE, GDS_THREAD_FUNNELED and
 * GDS_THREAD_SERIALIZED. A request for GDS_THREAD_MULTIPLE is granted
 * GDS_THREAD_SERIALIZED. The provided level is never higher than what MPI
 * provides. With GDS_SANITY_CHECK set, calls from a thread that the level does
 * not allow fail with GDS_STATUS_WRONG_THREAD.
 *
 * Reads the environment: GDS_DEBUG_LEVEL (0-2), GDS_SHOW_INFO,
 * GDS_SANITY_CHECK, GDS_OUTSTANDING_RMA_OPS_MAX (docs/configuration.md).
 *
 * Completion: on return, GDS_COMM_WORLD is a duplicate of MPI_COMM_WORLD and
 * arrays may be created. Collective over MPI_COMM_WORLD.
 *
 * \param[in,out] argc pointer to the argument count, or NULL
 * \param[in,out] argv pointer to the argument vector, or NULL
 * \param[in] requested_thread_support the thread level the program needs
 * \param[out] provided_thread_support the level GDS provides (not NULL: GDS_STATUS_NULL_ARGUMENT)
 * \return GDS_STATUS_OK, GDS_STATUS_ALREADY_INITIALIZED, GDS_STATUS_INVALID
 *         (unknown thread level), GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_init(int *argc, char ***argv,
                              GDS_thread_support_t requested_thread_support,
                              GDS_thread_support_t *provided_thread_support);

/**
 * \brief Cleans up the library.
 *
 * Nothing need be freed first. Arrays still allocated are freed (in
 * creation order, so the frees match on every process), with a warning at
 * GDS_DEBUG_LEVEL >= 1; their cached versions and flushes in flight end
 * first. Version groups still alive need not be freed before: their arrays
 * leave them as they are freed, and the groups are then freed too, without
 * a warning (GDS_free() of a member needs its group freed first;
 * GDS_finalize() does not). No handle of an array, clone or group is valid
 * afterwards. Calls MPI_Finalize() if GDS_init() initialized MPI.
 * Collective over MPI_COMM_WORLD.
 *
 * \return GDS_STATUS_OK, GDS_STATUS_NOT_INITIALIZED, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_finalize(void);

/**
 * \brief Whether GDS_init() has been called and GDS_finalize() has not (GDS extension).
 * \param[out] flag 1 if initialized, else 0
 * \return GDS_STATUS_OK or GDS_STATUS_NULL_ARGUMENT. Local; callable any time.
 */
GDS_API GDS_status_t GDS_initialized(int *flag);

/**
 * \brief The calling process's rank in a communicator. Local.
 * \param[in] comm the communicator
 * \param[out] rank the rank
 * \return GDS_STATUS_OK, GDS_STATUS_NOT_INITIALIZED, GDS_STATUS_INVALID_COMM,
 *         GDS_STATUS_NULL_ARGUMENT
 */
GDS_API GDS_status_t GDS_comm_rank(GDS_comm_t comm, int *rank);

/**
 * \brief The number of processes in a communicator. Local.
 * \param[in] comm the communicator
 * \param[out] size the size
 * \return GDS_STATUS_OK, GDS_STATUS_NOT_INITIALIZED, GDS_STATUS_INVALID_COMM,
 *         GDS_STATUS_NULL_ARGUMENT
 */
GDS_API GDS_status_t GDS_comm_size(GDS_comm_t comm, int *size);

/**
 * \brief The communicator behind GDS_COMM_WORLD (MPI_COMM_NULL before GDS_init()).
 * Local. Use the macro GDS_COMM_WORLD.
 */
GDS_API GDS_comm_t GDS_comm_world(void);

/** All processes using the GDS library: a duplicate of MPI_COMM_WORLD owned by GDS. */
#define GDS_COMM_WORLD (GDS_comm_world())

/**
 * \brief The failure group (node) of a process and how many groups there are
 *        (GDS extension). Local.
 *
 * Processes of one failure group are expected to fail together; persistent
 * versions keep their redundant copies in other groups. Set at GDS_init():
 * by default the processes sharing a host; `GDS_NODE_ID` (an integer set on
 * every process: equal values, one group) or `GDS_RANKS_PER_NODE=k` (world
 * ranks 0..k-1 one group, k..2k-1 the next, ...) let one host act as several
 * nodes. Groups are numbered from 0 in the order of their lowest rank.
 *
 * \param[in] rank a rank in GDS_COMM_WORLD
 * \param[out] group its failure group, 0 to *ngroups - 1
 * \param[out] ngroups how many failure groups there are (may be NULL)
 * \return GDS_STATUS_OK, GDS_STATUS_NOT_INITIALIZED, GDS_STATUS_NULL_ARGUMENT,
 *         GDS_STATUS_RANGE (rank outside GDS_COMM_WORLD)
 */
GDS_API GDS_status_t GDS_failure_group(int rank, int *group, int *ngroups);

#ifdef __cplusplus
}
#endif

#endif /* GDS_RUNTIME_H */
