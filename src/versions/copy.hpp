// Copying blocks into version storage.
//
// A version copies blocks it will not read back soon; storing them around
// the cache (non-temporal stores) saves the reads a normal store makes of
// each destination line, which for block-sized copies halves the memory
// traffic. One implementation per architecture (copy_*.cpp, chosen by CMake).
#pragma once

#include <cstddef>

namespace gds::versions {

// Copies n bytes to dst (which need not be read again soon).
void copy_out(void *dst, const void *src, std::size_t n);
// Orders all copy_out stores before what follows (call once after a batch).
void copy_out_fence();

}  // namespace gds::versions
