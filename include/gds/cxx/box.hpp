/// \file box.hpp
/// \brief gds::box: an n-dimensional box of global indices, both ends included.
#ifndef GDS_CXX_BOX_HPP
#define GDS_CXX_BOX_HPP

#include <cstddef>
#include <initializer_list>
#include <vector>

#include "../gds.h"
#include "error.hpp"

namespace gds {

/// Index, extent and count type: 64 bits (GDS_size_t).
using index_t = GDS_size_t;

/// An n-dimensional box of indices, inclusive at both ends, 0-based.
struct box {
  /// The first index in every dimension.
  std::vector<index_t> lo;
  /// The last index in every dimension.
  std::vector<index_t> hi;

  box() = default;
  /// The box from `first` to `last`; throws gds::error if their dimensions differ.
  box(std::vector<index_t> first, std::vector<index_t> last) : lo(std::move(first)), hi(std::move(last)) {
    if (lo.size() != hi.size())
      detail::raise(GDS_STATUS_INVALID_NDIMS, "gds::box: lo and hi have different numbers of dimensions");
  }
  /// The box holding one element.
  static box point(std::vector<index_t> at) { return box(at, at); }

  /// Number of dimensions.
  [[nodiscard]] std::size_t ndims() const noexcept { return lo.size(); }
  /// Extent along dimension `d`.
  [[nodiscard]] index_t extent(std::size_t d) const noexcept { return hi[d] - lo[d] + 1; }
  /// Number of elements.
  [[nodiscard]] index_t size() const noexcept {
    index_t n = 1;
    for (std::size_t d = 0; d < ndims(); ++d) n *= extent(d);
    return n;
  }
  /// Equal when both corners are.
  friend bool operator==(const box &, const box &) = default;
};

}  // namespace gds

#endif  // GDS_CXX_BOX_HPP
