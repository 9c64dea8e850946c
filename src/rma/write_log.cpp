#include "rma/write_log.hpp"

#include <algorithm>

namespace gds::rma {

void WriteLog::record_slow(std::vector<BlockRange> &log, std::size_t &compact_at, int rank, std::uint32_t first,
                           std::uint32_t last) {
  if (!log.empty()) {
    BlockRange &r = log.back();
    // Overlapping or adjacent to the last range: extend it.
    if (r.rank == rank && first <= r.last + 1 && last + 1 >= r.first) {
      r.first = std::min(r.first, first);
      r.last = std::max(r.last, last);
      return;
    }
  }
  log.push_back(BlockRange{rank, first, last});
  if (log.size() >= compact_at) {
    compact(log);
    // Grow the threshold with what compaction cannot shrink.
    compact_at = std::max<std::size_t>(4096, 2 * log.size());
  }
}

void WriteLog::compact(std::vector<BlockRange> &log) {
  std::sort(log.begin(), log.end(), [](const BlockRange &a, const BlockRange &b) {
    return a.rank != b.rank ? a.rank < b.rank : a.first < b.first;
  });
  std::size_t out = 0;
  for (std::size_t i = 0; i < log.size(); ++i) {
    if (out > 0 && log[out - 1].rank == log[i].rank && log[i].first <= log[out - 1].last + 1) {
      log[out - 1].last = std::max(log[out - 1].last, log[i].last);
    } else {
      log[out++] = log[i];
    }
  }
  log.resize(out);
}

std::vector<BlockRange> &WriteLog::written() {
  compact(log_);
  return log_;
}

std::vector<BlockRange> &WriteLog::exposed() {
  compact(exposed_);
  return exposed_;
}

}  // namespace gds::rma
