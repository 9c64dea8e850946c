// Reading a frozen version (GDS_get through a handle at an old version).
#pragma once

#include "core/array.hpp"

namespace gds::versions {

// Reads box [lo, hi] of version `number` into `dest` (leading dimensions
// `dest_ld`, ndims-1 effective values). One-sided: the owners do nothing.
// Complete on return: it needs the block tables before it knows where to
// read, so it waits for them, and then for the blocks.
GDS_status_t read(const char *func, core::Array &a, std::uint64_t number, void *dest,
                  const core::Index *dest_ld, const core::Index *lo, const core::Index *hi);

}  // namespace gds::versions
