// Checks of the box, index and leading-dimension arguments of data access.
#pragma once

#include <cstddef>
#include <cstdint>

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

// Whether `bytes` bytes from `p` stay inside the address space (no buffer
// wraps around its end, none is larger than PTRDIFF_MAX).
inline bool fits_address_space(const void *p, std::uint64_t bytes) {
  return bytes <= static_cast<std::uint64_t>(PTRDIFF_MAX) && reinterpret_cast<std::uintptr_t>(p) <= UINTPTR_MAX - bytes;
}

// The application's buffer for box [lo, hi] with effective leading
// dimensions `ld` (from check_ld) and elements of `esize` bytes: its span,
// the products of the leading dimensions and extents, must not overflow 64
// bits nor run past the end of the address space (GDS_STATUS_INVALID_LD).
GDS_status_t check_buffer_span(const char *func, const Layout &layout, const Index *ld, const Index *lo,
                               const Index *hi, std::size_t esize, const void *buffer, const char *ld_name);

}  // namespace gds::core
