// Arrays, the handles that point at them, and the registry behind GDS_ROOT.
//
// An ArrayObject is shared by every handle on it: the one GDS_alloc or
// GDS_create returned (the primary) and its clones. The registry owns the
// object; freeing the primary destroys it and invalidates the clones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/datatypes.hpp"
#include "core/handles.hpp"
#include "core/layout.hpp"
#include "core/log.hpp"
#include "errors/pending.hpp"
#include "rma/window.hpp"
#include "versions/tracker.hpp"

namespace gds::versions {
class Store;
}
namespace gds::errors {
struct Scope;
}

namespace gds::core {

struct ArrayObject;

// A region this process opened with GDS_access.
struct OpenAccess {
  ArrayObject *array = nullptr;
  Dims lo, hi;
  GDS_access_buffer_t kind = GDS_ACCESS_BUFFER_DIRECT;  // DIRECT or COPY
  void *buffer = nullptr;                               // what the application got
  std::unique_ptr<std::byte[]> copy;                    // COPY: the copy
  Dims ld;                                              // ndims-1 leading dimensions
};

struct ArrayObject {
  std::uint64_t id = 0;  // creation sequence: the order of GDS_ROOT operations
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate of the users communicator
  int rank = 0;
  int nprocs = 0;
  const ElementType *type = nullptr;
  GDS_priority_t priority = GDS_PRIORITY_HIGH;
  std::unique_ptr<Layout> layout;
  const BlockLayout *blocks = nullptr;  // the layout, for GDS_alloc arrays
  const UserLayout *user = nullptr;     // the layout, for GDS_create arrays
  rma::Window window;
  void *local_base = nullptr;  // this process's memory in the window
  Index local_count = 0;       // elements in it
  Dims local_lo, local_ext;    // GDS_alloc: this process's block (ext 0 if none)
  std::vector<std::uint64_t> accesses;  // open GDS_access handles of this process
  std::uint64_t ops_since_flush = 0;    // for GDS_OUTSTANDING_RMA_OPS_MAX
  // Targets of operations not yet completed, so GDS_wait flushes only them
  // (MPI_Win_flush_local_all costs more); past kMaxPendingTargets, all.
  static constexpr int kMaxPendingTargets = 4;
  int pending_targets[kMaxPendingTargets] = {};
  int npending = 0;  // kMaxPendingTargets + 1: all targets
  std::uint64_t primary = 0;            // handle
  std::vector<std::uint64_t> clones;    // handles

  // Versions: the current version's number and label, the frozen versions,
  // and the blocks this process wrote since the last version.
  std::uint64_t current_version = 0;
  std::string current_label;
  std::unique_ptr<versions::Store> store;
  versions::Tracker tracker;

  // Open Resilience: handlers, checks and pending errors on this process.
  std::unique_ptr<errors::Scope> errors;

  ArrayObject();
  ~ArrayObject();
  [[nodiscard]] std::size_t ndims() const { return layout->ndims(); }
};

// What an array handle refers to: the array and a version of it.
struct Cursor {
  ArrayObject *array = nullptr;
  bool primary = false;
  bool at_current = true;    // follows the current version
  std::uint64_t version = 0;  // when not at_current
  [[nodiscard]] std::uint64_t number() const { return at_current ? array->current_version : version; }
};

extern HandleTable<Cursor> g_arrays;
extern HandleTable<OpenAccess> g_accesses;

inline std::uint64_t handle_value(const void *h) { return reinterpret_cast<std::uintptr_t>(h); }
inline bool is_root(GDS_gds_t gds) { return handle_value(gds) == make_handle(HandleKind::root, 0, 0); }
template <class H>
H to_handle(std::uint64_t value) {
  return reinterpret_cast<H>(static_cast<std::uintptr_t>(value));
}

// Reports why an array handle argument did not resolve.
GDS_status_t resolve_failed(const char *func, GDS_gds_t gds, GDS_status_t status, const char *argname);

// Resolves an array handle argument; GDS_ROOT is refused (callers that accept
// it test is_root() first). Delivers nothing.
inline GDS_status_t resolve_quietly(const char *func, GDS_gds_t gds, Cursor **cursor, const char *argname = "gds") {
  const GDS_status_t s = g_arrays.find(handle_value(gds), cursor);
  if (s == GDS_STATUS_OK) [[likely]] return s;
  return resolve_failed(func, gds, s, argname);
}

// As resolve_quietly, then delivers the array's (and GDS_ROOT's) pending
// local errors before the call's work: a failed delivery fails the call.
inline GDS_status_t resolve(const char *func, GDS_gds_t gds, Cursor **cursor, const char *argname = "gds") {
  GDS_TRY(resolve_quietly(func, gds, cursor, argname));
  if (errors::g_deliverable != 0) [[unlikely]]
    return errors::deliver_on_entry(func, (*cursor)->array);
  return GDS_STATUS_OK;
}

// For collective calls: as resolve, but a failed delivery goes to *delivery
// (for the call's agreement) instead of ending the call.
inline GDS_status_t resolve_collective(const char *func, GDS_gds_t gds, Cursor **cursor, GDS_status_t *delivery,
                                       const char *argname = "gds") {
  GDS_TRY(resolve_quietly(func, gds, cursor, argname));
  *delivery = errors::g_deliverable != 0 ? errors::deliver_on_entry(func, (*cursor)->array) : GDS_STATUS_OK;
  return GDS_STATUS_OK;
}

// GDS_alloc and GDS_create, with the storage order GDS_ORDER_DEFAULT means in
// the calling language (row-major in C and C++, column-major in Fortran).
GDS_status_t alloc_array(const char *func, GDS_size_t ndims, const GDS_size_t *count, const GDS_size_t *min_chunks,
                         GDS_datatype_t element_type, GDS_priority_t priority, MPI_Comm users, MPI_Info info,
                         Order language_default, GDS_gds_t *gds);
GDS_status_t create_array(const char *func, GDS_size_t ndims, const GDS_size_t *count, GDS_datatype_t element_type,
                          const Mapping &mapping, void *local_buffer, GDS_size_t local_buffer_count,
                          GDS_priority_t priority, MPI_Comm users, MPI_Info info, Order language_default,
                          GDS_gds_t *gds);

// GDS_STATUS_NOT_CURRENT for a write through a handle at an old version.
GDS_status_t not_current(const char *func, const Cursor &cursor);
inline GDS_status_t require_current(const char *func, const Cursor &cursor) {
  return cursor.at_current ? GDS_STATUS_OK : not_current(func, cursor);
}

// Live arrays, in creation order.
std::vector<ArrayObject *> arrays_in_creation_order();

// GDS_finalize: frees every array still allocated (collective, creation order).
GDS_status_t free_all_arrays(const char *func);

}  // namespace gds::core
