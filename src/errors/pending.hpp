// What the rest of the library needs from the errors module: local errors
// delivered when a call enters, the global-error poll of stable points, and
// the errors GDS raises itself.
#pragma once

#include <cstdint>

#include "gds_types.h"

namespace gds::core {
struct ArrayObject;
}

namespace gds::errors {

// Local errors waiting on this process, or 0 while a handler runs (nothing
// is delivered then): one load tells a call whether to deliver.
extern std::uint64_t g_deliverable;

// Delivers the pending local errors of array `a` (nullptr: only GDS_ROOT's)
// and of GDS_ROOT. OK, or the first failure (unhandled, ambiguous, recovery failed).
GDS_status_t deliver_on_entry(const char *func, core::ArrayObject *a);

// This process's global errors on `a` (nullptr: GDS_ROOT) waiting for a
// stable point; 0 inside handlers, where stable points deliver nothing.
std::uint64_t global_pending(const core::ArrayObject *a);
// The delivery at a stable point, once the poll showed errors pending on
// some process. Collective over the array's communicator (GDS_COMM_WORLD
// for nullptr); every process returns the same status.
GDS_status_t deliver_global(const char *func, core::ArrayObject *a);

// Whether this process has checks of priority HIGH on `a` (GDS_version_inc
// runs them before the snapshot).
bool has_high_checks(const core::ArrayObject &a);
// Runs `a`'s HIGH checks, local then global, with its primary handle, and
// delivers the local errors they raise. OK or the first failure.
GDS_status_t run_version_checks(const char *func, core::ArrayObject &a);

// A call on `a` failed with `status`: if the system failed (MPI, memory),
// raises it as a local error with GDS_EATTR_DETECTED_BY "GDS" and the
// function, status and MPI error class, plus the box [lo, hi] (if lo) or
// version (if version >= 0) concerned, and delivers it at once unless a
// handler is running. Returns `status` unchanged.
GDS_status_t detected(const char *func, core::ArrayObject *a, GDS_status_t status, const std::uint64_t *lo = nullptr,
                      const std::uint64_t *hi = nullptr, std::int64_t version = -1, std::uint64_t bytes = 0);

// Whether a handler of an error raised on `a` is running (GDS_free refuses then).
bool handling(const core::ArrayObject *a);

// GDS_finalize: drops GDS_ROOT's handlers, checks and pending errors, and the user-defined keys.
void finalize();

inline GDS_status_t checked(const char *func, core::ArrayObject *a, GDS_status_t status,
                            const std::uint64_t *lo = nullptr, const std::uint64_t *hi = nullptr) {
  if (status != GDS_STATUS_MPI_ERROR && status != GDS_STATUS_NOMEM) [[likely]] return status;
  return detected(func, a, status, lo, hi);
}

}  // namespace gds::errors
