// MPI descriptions of strided n-dimensional memory, and their owners.
//
// A region is given in storage order (slowest dimension first) as extents
// and strides in elements. Dimensions of extent 1 are dropped and adjacent
// dimensions that are contiguous are merged, so a contiguous region becomes
// (n, element type) with no derived type at all, and every other region a
// committed nest of MPI_Type_create_hvector, built once per shape and cached.
//
// Every derived datatype has an owner that frees it: a Datatype, or a
// SharedType counted by the cache and by each request that uses it, so the
// cache can forget a type while a request still holds it.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/layout.hpp"

namespace gds::rma {

using core::Index;

// Largest count or extent a single MPI argument may carry.
inline constexpr Index kMaxMpiCount = 0x7fffffff;

// A committed derived datatype, freed by the destructor.
class Datatype {
 public:
  Datatype() = default;
  explicit Datatype(MPI_Datatype t) : type_(t) {}
  Datatype(Datatype &&o) noexcept : type_(std::exchange(o.type_, MPI_DATATYPE_NULL)) {}
  Datatype &operator=(Datatype &&o) noexcept {
    std::swap(type_, o.type_);
    return *this;
  }
  Datatype(const Datatype &) = delete;
  Datatype &operator=(const Datatype &) = delete;
  ~Datatype() {
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
  }
  [[nodiscard]] MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

// A Datatype with several holders.
using SharedType = std::shared_ptr<const Datatype>;

// `count` repetitions of `type`; `hold` keeps a derived type alive as long as the spec.
struct TypeSpec {
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  SharedType hold;
};

// Describes `n` dimensions of extents `ext` and strides `stride` (elements).
// Every extent must be at most kMaxMpiCount.
GDS_status_t describe(const char *func, MPI_Datatype elem, std::size_t elem_extent, const Index *ext,
                      const Index *stride, std::size_t n, TypeSpec *out);

// Forgets every cached datatype (GDS_finalize); holders keep theirs.
void clear_type_cache();

// Datatypes for scattered runs of elements, owned by this object: runs
// (lengths in elements, offsets in elements of `esize` bytes) become one
// hindexed type; a single run needs none (count and base offset instead).
class RunTypes {
 public:
  GDS_status_t make(const char *func, const std::vector<int> &length, const std::vector<MPI_Aint> &offset,
                    MPI_Datatype elem, std::size_t esize, TypeSpec *out, MPI_Aint *base);

 private:
  std::vector<Datatype> made_;
};

}  // namespace gds::rma
