// The memory level, the list of the levels above it, and the catalogue
// (level.hpp).
#include <algorithm>

#include "core/collective.hpp"
#include "gds_version.h"
#include "versions/level.hpp"
#include "versions/state.hpp"

namespace gds::versions {

namespace {

std::vector<Level *> g_levels;

// Memory: the version store's retained versions, readable one-sidedly.
// GDS_version_inc makes its versions itself (freeze, commit); nothing of
// them outlives the job.
class Memory final : public Level {
 public:
  [[nodiscard]] int id() const override { return GDS_LEVEL_NONE; }
  [[nodiscard]] const char *name() const override { return "memory"; }
  [[nodiscard]] bool holds(const core::Array &) const override { return true; }
  // The frozen copies are the version: nothing to prepare or start.
  // The store frees the version's blocks (GDS_version_inc's commit phase).
  void drop(core::Array &, std::uint64_t) override {}
  [[nodiscard]] std::optional<Location> locate(core::Array &a, std::uint64_t number,
                                               std::uint32_t block) const override {
    const Store &store = *state(a).store;
    const Version *v = store.find(number);
    if (v == nullptr || block >= store.nblocks()) return std::nullopt;
    const SlotRef *table = store.local_table(*v);
    Location l{number, std::uint64_t{block} << store.shift(), nullptr};
    if (table != nullptr && table[block] != kZero) l.memory = store.local_slot(table[block]);
    return l;
  }
};

Memory g_memory;

}  // namespace

const Catalogue::Entry *Catalogue::find(std::uint64_t number) const {
  const auto it = std::lower_bound(entries.begin(), entries.end(), number,
                                   [](const Entry &e, std::uint64_t n) { return e.number < n; });
  return it != entries.end() && it->number == number ? &*it : nullptr;
}

std::optional<Location> Catalogue::locate(std::size_t i, std::uint32_t block, unsigned shift) const {
  for (std::size_t j = std::min(i + 1, entries.size()); j-- > 0;) {
    const Entry &e = entries[j];
    const auto run = std::upper_bound(e.own.begin(), e.own.end(), block,
                                      [](std::uint32_t b, const Stored &s) { return b < s.first; });
    if (run != e.own.begin()) {
      const Stored &s = *std::prev(run);
      if (block - s.first < s.count) return Location{e.number, s.at + (std::uint64_t{block - s.first} << shift), nullptr};
    }
    if (e.full) return std::nullopt;  // a full entry stores every block it has
  }
  return std::nullopt;
}

void Catalogue::drop_older_than(std::uint64_t number) {
  const auto keep = std::find_if(entries.begin(), entries.end(), [&](const Entry &e) { return e.number >= number; });
  entries.erase(entries.begin(), keep);
}

BlockRuns all_blocks(std::uint32_t nblocks) { return nblocks == 0 ? BlockRuns{} : BlockRuns{{0, nblocks}}; }

BlockRuns own_runs(const Catalogue::Entry &e) {
  BlockRuns runs;
  runs.reserve(e.own.size());
  for (const Stored &s : e.own) runs.emplace_back(s.first, s.count);
  return runs;
}

Level &memory() { return g_memory; }

std::vector<const std::byte *> version_blocks(core::Array &a, std::uint64_t number) {
  // locate() for every block at once.
  const Store &store = *state(a).store;
  const Version *v = store.find(number);
  if (v == nullptr) return {};
  std::vector<const std::byte *> blocks(store.nblocks(), nullptr);
  const SlotRef *table = store.local_table(*v);
  if (table == nullptr) return blocks;
  for (std::uint32_t b = 0; b < store.nblocks(); ++b)
    if (table[b] != kZero) blocks[b] = store.local_slot(table[b]);
  return blocks;
}

std::span<Level *const> levels() { return g_levels; }
void set_levels(std::vector<Level *> levels) { g_levels = std::move(levels); }

namespace {
MemberNaming g_member_naming = nullptr;
}  // namespace
MemberNaming member_naming() { return g_member_naming; }
void set_member_naming(MemberNaming naming) { g_member_naming = naming; }

}  // namespace gds::versions
