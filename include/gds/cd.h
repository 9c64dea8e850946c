/**
 * \file cd.h
 * \brief The Containment Domains API of the CD document, over GDS (gds_cd.h).
 *
 * Programs written to the document include <gds/cd.h> (or <cd.h>) and call
 * create_cd(), add_to_cd_via_copy(), restore_cd(), ... with the document's
 * types. These are thin calls over GDS's own CD calls (GDS_cd_*), so a
 * program may use both: a cd_handle is a GDS_cd_t.
 *
 * Where the document contradicts itself, this header chooses
 * (docs/containment-domains.md, "What differs from the CD document, and why"):
 * - create_cd() takes 5 arguments (parent, storage_info, logging, name, &error);
 *   the 3- and 4-argument calls of some examples do not compile.
 * - add_to_cd_via_copy() and add_to_cd_via_parent() take 3 arguments;
 *   add_to_cd_via_regen() takes 4 (cd, addrlist, ascount, regen). The document's
 *   per-entry storage_info argument is future work in the document itself.
 * - MPI_LOGGING_INHERIT, used by the examples but never defined, is
 *   COMM_LOGGING_INHERIT. commit(), used by some examples for commit_cd(), is
 *   offered only if the program defines CD_COMMIT_ALIAS before including this
 *   header (a function named commit would collide with programs' own).
 * - advance_cd_point_in_time() on a child commits the child's entries into
 *   the parent first (section 2.5.4), as the normative text says.
 * - CURRENT_CD has no trailing semicolon; the struct fields are declared with
 *   `enum` so that the struct is valid C and C++.
 * - Calls return 0 on success and FAILURE otherwise; GDS_cd_last_status()
 *   says why, and a message names the call at GDS_DEBUG_LEVEL >= 1.
 * - A CD made by create_cd() is per-process (MPI_COMM_SELF); GDS_cd_create()
 *   makes collective ones.
 */
#ifndef GDS_CD_SEED_H
#define GDS_CD_SEED_H

#include "gds_cd.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A containment domain. */
typedef GDS_cd_t cd_handle;
/** The calling thread's current CD. */
#define CURRENT_CD GDS_CD_CURRENT

/** Returned by the calls of this header when they fail (0 is success). */
#define FAILURE 1

/** READ_ONLY: used, not modified; READ_WRITE: modified, its initial value used. */
enum addr_type { READ_ONLY = GDS_CD_READ_ONLY, READ_WRITE = GDS_CD_READ_WRITE };
/** GLOBAL: valid for ancestors; CONSTRAINED: not. */
enum addr_scope { GLOBAL = GDS_CD_GLOBAL, CONSTRAINED = GDS_CD_CONSTRAINED };
/** Message logging of a CD. */
enum comm_log {
  COMM_LOGGING_DISABLED = GDS_CD_LOGGING_DISABLED,
  COMM_LOGGING_ENABLED = GDS_CD_LOGGING_ENABLED,
  COMM_LOGGING_INHERIT = GDS_CD_LOGGING_INHERIT
};
/** The document's section 2.5 spelling of the logging enum. */
#define mpi_log comm_log
/** The spelling the document's examples use for COMM_LOGGING_INHERIT. */
#define MPI_LOGGING_INHERIT COMM_LOGGING_INHERIT

/** A memory range (the layout of GDS_cd_range_t). */
struct cd_addrspec {
  void *address;              /**< the range's first byte */
  size_t length;              /**< its length in bytes */
  enum addr_type addr_tp;     /**< READ_ONLY, READ_WRITE */
  enum addr_scope addr_scope; /**< GLOBAL, CONSTRAINED */
};

/** Creates a CD (per-process) and makes it current; *error is 0 or FAILURE. */
GDS_API cd_handle create_cd(cd_handle parent_cd, const char *storage_info, enum comm_log log_mpi_traffic,
                            const char *name, int *error);
/** Commits a CD (GDS_cd_commit()). */
GDS_API int commit_cd(cd_handle cd);
/** Restores a CD (GDS_cd_restore()). */
GDS_API int restore_cd(cd_handle cd);
/** Moves the CD's point in time to now (GDS_cd_advance()). */
GDS_API int advance_cd_point_in_time(cd_handle cd);
/** Preserves ranges by copying them (GDS_cd_preserve(), GDS_CD_VIA_COPY). */
GDS_API int add_to_cd_via_copy(cd_handle cd, struct cd_addrspec addrlist[], int ascount);
/** Preserves ranges the parent preserves (GDS_CD_VIA_PARENT). */
GDS_API int add_to_cd_via_parent(cd_handle cd, struct cd_addrspec addrlist[], int ascount);
/** Preserves READ_ONLY ranges by a function that recomputes them (GDS_CD_VIA_REGEN); it returns 0 on success. */
GDS_API int add_to_cd_via_regen(cd_handle cd, struct cd_addrspec addrlist[], int ascount,
                                int (*regen)(struct cd_addrspec addrlist[], int ascount));
/** Preserves a file descriptor's position. */
GDS_API int add_file_to_cd(cd_handle cd, int filedes);
/** Stops preserving a file descriptor's position. */
GDS_API int delete_file_from_cd(cd_handle cd, int filedes);
/** Stops preserving ranges. */
GDS_API int delete_from_cd(cd_handle cd, struct cd_addrspec addrlist[], int ascount);

/** Interposition layer (section 2.10): appends a malloc'd entry to the CD's log (ownership passes). */
GDS_API int add_MPI_log_to_cd(cd_handle cd, void *logent, int loglen);
/** Interposition layer: the next log entry in order (NULL when exhausted); restore_cd() rewinds. */
GDS_API void *get_MPI_log_from_cd(cd_handle cd, int *error);
/** Interposition layer: discards the CD's log. */
GDS_API int delete_MPI_log_from_cd(cd_handle cd);

#ifdef __cplusplus
}
/* The document's examples pass braced lists: add_to_cd_via_copy(cd, {&x, sizeof(x), READ_WRITE, GLOBAL}, 1). */
/** add_to_cd_via_copy() of one range given as a braced list (C++ only); ascount must be 1. */
inline int add_to_cd_via_copy(cd_handle cd, cd_addrspec one, int ascount) {
  return ascount == 1 ? add_to_cd_via_copy(cd, &one, 1) : add_to_cd_via_copy(cd, static_cast<cd_addrspec *>(nullptr), ascount);
}
/** add_to_cd_via_parent() of one range given as a braced list (C++ only); ascount must be 1. */
inline int add_to_cd_via_parent(cd_handle cd, cd_addrspec one, int ascount) {
  return ascount == 1 ? add_to_cd_via_parent(cd, &one, 1) : add_to_cd_via_parent(cd, static_cast<cd_addrspec *>(nullptr), ascount);
}
/** delete_from_cd() of one range given as a braced list (C++ only); ascount must be 1. */
inline int delete_from_cd(cd_handle cd, cd_addrspec one, int ascount) {
  return ascount == 1 ? delete_from_cd(cd, &one, 1) : delete_from_cd(cd, static_cast<cd_addrspec *>(nullptr), ascount);
}
#endif

#ifdef CD_COMMIT_ALIAS
/** The examples' spelling of commit_cd() (opt-in: define CD_COMMIT_ALIAS). */
static inline int commit(cd_handle cd) { return commit_cd(cd); }
#endif

#endif /* GDS_CD_SEED_H */
