/**
 * \file gds_cd.h
 * \brief Containment domains over GDS (GDS extension): nested recovery scopes.
 *
 * A containment domain (CD) wraps a piece of work. The program preserves what
 * the work needs when the CD begins (memory ranges, boxes of GDS arrays, file
 * positions), and when an error is detected inside, restores just that CD's
 * state and re-executes just that work; an error the CD cannot contain goes
 * to the enclosing CD. CDs nest: every CD but a root has a parent, and each
 * thread has a stack of active CDs (the newest created and not yet committed
 * is the current one).
 *
 * These are GDS's own calls. The Containment Domains API document's calls
 * (create_cd(), add_to_cd_via_copy(), ...) are in cd.h, over these.
 *
 * **Communicators.** A CD spans a communicator given at its creation:
 * MPI_COMM_SELF for a per-process CD, or any intra-communicator whose
 * processes all belong to the parent's. Calls on a CD whose communicator has
 * more than one process are collective over it and agree on their outcome.
 *
 * **Preservation.** Memory ranges are preserved *via copy* (the bytes are
 * copied into the CD), *via parent* (the parent, or an ancestor through it,
 * already preserves them) or *via regen* (a function recomputes them). Boxes
 * of GDS arrays are preserved the same three ways: via copy a collective CD
 * pins a version of the array (what changed since the last version is what
 * is copied), and a per-process CD snapshots only this process's own part,
 * with no other process involved.
 *
 * **Restore** rebuilds the state of the CD's point in time: its uncommitted
 * descendants' entries first (deepest first), then its own, so the oldest
 * preserved value wins; within one CD, copies first, then parents, then
 * regenerations. The descendants are discarded; the CD stays and becomes its
 * thread's current CD.
 *
 * **Errors.** Handlers registered on a CD (GDS_cd_register_handler()) are
 * matched first for local errors raised while the CD is current on the
 * raising thread, then its parent's, up to the array's and GDS_ROOT's.
 */
#ifndef GDS_CD_H
#define GDS_CD_H

#include "gds_types.h"
#include "gds_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Handle to a containment domain. */
typedef struct GDS_cd_s *GDS_cd_t;
/** The null CD handle: "no parent" when creating a root CD. */
#define GDS_CD_NULL ((GDS_cd_t)0)
/** The calling thread's current CD, accepted wherever a CD handle is. */
#define GDS_CD_CURRENT ((GDS_cd_t)(uintptr_t)-1)

/** How preserved data is used. */
typedef GDS_ENUM(GDS_cd_access) {
  GDS_CD_READ_ONLY = 0, /**< read by the CD's work, not modified: advance does not refresh it */
  GDS_CD_READ_WRITE = 1 /**< modified by the work, its initial value used: advance refreshes it */
} GDS_cd_access_t;

/** Whether a preserved range outlives the CD in its parent. */
typedef GDS_ENUM(GDS_cd_scope) {
  GDS_CD_GLOBAL = 0,     /**< valid for ancestors: committing the CD hands it to the parent */
  GDS_CD_CONSTRAINED = 1 /**< local to this CD: dropped when the CD commits */
} GDS_cd_scope_t;

/** Message logging of a CD: whether the interposition layer's log (cd.h, add_MPI_log_to_cd()) is kept. */
typedef GDS_ENUM(GDS_cd_logging) {
  GDS_CD_LOGGING_DISABLED = 0, /**< no logging */
  GDS_CD_LOGGING_ENABLED = 1,  /**< the CD keeps a log, replayed from its start after a restore */
  GDS_CD_LOGGING_INHERIT = 2   /**< as the parent (a root CD must say ENABLED or DISABLED) */
} GDS_cd_logging_t;

/** How a preserved entry is restored. */
typedef GDS_ENUM(GDS_cd_via) {
  GDS_CD_VIA_COPY = 0,   /**< from the copy taken when it was preserved (or at the last advance) */
  GDS_CD_VIA_PARENT = 1, /**< from the parent's entry for the same data */
  GDS_CD_VIA_REGEN = 2   /**< by calling a function that recomputes it (READ_ONLY only) */
} GDS_cd_via_t;

/** A memory range, as the document's struct cd_addrspec (the same layout). */
typedef struct GDS_cd_range {
  void *address;          /**< first byte */
  size_t length;          /**< bytes (> 0) */
  GDS_cd_access_t access; /**< READ_ONLY or READ_WRITE */
  GDS_cd_scope_t scope;   /**< GLOBAL or CONSTRAINED */
} GDS_cd_range_t;

/**
 * Recomputes regenerated ranges (GDS_CD_VIA_REGEN) during a restore: gets
 * the ranges it was registered with; returns 0 on success.
 */
typedef int (*GDS_cd_regen_func_t)(const GDS_cd_range_t ranges[], int count, void *context);

/**
 * Recomputes a regenerated box of an array during a restore: writes the
 * box's elements that this process owns (GDS_access() or GDS_put() to
 * itself); returns GDS_STATUS_OK on success.
 */
typedef GDS_status_t (*GDS_cd_box_regen_func_t)(GDS_gds_t gds, const GDS_size_t lo[], const GDS_size_t hi[],
                                                void *context);

/**
 * A CD's error handler: gets the CD it is registered on, the handle of the
 * array the error was raised on (or GDS_ROOT), and the error. It either
 * contains the error — restores the CD (GDS_cd_restore()), or repairs the
 * data otherwise, then calls GDS_resume_local() — or passes it on with
 * GDS_cd_escalate(). Returns GDS_STATUS_OK unless the handler itself failed.
 */
typedef GDS_status_t (*GDS_cd_handler_func_t)(GDS_cd_t cd, GDS_gds_t gds, GDS_error_t error_desc, void *context);

/**
 * \brief Creates a CD and makes it the calling thread's current CD.
 *
 * Completion: on return the CD exists on every process of `comm`, has no
 * entries, and is current on the calling thread. Collective over `comm` when
 * it has more than one process; the processes pass the same parent (their
 * own handles to it), logging mode and name.
 *
 * A persisted root (storage_info `level=cache` or `level=prefix`, GDS
 * extension): every advance writes its point in time (the memory ranges the
 * root itself was given via copy, in the order they were added, and the
 * positions of its files) to the persistent levels, as an internal array
 * named "cd.<name>.g<k>" persisted with the job's settings (GDS_JOB_ID,
 * GDS_COPY_TYPE, GDS_CACHE_BASE, GDS_PREFIX, GDS_CACHE_SYNC;
 * docs/persistence.md). In a restarted job (same GDS_JOB_ID) the root created with
 * the same name finds its newest persisted point: GDS_cd_restored() says 1,
 * and each add call via copy, in the same order with the same lengths, first
 * writes the persisted bytes into the program's ranges (another length:
 * GDS_STATUS_INVALID, nothing changed), and GDS_cd_preserve_file() sets the
 * file's position, and each GDS_cd_preserve_box(), in the same order for
 * the same box of an array of the same shape, first writes this process's
 * persisted part into the array. A persisted root spans every process of the
 * job. Its point holds, per process, its ranges and its part of every box
 * (a full copy of the part, whatever changed), so the arrays need no
 * persistence of their own; a box of a GDS_create() array is refused (its
 * buffer is the program's memory: preserve it as a range).
 *
 * \param[in] parent the enclosing CD, GDS_CD_CURRENT, or GDS_CD_NULL for a root
 * \param[in] comm MPI_COMM_SELF (per-process CD) or a communicator whose
 *            processes all belong to the parent's. Collective CDs agree
 *            over a duplicate of it, made by the first CD over it and
 *            cached on it (freed with it, or by GDS_finalize()): collective
 *            CDs over one communicator are created, advanced, restored and
 *            committed in one order on every process, as MPI's collectives
 *            over it are (from one thread at a time)
 * \param[in] name a root CD's name, unique among live roots of this process
 *            (NULL: unnamed); must be NULL for a child
 * \param[in] storage_info NULL, "" or "key=value" pairs separated by ';'
 *            (root CDs only): `level=memory` (the default), `level=cache`
 *            (persisted; needs a name), `level=prefix` (persisted and every
 *            point flushed to the prefix: needs GDS_PREFIX or `prefix=<dir>`);
 *            with a level, `copy_type=SINGLE|PARTNER|XOR|RS` and `prefix=<dir>`
 *            override the environment's
 * \param[in] logging the message logging mode
 * \param[out] cd the new CD
 * \return GDS_STATUS_OK; GDS_STATUS_NULL_ARGUMENT (cd); GDS_STATUS_INVALID
 *         (logging mode, a child's name, a duplicate root name, INHERIT on a
 *         root or a mode differing from the parent's, a persisted root's name
 *         that is not 1-48 letters, digits, '-', '_', '.'); GDS_STATUS_INVALID_INFO
 *         (storage_info); GDS_STATUS_INVALID_COMM (comm, or not within the
 *         parent's, or a persisted root not over every process);
 *         GDS_STATUS_UNRECOVERABLE (a persisted point that fails its checks);
 *         the statuses of GDS_create() and GDS_restart_query(); GDS_STATUS_CD_STATE (the parent is replaying);
 *         GDS_STATUS_WRONG_THREAD; handle statuses; GDS_STATUS_COLLECTIVE_MISMATCH
 */
GDS_API GDS_status_t GDS_cd_create(GDS_cd_t parent, MPI_Comm comm, const char *name, const char *storage_info,
                                   GDS_cd_logging_t logging, GDS_cd_t *cd);

/**
 * \brief Commits a CD: its work is done and its preserved state is no longer needed.
 *
 * Completion: on return the CD is gone and `*cd` is GDS_CD_NULL. A child hands
 * to its parent every GLOBAL entry the parent does not hold (the parent's own
 * entries win: they are older) and promotes the parent's READ_ONLY entries it
 * held READ_WRITE; a root frees everything. The parent becomes current again
 * if the CD was. Collective over the CD's communicator.
 *
 * \param[in,out] cd the CD (GDS_CD_CURRENT accepted)
 * \return GDS_STATUS_OK; GDS_STATUS_CD_STATE (uncommitted children);
 *         GDS_STATUS_WRONG_THREAD (another thread's CD); handle statuses
 */
GDS_API GDS_status_t GDS_cd_commit(GDS_cd_t *cd);

/**
 * \brief Restores the application state to the CD's point in time.
 *
 * Completion: on return every preserved memory range, file position and
 * array box of the CD and of its uncommitted descendants holds its preserved
 * value (the oldest preserved value wins: descendants are restored first);
 * the descendants are discarded and the CD is current on its thread; boxes
 * of arrays are complete at every process of the CD. If the CD's work wrote
 * one-sidedly to parts of arrays outside the CD's processes, the restore
 * would leave them changed: it is refused with GDS_STATUS_NOT_CONTAINED (nothing
 * restored) — restore the smallest enclosing CD that covers them
 * (GDS_cd_escalate() from a handler does). Collective over the CD's
 * communicator.
 *
 * \param[in] cd the CD (GDS_CD_CURRENT accepted)
 * \return GDS_STATUS_OK; GDS_STATUS_NOT_CONTAINED; GDS_STATUS_RECOVERY_FAILED
 *         (a regeneration function failed); GDS_STATUS_WRONG_THREAD;
 *         handle statuses; array statuses
 */
GDS_API GDS_status_t GDS_cd_restore(GDS_cd_t cd);

/**
 * \brief Moves the CD's point in time to now.
 *
 * Completion: on return every READ_WRITE entry preserved via copy holds the
 * present value and is READ_ONLY; monitored file positions are the present
 * ones. A child first commits its entries into its parent as GDS_cd_commit()
 * does, but stays. Nothing changes if a file position cannot be read; if
 * the version of an array box fails, the parent keeps the child's entries
 * and the child's point in time stays. Array boxes take a new version (a
 * collective CD) or a new snapshot of this process's blocks (a per-process
 * CD): the cost is what changed. Collective over the CD's communicator.
 *
 * \param[in] cd the CD (GDS_CD_CURRENT accepted)
 * \return GDS_STATUS_OK; GDS_STATUS_CD_STATE (uncommitted children);
 *         GDS_STATUS_NOMEM; GDS_STATUS_WRONG_THREAD; handle statuses
 */
GDS_API GDS_status_t GDS_cd_advance(GDS_cd_t cd);

/**
 * \brief Preserves memory ranges in a CD. Local; thread safe.
 *
 * Completion: a copy is taken before the call returns (GDS_CD_VIA_COPY).
 * Bytes already preserved in the CD keep their earlier entry (only the part of
 * a range not preserved yet is added); re-adding bytes READ_WRITE that are
 * READ_ONLY promotes them, without copying; re-adding them READ_ONLY demotes
 * them. Ranges of one call must not overlap each other. All or nothing.
 *
 * \param[in] cd the CD (GDS_CD_CURRENT accepted)
 * \param[in] via GDS_CD_VIA_COPY, GDS_CD_VIA_PARENT or GDS_CD_VIA_REGEN
 * \param[in] ranges the ranges
 * \param[in] count how many (>= 0)
 * \param[in] regen the function for GDS_CD_VIA_REGEN (NULL otherwise)
 * \param[in] context passed to `regen`
 * \return GDS_STATUS_OK; GDS_STATUS_NULL_ARGUMENT; GDS_STATUS_INVALID (via, access,
 *         scope, a zero length, READ_WRITE via regen, a range preserved here another way);
 *         GDS_STATUS_BUFFER_OVERLAP (ranges of the call overlap);
 *         GDS_STATUS_NOT_PRESERVED (via parent: the parent does not preserve it, or
 *         only via regen); GDS_STATUS_CD_STATE (via parent on a root);
 *         GDS_STATUS_NOMEM; handle statuses
 */
GDS_API GDS_status_t GDS_cd_preserve(GDS_cd_t cd, GDS_cd_via_t via, const GDS_cd_range_t ranges[], int count,
                                     GDS_cd_regen_func_t regen, void *context);

/**
 * \brief Stops preserving memory ranges in a CD. Local; thread safe.
 *
 * Completion: on return the bytes are no longer preserved in the CD (the
 * access and scope fields are ignored). All or nothing.
 *
 * \return GDS_STATUS_OK; GDS_STATUS_NOT_PRESERVED (a byte of a range is not preserved
 *         in the CD); GDS_STATUS_NULL_ARGUMENT; GDS_STATUS_INVALID; handle statuses
 */
GDS_API GDS_status_t GDS_cd_delete(GDS_cd_t cd, const GDS_cd_range_t ranges[], int count);

/**
 * \brief Preserves a file descriptor's position in a CD. Local; thread safe.
 *
 * Completion: the position is recorded on return; GDS_cd_restore() sets it
 * back (lseek), GDS_cd_advance() records the present one.
 *
 * \return GDS_STATUS_OK; GDS_STATUS_INVALID (not an open, seekable descriptor,
 *         or preserved already); handle statuses
 */
GDS_API GDS_status_t GDS_cd_preserve_file(GDS_cd_t cd, int fd);

/** \brief Stops preserving a file descriptor's position. Local; thread safe.
 *  \return GDS_STATUS_OK; GDS_STATUS_NOT_PRESERVED; handle statuses */
GDS_API GDS_status_t GDS_cd_delete_file(GDS_cd_t cd, int fd);

/**
 * \brief Preserves a box of a GDS array in a CD.
 *
 * Via copy, a CD whose communicator is the array's (or contains it) takes a
 * version of the array (GDS_version_inc(): the cost is what changed since the
 * last one) and pins it, so retention never drops it while the CD needs it;
 * a per-process CD (MPI_COMM_SELF) preserves only the part of the box this
 * process owns, by a snapshot of its own blocks that involves no other
 * process. Via parent, restore reads the box from the ancestor's preserved
 * version one-sidedly. Via regen, restore calls `regen`. Collective over the
 * CD's communicator for a collective CD, local for a per-process CD.
 *
 * \param[in] cd the CD (GDS_CD_CURRENT accepted)
 * \param[in] via how it is restored
 * \param[in] gds the array (its current version)
 * \param[in] lo,hi the box (inclusive)
 * \param[in] access READ_ONLY or READ_WRITE (READ_ONLY via regen)
 * \param[in] regen the function for GDS_CD_VIA_REGEN (NULL otherwise)
 * \param[in] context passed to `regen`
 * \return GDS_STATUS_OK; GDS_STATUS_INVALID (via, access; the CD's processes
 *         are not the array's nor one process); box statuses; GDS_STATUS_NOT_PRESERVED
 *         (via parent); GDS_STATUS_NOMEM; handle statuses
 */
GDS_API GDS_status_t GDS_cd_preserve_box(GDS_cd_t cd, GDS_cd_via_t via, GDS_gds_t gds, const GDS_size_t lo[],
                                         const GDS_size_t hi[], GDS_cd_access_t access,
                                         GDS_cd_box_regen_func_t regen, void *context);

/**
 * \brief Registers an error handler on a CD. Local.
 *
 * While the CD is current on a thread, or an ancestor of the current one,
 * local errors raised on that thread (by the library or the application, on
 * any array or GDS_ROOT) are matched against the current CD's handlers
 * first, then its ancestors', then the array's and GDS_ROOT's, with the
 * usual best-fit rules. The context is freed (free_context) with the CD.
 *
 * \return GDS_STATUS_OK; GDS_STATUS_NULL_ARGUMENT; GDS_STATUS_AMBIGUOUS_HANDLER
 *         (an equal predicate is registered on the CD); handle statuses
 */
GDS_API GDS_status_t GDS_cd_register_handler(GDS_cd_t cd, GDS_error_pred_t pred, GDS_cd_handler_func_t handler,
                                             void *context, GDS_context_free_func_t free_context);

/**
 * \brief From a CD's handler: passes the error to the enclosing CDs' handlers.
 *
 * Completion: when the handler returns GDS_STATUS_OK, the error is matched
 * against the handlers of the CD's parent, then its ancestors, then the
 * array's and GDS_ROOT's. The handler must not also resume the error.
 *
 * \return GDS_STATUS_OK; GDS_STATUS_NOT_IN_HANDLER (not called from a CD handler
 *         handling this error)
 */
GDS_API GDS_status_t GDS_cd_escalate(GDS_error_t error_desc);

/**
 * \brief Whether the CD was restored since the last call (and clears it). Local.
 *
 * A C program re-enters its loop after a handler restored the CD:
 * `if (GDS_cd_restored(cd, &again), again) continue;`. Right after
 * GDS_cd_create() of a persisted root, 1 means that the job restarted from
 * its persisted point (the add calls bring the bytes back).
 *
 * \param[in] cd the CD (GDS_CD_CURRENT accepted)
 * \param[out] restored 1 if a restore happened since the last call, else 0
 */
GDS_API GDS_status_t GDS_cd_restored(GDS_cd_t cd, int *restored);

/**
 * \brief MPI_Send, logged by the current CD (GDS extension: explicit message logging).
 *
 * Outside a CD, or in one whose logging is DISABLED, it is MPI_Send. In a CD
 * with logging ENABLED the send is recorded (without its data). After the CD
 * (or an ancestor that holds its log) is restored, the re-execution issues
 * the same calls in the same order: a send that was delivered already is not
 * sent again, and GDS_cd_recv() returns the logged messages, so one process
 * re-executes its CD without its neighbours re-running theirs. Once the log
 * is consumed, calls are live (and logged) again.
 *
 * A collective call cannot be replayed by one process alone: while a
 * per-process CD with logging ENABLED is current, every GDS collective over
 * more than one process (GDS_fence(), GDS_version_inc(), GDS_alloc(), ...)
 * fails with GDS_STATUS_CD_STATE on that process (and
 * GDS_STATUS_REMOTE_ERROR on the others). MPI's own collectives are not
 * interposed: the program keeps them outside such CDs.
 *
 * Completion: as MPI_Send.
 * \return GDS_STATUS_OK; GDS_STATUS_MPI_ERROR; GDS_STATUS_CD_STATE (the
 *         re-execution issued a send where the log has a receive)
 */
GDS_API GDS_status_t GDS_cd_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);

/**
 * \brief MPI_Recv, logged by the current CD (see GDS_cd_send()).
 *
 * Live, the message received is logged with its data; replaying, the next
 * logged message is returned (its source and tag in *status if status is not
 * MPI_STATUS_IGNORE) and nothing is received.
 *
 * \return GDS_STATUS_OK; GDS_STATUS_MPI_ERROR; GDS_STATUS_CD_STATE (the
 *         re-execution diverged from the log: a receive where it has a send,
 *         or a message of another size)
 */
GDS_API GDS_status_t GDS_cd_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                 MPI_Status *status);

/** \brief The calling thread's current CD (GDS_CD_NULL if none). Local. */
GDS_API GDS_status_t GDS_cd_current(GDS_cd_t *cd);

/** \brief A CD's parent (GDS_CD_NULL for a root). Local. */
GDS_API GDS_status_t GDS_cd_get_parent(GDS_cd_t cd, GDS_cd_t *parent);

/** \brief A CD's communicator (the CD's duplicate: do not free it). Local. */
GDS_API GDS_status_t GDS_cd_get_comm(GDS_cd_t cd, MPI_Comm *comm);

/** \brief How many bytes of memory ranges and file positions the CD preserves via copy on this process. Local. */
GDS_API GDS_status_t GDS_cd_get_preserved_bytes(GDS_cd_t cd, GDS_size_t *bytes);

/**
 * \brief Flips a bit of a CD's preserved copy, so programs can test what a
 *        corrupted copy does (GDS extension, as GDS_inject_fault()). Local.
 *
 * Completion: on return the lowest bit of the first byte of the CD's first
 * memory range preserved via copy (or, if it has none, of its first
 * snapshot of an array part) is flipped. A restore of the CD then writes the
 * corrupted value: the application's check finds it, and its handler
 * escalates to the parent.
 *
 * \return GDS_STATUS_OK; GDS_STATUS_NOT_PRESERVED (the CD holds no copy);
 *         handle statuses
 */
GDS_API GDS_status_t GDS_cd_inject_fault(GDS_cd_t cd);

/**
 * \brief The status of the calling thread's last failed call of cd.h.
 *
 * The document's calls return 0 or FAILURE; this says why (GDS_STATUS_OK if
 * the last one succeeded).
 */
GDS_API GDS_status_t GDS_cd_last_status(void);

#ifdef __cplusplus
}
#endif

#endif /* GDS_CD_H */
