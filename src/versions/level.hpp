// Persistent levels under the memory versions: the interface a level above
// versions (src/persist) registers, so that versions calls it without
// including it (dependencies point one way).
//
// GDS_version_inc hands every version it makes to the level, in a phase of
// its own (`persist`, between freeze and commit): the version is committed
// in memory only if the level agreed. At restart the level rebuilds the
// memory versions with replay().
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/array.hpp"
#include "gds_types.h"

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
  const std::byte *memory = nullptr;  // this process's part: the version's content, unchanging during the phase
  std::uint64_t bytes = 0;       // of the part
  unsigned shift = 0;            // log2 of the block size
};

class Level {
 public:
  virtual ~Level() = default;
  // Whether the array has this level (the same on every process).
  [[nodiscard]] virtual bool holds(const core::Array &a) const = 0;
  // Phase persist (collective over the array; returns a status every process
  // agrees on). `local` is what this process found so far (settled into the
  // agreement); a failure leaves the level without the version.
  virtual GDS_status_t commit(const char *func, core::Array &a, const Frozen &v, GDS_status_t local) = 0;
  // GDS_version_restore took the current content back to `number`; the
  // next version may differ from the last committed one anywhere.
  virtual void restored(core::Array &a, std::uint64_t number) = 0;
  // GDS_version_inc committed version `number` in memory (collective, after
  // commit). The level may start work off the application's path that reads
  // the version's blocks (version_blocks()) until dropping() is called for
  // it. Failures of that work are the level's to raise: the version exists.
  virtual void committed(const char *func, core::Array &a, std::uint64_t number) = 0;
  // Retention is about to drop version `number` here: work reading its
  // blocks must end first (local).
  virtual void dropping(core::Array &a, std::uint64_t number) = 0;
};

// This process's blocks of retained version `number`: where each block's
// content is (nullptr: an all-zero block). Empty if it is not retained.
std::vector<const std::byte *> version_blocks(core::Array &a, std::uint64_t number);

// The level above memory (nullptr: none); set by the persist module.
Level *level();
void set_level(Level *l);

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
