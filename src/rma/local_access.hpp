// Regions opened by GDS_access: the check other calls make against them.
#pragma once

#include "core/array.hpp"
#include "rma/state.hpp"

namespace gds::rma {

using core::Index;

// GDS_STATUS_ACCESS_CONFLICT if [lo, hi] overlaps a region this process has open on `a`.
GDS_status_t check_no_open_access(const char *func, const core::Array &a, const Index *lo,
                                  const Index *hi);

}  // namespace gds::rma
