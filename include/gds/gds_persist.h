/**
 * \file gds_persist.h
 * \brief Persistent versions: the node-local cache and the global prefix,
 *        restart, and the calls that wait for them (GDS extensions, after SCR).
 *
 * An array (or a version group) whose info or environment names a copy type
 * keeps its versions in a node-local cache too, protected across failure
 * groups (SINGLE, PARTNER, XOR or RS, as SCR's copy types), and with a prefix it
 * flushes them as HDF5 files to a global directory. A job run again with the
 * same job id restarts its arrays inside GDS_alloc()/GDS_create() (a version
 * group's members without a name of their own inside GDS_group_create()) from
 * the newest version they can restore (docs/persistence.md).
 *
 * Durability: with synchronous cache writes (the default) a version is in
 * the cache with its redundancy when GDS_version_inc() returns, so a crash
 * loses nothing made before the call returned. Asynchronous writes
 * (GDS_CACHE_SYNC_KEY 0) return sooner and complete at the array's later
 * collective calls: a crash loses the versions still in flight (at most
 * two), GDS_cache_wait() makes them durable. Flushes to the prefix are
 * always completed in the background (GDS_flush_wait()).
 */
#ifndef GDS_PERSIST_H
#define GDS_PERSIST_H

#include "gds_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \name Info keys for persistent versions (the cache level); environment variables give defaults.
 *  docs/configuration.md lists them with their GDS_* and SCR_* variables. */
/**@{*/
#define GDS_NAME_KEY "gds_name"               /**< the array's name in the cache (letters, digits, '-', '_', '.'; 1-64);
                                                   default: "array<k>", k its creation order */
#define GDS_COPY_TYPE_KEY "gds_copy_type"     /**< NONE (memory only), SINGLE (or LOCAL), PARTNER, XOR, RS; GDS_COPY_TYPE */
#define GDS_SET_SIZE_KEY "gds_set_size"       /**< the largest XOR or RS set (>= 2; sets are as large as the failure groups allow); GDS_SET_SIZE; default 8 */
#define GDS_SET_FAILURES_KEY "gds_set_failures" /**< RS: lost nodes (failure groups) each set survives (1-254; at most
                                                   its members - 1); GDS_SET_FAILURES (SCR_SET_FAILURES); default 2 */
#define GDS_CACHE_BASE_KEY "gds_cache_base"   /**< the node-local cache directory; GDS_CACHE_BASE; default /dev/shm */
#define GDS_CACHE_SIZE_KEY "gds_cache_size"   /**< versions the cache keeps (>= 1); GDS_CACHE_SIZE; default 2 */
#define GDS_CACHE_EVERY_KEY "gds_cache_every" /**< every n-th version goes to the cache (>= 1); GDS_CACHE_EVERY; default 1 */
#define GDS_RESTART_KEY "gds_restart"         /**< 1: start from the persisted versions if there are any, 0: never;
                                                   GDS_RESTART; default: 1 when a job id is given, else 0 */
#define GDS_PREFIX_KEY "gds_prefix"           /**< the global directory versions are flushed to as HDF5 files;
                                                   GDS_PREFIX (SCR_PREFIX); default: none (no flush) */
#define GDS_FLUSH_KEY "gds_flush"             /**< every n-th version is flushed to the prefix (0: none, as
                                                   SCR_FLUSH=0); GDS_FLUSH (SCR_FLUSH); default 1 */
#define GDS_PREFIX_SIZE_KEY "gds_prefix_size" /**< flushed versions the prefix keeps per array (>= 1); GDS_PREFIX_SIZE
                                                   (SCR_PREFIX_SIZE); default 2 */
#define GDS_FLUSH_INFLIGHT_KEY "gds_flush_inflight" /**< flushes of an array in flight at once (>= 1); GDS_FLUSH_INFLIGHT;
                                                         default 1 */
#define GDS_CACHE_SYNC_KEY "gds_cache_sync"   /**< 1: a cached version is written, protected and recorded inside
                                                   GDS_version_inc (durable when it returns); 0: in the background,
                                                   completed at later calls (GDS_cache_wait); GDS_CACHE_SYNC;
                                                   default 1 */
/**@}*/

/** Levels versions are persisted at. */
#define GDS_LEVEL_NONE 0  /**< not restarted */
#define GDS_LEVEL_CACHE 1 /**< the node-local cache (with its redundancy) */
#define GDS_LEVEL_PREFIX 2 /**< the global prefix (HDF5 files) */

/** What GDS_alloc()/GDS_create() found of an array's persisted versions (GDS extension). */
typedef struct GDS_restart_info {
  int restarted;            /**< 1 if the array started from persisted versions, 0 for a fresh start */
  int level;                /**< GDS_LEVEL_CACHE or GDS_LEVEL_PREFIX when restarted, else GDS_LEVEL_NONE */
  GDS_size_t version;       /**< the newest complete version: the current content equals it */
  GDS_size_t versions;      /**< persisted versions made navigable again, this one included */
  int rebuilt_processes;    /**< processes whose lost or corrupt files were rebuilt from PARTNER, XOR or RS */
  GDS_size_t rebuilt_files; /**< version files rebuilt */
} GDS_restart_info_t;

/**
 * \brief What the array's GDS_alloc()/GDS_create() found of its persisted versions (GDS extension).
 *
 * Completion: local; the values are the same on every process of the array.
 *
 * \param[in] gds the array (any handle)
 * \param[out] info whether it restarted, from which version, and what had to be rebuilt
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, handle statuses
 */
GDS_API GDS_status_t GDS_get_restart_info(GDS_gds_t gds, GDS_restart_info_t *info);

/**
 * \brief Waits until every flush of the array to the prefix has finished (GDS extension).
 *
 * GDS_version_inc() hands a version to the flush and returns; the flush
 * writes it in the background. On return every flush is durable, renamed
 * and in the prefix's index. A flush that failed was raised through Open
 * Resilience when it ended (the cache still holds the version); this call
 * returns the status of the first flush that failed since the last call
 * (GDS_STATUS_IO_ERROR for a write), GDS_STATUS_OK if none did.
 * GDS_free() and GDS_finalize() wait too, and also for the removal of
 * flushes beyond the prefix size, which may still run after this call.
 *
 * Completion: collective over the array's processes.
 *
 * \param[in] gds the array (any handle)
 * \return GDS_STATUS_OK, GDS_STATUS_IO_ERROR, GDS_STATUS_NOMEM, GDS_STATUS_MPI_ERROR, handle statuses
 */
GDS_API GDS_status_t GDS_flush_wait(GDS_gds_t gds);

/**
 * \brief Completes the array's cached versions in flight (GDS extension).
 *
 * By default (synchronous cache writes) GDS_version_inc() returns only once
 * its cached version is written, protected (PARTNER copy, XOR parity, RS encoding) and
 * recorded on every process, and this call has nothing to do. With
 * asynchronous writes (GDS_CACHE_SYNC=0, info key GDS_CACHE_SYNC_KEY 0: for
 * nodes with cores left free for the library) GDS_version_inc() returns
 * once a cached version's file is copied into memory of its own and the
 * messages of its redundancy are posted; the files are written on a
 * background thread, and later calls on the array (the next
 * GDS_version_inc(), this one, GDS_free(), GDS_finalize()) complete the
 * messages and write the commit record once every process has its files
 * durable. At most two versions of an array are in flight. Durability:
 * restart takes a version once a process has its commit record, so a
 * crash loses the versions still in flight (restart takes the newest
 * recorded one): a program that makes a version every k steps and no GDS
 * call between them loses up to two cached versions (about 2k steps) at a
 * crash, where synchronous writes lose none. After this call returns
 * GDS_STATUS_OK, every version cached so far is restartable: call it where
 * a version must be durable before going on. GDS_flush_wait() completes the
 * cached versions up to the newest flush too (a flush is published only
 * after the cache's versions up to it).
 * A version that fails in the background is raised to the error handlers
 * (GDS_STATUS_IO_ERROR) and leaves the cache (with any younger one in
 * flight, which may build on it); this call then returns GDS_STATUS_IO_ERROR
 * once. Members of a version group: waiting on any member completes the
 * group's versions.
 *
 * Completion: collective over the array's processes.
 *
 * \param[in] gds the array (any handle)
 * \return GDS_STATUS_OK, GDS_STATUS_IO_ERROR, GDS_STATUS_MPI_ERROR, handle statuses
 */
GDS_API GDS_status_t GDS_cache_wait(GDS_gds_t gds);

/**
 * \brief Whether the job should stop now, right after a persisted version
 *        (GDS extension; SCR's SCR_Should_exit).
 *
 * A program calls it after each GDS_version_inc() or GDS_group_version_inc()
 * and leaves its loop when \p flag is 1; a relaunch with the same GDS_JOB_ID
 * then resumes from the version just made. \p flag is 1 when both hold:
 *
 * - a halt condition holds on some process: the file named by the variable
 *   `GDS_HALT_FILE` exists (unset: no halt file), or fewer than
 *   `GDS_HALT_SECONDS` (default 300) seconds are left before `GDS_END_TIME`
 *   (seconds since 1970, set by the launcher gds-run; unset: no time limit);
 * - the job's newest version is persisted: every array with a cache or a
 *   prefix made its newest version at every level it is configured for
 *   (GDS_CACHE_EVERY and GDS_FLUSH schedule them; an array that has made no
 *   version yet has nothing persisted). While the condition holds and the
 *   newest version was not scheduled for the levels, \p flag stays 0 until
 *   one is ("stops after its next persisted version"). With no persistence
 *   configured, \p flag is 1 as soon as the condition holds.
 *
 * The variables are read at every call. Without a halt condition the call
 * costs one small allreduce over GDS_COMM_WORLD, a stat() of the halt file
 * and a look at each array's schedule.
 *
 * Completion: collective over GDS_COMM_WORLD; every process returns the same
 * status and the same \p flag. When \p flag is 1, the arrays' cached versions
 * in flight are complete (as after GDS_cache_wait()) and so are their flushes
 * to the prefix (as after GDS_flush_wait()): node-local storage may go away.
 *
 * \param[out] flag 1: stop now; 0: go on
 * \return GDS_STATUS_OK, GDS_STATUS_NOT_INITIALIZED, GDS_STATUS_NULL_ARGUMENT (\p flag),
 *         GDS_STATUS_INVALID (a variable that is not an integer of 0 or more, named in the message),
 *         GDS_STATUS_REMOTE_ERROR (another process failed), GDS_STATUS_IO_ERROR (a cached version
 *         or a flush failed), GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_should_exit(int *flag);

/** Bytes of a label GDS_restart_query() returns (longer labels are cut; holds_size says how long). */
#define GDS_PERSISTED_LABEL_MAX 255

/** What GDS_restart_query() found (GDS extension). */
typedef struct GDS_persisted {
  int found;              /**< 1 if this job has persisted state (for the name asked about, if any) */
  int level;              /**< GDS_LEVEL_CACHE or GDS_LEVEL_PREFIX: where the newest version is; GDS_LEVEL_NONE */
  GDS_size_t version;     /**< the newest version recorded: what a restart brings back unless it cannot be read,
                               when the restart falls back to an older one (see GDS_group_get_restart_info()) */
  GDS_size_t current;     /**< the current version number after the restart (the version's successor) */
  char holds[GDS_PERSISTED_LABEL_MAX + 1]; /**< what the version holds: its successor's label (the label
                                                given to the GDS_version_inc() that made it), NUL-terminated */
  size_t holds_size;      /**< the full length of that label */
} GDS_persisted_t;

/**
 * \brief Whether this job is restarting: its persisted state, before any array exists (GDS extension).
 *
 * Looks at what GDS_alloc()/GDS_create() would restart from with the
 * settings of the environment (GDS_JOB_ID, GDS_RESTART, GDS_CACHE_BASE,
 * GDS_PREFIX; docs/configuration.md): the commit records in the node-local cache,
 * then the prefix's index. With restart not asked for (no job id, or
 * GDS_RESTART=0) nothing is found: the arrays will start afresh. A \p name
 * asks about one array (its GDS_NAME_KEY) or group; NULL about any: then
 * version is the newest over all of them.
 *
 * It reports the newest version recorded; the restart itself checks and
 * rebuilds the files and may fall back to an older version (the members of
 * a group come back together); GDS_get_restart_info() and
 * GDS_group_get_restart_info() then say what was taken: take the step to
 * resume from there (and from the current label, GDS_get_version_label()),
 * not from \p state's holds, which names the newest recorded version only.
 * Use found to skip the initialisation; if found was 1 and the restart info
 * says nothing was restarted (no recorded version could be read), the
 * arrays started afresh and must be initialised then. An array created
 * with info keys that change its cache base, prefix or restart is not seen
 * as it will be.
 *
 * Completion: collective over GDS_COMM_WORLD; every process returns the same.
 *
 * \param[in] name an array's or group's name, or NULL
 * \param[out] state what was found
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID (a bad name),
 *         GDS_STATUS_NOT_INITIALIZED, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_restart_query(const char *name, GDS_persisted_t *state);

#ifdef __cplusplus
}
#endif

#endif /* GDS_PERSIST_H */
