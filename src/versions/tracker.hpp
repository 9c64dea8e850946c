// Change tracking: which blocks of which process's memory this process wrote
// since the last version.
//
// Writes are recorded by the process that issues them, at the origin: a
// one-sided write gives the target no chance to see it. GDS_version_inc
// sends every process the ranges written into its memory. A range is a run
// of blocks on one process; consecutive writes to the same or adjacent
// blocks extend the last range, so a loop writing one element costs a
// compare and a write loop over a region costs one range per touched run.
#pragma once

#include <cstdint>
#include <vector>

namespace gds::versions {

struct BlockRange {
  int rank;
  std::uint32_t first;  // first block
  std::uint32_t last;   // last block (inclusive)
};

class Tracker {
 public:
  // Block size 2^shift bytes; a disabled tracker records nothing
  // (GDS_create arrays are compared instead).
  void configure(unsigned shift, bool enabled) {
    shift_ = shift;
    enabled_ = enabled;
  }
  [[nodiscard]] bool enabled() const { return enabled_; }
  [[nodiscard]] unsigned shift() const { return shift_; }

  // A write of `bytes` (> 0) bytes at byte `offset` of `rank`'s local memory.
  void record(int rank, std::uint64_t offset, std::uint64_t bytes) {
    if (!enabled_) return;
    const auto first = static_cast<std::uint32_t>(offset >> shift_);
    const auto last = static_cast<std::uint32_t>((offset + bytes - 1) >> shift_);
    if (!log_.empty()) {
      BlockRange &r = log_.back();
      if (r.rank == rank && first >= r.first && last <= r.last) [[likely]] return;
    }
    record_slow(rank, first, last);
  }

  // The ranges recorded, merged, sorted by rank then block.
  std::vector<BlockRange> &merged();
  void clear() { log_.clear(); }

 private:
  void record_slow(int rank, std::uint32_t first, std::uint32_t last);
  // Sorts and merges in place (also done as the log grows, bounding its size
  // by the number of distinct ranges written).
  void compact();

  std::vector<BlockRange> log_;
  std::size_t compact_at_ = 4096;
  unsigned shift_ = 14;
  bool enabled_ = true;
};

}  // namespace gds::versions
