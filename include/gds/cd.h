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
 * - Calls the document spells two ways take both forms:
 *   create_cd(parent, storage_info, logging, name, &error) (2.4.1, 2.5.1),
 *   create_cd(parent, storage_info, logging) (2.11.1) and
 *   create_cd(parent, storage_info, name, logging) (2.4's piece by piece);
 *   add_to_cd_via_copy/parent(cd, addrlist, ascount) (2.4, the use cases,
 *   Appendix A) and (cd, addrlist, ascount, storage_info) (2.5.5);
 *   add_to_cd_via_regen(cd, addrlist, ascount, regen) (Appendix A) and
 *   (cd, addrlist, ascount, storage_info, regen) (2.5.5.3). C++ has
 *   overloads; C has macros that pick a function by the number of arguments
 *   (create_cd_without_error(), create_cd_name_first(), *_with_storage()).
 *   As with any function-like macro, a C compound literal passed to them is
 *   written in parentheses: add_to_cd_via_copy(cd, ((struct cd_addrspec[]){...}), 1, info).
 * - An entry's storage_info is parsed as create_cd()'s: NULL, "" or the CD's
 *   own storage keep the entry where the CD keeps its entries; level=memory
 *   keeps it in this process's memory only, so a persisted root (level=cache
 *   or level=prefix) leaves a range added via copy that way out of its
 *   persisted points (a restarted job does not bring it back). Anything else
 *   is FAILURE (GDS_STATUS_INVALID_INFO) with a message naming the call:
 *   unknown keys or levels, a persisted level on a CD that keeps its entries
 *   in memory (every child, and roots created without one), another level,
 *   copy_type or prefix than the CD's own, or a range of a persisted root
 *   added again at the other level. Entries via parent or via regen keep no
 *   bytes in the CD: their storage_info is checked the same way.
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
/** create_cd() without name and error (section 2.11.1's 3-argument form; C: create_cd with 3 arguments). */
GDS_API cd_handle create_cd_without_error(cd_handle parent_cd, const char *storage_info,
                                          enum comm_log log_mpi_traffic);
/** create_cd() with the name before the logging mode and no error (section 2.4's 4-argument form). */
GDS_API cd_handle create_cd_name_first(cd_handle parent_cd, const char *storage_info, const char *name,
                                       enum comm_log log_mpi_traffic);
/** Preserves ranges by copying them (GDS_cd_preserve(), GDS_CD_VIA_COPY), where the CD keeps its entries. */
GDS_API int add_to_cd_via_copy(cd_handle cd, struct cd_addrspec addrlist[], int ascount);
/** Preserves ranges the parent preserves (GDS_CD_VIA_PARENT). */
GDS_API int add_to_cd_via_parent(cd_handle cd, struct cd_addrspec addrlist[], int ascount);
/** Preserves READ_ONLY ranges by a function that recomputes them (GDS_CD_VIA_REGEN); it returns 0 on success. */
GDS_API int add_to_cd_via_regen(cd_handle cd, struct cd_addrspec addrlist[], int ascount,
                                int (*regen)(struct cd_addrspec addrlist[], int ascount));
/** add_to_cd_via_copy() with the entry's storage_info (section 2.5.5.1; see above); C: add_to_cd_via_copy with 4 arguments. */
GDS_API int add_to_cd_via_copy_with_storage(cd_handle cd, struct cd_addrspec addrlist[], int ascount,
                                            const char *storage_info);
/** add_to_cd_via_parent() with the entry's storage_info (section 2.5.5.2); C: add_to_cd_via_parent with 4 arguments. */
GDS_API int add_to_cd_via_parent_with_storage(cd_handle cd, struct cd_addrspec addrlist[], int ascount,
                                              const char *storage_info);
/** add_to_cd_via_regen() with the entry's storage_info (section 2.5.5.3); C: add_to_cd_via_regen with 5 arguments. */
GDS_API int add_to_cd_via_regen_with_storage(cd_handle cd, struct cd_addrspec addrlist[], int ascount,
                                             const char *storage_info,
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
/** create_cd(parent, storage_info, logging): section 2.11.1's form. */
inline cd_handle create_cd(cd_handle parent_cd, const char *storage_info, enum comm_log log_mpi_traffic) {
  return create_cd_without_error(parent_cd, storage_info, log_mpi_traffic);
}
/** create_cd(parent, storage_info, name, logging): section 2.4's form. */
inline cd_handle create_cd(cd_handle parent_cd, const char *storage_info, const char *name,
                           enum comm_log log_mpi_traffic) {
  return create_cd_name_first(parent_cd, storage_info, name, log_mpi_traffic);
}
/** add_to_cd_via_copy() with the entry's storage_info: section 2.5.5.1's form. */
inline int add_to_cd_via_copy(cd_handle cd, cd_addrspec addrlist[], int ascount, const char *storage_info) {
  return add_to_cd_via_copy_with_storage(cd, addrlist, ascount, storage_info);
}
/** add_to_cd_via_parent() with the entry's storage_info: section 2.5.5.2's form. */
inline int add_to_cd_via_parent(cd_handle cd, cd_addrspec addrlist[], int ascount, const char *storage_info) {
  return add_to_cd_via_parent_with_storage(cd, addrlist, ascount, storage_info);
}
/** add_to_cd_via_regen() with the entry's storage_info: section 2.5.5.3's form. */
inline int add_to_cd_via_regen(cd_handle cd, cd_addrspec addrlist[], int ascount, const char *storage_info,
                               int (*regen)(cd_addrspec addrlist[], int ascount)) {
  return add_to_cd_via_regen_with_storage(cd, addrlist, ascount, storage_info, regen);
}
/* The document's examples pass braced lists: add_to_cd_via_copy(cd, {&x, sizeof(x), READ_WRITE, GLOBAL}, 1). */
/** add_to_cd_via_copy() of one range given as a braced list (C++ only); ascount must be 1. */
inline int add_to_cd_via_copy(cd_handle cd, cd_addrspec one, int ascount, const char *storage_info = nullptr) {
  return add_to_cd_via_copy_with_storage(cd, ascount == 1 ? &one : nullptr, ascount, storage_info);
}
/** add_to_cd_via_parent() of one range given as a braced list (C++ only); ascount must be 1. */
inline int add_to_cd_via_parent(cd_handle cd, cd_addrspec one, int ascount, const char *storage_info = nullptr) {
  return add_to_cd_via_parent_with_storage(cd, ascount == 1 ? &one : nullptr, ascount, storage_info);
}
/** delete_from_cd() of one range given as a braced list (C++ only); ascount must be 1. */
inline int delete_from_cd(cd_handle cd, cd_addrspec one, int ascount) {
  return ascount == 1 ? delete_from_cd(cd, &one, 1) : delete_from_cd(cd, static_cast<cd_addrspec *>(nullptr), ascount);
}
#endif

#ifndef __cplusplus
/* C: each call spelt two ways is a macro that picks its function by the
 * number of arguments (C99 variadic macros). Another count reaches the
 * document's function, so the compiler names the call ("too many arguments
 * to function 'add_to_cd_via_copy'"); inside the expansion the name is not
 * expanded again, and &add_to_cd_via_copy is the function. */
#define GDS_CD_PICK_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, \
                     a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32, name, ...)                      \
  name
#define GDS_CD_BY_COUNT_(other, three, four, five, ...)                                                          \
  GDS_CD_PICK_(__VA_ARGS__, other, other, other, other, other, other, other, other, other, other, other, other,  \
               other, other, other, other, other, other, other, other, other, other, other, other, other, other,  \
               other, five, four, three, other, other, other)
#define create_cd(...) \
  GDS_CD_BY_COUNT_(create_cd, create_cd_without_error, create_cd_name_first, create_cd, __VA_ARGS__)(__VA_ARGS__)
#define add_to_cd_via_copy(...)                                                                                  \
  GDS_CD_BY_COUNT_(add_to_cd_via_copy, add_to_cd_via_copy, add_to_cd_via_copy_with_storage, add_to_cd_via_copy, \
                   __VA_ARGS__)(__VA_ARGS__)
#define add_to_cd_via_parent(...)                                                                     \
  GDS_CD_BY_COUNT_(add_to_cd_via_parent, add_to_cd_via_parent, add_to_cd_via_parent_with_storage, \
                   add_to_cd_via_parent, __VA_ARGS__)(__VA_ARGS__)
#define add_to_cd_via_regen(...)                                                                                \
  GDS_CD_BY_COUNT_(add_to_cd_via_regen, add_to_cd_via_regen, add_to_cd_via_regen, add_to_cd_via_regen_with_storage, \
                   __VA_ARGS__)(__VA_ARGS__)
#endif

#ifdef CD_COMMIT_ALIAS
/** The examples' spelling of commit_cd() (opt-in: define CD_COMMIT_ALIAS). */
static inline int commit(cd_handle cd) { return commit_cd(cd); }
#endif

#endif /* GDS_CD_SEED_H */
