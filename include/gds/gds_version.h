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
                                                                 GDS_MAX_VERSION_BYTES; default: 4 x the process's part (at
                                                                 least 1 MiB) and all arrays of a process together at most
                                                                 half the host's memory over its processes
                                                                 (docs/versions.md) */
/**@}*/

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
 * copying only the blocks that differ from it (it compares the version's
 * block table with the current content's: 4 bytes per block each, 8 read per
 * block). Outstanding operations are completed first. The
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
 * With GDS_VERSION_PREFAULT=1 (off by default: on a core the program keeps
 * busy the helper slows the program more than it saves), until retention
 * first drops one of the array's versions (the first versions, or all when
 * every version is kept), GDS_version_inc returns as soon as the version
 * exists and then, on GDS's helper thread, faults in memory for the next
 * version (as much as this one needed), so that the kernel's zeroing of new
 * pages is not paid inside the next GDS_version_inc; without it there is no
 * such work and this call returns at once. Nothing is required of the
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
