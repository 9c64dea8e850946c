/**
 * \file gds_version.h
 * \brief Versions: creating them, moving between them, reading and restoring
 *        them (GVR 1.0, sections 6.4.1 and 6.4.3, and GDS extensions).
 *
 * An array has a current version, number 0 at creation, held in its memory
 * and written by GDS_put and friends. GDS_version_inc freezes the current
 * content as a version with the current number and advances the number.
 * Frozen versions are immutable and cost only what changed: blocks that did
 * not change since the previous version are shared, not copied.
 *
 * A handle is a cursor: it points at the current version (following it as it
 * advances) or at one frozen version. GDS_get reads the version the handle
 * points at, for any box, local or remote, one-sidedly. Writes (put, acc,
 * get_acc, compare_and_swap) and GDS_access need the current version
 * (GDS_STATUS_NOT_CURRENT otherwise).
 */
#ifndef GDS_VERSION_H
#define GDS_VERSION_H

#include "gds_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \name Info keys for versions (values are decimal integers); environment variables give defaults. */
/**@{*/
#define GDS_VERSION_BLOCK_SIZE_KEY "gds_version_block_size" /**< bytes per block (power of two, 64 B - 64 MiB); GDS_VERSION_BLOCK_SIZE; default 4096 */
#define GDS_MAX_VERSIONS_KEY "gds_max_versions"             /**< frozen versions kept, 0 = no limit; GDS_MAX_VERSIONS */
#define GDS_MAX_VERSION_BYTES_KEY "gds_max_version_bytes"   /**< bytes each process's versions may store, 0 = no limit;
                                                                 GDS_MAX_VERSION_BYTES; default: 8 x the process's part (at
                                                                 least 64 MiB) and all arrays of a process together at most
                                                                 half the host's memory over its processes (README) */
/**@}*/

/** \name Info keys for persistent versions (the cache level); environment variables give defaults.
 *  README "Persistence" lists them with their GDS_* and SCR_* variables. */
/**@{*/
#define GDS_NAME_KEY "gds_name"               /**< the array's name in the cache (letters, digits, '-', '_', '.'; 1-64);
                                                   default: "array<k>", k its creation order */
#define GDS_COPY_TYPE_KEY "gds_copy_type"     /**< NONE (memory only), SINGLE (or LOCAL), PARTNER, XOR; GDS_COPY_TYPE */
#define GDS_SET_SIZE_KEY "gds_set_size"       /**< the largest XOR set (>= 2; sets are as large as the failure groups allow); GDS_SET_SIZE; default 8 */
#define GDS_CACHE_BASE_KEY "gds_cache_base"   /**< the node-local cache directory; GDS_CACHE_BASE; default /dev/shm */
#define GDS_CACHE_SIZE_KEY "gds_cache_size"   /**< versions the cache keeps (>= 1); GDS_CACHE_SIZE; default 2 */
#define GDS_CACHE_EVERY_KEY "gds_cache_every" /**< every n-th version goes to the cache (>= 1); GDS_CACHE_EVERY; default 1 */
#define GDS_RESTART_KEY "gds_restart"         /**< 1: start from the persisted versions if there are any, 0: never;
                                                   GDS_RESTART; default: 1 when a job id is given, else 0 */
#define GDS_PREFIX_KEY "gds_prefix"           /**< the global directory versions are flushed to as HDF5 files;
                                                   GDS_PREFIX (SCR_PREFIX); default: none (no flush) */
#define GDS_FLUSH_KEY "gds_flush"             /**< every n-th version is flushed to the prefix (>= 1); GDS_FLUSH
                                                   (SCR_FLUSH); default 1 */
#define GDS_PREFIX_SIZE_KEY "gds_prefix_size" /**< flushed versions the prefix keeps per array (>= 1); GDS_PREFIX_SIZE
                                                   (SCR_PREFIX_SIZE); default 2 */
#define GDS_FLUSH_INFLIGHT_KEY "gds_flush_inflight" /**< flushes of an array in flight at once (>= 1); GDS_FLUSH_INFLIGHT;
                                                         default 1 */
#define GDS_CACHE_SYNC_KEY "gds_cache_sync"   /**< 1: a cached version is written, protected and recorded inside
                                                   GDS_version_inc; 0: in the background, completed at later calls
                                                   (GDS_cache_wait); GDS_CACHE_SYNC; default 0 */
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
  int rebuilt_processes;    /**< processes whose lost or corrupt files were rebuilt from PARTNER or XOR */
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
 * Completes the array's cached versions in flight (GDS extension).
 *
 * By default (GDS_CACHE_SYNC unset, info key GDS_CACHE_SYNC_KEY) GDS_version_inc
 * returns once a cached version's file is copied into memory of its own
 * and the messages of its redundancy (PARTNER copy, XOR parity) are posted;
 * the files are written on a background thread, and later calls on the
 * array (the next GDS_version_inc, this one, GDS_free, GDS_finalize)
 * complete the messages and write the commit record once every process
 * has its files durable. At most two versions of an array are in flight.
 * Durability: restart takes a version once a process has its commit
 * record, so a crash loses the versions still in flight (restart takes the
 * newest recorded one). A record is written only at a later call on the
 * array that finds every process's writes done: a program that makes a
 * version every k steps and no GDS call between them loses up to two
 * cached versions (about 2k steps) at a crash, where synchronous writes
 * lose at most the one being written. After this call returns
 * GDS_STATUS_OK, every version cached so far is restartable: call it where
 * a version must be durable before going on. GDS_flush_wait completes the
 * cached versions up to the newest flush too (a flush is published only
 * after the cache's versions up to it). With GDS_CACHE_SYNC=1 all of it
 * happens inside GDS_version_inc (and this call has nothing to do).
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
 * \brief Whether the job should stop now, right after a persisted version (GDS extension;
 *        SCR's SCR_Should_exit).
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

/** Longest version label, in bytes (GDS_version_inc refuses longer ones with GDS_STATUS_INVALID). */
#define GDS_VERSION_LABEL_MAX 65536

/**
 * \brief Freezes the current content as a version and advances the current version number.
 *
 * The frozen version gets the current number; the current number grows by
 * \p increment; \p label is attached to the new current version (version 0
 * has an empty label). Completes all outstanding operations of every process
 * first, so the version holds every write issued before the call. Only blocks
 * written since the previous version are copied.
 *
 * Retention (GDS_MAX_VERSIONS_KEY, GDS_MAX_VERSION_BYTES_KEY) then drops the
 * oldest versions, the same ones on every process; the newest version is
 * always kept.
 *
 * Completion: on return the version is readable by every process and writes
 * may go on. Collective over the array's communicator; all processes pass the
 * same \p increment and return the same status. Any handle of the array may
 * be passed; handles at the current version move with it.
 *
 * \param[in] gds the array
 * \param[in] increment how far the version number advances (>= 1; the number never passes 2^64 - 1)
 * \param[in] label bytes attached to the new current version (may be NULL if \p label_size is 0)
 * \param[in] label_size number of bytes in \p label, at most GDS_VERSION_LABEL_MAX
 * \return GDS_STATUS_OK, GDS_STATUS_INVALID (increment 0, an increment past 2^64 - 1, a label
 *         longer than GDS_VERSION_LABEL_MAX), GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_NOMEM,
 *         GDS_STATUS_ACCESS_CONFLICT (a region is open by GDS_access),
 *         GDS_STATUS_COLLECTIVE_MISMATCH, GDS_STATUS_REMOTE_ERROR, handle statuses,
 *         GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_version_inc(GDS_gds_t gds, GDS_size_t increment, const char *label,
                                     size_t label_size);

/**
 * \brief The version number the handle points at. Local.
 * \param[in] gds the handle
 * \param[out] version_number its version
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, handle statuses
 */
GDS_API GDS_status_t GDS_get_version_number(GDS_gds_t gds, GDS_size_t *version_number);

/**
 * \brief The label of the version the handle points at. Local.
 *
 * *label points at GDS's own NUL-terminated copy, valid until the version is
 * dropped or the array freed; *label_size excludes the NUL.
 *
 * \param[in] gds the handle
 * \param[out] label the label
 * \param[out] label_size its length in bytes
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_VERSION_DROPPED, handle statuses
 */
GDS_API GDS_status_t GDS_get_version_label(GDS_gds_t gds, char **label, size_t *label_size);

/**
 * \brief What the version the handle points at holds: its successor's label (GDS extension). Local.
 *
 * A label belongs to the version an array advances to (GVR's definition),
 * so the label that describes the content of version n, frozen by a
 * GDS_version_inc(label), is the label of the version after it. This call
 * returns that one: for a handle moved back to the version made at "iter=80",
 * "iter=80" (where GDS_get_version_label() gives the label of the version
 * before). The current version holds what the program is writing and has no
 * such label yet; after a GDS_version_restore() or a restart its own label
 * (GDS_get_version_label()) describes the restored content.
 *
 * \param[in] gds the handle, at a version older than the current one
 * \param[out] label GDS's own NUL-terminated copy, valid while the successor is retained or current
 * \param[out] label_size its length in bytes
 * \return GDS_STATUS_OK, GDS_STATUS_NO_VERSION (the handle is at the current version),
 *         GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_VERSION_DROPPED, handle statuses
 */
GDS_API GDS_status_t GDS_get_version_holds(GDS_gds_t gds, char **label, size_t *label_size);

/**
 * \brief Points the handle at the current version. Local.
 * \param[in] gds the handle
 * \return GDS_STATUS_OK, handle statuses
 */
GDS_API GDS_status_t GDS_move_to_newest(GDS_gds_t gds);

/**
 * \brief Points the handle at the oldest retained version newer than its own, or at the
 *        current version if there is none. Local.
 * \param[in] gds the handle
 * \return GDS_STATUS_OK, GDS_STATUS_NO_VERSION (the handle is at the current version), handle statuses
 */
GDS_API GDS_status_t GDS_move_to_next(GDS_gds_t gds);

/**
 * \brief Points the handle at the newest retained version older than its own. Local.
 * \param[in] gds the handle
 * \return GDS_STATUS_OK, GDS_STATUS_NO_VERSION (no older version is retained: the
 *         handle does not move), handle statuses
 */
GDS_API GDS_status_t GDS_move_to_prev(GDS_gds_t gds);

/**
 * \brief Points the handle at its version number minus \p dec. Local.
 * \param[in] gds the handle
 * \param[in] dec how many version numbers back (0: stay)
 * \return GDS_STATUS_OK, GDS_STATUS_NO_VERSION (no version has that number: below 0,
 *         or skipped by an increment above 1), GDS_STATUS_VERSION_DROPPED (dropped by
 *         retention), handle statuses; on error the handle does not move
 */
GDS_API GDS_status_t GDS_version_dec(GDS_gds_t gds, GDS_size_t dec);

/**
 * \brief A new handle on the same array, at the same version, moving independently.
 *
 * Free it with GDS_free, which for a clone is local and frees only the clone.
 * Freeing the array (GDS_free of the handle GDS_alloc or GDS_create returned)
 * invalidates its clones. Local.
 *
 * \param[in] in_gds the handle to copy
 * \param[out] clone_gds the new handle
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, handle statuses
 */
GDS_API GDS_status_t GDS_descriptor_clone(GDS_gds_t in_gds, GDS_gds_t *clone_gds);

/**
 * \brief Makes the current content equal to a retained version (GDS extension).
 *
 * Every process rolls its own part back from its own copy of the version,
 * copying only the blocks that differ from it (and scanning the block table,
 * 8 bytes per block). Outstanding operations are completed first. The
 * current version number does not change; the current label becomes the one
 * that describes the restored content: the label of the version after
 * \p version (the label given to the GDS_version_inc() that made it). The
 * next GDS_version_inc shares the restored blocks with the version instead of
 * copying them.
 *
 * Completion: on return every process's part holds the version. Collective;
 * all processes pass the same \p version.
 *
 * \param[in] gds any handle of the array
 * \param[in] version a retained version number
 * \return GDS_STATUS_OK, GDS_STATUS_NO_VERSION, GDS_STATUS_VERSION_DROPPED,
 *         GDS_STATUS_ACCESS_CONFLICT, GDS_STATUS_COLLECTIVE_MISMATCH,
 *         GDS_STATUS_REMOTE_ERROR, handle statuses, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_version_restore(GDS_gds_t gds, GDS_size_t version);

/**
 * \brief Checks a retained version's stored copy against the checksums taken
 *        when it was made (GDS extension).
 *
 * GDS_version_inc computes the CRC32C of every block it copies, as it copies
 * it. This call recomputes them for the blocks holding elements of the box
 * [\p lo_index, \p hi_index] (both NULL: the whole array), each process for its
 * own part, and compares. A block that no longer matches (a latent memory
 * error in a stored version: the damage multi-version recovery exists for)
 * is raised on the process holding it as a local error through Open
 * Resilience: GDS_EATTR_DETECTED_BY "GDS", GDS_EATTR_GDS_STATUS
 * GDS_STATUS_CORRUPT, GDS_EATTR_GDS_VERSION, GDS_EATTR_GDS_PROCESS (its rank)
 * and GDS_EATTR_GDS_INDEX / GDS_EATTR_GDS_COUNT (the smallest box holding the
 * block's elements inside the box asked for; adjacent bad blocks are raised
 * together). Versions sharing the damaged block (later versions that did not
 * change it, and the current content's base) share the damage.
 *
 * Cost: one read of the checked blocks; nothing is sent but one allreduce.
 * Collective; all processes pass the same \p version and box.
 *
 * \param[in] gds any handle of the array
 * \param[in] version a retained version number (not the current one: it has
 *            no stored copy until GDS_version_inc)
 * \param[in] lo_index first index of the box, or NULL with \p hi_index NULL
 * \param[in] hi_index last index of the box, or NULL
 * \return GDS_STATUS_OK (every checked block matches), GDS_STATUS_CORRUPT (on
 *         every process if any found a mismatch), GDS_STATUS_NO_VERSION,
 *         GDS_STATUS_VERSION_DROPPED, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID_BOX,
 *         GDS_STATUS_RANGE, GDS_STATUS_COLLECTIVE_MISMATCH, GDS_STATUS_REMOTE_ERROR,
 *         handle statuses, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_version_verify(GDS_gds_t gds, GDS_size_t version, const GDS_size_t lo_index[],
                                        const GDS_size_t hi_index[]);

/**
 * \brief Waits for the background work earlier GDS_version_inc calls started
 *        for the array on this process (GDS extension).
 *
 * When every version is kept, GDS_version_inc returns as soon as the version
 * exists and then, on GDS's helper thread, faults in memory for the next
 * version (as much as this one needed), so that the kernel's zeroing of new
 * pages is not paid inside the next GDS_version_inc
 * (GDS_VERSION_PREFAULT=0 turns it off). Nothing is required of the
 * program: the next GDS_version_inc and GDS_free wait for that work
 * themselves. This call is for programs that want it done at a moment of
 * their choosing, such as benchmarks timing something else next.
 *
 * Completion: on return no background work of the array's versions is in
 * progress on this process. Local.
 *
 * \param[in] gds any handle of the array
 * \return GDS_STATUS_OK, handle statuses
 */
GDS_API GDS_status_t GDS_version_wait(GDS_gds_t gds);

/** What an array's versions hold on the calling process (GDS_get_version_stats). */
typedef struct GDS_version_stats {
  GDS_size_t versions;         /**< frozen versions retained */
  GDS_size_t oldest;           /**< number of the oldest retained version (if versions > 0) */
  GDS_size_t current;          /**< the current version number */
  GDS_size_t block_bytes;      /**< block size */
  GDS_size_t local_bytes;      /**< this process's part of the array */
  GDS_size_t bytes_stored;     /**< bytes the versions occupy: their blocks and block tables */
  GDS_size_t bytes_shared;     /**< bytes of versions not stored because blocks are shared
                                    (versions x local_bytes - data bytes stored) */
  GDS_size_t bytes_allocated;  /**< memory the versions hold: slots ever written, stored or free for reuse
                                    (address space reserved but never touched is not counted) */
  GDS_size_t table_bytes;      /**< bytes of one version's block table on this process (4 per block) */
} GDS_version_stats_t;

/**
 * \brief Memory and contents of an array's versions on this process (GDS extension). Local.
 * \param[in] gds any handle of the array
 * \param[out] stats the figures
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, handle statuses
 */
GDS_API GDS_status_t GDS_get_version_stats(GDS_gds_t gds, GDS_version_stats_t *stats);

#ifdef __cplusplus
}
#endif

#endif /* GDS_VERSION_H */
