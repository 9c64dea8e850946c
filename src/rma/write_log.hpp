// What this process wrote through an array's window since the log was last
// drained: which blocks of which process's memory. The versions module
// configures the block size and drains the log at GDS_version_inc.
//
// Writes are recorded by the process that issues them, at the origin: a
// one-sided write gives the target no chance to see it. A range is a run of
// blocks on one process; consecutive writes to the same or adjacent blocks
// extend the last range, so a loop writing one element costs a compare and
// a write loop over a region costs one range per touched run. Regions of its
// own memory this process opened to direct stores (GDS_access) are logged
// apart: they may or may not have been written.
//
// Whether this process wrote into another process's memory, or into its own,
// since the last drain is known even where the log records no ranges: a version that
// leaves out the exchange on the guess that no process wrote into another's
// memory must learn that the guess was wrong whatever the kind of array.
#pragma once

#include <cstdint>
#include <vector>

namespace gds::rma {

struct BlockRange {
  int rank;
  std::uint32_t first;  // first block
  std::uint32_t last;   // last block (inclusive)
};

class WriteLog {
 public:
  // Blocks of 2^shift bytes; a disabled log records no ranges.
  void configure(int self, unsigned shift, bool enabled) {
    self_ = self;
    shift_ = shift;
    enabled_ = enabled;
  }
  [[nodiscard]] bool enabled() const { return enabled_; }

  // A write of `bytes` (> 0) bytes at byte `offset` of `rank`'s local memory.
  void record(int rank, std::uint64_t offset, std::uint64_t bytes) {
    if (static_cast<std::size_t>(rank) >= targets_.size()) [[unlikely]] targets_.resize(static_cast<std::size_t>(rank) + 1);
    ++targets_[static_cast<std::size_t>(rank)];
    if (rank == self_) wrote_self_ = true;
    else wrote_others_ = true;
    if (!enabled_) return;
    const auto first = static_cast<std::uint32_t>(offset >> shift_);
    const auto last = static_cast<std::uint32_t>((offset + bytes - 1) >> shift_);
    if (!log_.empty()) {
      BlockRange &r = log_.back();
      if (r.rank == rank && first >= r.first && last <= r.last) [[likely]] return;
    }
    record_slow(log_, compact_at_, rank, first, last);
  }
  // Bytes [offset, offset + bytes) of this process's memory (rank `self`)
  // were open to direct stores.
  void expose(int self, std::uint64_t offset, std::uint64_t bytes) {
    if (!enabled_ || bytes == 0) return;
    record_slow(exposed_, exposed_compact_at_, self, static_cast<std::uint32_t>(offset >> shift_),
                static_cast<std::uint32_t>((offset + bytes - 1) >> shift_));
  }

  // How many writes this process has issued to each process's memory since
  // the array was made (never drained): a containment domain compares them
  // to learn whether its work wrote outside its processes.
  [[nodiscard]] const std::vector<std::uint64_t> &targets() const { return targets_; }

  // Whether this process wrote into another process's memory, or into its
  // own, since the last drain (known with the log off too).
  [[nodiscard]] bool wrote_others() const { return wrote_others_; }
  [[nodiscard]] bool wrote_self() const { return wrote_self_; }

  // The ranges recorded, merged, sorted by rank then block.
  std::vector<BlockRange> &written();
  std::vector<BlockRange> &exposed();
  void clear() {
    log_.clear();
    exposed_.clear();
    wrote_others_ = wrote_self_ = false;
  }

 private:
  static void record_slow(std::vector<BlockRange> &log, std::size_t &compact_at, int rank, std::uint32_t first,
                          std::uint32_t last);
  // Sorts and merges in place (also done as a log grows, bounding its size
  // by the number of distinct ranges written).
  static void compact(std::vector<BlockRange> &log);

  std::vector<BlockRange> log_, exposed_;
  std::vector<std::uint64_t> targets_;
  std::size_t compact_at_ = 4096, exposed_compact_at_ = 4096;
  int self_ = 0;
  unsigned shift_ = 14;
  bool enabled_ = false;
  bool wrote_others_ = false, wrote_self_ = false;
};

}  // namespace gds::rma
