// The version store of one array on one process.
//
// A process's part of the array is cut into blocks of 2^shift bytes. A
// frozen version is a block table: for every block, the slot holding its
// content. Slots live in slabs: memory of MPI windows allocated collectively
// (inside GDS_version_inc, which is collective anyway), so any process reads
// any version of any part one-sidedly with two operations: the table entries
// it needs, then the blocks. Tables live in slots of their own slabs; where
// each process's table of a version is, every process learns when the
// version is made.
//
// Slots are reference counted: a block unchanged since the previous version
// points at the same slot, so a version costs what changed. kZero stands for
// an all-zero block and takes no memory. `base` says which slot equals each
// block of the current content while the block is clean (not written since
// the last version or restore); the next version takes base for clean blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "gds_version.h"
#include "rma/window.hpp"
#include "rma/write_log.hpp"

namespace gds::versions {

using SlotRef = std::uint64_t;  // slab << 32 | slot
inline constexpr SlotRef kZero = ~SlotRef{0};
inline constexpr SlotRef make_ref(std::uint32_t slab, std::uint32_t slot) {
  return (SlotRef{slab} << 32) | slot;
}
inline constexpr std::uint32_t slab_of(SlotRef r) { return static_cast<std::uint32_t>(r >> 32); }
inline constexpr std::uint32_t slot_of(SlotRef r) { return static_cast<std::uint32_t>(r); }

struct Retention {
  std::uint64_t max_versions = 0;  // 0: no limit
  std::uint64_t max_bytes = 0;     // 0: no limit
};

struct Version {
  std::uint64_t number = 0;
  std::string label;
  std::vector<SlotRef> tables;  // per rank: where its block table is (kZero: it has no blocks)
};

class Store {
 public:
  Store(MPI_Comm comm, int rank, unsigned shift, std::uint64_t local_bytes, Retention retention);
  Store(const Store &) = delete;
  Store &operator=(const Store &) = delete;

  [[nodiscard]] unsigned shift() const { return shift_; }
  [[nodiscard]] std::uint64_t block_bytes() const { return std::uint64_t{1} << shift_; }
  [[nodiscard]] std::uint32_t nblocks() const { return nblocks_; }
  [[nodiscard]] std::uint64_t local_bytes() const { return local_bytes_; }
  // Blocks of another process, whose part has `bytes` bytes.
  [[nodiscard]] std::uint32_t nblocks_of(std::uint64_t bytes) const {
    return static_cast<std::uint32_t>((bytes + block_bytes() - 1) >> shift_);
  }

  [[nodiscard]] const std::deque<Version> &versions() const { return versions_; }
  // The retained version with this number, or nullptr.
  [[nodiscard]] const Version *find(std::uint64_t number) const;
  // Whether some version (retained or dropped) had this number.
  [[nodiscard]] bool existed(std::uint64_t number) const;
  [[nodiscard]] bool dropped(std::uint64_t number) const { return existed(number) && find(number) == nullptr; }

  // Blocks of this process's memory that may have been written (direct
  // access: the application had a pointer). They are compared with base at
  // the next version_inc or restore, so a region only read, or rewritten
  // with equal values, costs no copy.
  void suspect(const std::vector<rma::BlockRange> &exposed);

  // --- GDS_version_inc, in the order it calls them ---------------------------------
  // Blocks of this process's memory that differ from base: `written` (ranges
  // others and this process reported), suspect blocks that differ from base
  // in `memory`, and for GDS_create arrays every block that differs.
  void mark_dirty(const std::vector<rma::BlockRange> &written);
  void compare_suspects(const std::byte *memory);
  void compare_dirty(const std::byte *memory);
  [[nodiscard]] std::uint32_t dirty_count() const { return static_cast<std::uint32_t>(dirty_list_.size()); }
  // Slots short for a version of the dirty blocks: data slots and table slots.
  void shortage(std::uint64_t *data, std::uint64_t *tables) const;
  // Collective when any process is short (the caller agreed on it): a slab
  // for each kind with `data` and `tables` slots here (0 is fine).
  GDS_status_t grow(const char *func, bool data_slab, std::uint64_t data, bool table_slab, std::uint64_t tables);
  // Bytes the last failed grow() could not get (for the error GDS raises).
  [[nodiscard]] std::uint64_t failed_bytes() const { return failed_bytes_; }
  // Copies the dirty blocks of `memory` into slots and writes the new table.
  // Nothing becomes visible or owned until commit(); abandon() undoes it.
  GDS_status_t freeze(const char *func, const std::byte *memory, SlotRef *table_location);
  void commit(std::uint64_t number, std::string label, std::vector<SlotRef> tables);
  void abandon();
  // How many of the oldest versions retention wants gone here (never the
  // newest). Without a byte budget every process wishes the same.
  [[nodiscard]] std::uint64_t drop_wish() const;
  [[nodiscard]] bool has_byte_budget() const { return retention_.max_bytes > 0; }
  // Drops the `count` oldest versions (never the newest).
  void drop_oldest(std::uint64_t count);

  // --- GDS_version_restore ---------------------------------------------------------
  // Copies into `memory` every block that differs between `v` and the
  // current content (dirty, or base differing from v's table).
  void restore(const Version &v, std::byte *memory);

  // --- reading ---------------------------------------------------------------------
  // The slab holding a slot reference (for reads of this or other processes).
  [[nodiscard]] rma::Window &slab_window(std::uint32_t slab) { return slabs_[slab]->window; }
  [[nodiscard]] const std::byte *local_slot(SlotRef r) const;
  [[nodiscard]] std::uint64_t slot_bytes(std::uint32_t slab) const { return slabs_[slab]->slot_bytes; }
  [[nodiscard]] const SlotRef *local_table(const Version &v) const;
  // Table slot size of a process with `nblocks` blocks (tables are per process).
  [[nodiscard]] static std::uint64_t table_bytes(std::uint32_t nblocks) { return std::uint64_t{nblocks} * sizeof(SlotRef); }
  // Data slot size of a process whose part has `bytes` bytes: a block, or
  // less for a part smaller than one.
  [[nodiscard]] std::uint64_t data_slot_bytes(std::uint64_t bytes) const {
    return std::min(block_bytes(), (bytes + 63) / 64 * 64);
  }

  [[nodiscard]] GDS_version_stats_t stats(std::uint64_t current) const;
  // Collective: frees every slab window.
  GDS_status_t release(const char *func);

 private:
  struct Slab {
    rma::Window window;
    std::byte *base = nullptr;
    std::uint64_t slot_bytes = 0;  // this process's slot size in this slab
    std::uint32_t slots = 0;       // this process's slots
    std::vector<std::uint32_t> refs;
    bool tables = false;
  };
  void acquire(SlotRef r);
  void release_ref(SlotRef r);
  SlotRef take(std::vector<SlotRef> &free);
  [[nodiscard]] std::uint64_t bytes_of_block(std::uint32_t b) const;
  // Marks block b dirty if `memory` differs from base there.
  void compare_block(std::uint32_t b, const std::byte *memory);
  [[nodiscard]] std::byte *slot_memory(SlotRef r) const;

  MPI_Comm comm_;
  int rank_;
  unsigned shift_;
  std::uint64_t local_bytes_;
  std::uint32_t nblocks_;
  Retention retention_;

  std::vector<std::unique_ptr<Slab>> slabs_;  // slab id = index, the same on every process
  std::vector<SlotRef> free_data_, free_tables_;
  std::uint64_t data_slots_ = 0, table_slots_ = 0;  // totals over slabs

  std::vector<SlotRef> base_;          // per block
  std::vector<std::uint8_t> dirty_;    // per block
  std::vector<std::uint32_t> dirty_list_;
  std::uint64_t failed_bytes_ = 0;
  std::vector<std::uint8_t> suspect_;  // per block
  std::vector<std::uint32_t> suspect_list_;
  std::deque<Version> versions_;       // retained, oldest first
  std::vector<std::uint64_t> numbers_; // every number ever frozen, ascending

  // A version being made by freeze(), until commit() or abandon().
  std::vector<SlotRef> pending_table_;
  std::vector<SlotRef> pending_slots_;  // data slots taken for it
  SlotRef pending_table_slot_ = kZero;
};

// Fault injection (GDS_inject_fault): the `after`-th next growth of a version
// store on this process gets no memory; 0 cancels.
void inject_memory_failure(std::uint64_t after);

}  // namespace gds::versions
