// The transfer planner: turns a checked data-access request on a box into
// one MPI operation per process that owns part of the box.
#pragma once

#include <type_traits>

#include "core/array.hpp"
#include "rma/datatype.hpp"
#include "rma/state.hpp"

namespace gds::rma {

using core::Index;

enum class Kind { put, get, acc, get_acc };

// A request whose arguments have been checked.
struct Request {
  Kind kind;
  void *local;             // put/acc/get_acc: the operands; get: the destination
  const Index *local_ld;   // ndims-1 effective leading dimensions of `local`
  void *result = nullptr;  // get_acc: receives the previous content
  const Index *result_ld = nullptr;
  const Index *lo;
  const Index *hi;
  MPI_Op op = MPI_OP_NULL;  // acc, get_acc
};

// A request on a 1-D GDS_alloc array within one MPI count: contiguous runs.
GDS_status_t transfer_line(const char *func, core::Array &a, const Request &r);
// Any other request.
GDS_status_t transfer_general(const char *func, core::Array &a, const Request &r);

inline GDS_status_t transfer(const char *func, core::Array &a, const Request &r) {
  if (a.blocks != nullptr && a.ndims() == 1 && r.hi[0] - r.lo[0] < kMaxMpiCount) [[likely]]
    return transfer_line(func, a, r);
  return transfer_general(func, a, r);
}

// MPI_Compare_and_swap on one element.
GDS_status_t compare_and_swap(const char *func, core::Array &a, const void *compare,
                              const void *source, void *result, const Index *index);

// Element strides, indexed by array dimension, of a buffer with leading
// dimensions ld (ndims-1 values in the convention of origin_ld).
void buffer_strides(const core::Layout &layout, const Index *ld, Index *stride);

// One owner's part of a box in storage order (innermost dimension last):
// extents, strides in a buffer holding the box and in the owner's block,
// and where the part starts in each (elements).
struct PieceShape {
  std::size_t n = 0;
  Index ext[core::kMaxDims];
  Index buffer_stride[core::kMaxDims];
  Index block_stride[core::kMaxDims];
  Index buffer_offset = 0;
  Index block_offset = 0;
};

// The shape of piece `p` of box [box_lo, ...] for a buffer with strides
// `buffer_stride` (indexed by array dimension, from buffer_strides).
void shape_piece(const core::Layout &layout, const Index *box_lo, const Index *buffer_stride,
                 const core::BlockPiece &p, PieceShape *out);

// Calls fn(buffer_offset, block_offset, length) for every innermost run of
// a piece (elements; runs are contiguous in the owner's block).
// With `result` (the same piece in a second buffer), fn(buffer_offset,
// block_offset, length, result_offset).
template <class F>
void for_each_run(const PieceShape &s, F &&fn, const PieceShape *result = nullptr) {
  const std::size_t n = s.n;
  Index idx[core::kMaxDims] = {};
  for (;;) {
    Index b = s.buffer_offset, t = s.block_offset, r = result != nullptr ? result->buffer_offset : 0;
    for (std::size_t k = 0; k + 1 < n; ++k) {
      b += idx[k] * s.buffer_stride[k];
      t += idx[k] * s.block_stride[k];
      if (result != nullptr) r += idx[k] * result->buffer_stride[k];
    }
    if constexpr (std::is_invocable_v<F, Index, Index, Index, Index>)
      fn(b, t, s.ext[n - 1], r);
    else
      fn(b, t, s.ext[n - 1]);
    std::size_t k = n - 1;
    for (;;) {
      if (k == 0) return;
      --k;
      if (++idx[k] < s.ext[k]) break;
      idx[k] = 0;
    }
  }
}

// Logs that box [lo, hi] of this process's own block was open to direct
// stores (GDS_access DIRECT): the versions module compares its blocks.
void expose_box(core::Array &a, const Index *lo, const Index *hi);

}  // namespace gds::rma
