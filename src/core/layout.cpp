#include "core/layout.hpp"

#include <limits>

#include "core/log.hpp"

namespace gds::core {

Layout::Layout(Dims count, Order order) : count_(std::move(count)), order_(order), volume_(1) {
  for (Index c : count_) volume_ *= c;
}

namespace {

// Depth-first search over ordered factorizations of `p` into one factor per
// dimension, factor d at most maxb[d]; keeps the one with the lowest cost.
struct GridSearch {
  const Dims &count;
  const Dims &maxb;
  const std::vector<std::size_t> &slow_first;  // dimensions, slowest varying first
  Dims current;
  Dims best;
  Index best_cost = std::numeric_limits<Index>::max();
  bool found = false;

  static Index ceil_div(Index a, Index b) { return (a + b - 1) / b; }

  void visit(std::size_t depth, Index remaining, Index cost) {
    const std::size_t d = slow_first[depth];
    if (depth + 1 == slow_first.size()) {
      if (remaining > maxb[d]) return;
      current[d] = remaining;
      const Index total = cost + ceil_div(count[d], remaining);
      // Strictly lower cost wins: the first grid found at a cost splits the
      // slower dimensions more, because larger factors are tried first there.
      if (!found || total < best_cost) {
        best = current;
        best_cost = total;
        found = true;
      }
      return;
    }
    for (Index f = remaining < maxb[d] ? remaining : maxb[d]; f >= 1; --f) {
      if (remaining % f != 0) continue;
      current[d] = f;
      visit(depth + 1, remaining / f, cost + ceil_div(count[d], f));
    }
  }
};

}  // namespace

Dims BlockLayout::choose_grid(const Dims &count, const Index *min_chunks, int nprocs, Order order) {
  const std::size_t n = count.size();
  Dims maxb(n);
  Index capacity = 1;  // product of maxb, saturated at nprocs
  for (std::size_t d = 0; d < n; ++d) {
    const Index mc = (min_chunks != nullptr && min_chunks[d] > 1) ? min_chunks[d] : 1;
    Index m = count[d] / mc;
    maxb[d] = m < 1 ? 1 : m;
    if (capacity < static_cast<Index>(nprocs)) {
      const Index c = maxb[d] > static_cast<Index>(nprocs) ? static_cast<Index>(nprocs) : maxb[d];
      capacity = capacity * c > static_cast<Index>(nprocs) ? static_cast<Index>(nprocs) : capacity * c;
    }
  }
  std::vector<std::size_t> slow_first(n);
  for (std::size_t k = 0; k < n; ++k) slow_first[k] = order == Order::row_major ? k : n - 1 - k;

  GridSearch search{count, maxb, slow_first, Dims(n, 1), Dims(n, 1)};
  for (Index p = capacity; p >= 1; --p) {
    search.visit(0, p, 0);
    if (search.found) return search.best;
  }
  return Dims(n, 1);
}

BlockLayout::BlockLayout(Dims count, Dims grid, Order order)
    : Layout(std::move(count), order), grid_(std::move(grid)), nblocks_(1) {
  const std::size_t n = ndims();
  dims_.resize(n);
  rank_stride_.resize(n);
  for (std::size_t d = 0; d < n; ++d) {
    const Index c = this->count()[d], b = grid_[d];
    dims_[d] = Split{c / b, c % b, (c % b) * (c / b + 1)};
    nblocks_ *= static_cast<int>(b);
  }
  // Ranks enumerate blocks in the array's order.
  Index stride = 1;
  for (std::size_t k = n; k-- > 0;) {
    const std::size_t d = storage_dim(k);
    rank_stride_[d] = stride;
    stride *= grid_[d];
  }
}

bool BlockLayout::block_coords(int rank, Index *k) const {
  if (rank < 0 || rank >= nblocks_) return false;
  Index r = static_cast<Index>(rank);
  for (std::size_t kk = 0; kk < ndims(); ++kk) {
    const std::size_t d = storage_dim(kk);
    k[d] = r / rank_stride_[d];
    r %= rank_stride_[d];
  }
  return true;
}

bool BlockLayout::owned_box(int rank, Index *lo, Index *hi) const {
  Dims k(ndims());
  if (!block_coords(rank, k.data())) return false;
  for (std::size_t d = 0; d < ndims(); ++d) {
    lo[d] = block_lo(d, k[d]);
    hi[d] = lo[d] + block_ext(d, k[d]) - 1;
  }
  return true;
}

Index BlockLayout::local_volume(int rank) const {
  Dims k(ndims());
  if (!block_coords(rank, k.data())) return 0;
  Index v = 1;
  for (std::size_t d = 0; d < ndims(); ++d) v *= block_ext(d, k[d]);
  return v;
}

GDS_status_t BlockLayout::locate(const char *, const Index *index, int *rank, Index *offset) const {
  Index r = 0, off = 0;
  for (std::size_t kk = 0; kk < ndims(); ++kk) {
    const std::size_t d = storage_dim(kk);
    const Index k = grid_[d] == 1 ? 0 : block_of(d, index[d]);
    r += k * rank_stride_[d];
    off = off * block_ext(d, k) + (index[d] - block_lo(d, k));
  }
  *rank = static_cast<int>(r);
  *offset = off;
  return GDS_STATUS_OK;
}

UserLayout::UserLayout(Dims count, Order order, Mapping mapping, std::vector<Index> local_counts)
    : Layout(std::move(count), order), mapping_(mapping), local_counts_(std::move(local_counts)) {}

GDS_status_t UserLayout::locate(const char *func, const Index *index, int *rank,
                                Index *offset) const {
  int r = -1;
  Index off = 0;
  const GDS_status_t s = mapping_.to_local(index, &r, &off);
  if (s != GDS_STATUS_OK) [[unlikely]]
    return fail(GDS_STATUS_INVALID_MAPPING, func,
                "global_to_local returned status %d for index [%llu%s]", static_cast<int>(s),
                static_cast<unsigned long long>(index[0]), ndims() > 1 ? ", ..." : "");
  if (r < 0 || static_cast<std::size_t>(r) >= local_counts_.size()) [[unlikely]]
    return fail(GDS_STATUS_INVALID_MAPPING, func,
                "global_to_local gave rank %d for index [%llu%s]; the array has %zu processes", r,
                static_cast<unsigned long long>(index[0]), ndims() > 1 ? ", ..." : "",
                local_counts_.size());
  if (off >= local_counts_[static_cast<std::size_t>(r)]) [[unlikely]]
    return fail(GDS_STATUS_INVALID_MAPPING, func,
                "global_to_local gave offset %llu on rank %d for index [%llu%s]; that rank's "
                "buffer has %llu elements",
                static_cast<unsigned long long>(off), r, static_cast<unsigned long long>(index[0]),
                ndims() > 1 ? ", ..." : "",
                static_cast<unsigned long long>(local_counts_[static_cast<std::size_t>(r)]));
  *rank = r;
  *offset = off;
  return GDS_STATUS_OK;
}

GDS_status_t UserLayout::to_global(const char *func, Index offset, Index *global) const {
  const GDS_status_t s = mapping_.to_global(offset, global);
  if (s != GDS_STATUS_OK)
    return fail(GDS_STATUS_INVALID_MAPPING, func, "local_to_global returned status %d for offset %llu",
                static_cast<int>(s), static_cast<unsigned long long>(offset));
  for (std::size_t d = 0; d < ndims(); ++d)
    if (global[d] >= count()[d])
      return fail(GDS_STATUS_INVALID_MAPPING, func,
                  "local_to_global gave index %llu in dimension %zu for offset %llu; the extent "
                  "is %llu",
                  static_cast<unsigned long long>(global[d]), d,
                  static_cast<unsigned long long>(offset),
                  static_cast<unsigned long long>(count()[d]));
  return GDS_STATUS_OK;
}

}  // namespace gds::core
