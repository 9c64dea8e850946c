/**
 * \file gds_costs.h
 * \brief What resilience costs this process, and when to make the next
 *        version (GDS extensions).
 *
 * GDS accounts, per process, the calls, the seconds spent inside them and
 * the bytes of every kind of resilience work: versions, restores, cache
 * writes, their redundancy, flushes to the prefix and restarts.
 * GDS_get_costs() reads them; with GDS_PRINT_COSTS=1 every process prints
 * them at GDS_finalize(), as SCR logs its checkpoints' costs.
 *
 * GDS_need_version() tells a program whether to make a version now, as SCR's
 * SCR_Need_checkpoint(): from the measured cost of its versions and the time
 * its steps take, against a target: at most a fraction of the run's time in
 * versions (GDS_VERSION_OVERHEAD, default 0.05), or, with a mean time between
 * failures (GDS_MTBF, seconds), Young's and Daly's optimal interval
 * (docs/versions.md gives the formulas).
 */
#ifndef GDS_COSTS_H
#define GDS_COSTS_H

#include "gds_group.h"
#include "gds_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One kind of work: how many calls, the seconds inside them, the bytes moved. */
typedef struct GDS_cost {
  GDS_size_t calls; /**< calls (or operations) */
  double seconds;   /**< seconds inside them, on the calling thread */
  GDS_size_t bytes; /**< bytes copied, written, sent or read (background threads' too) */
} GDS_cost_t;

/** What resilience cost this process since GDS_init() (or GDS_reset_costs()). */
typedef struct GDS_costs {
  double elapsed;        /**< seconds since GDS_init() or GDS_reset_costs() */
  GDS_cost_t versions;   /**< GDS_version_inc(), GDS_group_version_inc(): all of each call (calls: every
                              call, failed ones too; a group version is one); bytes copied into memory
                              versions: each changed block whole, the part's last one up to the part's end,
                              and again in a round of a version made again; not checksums or block tables
                              (docs/versions.md, "What the bytes count") */
  GDS_cost_t restores;   /**< GDS_version_restore(), GDS_group_version_restore(): bytes copied back */
  GDS_cost_t cache;      /**< the cache's part of the version calls and of its waits (calls: versions cached);
                              bytes of cache files written (on the background thread too) */
  GDS_cost_t redundancy; /**< PARTNER copies, XOR and RS chunks (calls: files protected): seconds waiting for them;
                              bytes sent */
  GDS_cost_t flushes;    /**< flushes to the prefix (calls: flushes started): the calls' part; bytes written by
                              the flush threads */
  GDS_cost_t restarts;   /**< arrays restarted from persisted versions: seconds; bytes read */
  GDS_cost_t tracking;   /**< GDS_create arrays' changes found by the kernel's write tracking (docs/versions.md):
                              calls: versions of an array so made; seconds: in the kernel's scans (part of the
                              versions' seconds); bytes: of the pages it reported written */
} GDS_costs_t;

/**
 * \brief What resilience cost this process so far (GDS extension).
 *
 * Completion: local; the figures are this process's own.
 *
 * \param[out] costs the calls, seconds and bytes of each kind of work
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_NOT_INITIALIZED
 */
GDS_API GDS_status_t GDS_get_costs(GDS_costs_t *costs);

/**
 * \brief Starts this process's accounts afresh (GDS extension).
 *
 * Completion: local.
 *
 * \return GDS_STATUS_OK, GDS_STATUS_NOT_INITIALIZED
 */
GDS_API GDS_status_t GDS_reset_costs(void);

/**
 * \brief Whether the program should make a version of the array now (GDS
 *        extension; SCR's SCR_Need_checkpoint).
 *
 * A program calls it once per step and calls GDS_version_inc() when
 * \p flag is 1. Every process of the array gets the same answer without a
 * message: GDS counts the calls since the array's last version, and at each
 * version learns, in the agreement the version makes anyway, the seconds of
 * the last version inside GDS_version_inc() and the seconds per step
 * between the last two versions (the most any process measured). The
 * interval in steps is then the interval in seconds over the seconds per
 * step, at least 1, where the interval in seconds is, with C the cost of a
 * version: with GDS_MTBF=M seconds, Daly's
 * sqrt(2CM)(1 + sqrt(C/2M)/3 + (C/2M)/9) - C (M if C >= 2M); otherwise
 * C(1 - f)/f, which spends at most the fraction f = GDS_VERSION_OVERHEAD
 * (default 0.05) of the run's time in versions. Before any version, and
 * until two versions have measured a step, \p flag is 1.
 *
 * Completion: local; the same \p flag on every process that calls it as
 * often (SPMD).
 *
 * \param[in] gds the array (any handle; a version group's member: its group's answer)
 * \param[out] flag 1: make a version now; 0: not yet
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, handle statuses
 */
GDS_API GDS_status_t GDS_need_version(GDS_gds_t gds, int *flag);

/**
 * \brief GDS_need_version() for a version group (GDS extension).
 *
 * \param[in] group the group
 * \param[out] flag 1: make a group version now; 0: not yet
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID, handle statuses
 */
GDS_API GDS_status_t GDS_group_need_version(GDS_group_t group, int *flag);

#ifdef __cplusplus
}
#endif

#endif /* GDS_COSTS_H */
