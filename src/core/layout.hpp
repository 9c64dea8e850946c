// Where the elements of an array live: which process, and where in its buffer.
//
// BlockLayout (GDS_alloc) cuts every dimension into nearly equal blocks over
// a process grid and answers in O(1) per dimension. UserLayout (GDS_create)
// asks the application's mapping functions, element by element.
#pragma once

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <vector>

#include "gds_array.h"
#include "gds_types.h"

namespace gds::core {

using Index = GDS_size_t;
inline constexpr std::size_t kInlineDims = 8;
using Dims = boost::container::small_vector<Index, kInlineDims>;
// Largest number of dimensions an array may have (GDS_STATUS_INVALID_NDIMS beyond).
inline constexpr std::size_t kMaxDims = 64;

enum class Order { row_major, col_major };

class Layout {
 public:
  Layout(Dims count, Order order);
  virtual ~Layout() = default;
  Layout(const Layout &) = delete;
  Layout &operator=(const Layout &) = delete;

  [[nodiscard]] std::size_t ndims() const { return count_.size(); }
  [[nodiscard]] const Dims &count() const { return count_; }
  [[nodiscard]] Order order() const { return order_; }
  [[nodiscard]] Index volume() const { return volume_; }
  [[nodiscard]] virtual GDS_flavor_t flavor() const = 0;

  // Owner of element `index` and its offset in the owner's buffer. `index`
  // must be inside the array; fails only for a faulty user mapping.
  virtual GDS_status_t locate(const char *func, const Index *index, int *rank,
                              Index *offset) const = 0;

  // Storage-order position of dimension `k` (0 = slowest varying).
  [[nodiscard]] std::size_t storage_dim(std::size_t k) const {
    return order_ == Order::row_major ? k : ndims() - 1 - k;
  }

  // Advances g to the next index of box [lo, hi] in storage order; false after the last.
  bool next_index(const Index *lo, const Index *hi, Index *g) const {
    for (std::size_t k = ndims(); k-- > 0;) {
      const std::size_t d = storage_dim(k);
      if (g[d] < hi[d]) {
        ++g[d];
        return true;
      }
      g[d] = lo[d];
    }
    return false;
  }

 private:
  Dims count_;
  Order order_;
  Index volume_;
};

// One owner's part of a box, as BlockLayout::for_each_owner reports it.
struct BlockPiece {
  int rank;
  const Index *lo;        // first index of the part (global)
  const Index *hi;        // last index of the part (global)
  const Index *block_lo;  // first index of the owner's block
  const Index *block_ext; // extents of the owner's block
};

class BlockLayout final : public Layout {
 public:
  // The process grid GDS_alloc uses (see gds_array.h): the most processes
  // that the extents and minimum chunks allow; among those grids the one with
  // the smallest sum of block extents; ties split the slowest dimension first.
  static Dims choose_grid(const Dims &count, const Index *min_chunks, int nprocs, Order order);

  BlockLayout(Dims count, Dims grid, Order order);

  [[nodiscard]] GDS_flavor_t flavor() const override { return GDS_FLAVOR_ALLOC; }
  GDS_status_t locate(const char *func, const Index *index, int *rank,
                      Index *offset) const override;

  [[nodiscard]] const Dims &grid() const { return grid_; }
  [[nodiscard]] int nblocks() const { return nblocks_; }
  // Largest block extent along `d` (attribute GDS_CHUNK_SIZE).
  [[nodiscard]] Index chunk(std::size_t d) const { return dims_[d].q + (dims_[d].r > 0 ? 1 : 0); }

  // The box a rank owns; false if it owns nothing.
  bool owned_box(int rank, Index *lo, Index *hi) const;
  // Number of elements a rank stores.
  [[nodiscard]] Index local_volume(int rank) const;

  // Calls fn(const BlockPiece&) once for every rank owning part of [lo, hi].
  template <class F>
  void for_each_owner(const Index *lo, const Index *hi, F &&fn) const;

  // One dimension: fn(rank, first, last, block_first) for every owner of [lo, hi].
  template <class F>
  void for_each_owner_1d(Index lo, Index hi, F &&fn) const {
    const bool split = grid_[0] > 1;
    const Index k_last = split ? block_of(0, hi) : 0;
    for (Index k = split ? block_of(0, lo) : 0; k <= k_last; ++k) {
      const Index first = block_lo(0, k), last = first + block_ext(0, k) - 1;
      fn(static_cast<int>(k), lo > first ? lo : first, hi < last ? hi : last, first);
    }
  }

 private:
  struct Split {
    Index q;      // n / b
    Index r;      // n % b: the first r blocks hold q + 1
    Index split;  // r * (q + 1): first index of the short blocks
  };
  [[nodiscard]] Index block_of(std::size_t d, Index i) const {
    const Split &s = dims_[d];
    if (i < s.split) return i / (s.q + 1);
    return s.r + (i - s.split) / s.q;
  }
  [[nodiscard]] Index block_lo(std::size_t d, Index k) const {
    const Split &s = dims_[d];
    return k * s.q + (k < s.r ? k : s.r);
  }
  [[nodiscard]] Index block_ext(std::size_t d, Index k) const {
    const Split &s = dims_[d];
    return s.q + (k < s.r ? 1 : 0);
  }
  bool block_coords(int rank, Index *k) const;

  Dims grid_;
  boost::container::small_vector<Split, kInlineDims> dims_;
  Dims rank_stride_;  // rank = sum k[d] * rank_stride_[d]
  int nblocks_;
};

template <class F>
void BlockLayout::for_each_owner(const Index *lo, const Index *hi, F &&fn) const {
  const std::size_t n = ndims();
  Index kf[kMaxDims], kl[kMaxDims], kk[kMaxDims], pl[kMaxDims], ph[kMaxDims], bl[kMaxDims],
      be[kMaxDims];
  for (std::size_t d = 0; d < n; ++d) {
    kf[d] = grid_[d] == 1 ? 0 : block_of(d, lo[d]);
    kl[d] = grid_[d] == 1 ? 0 : block_of(d, hi[d]);
    kk[d] = kf[d];
  }
  for (;;) {
    Index rank = 0;
    for (std::size_t d = 0; d < n; ++d) {
      bl[d] = block_lo(d, kk[d]);
      be[d] = block_ext(d, kk[d]);
      pl[d] = lo[d] > bl[d] ? lo[d] : bl[d];
      const Index bhi = bl[d] + be[d] - 1;
      ph[d] = hi[d] < bhi ? hi[d] : bhi;
      rank += kk[d] * rank_stride_[d];
    }
    fn(BlockPiece{static_cast<int>(rank), pl, ph, bl, be});
    // Next block, last dimension fastest; done when every dimension wrapped.
    std::size_t d = n;
    for (;;) {
      if (d == 0) return;
      --d;
      if (kk[d] < kl[d]) {
        ++kk[d];
        break;
      }
      kk[d] = kf[d];
    }
  }
}

// A GDS_create() mapping, with or without an application context.
struct Mapping {
  GDS_global_to_local_func_t g2l = nullptr;
  GDS_local_to_global_func_t l2g = nullptr;
  GDS_global_to_local_ctx_func_t g2l_ctx = nullptr;
  GDS_local_to_global_ctx_func_t l2g_ctx = nullptr;
  void *context = nullptr;

  GDS_status_t to_local(const Index *global, int *rank, Index *offset) const {
    return g2l != nullptr ? g2l(global, rank, offset) : g2l_ctx(global, rank, offset, context);
  }
  GDS_status_t to_global(Index offset, Index *global) const {
    return l2g != nullptr ? l2g(offset, global) : l2g_ctx(offset, global, context);
  }
};

class UserLayout final : public Layout {
 public:
  UserLayout(Dims count, Order order, Mapping mapping, std::vector<Index> local_counts);

  [[nodiscard]] GDS_flavor_t flavor() const override { return GDS_FLAVOR_CREATE; }
  GDS_status_t locate(const char *func, const Index *index, int *rank,
                      Index *offset) const override;

  // Global index of a local offset of the calling process.
  GDS_status_t to_global(const char *func, Index offset, Index *global) const;
  [[nodiscard]] Index local_count(int rank) const { return local_counts_[rank]; }

 private:
  Mapping mapping_;
  std::vector<Index> local_counts_;
};

}  // namespace gds::core
