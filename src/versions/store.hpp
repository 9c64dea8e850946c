// The version store of one array on one process.
//
// A process's part of the array is cut into blocks of 2^shift bytes. A
// frozen version is a block table: for every block, the slot holding its
// content. Slots live in slabs: memory GDS maps (aligned for transparent
// huge pages) and exposes through an MPI window made collectively (inside
// GDS_version_inc, which is collective anyway, only when a store must grow),
// so any process reads any version of any part one-sidedly. Tables live in
// slots of their own slabs, and each process's directory (a slab of one
// slot per retained version, indexed by the version's index modulo its
// size) says where its table of each version is: nothing about tables
// crosses processes when a version is made; a reader of another process's
// old version gets its directory entry, then the table entries it needs,
// then the blocks (read.cpp).
//
// A slot holds one block's content from the version that made it on. It
// stays while the current content's `base` (which slot equals each clean
// block) points at it, and after that until the last retained version that
// contains it is dropped: versions contain a slot over a run of versions,
// and retention drops the oldest first, so a slot that leaves `base` is
// filed under the newest version containing it and freed when that version
// goes. A version therefore costs what changed, in copies and in
// bookkeeping alike. kZero stands for an all-zero block and takes no memory.
//
// The store is three parts: the slabs (slabs.hpp: memory, windows, free
// slots), the change set (change_set.hpp: which blocks differ from base),
// and what is here: the block tables, the directory, base and retention.
//
#pragma once

#include <algorithm>
#include <cstddef>
#include <atomic>
#include <cstdint>
#include <functional>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gds_version.h"
#include "rma/window.hpp"
#include "rma/write_log.hpp"
#include "versions/change_set.hpp"
#include "versions/slabs.hpp"

namespace gds::versions {

// A version copying at most this many bytes of an array stores them through
// the cache (copy.hpp): a state this small stays in the caches between versions.
inline constexpr std::uint64_t kCachedCopyBytes = std::uint64_t{256} << 10;
struct Retention {
  std::uint64_t max_versions = 0;  // 0: no limit
  std::uint64_t max_bytes = 0;     // 0: no limit
  // The default budget (no GDS_MAX_VERSION_BYTES given): also bounds what all
  // of this process's stores hold together (0: no such bound).
  std::uint64_t process_bytes = 0;
};

struct Version {
  std::uint64_t index = 0;   // in the order versions were made, from 0
  std::uint64_t number = 0;
  std::string label;
  SlotRef table = kZero;     // where this process's block table is (kZero: it has no blocks)
  std::uint64_t made = 0;    // core::next_event() when it was made (0: replayed by a restart)
  // Where other processes' tables are, as reads learnt them (rank, slot).
  mutable std::vector<std::pair<int, SlotRef>> tables_read;
};

class Store {
 public:
  Store(MPI_Comm comm, unsigned shift, std::uint64_t local_bytes, Retention retention, bool prefault);
  ~Store();
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
  // How many blocks are dirty.
  [[nodiscard]] std::uint32_t dirty_count() const { return changes_.count(); }
  // The dirty blocks, as runs (first, count), ascending.
  [[nodiscard]] std::vector<std::pair<std::uint32_t, std::uint32_t>> dirty_runs() const;
  // What a version of the dirty blocks lacks: data slots, table slots, and
  // whether the directory is full (the same on every process: versions are).
  struct Shortage {
    std::uint64_t data = 0, tables = 0;
    bool directory = false;
  };
  [[nodiscard]] Shortage shortage() const;
  // Collective when any process is short (the caller agreed on which kinds):
  // a slab of each kind asked for, of this process's own size (0 slots is fine).
  GDS_status_t grow(const char *func, bool data_slab, bool table_slab, bool directory_slab, const Shortage &need);
  // Bytes the last failed grow() could not get (for the error GDS raises).
  [[nodiscard]] std::uint64_t failed_bytes() const { return failed_bytes_; }
  // Writes bytes [offset, offset + bytes) of this process's part to dst.
  using Fill = std::function<void(std::uint64_t offset, std::uint64_t bytes, std::byte *dst)>;
  // Copies the dirty blocks of `memory` (or has `fill` write them) into
  // slots and writes the new table. With `compare`, every clean block is
  // compared with its base first (GDS_create arrays: the program writes
  // their memory directly), in the same pass as the copy where the room
  // allows: a block changed is copied while it is in the cache; or, where
  // fewer than a quarter of the blocks were the same at the last version,
  // every block is copied and those whose checksum matches their base's
  // compared after (their copies given back if equal). *short_of
  // (with compare) becomes whether the room ran out: then nothing is frozen,
  // the dirty blocks are known, and the caller grows and freezes again.
  // Nothing becomes visible or owned until commit(); abandon() undoes it.
  GDS_status_t freeze(const char *func, const std::byte *memory, const Fill &fill = nullptr, bool compare = false,
                      bool *short_of = nullptr);
  // Whether freeze() made a version that commit() has not taken.
  [[nodiscard]] bool frozen() const { return pending_frozen_; }
  // Where block b of that version is (nullptr: the all-zero block).
  [[nodiscard]] const std::byte *frozen_block(std::uint32_t b) const {
    return pending_table_[b] == kZero ? nullptr : slot_memory(pending_table_[b]);
  }
  void commit(std::uint64_t number, std::string label);
  void abandon();
  // How many of the oldest versions retention wants gone here (never the
  // newest), with the version frozen counted as made (it is the newest).
  // Without a byte budget every process wishes the same.
  [[nodiscard]] std::uint64_t drop_wish() const;
  [[nodiscard]] bool has_byte_budget() const { return retention_.max_bytes > 0 || retention_.process_bytes > 0; }
  [[nodiscard]] const Retention &retention() const { return retention_; }
  // Bytes the other stores of this process hold (as they last published).
  [[nodiscard]] std::uint64_t others_stored() const;
  // Drops the `count` oldest versions (never the newest).
  void drop_oldest(std::uint64_t count);

  // --- checksums ------------------------------------------------------------------
  // Every data slot keeps the CRC32C of its block, taken as freeze() copied it.
  // The CRC32C of block b's content as slot r (kZero: the all-zero block) holds it.
  [[nodiscard]] std::uint32_t stored_crc(SlotRef r, std::uint32_t b) const;
  // Per block, the CRC32C of the version freeze() made and commit() has not yet taken.
  [[nodiscard]] std::vector<std::uint32_t> pending_crcs() const;
  // The blocks of version v (those set in `wanted`, a bit per block; every
  // block if it is empty) whose stored bytes no longer match their checksum.
  [[nodiscard]] std::vector<std::uint32_t> verify(const Version &v, const std::vector<std::uint64_t> &wanted) const;

  // --- GDS_version_restore ---------------------------------------------------------
  // Copies into `memory` every block that differs between `v` and the
  // current content (dirty, or base differing from v's table).
  void restore(const Version &v, std::byte *memory);

  // --- reading ---------------------------------------------------------------------
  // The slab holding a slot reference (for reads of this or other processes).
  [[nodiscard]] rma::Window &slab_window(std::uint32_t slab) { return slabs_[slab].window; }
  [[nodiscard]] const std::byte *local_slot(SlotRef r) const { return slot_memory(r); }
  [[nodiscard]] const SlotRef *local_table(const Version &v) const;
  // Where any process's directory entry of version v is: the slab and the
  // byte in it (every process's directory is alike).
  [[nodiscard]] std::uint32_t directory_slab() const { return directory_; }
  [[nodiscard]] std::uint64_t directory_at(const Version &v) const;
  // Table slot size of a process with `nblocks` blocks (tables are per process).
  [[nodiscard]] static std::uint64_t table_bytes(std::uint32_t nblocks) {
    return (std::uint64_t{nblocks} * sizeof(SlotRef) + 7) / 8 * 8;
  }
  // Data slot size of a process whose part has `bytes` bytes: a block, or
  // less for a part smaller than one.
  [[nodiscard]] std::uint64_t data_slot_bytes(std::uint64_t bytes) const {
    return std::min(block_bytes(), (bytes + 63) / 64 * 64);
  }

  [[nodiscard]] GDS_version_stats_t stats(std::uint64_t current) const;
  // Waits for the memory being prepared in the background.
  void wait_background() const { slabs_.wait_background(); }
  // Collective: frees every slab window.
  GDS_status_t release(const char *func);

 private:
  using Kind = SlabKind;
  using Run = SlotRun;
  // Copies one run of dirty blocks into slots (may split it); false if a slot was missing.
  bool copy_run(std::uint32_t first, std::uint32_t count, const std::byte *memory, const Fill &fill);
  // Compares the clean blocks with their base, copying those that changed while room lasts
  // (or copies all, then compares those whose checksum matches: copy_all_).
  void compare_and_copy(const std::byte *memory, bool *short_of);
  [[nodiscard]] std::uint64_t directory_slots() const;
  // Block b's base slot is replaced (by a new version's slot, or a restore):
  // the old one is filed under the newest version containing it, or freed.
  void leave_base(std::uint32_t b);
  void set_base(std::uint32_t b, SlotRef r, std::uint64_t since);
  // Whether dropping the version with this index frees retired slot r.
  [[nodiscard]] bool would_free(SlotRef r, std::uint64_t index) const;
  // Base slots the frozen version's commit retires under the newest version (changed blocks').
  [[nodiscard]] std::uint64_t leaving_base() const;
  [[nodiscard]] std::uint64_t oldest_index() const { return next_index_ - versions_.size(); }
  [[nodiscard]] bool keeps_every_version() const { return retention_.max_versions == 0 && retention_.max_bytes == 0; }
  [[nodiscard]] std::uint64_t free_slots(Kind kind) const { return slabs_.free_slots(kind); }
  [[nodiscard]] std::uint64_t bytes_of_block(std::uint32_t b) const;
  // Marks block b dirty if `memory` differs from base there.
  void compare_block(std::uint32_t b, const std::byte *memory);
  [[nodiscard]] bool is_dirty(std::uint32_t b) const { return changes_.dirty(b); }
  [[nodiscard]] std::byte *slot_memory(SlotRef r) const { return slabs_.slot_memory(r); }
  unsigned shift_;
  std::uint64_t local_bytes_;
  std::uint32_t nblocks_;
  Retention retention_;
  std::atomic<std::uint64_t> published_{0};  // bytes stored, for others_stored() of the other stores
  void publish();
  bool prefault_;
  bool cached_copy_ = false;  // this version's copy goes through the cache (kCachedCopyBytes)
  bool copy_all_ = false;       // a compared array's versions copy every block (few were the same)
  bool next_copy_all_ = false;  // what the version frozen found: copy_all_ from its commit on

  Slabs slabs_;                               // the versions' memory
  ChangeSet changes_;                         // what the current content changed since its base
  std::vector<SlotRef> base_;                 // per block
  std::vector<std::uint64_t> base_since_;     // per block: index of the first version its base slot went into
  std::uint64_t next_index_ = 0;              // index the next version gets
  // Slots that left base, by the index of the newest version containing them.
  std::deque<std::vector<SlotRef>> retired_;  // [0] is oldest_index()
  std::uint64_t failed_bytes_ = 0;
  std::deque<Version> versions_;              // retained, oldest first
  std::vector<std::uint64_t> numbers_;        // every number ever frozen, ascending
  mutable std::uint32_t zero_crc_[2] = {};    // CRC32C of an all-zero block: whole, and the last (shorter) one
  mutable bool zero_crc_known_ = false;

  // A version being made by freeze(), until commit() or abandon().
  std::vector<SlotRef> pending_table_;
  std::vector<Run> pending_runs_;  // data slots taken for it
  SlotRef pending_table_slot_ = kZero;
  bool pending_frozen_ = false;
  std::uint32_t directory_ = kMaxSlabs;  // the current directory slab (kMaxSlabs: none yet)
};

// Fault injection (GDS_inject_fault, GDS_FAULT_VERSION_CORRUPT): the next
// freeze on this process flips a bit of the stored copy of its `k`-th changed
// block (the last if it has fewer), after checksumming it; 0 cancels.
void inject_corruption(std::uint64_t k);

// Fault injection (GDS_inject_fault): the `after`-th next growth of a version
// store on this process gets no memory; 0 cancels.
void inject_memory_failure(std::uint64_t after);

}  // namespace gds::versions
