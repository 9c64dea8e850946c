#include "core/check.hpp"

#include "core/log.hpp"
#include "core/util.hpp"

namespace gds::core {

namespace {
using gds::core::ull;
}  // namespace

GDS_status_t box_error(const char *func, const Layout &layout, const Index *lo, const Index *hi,
                       const char *lo_name, const char *hi_name) {
  GDS_CHECK(lo != nullptr, GDS_STATUS_NULL_ARGUMENT, "%s is NULL", lo_name);
  GDS_CHECK(hi != nullptr, GDS_STATUS_NULL_ARGUMENT, "%s is NULL", hi_name);
  const Dims &count = layout.count();
  for (std::size_t d = 0; d < count.size(); ++d) {
    if (lo[d] > hi[d])
      return fail(GDS_STATUS_INVALID_BOX, func, "%s[%zu]=%llu > %s[%zu]=%llu", lo_name, d, ull(lo[d]),
                  hi_name, d, ull(hi[d]));
    if (hi[d] >= count[d])
      return fail(GDS_STATUS_RANGE, func, "%s[%zu]=%llu is outside the array (extent %llu)", hi_name,
                  d, ull(hi[d]), ull(count[d]));
  }
  return fail(GDS_STATUS_INTERNAL, func, "box_error called on a valid box");
}

GDS_status_t check_index(const char *func, const Layout &layout, const Index *index, const char *name) {
  GDS_CHECK(index != nullptr, GDS_STATUS_NULL_ARGUMENT, "%s is NULL", name);
  const Dims &count = layout.count();
  for (std::size_t d = 0; d < count.size(); ++d)
    if (index[d] >= count[d]) [[unlikely]]
      return fail(GDS_STATUS_RANGE, func, "%s[%zu]=%llu is outside the array (extent %llu)", name, d,
                  ull(index[d]), ull(count[d]));
  return GDS_STATUS_OK;
}

GDS_status_t check_ld_dims(const char *func, const Layout &layout, const Index *ld, const Index *lo,
                           const Index *hi, const char *name, Index *out) {
  const std::size_t n = layout.ndims();
  // Row-major: ld[d] is the extent of buffer dimension d+1; column-major: of dimension d.
  const std::size_t shift = layout.order() == Order::row_major ? 1 : 0;
  for (std::size_t d = 0; d + 1 < n; ++d) {
    const std::size_t dim = d + shift;
    const Index extent = hi[dim] - lo[dim] + 1;
    const Index v = ld == nullptr || ld[d] == 0 ? extent : ld[d];
    if (v < extent) [[unlikely]]
      return fail(GDS_STATUS_INVALID_LD, func, "%s[%zu]=%llu < %llu, the box's extent in dimension %zu",
                  name, d, ull(v), ull(extent), dim);
    out[d] = v;
  }
  return GDS_STATUS_OK;
}

GDS_status_t check_buffer_span(const char *func, const Layout &layout, const Index *ld, const Index *lo,
                               const Index *hi, std::size_t esize, const void *buffer, const char *ld_name) {
  const std::size_t n = layout.ndims();
  const bool row = layout.order() == Order::row_major;
  // Offset of the box's last element: the sum of (extent - 1) x stride, each
  // stride a product of leading dimensions (only strides that are used count).
  Index stride = 1, last = 0;
  bool stride_overflowed = false;
  bool ok = true;
  for (std::size_t k = n; k-- > 0 && ok;) {
    const std::size_t d = layout.storage_dim(k);
    const Index steps = hi[d] - lo[d];
    Index term = 0;
    if (steps > 0)
      ok = !stride_overflowed && !__builtin_mul_overflow(steps, stride, &term) && !__builtin_add_overflow(last, term, &last);
    if (k > 0) stride_overflowed = stride_overflowed || __builtin_mul_overflow(stride, row ? ld[d - 1] : ld[d], &stride);
  }
  Index bytes = 0;
  ok = ok && !__builtin_add_overflow(last, Index{1}, &last) && !__builtin_mul_overflow(last, esize, &bytes) &&
       fits_address_space(buffer, bytes);
  GDS_CHECK(ok, GDS_STATUS_INVALID_LD,
            "%s: a buffer with these leading dimensions would span more than the address space (its offsets "
            "overflow 64 bits or run past the end of memory)",
            ld_name);
  return GDS_STATUS_OK;
}

}  // namespace gds::core
