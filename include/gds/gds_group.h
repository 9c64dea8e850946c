/**
 * \file gds_group.h
 * \brief Version groups (GDS extensions).
 *
 * A program's state is usually several arrays (a solver's x, r and p; a
 * simulation's positions and velocities). A version group versions,
 * restores, navigates and persists them as one: one GDS_group_version_inc()
 * makes the same version number of every member, all or none, and when the
 * members are persisted in the cache one commit record per process covers
 * all of them, so a process killed at any moment never leaves them at
 * different versions after a restart. An array used alone is versioned as
 * before (GVR 1.0 programs are unchanged); an array in a group is versioned
 * through its group.
 *
 * GDS_restart_query() (gds_persist.h) tells a program, before it creates
 * its arrays, whether its group is restarting.
 */
#ifndef GDS_GROUP_H
#define GDS_GROUP_H

#include "gds_types.h"
#include "gds_persist.h"
#include "gds_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A version group (GDS extension). */
typedef struct GDS_group_s *GDS_group_t;
/** No group. */
#define GDS_GROUP_NULL ((GDS_group_t)0)
/** Most members a group may have. */
#define GDS_GROUP_MAX_MEMBERS 1024

/**
 * \brief Makes a version group of \p count arrays (GDS extension).
 *
 * The members must share one communicator (the same processes in the same
 * order: arrays allocated on the same communicator do), be at the same
 * current version number, have the same persistence settings (copy type,
 * cache base, cache every, prefix and flush), and belong to no other group.
 * \p name names the group in the cache and in GDS_restart_query() (letters,
 * digits, '-', '_', '.'; 1-64, as GDS_NAME_KEY); it must differ from every
 * member's name.
 *
 * Names: a member without a name of its own (no GDS_NAME_KEY) is named
 * "<name>.<i>", i its index in \p arrays, in the cache, the prefix,
 * GDS_restart_query() and gds-index, instead of "array<k>" (its creation
 * order). It keeps "array<k>" if it restarted under that name (files of an
 * earlier GDS), made versions before joining, or if "<name>.<i>" is longer
 * than 64 characters or another live array's name.
 *
 * Restart: each member restarted inside its GDS_alloc()/GDS_create() from
 * the newest version its own files hold, except a member named here, which
 * restarts here (its memory, or its GDS_create() buffer, is filled inside
 * this call: ask GDS_group_get_restart_info() afterwards, not the member
 * before); the group's commit records make
 * that the same version for every member. Where a member could not restore
 * it (its files lost beyond what its copy type rebuilds, or a prefix flush
 * of one member published and another's not), GDS_group_create() brings
 * every member back to the newest version every member retains (its
 * content, and the label describing it; the current number stays the
 * highest of the members', so numbers go on together), and
 * GDS_group_get_restart_info() says so. With no version in common it fails
 * with GDS_STATUS_UNRECOVERABLE.
 *
 * Completion: collective over the members' communicator; all processes pass
 * the same name and the same arrays in the same order, and return the same
 * status.
 *
 * \param[in] name the group's name
 * \param[in] count number of arrays, 1 to GDS_GROUP_MAX_MEMBERS
 * \param[in] arrays the arrays (the handles GDS_alloc()/GDS_create() returned, or clones)
 * \param[out] group the new group
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID (a count out of range,
 *         a bad name, an array twice, an array in another group, members on different
 *         communicators, at different versions or with different persistence settings),
 *         GDS_STATUS_UNRECOVERABLE, GDS_STATUS_COLLECTIVE_MISMATCH, GDS_STATUS_REMOTE_ERROR,
 *         handle statuses, GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_group_create(const char *name, int count, const GDS_gds_t arrays[], GDS_group_t *group);

/**
 * \brief Frees a group (not its arrays, which can then be versioned alone) and sets it to GDS_GROUP_NULL.
 *
 * A group must be freed before any of its members. Collective over the
 * members' communicator.
 *
 * \param[in,out] group the group
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID (not a group),
 *         GDS_STATUS_MPI_ERROR
 */
GDS_API GDS_status_t GDS_group_free(GDS_group_t *group);

/**
 * \brief Makes a version of every member at once (GDS extension).
 *
 * As GDS_version_inc() on each member, with the same \p increment and \p label,
 * but all or none: on failure no member has the new version. Members
 * persisted in the cache are written, made redundant, then recorded by one
 * commit record per process (the group's), after which restart takes the
 * version for all of them. Prefix flushes follow, member by member, in the
 * background.
 *
 * Completion and collectiveness as GDS_version_inc().
 *
 * \param[in] group the group
 * \param[in] increment how far the version numbers advance (>= 1)
 * \param[in] label bytes attached to the new current version of every member (NULL if label_size is 0)
 * \param[in] label_size bytes in \p label, at most GDS_VERSION_LABEL_MAX
 * \return as GDS_version_inc(), and GDS_STATUS_INVALID for a group that is not one
 */
GDS_API GDS_status_t GDS_group_version_inc(GDS_group_t group, GDS_size_t increment, const char *label,
                                           size_t label_size);

/**
 * \brief Restores every member to one retained version (GDS extension).
 *
 * As GDS_version_restore() on each member, after checking that every member
 * retains \p version (else nothing is restored). The members' current labels
 * become the label describing the restored content.
 *
 * \param[in] group the group
 * \param[in] version a version every member retains
 * \return as GDS_version_restore()
 */
GDS_API GDS_status_t GDS_group_version_restore(GDS_group_t group, GDS_size_t version);

/**
 * \brief Restores every member to the newest version they all retain (GDS extension).
 *
 * GDS_group_version_restore() of the newest frozen version every member
 * retains: what a program wants after a failure that did not end the job,
 * without asking which number that is. The current version (what the
 * program has written since the last GDS_group_version_inc()) has no stored
 * copy, so it is never the one restored.
 *
 * Completion and collectiveness as GDS_group_version_restore(); every
 * process restores the same version.
 *
 * \param[in] group the group
 * \param[out] version the version restored, or NULL
 * \return GDS_STATUS_OK, GDS_STATUS_NO_VERSION (no version yet: nothing is restored), GDS_STATUS_INVALID,
 *         and as GDS_group_version_restore()
 */
GDS_API GDS_status_t GDS_group_version_restore_newest(GDS_group_t group, GDS_size_t *version);

/**
 * \brief The label of the version the group's handles point at (GDS extension). Local.
 *
 * As GDS_get_version_label() of every member's handle (those passed to
 * GDS_group_create()), which GDS_group_version_inc() labels alike: the
 * current version's label after a GDS_group_version_inc(), a restore or a
 * restart, an old version's after GDS_group_move_to_prev() and the other
 * navigation calls. *label points at GDS's own NUL-terminated copy, valid
 * until the version is dropped or the group's members freed; *label_size
 * excludes the NUL.
 *
 * \param[in] group the group
 * \param[out] label the label
 * \param[out] label_size its length in bytes
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_VERSION_DROPPED, GDS_STATUS_INVALID (the
 *         handles point at different versions, or the members were labelled apart before the group
 *         was made), handle statuses
 */
GDS_API GDS_status_t GDS_group_get_version_label(GDS_group_t group, char **label, size_t *label_size);

/**
 * \brief Checks the stored copy of one version of every member against its checksums (GDS extension).
 *
 * GDS_version_verify() of each member's whole array, every member checked
 * even after one fails; each damaged block is raised on the process holding
 * it as GDS_version_verify() says. Use it before trusting a version a
 * rollback would take (GDS_group_version_restore()).
 *
 * Collective over the members' communicator; all processes pass the same \p version.
 *
 * \param[in] group the group
 * \param[in] version a version every member retains (not the current one)
 * \return GDS_STATUS_OK, GDS_STATUS_CORRUPT (on every process, if any member has a damaged block),
 *         GDS_STATUS_NO_VERSION, GDS_STATUS_VERSION_DROPPED, GDS_STATUS_INVALID (not a group), and as
 *         GDS_version_verify()
 */
GDS_API GDS_status_t GDS_group_version_verify(GDS_group_t group, GDS_size_t version);

/**
 * \brief The version number the group's handles point at (every member's, as
 * GDS_get_version_number() of each): the current version, or the one the
 * group's navigation moved them to. Local.
 * \param[in] group the group
 * \param[out] version the version number
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID (the handles point at different
 *         versions: one was moved alone), handle statuses
 */
GDS_API GDS_status_t GDS_group_get_version_number(GDS_group_t group, GDS_size_t *version);

/**
 * \brief Points every member's handle (those passed to GDS_group_create()) at the current version. Local.
 * \param[in] group the group
 * \return GDS_STATUS_OK, GDS_STATUS_INVALID
 */
GDS_API GDS_status_t GDS_group_move_to_newest(GDS_group_t group);

/**
 * \brief Points every member's handle at the newest version older than the
 *        handles' that every member retains. Local.
 *
 * The handles move together: they must all point at the same version
 * (GDS_STATUS_INVALID otherwise, as after moving one of them alone).
 *
 * \param[in] group the group
 * \return GDS_STATUS_OK, GDS_STATUS_NO_VERSION (none older: no handle moves), GDS_STATUS_INVALID
 */
GDS_API GDS_status_t GDS_group_move_to_prev(GDS_group_t group);

/**
 * \brief Points every member's handle at the oldest version newer than the
 *        handles' that every member retains, or at the current version. Local.
 * \param[in] group the group
 * \return GDS_STATUS_OK, GDS_STATUS_NO_VERSION (already current), GDS_STATUS_INVALID
 */
GDS_API GDS_status_t GDS_group_move_to_next(GDS_group_t group);

/**
 * \brief Points every member's handle at their version number minus \p dec. Local.
 * \param[in] group the group
 * \param[in] dec how many version numbers back
 * \return GDS_STATUS_OK, GDS_STATUS_NO_VERSION, GDS_STATUS_VERSION_DROPPED (some member
 *         does not retain it: no handle moves), GDS_STATUS_INVALID
 */
GDS_API GDS_status_t GDS_group_version_dec(GDS_group_t group, GDS_size_t dec);

/**
 * \brief What the members' restart found (GDS extension). Local; the same on every process.
 *
 * restarted, level and version as the members' own GDS_get_restart_info()
 * when they agree; when GDS_group_create() had to bring members back to a
 * common version, version is that one and level the lowest level a member
 * restarted from. versions, rebuilt_processes and rebuilt_files add up the
 * members'.
 *
 * \param[in] group the group
 * \param[out] info the figures
 * \return GDS_STATUS_OK, GDS_STATUS_NULL_ARGUMENT, GDS_STATUS_INVALID
 */
GDS_API GDS_status_t GDS_group_get_restart_info(GDS_group_t group, GDS_restart_info_t *info);

#ifdef __cplusplus
}
#endif

#endif /* GDS_GROUP_H */
