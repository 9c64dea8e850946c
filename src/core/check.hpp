// Checks of the box, index and leading-dimension arguments of data access.
#pragma once

#include "core/layout.hpp"

namespace gds::core {

// lo and hi non-NULL, lo[d] <= hi[d] (GDS_STATUS_INVALID_BOX), hi[d] < count[d] (GDS_STATUS_RANGE).
GDS_status_t check_box(const char *func, const Layout &layout, const Index *lo, const Index *hi,
                       const char *lo_name = "lo_index", const char *hi_name = "hi_index");

// index non-NULL and inside the array.
GDS_status_t check_index(const char *func, const Layout &layout, const Index *index, const char *name);

// The ndims-1 leading dimensions of a buffer holding box [lo, hi]: NULL or 0
// entries become the box's extent; others must be at least the extent.
// `out` receives ndims-1 values.
GDS_status_t check_ld(const char *func, const Layout &layout, const Index *ld, const Index *lo,
                      const Index *hi, const char *name, Index *out);

}  // namespace gds::core
