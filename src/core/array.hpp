// Arrays, the handles that point at them, and the registry behind GDS_ROOT.
//
// An Array is a thin aggregate: what core knows of it (communicator, element
// type, layout, handles) and one state per module above core (its window,
// its versions, its error handlers), each owned and edited by its module.
// The registry owns the arrays; freeing the primary handle (the one
// GDS_alloc or GDS_create returned) frees the array and invalidates its clones.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/datatypes.hpp"
#include "core/handles.hpp"
#include "core/layout.hpp"
#include "core/log.hpp"
#include "core/module.hpp"
#include "core/mpi_handles.hpp"

namespace gds::core {

struct Array {
  std::uint64_t id = 0;  // creation sequence: the order of GDS_ROOT operations
  Comm comm;             // a duplicate of the users' communicator
  int rank = 0;
  int nprocs = 0;
  const ElementType *type = nullptr;
  GDS_priority_t priority = GDS_PRIORITY_HIGH;
  std::unique_ptr<Layout> layout;
  const BlockLayout *blocks = nullptr;  // the layout, for GDS_alloc arrays
  const UserLayout *user = nullptr;     // the layout, for GDS_create arrays
  Index local_count = 0;                // elements this process stores
  void *user_buffer = nullptr;          // GDS_create: the application's buffer
  Dims local_lo, local_ext;             // GDS_alloc: this process's block (ext 0 if none)
  std::uint64_t primary = 0;            // handle
  std::vector<std::uint64_t> clones;    // handles
  std::shared_ptr<const void> implied;  // GDS_create without mapping functions: the block mapping's state
  std::array<std::unique_ptr<ArrayState>, kLayers> states;  // one per module above core
  // Open Resilience checks on the array: how many are registered, and the
  // event (next_event()) when they last all ran without finding an error
  // (0: never). The errors module sets them; versions reads them to warn
  // when retention drops the last version the checks vouched for.
  std::size_t checks = 0;
  std::uint64_t checks_passed = 0;

  Array();
  ~Array();
  Array(const Array &) = delete;
  Array &operator=(const Array &) = delete;

  [[nodiscard]] std::size_t ndims() const { return layout->ndims(); }
  [[nodiscard]] MPI_Comm communicator() const { return comm.get(); }
  // The state of module S (S::kLayer); exists from creation to destruction.
  template <class S>
  [[nodiscard]] S &state() {
    return static_cast<S &>(*states[S::kLayer]);
  }
  template <class S>
  [[nodiscard]] const S &state() const {
    return static_cast<const S &>(*states[S::kLayer]);
  }
};

// A number that grows with every call: orders versions made against checks run.
std::uint64_t next_event();

// What an array handle refers to: the array and a version of it.
struct Cursor {
  Array *array = nullptr;
  bool primary = false;
  bool at_current = true;     // follows the current version
  std::uint64_t version = 0;  // when not at_current
};

extern HandleTable<Cursor> g_arrays;

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

// Delivers the pending local errors of `a` (nullptr: only GDS_ROOT's) and of
// GDS_ROOT when a call enters.
inline GDS_status_t deliver_on_entry(const char *func, Array *a) {
  if (g_deliverable == 0) [[likely]] return GDS_STATUS_OK;
  Resilience *r = resilience();
  return r != nullptr ? r->deliver_local(func, a) : GDS_STATUS_OK;
}

// As resolve_quietly, then delivers the array's (and GDS_ROOT's) pending
// local errors before the call's work: a failed delivery fails the call.
inline GDS_status_t resolve(const char *func, GDS_gds_t gds, Cursor **cursor, const char *argname = "gds") {
  GDS_TRY(resolve_quietly(func, gds, cursor, argname));
  return deliver_on_entry(func, (*cursor)->array);
}

// For collective calls: as resolve, but a failed delivery goes to *delivery
// (for the call's agreement) instead of ending the call.
inline GDS_status_t resolve_collective(const char *func, GDS_gds_t gds, Cursor **cursor, GDS_status_t *delivery,
                                       const char *argname = "gds") {
  GDS_TRY(resolve_quietly(func, gds, cursor, argname));
  *delivery = deliver_on_entry(func, (*cursor)->array);
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
std::vector<Array *> arrays_in_creation_order();

// GDS_finalize: frees every array still allocated (collective, creation order).
GDS_status_t free_all_arrays(const char *func);

}  // namespace gds::core
