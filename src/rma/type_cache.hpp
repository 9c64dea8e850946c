// MPI descriptions of strided n-dimensional memory, cached by shape.
//
// A region is given in storage order (slowest dimension first) as extents
// and strides in elements. Dimensions of extent 1 are dropped and adjacent
// dimensions that are contiguous are merged, so a contiguous region becomes
// (n, element type) with no derived type at all, and every other region a
// committed nest of MPI_Type_create_hvector, built once per shape and kept
// until GDS_finalize.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "core/layout.hpp"

namespace gds::rma {

using core::Index;

// Largest count or extent a single MPI argument may carry.
inline constexpr Index kMaxMpiCount = 0x7fffffff;

struct TypeSpec {
  int count;
  MPI_Datatype type;
};

// Describes `n` dimensions of extents `ext` and strides `stride` (elements).
// Every extent must be at most kMaxMpiCount.
GDS_status_t describe(const char *func, MPI_Datatype elem, std::size_t elem_extent, const Index *ext,
                      const Index *stride, std::size_t n, TypeSpec *out);

// Frees every cached datatype (GDS_finalize).
void clear_type_cache();

// Datatypes for scattered runs of elements, freed with this object: runs
// (lengths in elements, offsets in elements of `esize` bytes) become one
// hindexed type; a single run needs none (count and base offset instead).
class RunTypes {
 public:
  RunTypes() = default;
  RunTypes(const RunTypes &) = delete;
  RunTypes &operator=(const RunTypes &) = delete;
  ~RunTypes();
  GDS_status_t make(const char *func, const std::vector<int> &length, const std::vector<MPI_Aint> &offset,
                    MPI_Datatype elem, std::size_t esize, TypeSpec *out, MPI_Aint *base);

 private:
  std::vector<MPI_Datatype> made_;
};

}  // namespace gds::rma
