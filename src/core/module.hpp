// How the modules above core plug into it.
//
// Dependencies point one way: core <- rma <- versions <- persist <- errors <- cd. Core never
// includes an upper module; where it must call up it goes through the
// interfaces here, which the upper modules implement:
//
//  - Module: each upper module's part of the library's and of every array's
//    life (configuration at GDS_init, its per-array state, attach and detach
//    at GDS_alloc/GDS_create and GDS_free, finalization);
//  - Resilience: what core, rma and versions ask of Open Resilience
//    (delivering pending errors, raising the failures GDS detects itself).
//
// The library lists its modules in src/lib/modules.cpp (modules()).
#pragma once

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "core/collective.hpp"
#include "core/datatypes.hpp"
#include "core/layout.hpp"
#include "core/phase.hpp"
#include "gds_types.h"

namespace gds::core {

struct Array;

// A module above core is known here by its layer alone: its place in the
// dependency order (0 the lowest), which it states itself and which
// src/lib/modules.cpp checks against its list.
using Layer = std::size_t;
inline constexpr std::size_t kLayers = 5;  // the modules above core

// A module's state for one array: each module owns a struct of its own,
// held by the array and destroyed with it (highest layer first).
struct ArrayState {
  virtual ~ArrayState() = default;
};

// What GDS_alloc and GDS_create were asked for, after core checked it.
struct ArraySpec {
  GDS_flavor_t flavor;
  const Dims *count;
  const ElementType *type;
  Order order;
};

class Module {
 public:
  virtual ~Module() = default;
  [[nodiscard]] virtual Layer layer() const = 0;
  [[nodiscard]] virtual const char *name() const = 0;
  // The gds_* info keys the module reads; others are refused.
  [[nodiscard]] virtual std::span<const char *const> info_keys() const { return {}; }
  // The phases and kill points of the module's protocols (core/phase.hpp),
  // in protocol order.
  [[nodiscard]] virtual std::span<const Step *const> steps() const { return {}; }
  // GDS_init, MPI ready: reads the module's environment variables (bad
  // values are reported and replaced by defaults) and probes the MPI library.
  virtual void configure() {}
  // GDS_init with GDS_SHOW_INFO: logs the module's settings.
  virtual void show_info() const {}
  // GDS_finalize, after every array has been freed.
  virtual void finalize() {}

  // GDS_alloc / GDS_create on this process, before the processes agree:
  // checks what the module reads from `info`, adds what must be equal on
  // every process to `sig`, and makes the array's state.
  virtual GDS_status_t prepare(const char *func, const ArraySpec &spec, MPI_Info info, Signature &sig,
                               std::unique_ptr<ArrayState> *state) = 0;
  // Collective, once the lower modules are attached: acquires the state's
  // collective resources. Every process then agrees on the outcome; after a
  // failure the modules attached so far are detached, the failed one too.
  virtual GDS_status_t attach(const char *func, Array &a) = 0;
  // GDS_free on this process, before the processes agree: completes what
  // must be complete before the collective teardown, and says why the array
  // may not be freed now (OK if it may).
  virtual GDS_status_t prepare_free(const char *, Array &) const { return GDS_STATUS_OK; }
  // Collective, before the lower modules detach: releases what attach
  // acquired, on a process where attach failed part way or never ran too.
  virtual GDS_status_t detach(const char *func, Array &a) = 0;
};

// The failures GDS detects itself, described for Open Resilience.
struct Detected {
  const std::uint64_t *lo = nullptr;  // box concerned (with hi), or none
  const std::uint64_t *hi = nullptr;
  std::int64_t version = -1;  // version concerned, or -1
  std::uint64_t bytes = 0;    // memory that could not be had, or 0
  int process = -1;           // the process (rank in the array's communicator) whose data failed, or -1
  const char *what = nullptr;  // for files: the path and the error, or nullptr
};

class Resilience {
 public:
  virtual ~Resilience() = default;
  // Delivers the pending local errors of `a` (nullptr: GDS_ROOT's only) and
  // of GDS_ROOT; OK or the first failure.
  virtual GDS_status_t deliver_local(const char *func, Array *a) = 0;
  // This process's global errors on `a` (nullptr: GDS_ROOT) waiting for a
  // stable point; 0 while handlers run (nothing is delivered then).
  [[nodiscard]] virtual std::uint64_t global_pending(const Array *a) const = 0;
  // The delivery of a stable point whose poll found global errors pending.
  // Collective over the array's communicator (GDS_COMM_WORLD for nullptr).
  virtual GDS_status_t deliver_global(const char *func, Array *a) = 0;
  // Whether this process has checks of priority HIGH on `a`, and running
  // them (GDS_version_inc runs them before the snapshot).
  [[nodiscard]] virtual bool has_version_checks(const Array &a) const = 0;
  virtual GDS_status_t run_version_checks(const char *func, Array &a) = 0;
  // Whether a handler of an error raised on `a` is running (GDS_free refuses then).
  [[nodiscard]] virtual bool handling(const Array &a) const = 0;
  // A system failure of a call on `a`: raised as a local error and
  // delivered at once unless a handler is running.
  virtual void raise_detected(const char *func, Array *a, GDS_status_t status, const Detected &what) = 0;
};

// The modules libgds is made of, lowest layer first; defined by the library
// that links them (src/lib/modules.cpp), so that core names none of them.
std::span<Module *const> modules();

// The module implementing Resilience (set at GDS_init), or nullptr.
Resilience *resilience();
void set_resilience(Resilience *r);

// Local errors waiting on this process, or 0 while a handler runs: one load
// tells a call whether to deliver. Kept by the errors module.
extern std::uint64_t g_deliverable;

// A call on `a` ended with `status`: if the system failed (MPI, memory, files, stored data), the
// failure is raised through Open Resilience. Returns `status` unchanged.
GDS_status_t detected(const char *func, Array *a, GDS_status_t status, const Detected &what = {});
inline GDS_status_t checked(const char *func, Array *a, GDS_status_t status, const Detected &what) {
  if (status != GDS_STATUS_MPI_ERROR && status != GDS_STATUS_NOMEM && status != GDS_STATUS_IO_ERROR &&
      status != GDS_STATUS_CORRUPT) [[likely]]
    return status;
  return detected(func, a, status, what);
}
inline GDS_status_t checked(const char *func, Array *a, GDS_status_t status, const std::uint64_t *lo = nullptr,
                            const std::uint64_t *hi = nullptr) {
  return checked(func, a, status, Detected{lo, hi});
}

}  // namespace gds::core
