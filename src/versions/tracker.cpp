#include "versions/tracker.hpp"

#include <algorithm>

namespace gds::versions {

void Tracker::record_slow(int rank, std::uint32_t first, std::uint32_t last) {
  if (!log_.empty()) {
    BlockRange &r = log_.back();
    // Overlapping or adjacent to the last range: extend it.
    if (r.rank == rank && first <= r.last + 1 && last + 1 >= r.first) {
      r.first = std::min(r.first, first);
      r.last = std::max(r.last, last);
      return;
    }
  }
  log_.push_back(BlockRange{rank, first, last});
  if (log_.size() >= compact_at_) {
    compact();
    // Grow the threshold with what compaction cannot shrink.
    compact_at_ = std::max<std::size_t>(4096, 2 * log_.size());
  }
}

void Tracker::compact() {
  std::sort(log_.begin(), log_.end(), [](const BlockRange &a, const BlockRange &b) {
    return a.rank != b.rank ? a.rank < b.rank : a.first < b.first;
  });
  std::size_t out = 0;
  for (std::size_t i = 0; i < log_.size(); ++i) {
    if (out > 0 && log_[out - 1].rank == log_[i].rank && log_[i].first <= log_[out - 1].last + 1) {
      log_[out - 1].last = std::max(log_[out - 1].last, log_[i].last);
    } else {
      log_[out++] = log_[i];
    }
  }
  log_.resize(out);
}

std::vector<BlockRange> &Tracker::merged() {
  compact();
  return log_;
}

}  // namespace gds::versions
