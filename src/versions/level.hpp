// The levels a version is kept at: memory (this module's version store),
// and the levels above it that the persist module registers (the cache,
// then the prefix), so that versions calls them without including them
// (dependencies point one way).
//
// Every level implements one interface: persist a version's changed blocks
// (a version group's in one call: prepare, then start), locate a block of a
// version, drop a version. GDS_version_inc hands every version it makes to
// the levels above memory (phase `persist`, then `start` once the version's
// agreement went through): the version is committed in memory only if they
// succeeded. At restart, the persist module asks its levels for what they
// hold and replays it into memory versions with replay() (persist/levels.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/array.hpp"
#include "core/collective.hpp"
#include "gds_types.h"
#include "gds_persist.h"
#include "gds_version.h"

namespace gds::versions {

// Runs (first block, count) of this process's blocks, ascending.
using BlockRuns = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

// A version GDS_version_inc has frozen and not yet committed.
struct Frozen {
  std::uint64_t number = 0;      // the version's number
  std::uint64_t next = 0;        // the current version's number once it exists
  const std::string *label = nullptr;       // the version's label
  const std::string *next_label = nullptr;  // the current version's label once it exists
  BlockRuns changed;             // blocks that changed since the previous version
  std::vector<std::uint32_t> crcs;  // per block, the CRC32C of the version's content (taken at freeze)
  // Where block b of the version is: its frozen copy, checksummed as it was
  // copied and never written again while the version lives (nullptr: an
  // all-zero block). Not the array's memory, which may change once the
  // version is frozen: whatever lands there, a level stores the bytes the
  // checksums describe.
  std::function<const std::byte *(std::uint32_t)> block;
  std::uint64_t bytes = 0;       // of the part
  unsigned shift = 0;            // log2 of the block size
  bool valid = true;             // false: this process could not freeze it (the agreement will fail)
};

// Blocks [first, first + count) of this process's part, stored one after
// the other from byte `at` of a version's storage at a level (a cache
// file's offset, a flushed version's local byte).
struct Stored {
  std::uint32_t first = 0, count = 0;
  std::uint64_t at = 0;
};

// Where a block of a version lives at a level.
struct Location {
  std::uint64_t holder = 0;  // the version whose storage holds it (older than the version if incremental)
  std::uint64_t at = 0;      // its byte in that storage
  const std::byte *memory = nullptr;  // memory: its bytes (nullptr: an all-zero block)
};

// What a level holds of an array's versions on this process: per version,
// the blocks stored with it; every other block is the previous entry's
// (entries of a chain are consecutive). Oldest first.
class Catalogue {
 public:
  struct Entry {
    std::uint64_t number = 0, next = 0;  // the version, and the current version after it
    std::string label, next_label;
    bool full = false;          // every block is stored with it
    bool navigable = true;      // restart makes a memory version of it (else only its content goes on)
    std::vector<Stored> own;    // the blocks stored with it, ascending
  };
  std::vector<Entry> entries;

  [[nodiscard]] bool empty() const { return entries.empty(); }
  // The entry of version `number`, or nullptr.
  [[nodiscard]] const Entry *find(std::uint64_t number) const;
  // Where block `block` of entry `i` is: the newest entry up to i that
  // stores it; nullopt if none does (a chain cut short).
  [[nodiscard]] std::optional<Location> locate(std::size_t i, std::uint32_t block, unsigned shift) const;
  // Drops the entries older than version `number` (which no entry kept
  // may need: the caller keeps the chain of every version it retains).
  void drop_older_than(std::uint64_t number);
};

// An array's blocks as runs: all of them.
BlockRuns all_blocks(std::uint32_t nblocks);
// The runs of entry `e`'s own blocks.
BlockRuns own_runs(const Catalogue::Entry &e);

class Level {
 public:
  virtual ~Level() = default;
  // GDS_LEVEL_CACHE, GDS_LEVEL_PREFIX, or GDS_LEVEL_NONE for memory.
  [[nodiscard]] virtual int id() const = 0;
  [[nodiscard]] virtual const char *name() const = 0;
  // Whether the array has this level (the same on every process).
  [[nodiscard]] virtual bool holds(const core::Array &a) const = 0;

  // Phase persist of a version of `members` (one array, or a version
  // group's members, on one communicator; `group`: the group's name, else
  // nullptr), versions[i] being member i's (`valid` false where this
  // process could not freeze it). In two steps around the version's one
  // agreement, which GDS_version_inc makes for every member and every level:
  // prepare, before it: local and point-to-point work only, reached by every
  // process whatever it found so far (`local`); returns this process's
  // status, which the agreement settles. The level may reserve values in
  // `ballot`; their maxima over the processes come back to start().
  virtual GDS_status_t prepare(const char * /*func*/, std::span<core::Array *const> /*members*/,
                               std::span<const Frozen> /*versions*/, GDS_status_t /*local*/,
                               const std::string * /*group*/, core::Ballot & /*ballot*/) {
    return GDS_STATUS_OK;
  }
  // start, once the agreement went through: the level makes the version
  // durable (collective, in phases of its own, each agreed) and returns a
  // status every process agrees on. On failure no member keeps the version
  // at this level, and the version is abandoned in memory too. A level
  // that makes a version restorable in one step (the cache's commit record)
  // makes it one step for all members.
  virtual GDS_status_t start(const char * /*func*/, std::span<core::Array *const> /*members*/,
                             const core::Ballot & /*ballot*/) {
    return GDS_STATUS_OK;
  }
  // The version prepared is not made (the agreement failed, or its round is
  // made again): the level forgets what prepare made. Local.
  virtual void abandon(std::span<core::Array *const> /*members*/) {}
  // GDS_group_create (collective): why arrays `a` and `b` cannot be in one
  // group at this level ("" if they can); then the group `name` of
  // `members` is opened (the level forgets what it held of an earlier group
  // of that name that is not on the members' timeline).
  [[nodiscard]] virtual std::string differs(const core::Array & /*a*/, const core::Array & /*b*/) const { return ""; }
  virtual GDS_status_t open_group(const char * /*func*/, const std::string & /*name*/,
                                  std::span<core::Array *const> /*members*/) {
    return GDS_STATUS_OK;
  }
  // What the array's restart found at this level, if the level reports it
  // (GDS_get_restart_info); false if not.
  virtual bool restart_info(const core::Array & /*a*/, GDS_restart_info_t * /*info*/) const { return false; }
  // GDS_version_inc committed version `number` in memory (collective, after
  // commit). The level may start work off the application's path that reads
  // the version's blocks (locate() at memory) until drop() is called for it.
  // Failures of that work are the level's to raise: the version exists.
  virtual void committed(const char *, core::Array &, std::uint64_t) {}
  // GDS_version_restore took the current content back to `number`; the
  // next version may differ from the last committed one anywhere.
  virtual void restored(core::Array &, std::uint64_t) {}
  // Drop: retention drops version `number` from memory (local). A level
  // above memory ends the work that reads its blocks there; memory frees
  // them after every level did.
  virtual void drop(core::Array &a, std::uint64_t number) = 0;

  // Locate: where block `block` of version `number` is at this level
  // (this process's part), or nullopt if the level does not hold it.
  [[nodiscard]] virtual std::optional<Location> locate(core::Array &a, std::uint64_t number,
                                                       std::uint32_t block) const = 0;

};

// The memory level (this module's version store; always there).
Level &memory();
// This process's blocks of retained version `number` in memory: where each
// block's content is (nullptr: an all-zero block). Empty if it is not
// retained.
std::vector<const std::byte *> version_blocks(core::Array &a, std::uint64_t number);

// The levels above memory, in order (set by the persist module).
std::span<Level *const> levels();
void set_levels(std::vector<Level *> levels);

// GDS_group_create, once the processes agreed on the members and before
// they are reconciled (collective over their communicator): names the
// members the program did not name after the group, and restarts them
// under that name. Set by the persist module; nullptr: nothing to do.
using MemberNaming = GDS_status_t (*)(const char *func, const std::string &group,
                                      std::span<core::Array *const> members);
MemberNaming member_naming();
void set_member_naming(MemberNaming naming);

// How replay() makes a version other than from the array's memory.
struct ReplayOptions {
  // Where the content comes from instead (the memory is left alone):
  // fill(offset, bytes, dst) writes bytes [offset, offset + bytes) of this
  // process's part to dst. Its failures are for `check` to report.
  std::function<void(std::uint64_t offset, std::uint64_t bytes, std::byte *dst)> fill;
  // A look at the frozen version before it is committed: GDS_STATUS_OK or
  // why it must not be (the check reports it). Local.
  std::function<GDS_status_t(const Frozen &v)> check;
};

// Restart: makes version `number` (label `label`) from the array's current
// memory, of which this process wrote the blocks `changed` since the last
// replay (or from options.fill); the current version is then `next` with
// `next_label`. Collective, in ascending order of numbers, before the
// application uses the array. With a check, the version is made only if it
// passes on every process; *refused (required then) says whether it did
// not, and nothing was made.
GDS_status_t replay(const char *func, core::Array &a, std::uint64_t number, std::string label, std::uint64_t next,
                    std::string next_label, const BlockRuns &changed, const ReplayOptions &options = {},
                    bool *refused = nullptr);

}  // namespace gds::versions
