// The change set of one array's part on one process: which blocks of the
// current content differ from their base (dirty: to be copied by the next
// version) and which may (suspect: the program had a pointer to them; they
// are compared before the next version or restore). A bit per block each.
// Part of the version store (store.hpp), which decides what makes a block
// dirty; this only keeps the bits and their count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/bits.hpp"
#include "rma/write_log.hpp"

namespace gds::versions {

class ChangeSet {
 public:
  explicit ChangeSet(std::uint32_t nblocks)
      : nblocks_(nblocks), dirty_(core::words_for(nblocks), 0), suspect_(core::words_for(nblocks), 0) {}

  [[nodiscard]] bool dirty(std::uint32_t b) const { return (dirty_[b >> 6] >> (b & 63)) & 1u; }
  void set_dirty(std::uint32_t b) {
    std::uint64_t &w = dirty_[b >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (b & 63);
    if ((w & bit) == 0) {
      w |= bit;
      ++count_;
    }
  }
  void set_clean(std::uint32_t b) {
    std::uint64_t &w = dirty_[b >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (b & 63);
    if ((w & bit) != 0) {
      w &= ~bit;
      --count_;
    }
  }
  // How many blocks are dirty.
  [[nodiscard]] std::uint32_t count() const { return count_; }
  // The blocks of `written` (ranges reported by puts), dirty.
  void mark(const std::vector<rma::BlockRange> &written) {
    for_each_block(written, [&](std::uint32_t b) { set_dirty(b); });
  }
  // The blocks of `exposed` (opened for direct access), suspect.
  void suspect(const std::vector<rma::BlockRange> &exposed) {
    for_each_block(exposed, [&](std::uint32_t b) { core::set_bit(suspect_, b); });
  }
  // fn(b) for every suspect block, ascending; none is suspect after.
  template <class F>
  void take_suspects(F &&fn) {
    core::for_each_run_of_bits(suspect_, nblocks_, [&](std::uint32_t first, std::uint32_t n) {
      for (std::uint32_t b = first; b < first + n; ++b) fn(b);
    });
    std::fill(suspect_.begin(), suspect_.end(), 0);
  }
  // fn(first, count) for every run of dirty blocks, ascending.
  template <class F>
  void for_each_run(F &&fn) const {
    core::for_each_run_of_bits(dirty_, nblocks_, std::forward<F>(fn));
  }
  [[nodiscard]] std::vector<std::pair<std::uint32_t, std::uint32_t>> runs() const {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
    for_each_run([&](std::uint32_t first, std::uint32_t n) { out.emplace_back(first, n); });
    return out;
  }
  // Every block clean (the current content is its base again).
  void clear() {
    std::fill(dirty_.begin(), dirty_.end(), 0);
    count_ = 0;
  }

 private:
  template <class F>
  void for_each_block(const std::vector<rma::BlockRange> &ranges, F &&fn) const {
    if (nblocks_ == 0) return;
    for (const rma::BlockRange &r : ranges) {
      const std::uint32_t last = std::min(r.last, nblocks_ - 1);
      for (std::uint32_t b = r.first; b <= last; ++b) fn(b);
    }
  }
  std::uint32_t nblocks_;
  std::vector<std::uint64_t> dirty_;    // per block, a bit
  std::uint32_t count_ = 0;             // dirty blocks
  std::vector<std::uint64_t> suspect_;  // per block, a bit
};

}  // namespace gds::versions
