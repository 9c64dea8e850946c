// Checks of the box, index and leading-dimension arguments of data access.
#pragma once

#include "core/layout.hpp"

namespace gds::core {

// Reports what is wrong with a box check_box refused.
GDS_status_t box_error(const char *func, const Layout &layout, const Index *lo, const Index *hi,
                       const char *lo_name, const char *hi_name);

// lo and hi non-NULL, lo[d] <= hi[d] (GDS_STATUS_INVALID_BOX), hi[d] < count[d] (GDS_STATUS_RANGE).
inline GDS_status_t check_box(const char *func, const Layout &layout, const Index *lo, const Index *hi,
                              const char *lo_name = "lo_index", const char *hi_name = "hi_index") {
  if (lo == nullptr || hi == nullptr) [[unlikely]]
    return box_error(func, layout, lo, hi, lo_name, hi_name);
  const Index *count = layout.count().data();
  for (std::size_t d = 0; d < layout.ndims(); ++d)
    if (lo[d] > hi[d] || hi[d] >= count[d]) [[unlikely]]
      return box_error(func, layout, lo, hi, lo_name, hi_name);
  return GDS_STATUS_OK;
}

// index non-NULL and inside the array.
GDS_status_t check_index(const char *func, const Layout &layout, const Index *index, const char *name);

// check_ld for two or more dimensions.
GDS_status_t check_ld_dims(const char *func, const Layout &layout, const Index *ld, const Index *lo,
                           const Index *hi, const char *name, Index *out);

// The ndims-1 leading dimensions of a buffer holding box [lo, hi]: NULL or 0
// entries become the box's extent; others must be at least the extent.
// `out` receives ndims-1 values.
inline GDS_status_t check_ld(const char *func, const Layout &layout, const Index *ld, const Index *lo,
                             const Index *hi, const char *name, Index *out) {
  if (layout.ndims() == 1) return GDS_STATUS_OK;
  return check_ld_dims(func, layout, ld, lo, hi, name, out);
}

}  // namespace gds::core
