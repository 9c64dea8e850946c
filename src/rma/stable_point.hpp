// The stable point: every process's operations on an array complete at
// their targets, memory is synchronized, the processes agree on how the call
// went, and pending global errors are delivered. GDS_fence,
// GDS_check_all_errors and the first phase of GDS_version_inc are built on it.
#pragma once

#include "core/array.hpp"

namespace gds::rma {

// A stable point of array `a`, or of GDS_ROOT (nullptr: GDS_COMM_WORLD, no
// window). `local` is what the call found so far on this process (a failed
// delivery, a refused argument). One allreduce carries both the agreement
// and the poll for global errors. Every process returns the same status;
// *delivered (if given) tells whether global errors were delivered, after
// which handlers may have written to the array; *flag (if given) goes in as
// this process's and comes out set if it was set on any process. Collective.
// A failure of this process after the agreement (synchronizing memory) goes
// to *late if given, for the caller's next agreement; otherwise it is
// returned on this process alone, once the collective part is over.
GDS_status_t stable_point(const char *func, core::Array *a, GDS_status_t local, bool *delivered = nullptr,
                          bool *flag = nullptr, GDS_status_t *late = nullptr);

// GDS_fence and GDS_invoke_global_error_handler: a stable point of the
// array, or for GDS_ROOT of every array in creation order and then of
// GDS_ROOT's own errors.
GDS_status_t fence(const char *func, GDS_gds_t gds);

}  // namespace gds::rma
