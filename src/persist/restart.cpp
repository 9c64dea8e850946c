// The one restart driver: the levels above memory are asked in order
// (cache, then prefix) for what they hold of the array (recover: a
// catalogue, their own metadata read and repaired); the first that has a
// version is replayed into memory versions, entry by entry, each block read
// from where the catalogue locates it; the levels are then told which
// version was taken. Phases, each ending agreed:
//   recover   the level's catalogue (cache: records gathered, a chain
//             chosen, its files checked and rebuilt; prefix: the flushes
//             every process can read)
//   replay    the entries, oldest first, into memory and memory versions;
//             an entry that cannot be read or does not check is skipped
//             (with the incremental entries after it)
//   settle    the array's memory back to the newest entry made, if a later
//             one failed half-written
//   record    the level records what it took (recovered), the others
//             forget what is not on its timeline (restarted_elsewhere)
#include <cstring>

#include "core/bits.hpp"
#include "core/collective.hpp"
#include "core/costs.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "persist/cache.hpp"
#include "persist/format.hpp"
#include "persist/levels.hpp"
#include "persist/prefix_level.hpp"
#include "persist/state.hpp"
#include "rma/state.hpp"
#include "versions/state.hpp"

using gds::core::Array;
using gds::versions::Catalogue;
using gds::versions::Stored;

namespace gds::persist {

namespace {

constexpr std::size_t kNoEntry = ~std::size_t{0};

// The block geometry of this process's part.
struct Geometry {
  unsigned shift;
  std::uint32_t nblocks;
  std::uint64_t part_bytes;
  [[nodiscard]] std::uint64_t start(std::uint32_t b) const { return std::uint64_t{b} << shift; }
  // Bytes of blocks [first, first + count).
  [[nodiscard]] std::uint64_t run_bytes(std::uint32_t first, std::uint32_t count) const {
    return std::min(start(first + count), part_bytes) - start(first);
  }
};

Geometry geometry(Array &a) {
  const versions::Store &st = *versions::state(a).store;
  return Geometry{st.shift(), st.nblocks(), st.local_bytes()};
}

// A level's entry refused on this process: said, raised, failed.
GDS_status_t refuse(const char *func, Array &a, const PersistentLevel &l, std::uint64_t number, const Result &why) {
  const std::string what = std::string("the ") + l.name() + "'s version " + std::to_string(number) + ": " + why.what();
  core::log(core::Level::warning, func, "array %s: %s", state(a).name.c_str(), what.c_str());
  core::fail(GDS_STATUS_CORRUPT, func, "%s", what.c_str());
  core::detected(func, &a, GDS_STATUS_CORRUPT,
                 core::Detected{nullptr, nullptr, static_cast<std::int64_t>(number), 0, a.rank, what.c_str()});
  return GDS_STATUS_CORRUPT;
}

// Entry i's own blocks into the array's memory (*written: marked).
Result write_own(const char *func, Array &a, Recovery &r, std::size_t i, const Geometry &g,
                 std::vector<std::uint64_t> *written, GDS_status_t *synced) {
  const Catalogue &c = r.catalogue;
  Result why;
  *synced = rma::write_local_part(func, a, [&](std::byte *memory) {
    for (const Stored &s : c.entries[i].own) {
      why = r.read(i, s.at, g.run_bytes(s.first, s.count), memory + g.start(s.first), c.entries[i].navigable);
      if (!why.ok()) break;
      core::add_bytes(core::Work::restart, g.run_bytes(s.first, s.count));
      for (std::uint32_t b = s.first; b < s.first + s.count; ++b) core::set_bit(*written, b);
    }
    return GDS_STATUS_OK;
  });
  return why;
}

// Bytes [offset, offset + bytes) of entry i's content (a full entry) to
// dst, through its own runs.
Result read_full(Recovery &r, std::size_t i, const Geometry &g, std::uint64_t offset, std::uint64_t bytes,
                 std::byte *dst) {
  for (const Stored &s : r.catalogue.entries[i].own) {
    const std::uint64_t lo = g.start(s.first), hi = lo + g.run_bytes(s.first, s.count);
    const std::uint64_t from = std::max(lo, offset), to = std::min(hi, offset + bytes);
    if (from >= to) continue;
    PERSIST_TRY(r.read(i, s.at + (from - lo), to - from, dst + (from - offset), true));
    core::add_bytes(core::Work::restart, to - from);
  }
  return {};
}

// Phase settle: the array's memory holds entry `good`'s content; where a
// later entry failed half-written (`needed`), it is made so again, each
// block read from the entry the catalogue locates it in (newest first).
GDS_status_t settle_memory(const char *func, Array &a, Recovery &r, std::size_t good, const Geometry &g, bool needed) {
  if (!needed) return kRestartSettle.end(func, a.communicator(), GDS_STATUS_OK);
  const Catalogue &c = r.catalogue;
  std::vector<std::uint64_t> filled(core::words_for(g.nblocks));
  Result why;
  const GDS_status_t synced = rma::write_local_part(func, a, [&](std::byte *memory) {
    for (std::size_t j = good + 1; j-- > 0 && why.ok();) {
      for (const Stored &s : c.entries[j].own)
        for (std::uint32_t b = s.first; b < s.first + s.count && why.ok(); ++b) {
          if (core::test_bit(filled, b)) continue;
          const std::optional<versions::Location> at = c.locate(good, b, g.shift);
          if (!at || at->holder != c.entries[j].number) continue;
          why = r.read(j, at->at, g.run_bytes(b, 1), memory + g.start(b), false);
          core::set_bit(filled, b);
        }
      if (c.entries[j].full) break;
    }
    return GDS_STATUS_OK;
  });
  return kRestartSettle.end(func, a.communicator(),
                            !why.ok() ? core::fail(GDS_STATUS_UNRECOVERABLE, func, "array %s: version %llu: %s",
                                                   state(a).name.c_str(), core::ull(c.entries[good].number),
                                                   why.what().c_str())
                                      : synced);
}

// Phase replay: the catalogue's entries, oldest first. An entry is written
// into memory (its own blocks over the previous entry's content), then made
// a memory version from it if navigable; a full entry followed by another
// full one is read straight into its version's memory instead. *good: the
// newest entry made; *navigable: how many were.
GDS_status_t replay_entries(const char *func, Array &a, const PersistentLevel &l, Recovery &r, std::size_t *good,
                            std::uint64_t *navigable) {
  const Catalogue &c = r.catalogue;
  const Geometry g = geometry(a);
  MPI_Comm comm = a.communicator();
  std::vector<std::uint64_t> written(core::words_for(g.nblocks));  // since the last version made from memory
  std::size_t memory_at = kNoEntry;  // the entry whose content the memory holds
  *good = kNoEntry;
  for (std::size_t i = 0; i < c.entries.size(); ++i) {
    const Catalogue::Entry &e = c.entries[i];
    if (!e.full && (i == 0 || memory_at != i - 1)) continue;  // its base is not in memory
    const bool fill = e.full && e.navigable && i + 1 < c.entries.size() && c.entries[i + 1].full;
    Result why;
    versions::ReplayOptions how;
    if (fill) {
      how.fill = [&](std::uint64_t offset, std::uint64_t bytes, std::byte *dst) {
        if (why.ok()) why = read_full(r, i, g, offset, bytes, dst);
      };
    } else {
      GDS_status_t synced = GDS_STATUS_OK;
      why = write_own(func, a, r, i, g, &written, &synced);
      std::uint64_t unreadable[1] = {!why.ok()};
      if (!why.ok()) refuse(func, a, l, e.number, why);
      GDS_TRY(kRestartReplay.end(func, comm, synced, unreadable));
      if (unreadable[0] != 0) {
        memory_at = kNoEntry;
        continue;
      }
      memory_at = i;
    }
    if (!e.navigable) continue;  // its content goes on into the next entry
    versions::BlockRuns runs;
    if (fill) {
      runs = versions::all_blocks(g.nblocks);
    } else {
      core::for_each_run_of_bits(written, g.nblocks,
                                 [&](std::uint32_t first, std::uint32_t count) { runs.emplace_back(first, count); });
      std::fill(written.begin(), written.end(), 0);
    }
    how.check = [&](const versions::Frozen &v) {
      if (why.ok()) why = r.check(i, v);
      return why.ok() ? GDS_STATUS_OK : refuse(func, a, l, e.number, why);
    };
    bool refused = false;
    GDS_TRY(versions::replay(func, a, e.number, e.label, e.next, e.next_label, runs, how, &refused));
    if (refused) {
      if (!fill) memory_at = kNoEntry;
      continue;
    }
    ++*navigable;
    *good = i;
  }
  if (*good != kNoEntry) GDS_TRY(settle_memory(func, a, r, *good, g, memory_at != *good));
  return GDS_STATUS_OK;
}

// Restarts not yet said (their notes are on the arrays' rank 0), and
// whether this job said one already (the later ones are information).
std::size_t g_unsaid = 0;
bool g_said = false;

// What a restart took, for the one line said of it (rank 0): the level,
// the version, what it holds, what was rebuilt.
void note_restart(const char *func, Array &a, const PersistentLevel &l, const Catalogue::Entry &e) {
  ArrayState &s = state(a);
  std::string note = std::string("from the ") + l.name() + ": version " + std::to_string(e.number);
  if (!e.next_label.empty()) note += " holding \"" + e.next_label + "\"";
  if (l.id() == GDS_LEVEL_CACHE && s.distributed_files != 0)
    note += " (directories of processes that moved sent from the nodes that held them)";
  if (l.id() == GDS_LEVEL_CACHE && s.fetched_files != 0) note += " (fetched from the prefix's scavenged copy)";
  if (l.id() == GDS_LEVEL_CACHE)
    note += s.info.rebuilt_files == 0 ? ", nothing rebuilt"
                                      : std::string(", ") + copy_name(s.copy) + " rebuilt " +
                                            std::to_string(s.info.rebuilt_files) + " file(s) of " +
                                            std::to_string(s.info.rebuilt_processes) + " process(es)";
  if (s.cache_writers != 0 && l.id() != GDS_LEVEL_CACHE)
    note += " (the cache was written by " + std::to_string(s.cache_writers) + " processes, this run has " +
            std::to_string(a.nprocs) + ")";
  if (s.after_finished)
    note += " (the job's last run had finished: reusing GDS_JOB_ID resumes at its end; gds-run --clear " +
            g_settings.job + " starts the job afresh)";
  if (s.restart_note.empty()) ++g_unsaid;
  s.restart_note = std::move(note);
  s.restart_func = func;
}

}  // namespace

void say_restarts(const std::string *group, std::span<Array *const> members) {
  if (g_unsaid == 0) return;
  std::string line, all_notes, names;
  const char *func = nullptr;
  bool alike = true;
  const auto said = [&](Array &a) {
    ArrayState &s = state(a);
    func = func != nullptr ? func : s.restart_func;
    s.restart_note.clear();
    --g_unsaid;
  };
  if (group != nullptr) {  // the members in one part: their notes once if alike
    const std::string *first = nullptr;
    for (Array *a : members) {
      const ArrayState &s = state(*a);
      if (s.restart_note.empty()) continue;
      alike = alike && (first == nullptr || *first == s.restart_note);
      if (first == nullptr) first = &s.restart_note;
    }
    if (first != nullptr) {
      for (Array *a : members) {
        const ArrayState &s = state(*a);
        if (s.restart_note.empty()) continue;
        names += (names.empty() ? "" : ", ") + s.name;
        all_notes += (all_notes.empty() ? "" : "; ") + s.name + " " + s.restart_note;
      }
      line = "group " + *group + (alike ? " (arrays " + names + ") " + *first : ": " + all_notes);
      for (Array *a : members)
        if (!state(*a).restart_note.empty()) said(*a);
    }
  }
  for (Array *a : core::arrays_in_creation_order()) {  // the job's other arrays said with them
    const ArrayState &s = state(*a);
    if (s.restart_note.empty()) continue;
    line += (line.empty() ? "array " : "; array ") + s.name + " " + s.restart_note;
    said(*a);
  }
  if (line.empty()) return;
  core::log(g_said ? core::Level::info : core::Level::notice, func, "restarted %s", line.c_str());
  g_said = true;
}

void restarts_unsaid() {
  g_unsaid = 0;
  g_said = false;
}

GDS_status_t restart(const char *func, Array &a) {
  const core::Timed timed(core::Work::restart);
  ArrayState &s = state(a);
  PersistentLevel *const above[] = {&cache_level(), &prefix_level()};
  GDS_status_t unrecoverable = GDS_STATUS_OK;  // a level had versions, none restored
  for (PersistentLevel *l : above) {
    if (!l->holds(a)) continue;
    if (l->id() == GDS_LEVEL_PREFIX && !g_settings.fetch) continue;  // SCR_FETCH=0: nothing read from the prefix
    // SCR_DISTRIBUTE=0, SCR_CACHE_PURGE=1: nothing taken from the cache (which is cleared: restarted_elsewhere)
    if (l->id() == GDS_LEVEL_CACHE && (!g_settings.distribute || g_settings.purge)) continue;
    std::unique_ptr<Recovery> r;
    const GDS_status_t found = l->recover(func, a, &r);
    if (found == GDS_STATUS_UNRECOVERABLE) {
      unrecoverable = found;
      continue;
    }
    GDS_TRY(found);
    if (!r || r->catalogue.empty()) continue;
    std::size_t good = kNoEntry;
    std::uint64_t navigable = 0;
    GDS_TRY(replay_entries(func, a, *l, *r, &good, &navigable));
    if (good == kNoEntry) {
      core::fail(GDS_STATUS_UNRECOVERABLE, func, "array %s: none of the %s's %zu version(s) can be read",
                 s.name.c_str(), l->name(), r->catalogue.entries.size());
      unrecoverable = GDS_STATUS_UNRECOVERABLE;
      continue;
    }
    GDS_TRY(r->recovered(func, a, good, navigable));
    if (a.rank == 0) note_restart(func, a, *l, r->catalogue.entries[good]);
    if (a.rank == 0 && unrecoverable != GDS_STATUS_OK && s.cache_writers == 0)
      s.restart_note += std::string(" (the cache could not restore it: files lost beyond what copy type ") +
                        copy_name(s.copy) + " rebuilds)";
    const std::uint64_t taken = r->catalogue.entries[good].number;
    r.reset();  // what it mapped goes before the other levels look
    for (PersistentLevel *other : above)
      if (other != l && other->holds(a)) other->restarted_elsewhere(func, a, l->id(), taken);
    // SCR_FLUSH_ON_RESTART (SCR_GLOBAL_RESTART): the version restarted from the cache, on the prefix now.
    if (g_settings.flush_on_restart && l->id() == GDS_LEVEL_CACHE && prefix_level().holds(a))
      GDS_TRY(flush_restarted(func, a, taken));
    if (unrecoverable != GDS_STATUS_OK && a.rank == 0)
      core::log(core::Level::info, func, "array %s: the levels before the %s could not restore it; the %s did",
                s.name.c_str(), l->name(), l->name());
    return GDS_STATUS_OK;
  }
  if (unrecoverable == GDS_STATUS_OK) {  // a fresh start (what cannot be restored stays to be looked at)
    for (PersistentLevel *l : above)
      if (l->holds(a)) l->restarted_elsewhere(func, a, GDS_LEVEL_NONE, std::nullopt);
    return GDS_STATUS_OK;
  }
  if (s.cache_writers != 0)  // the cause is the process count, not lost files
    return core::fail(GDS_STATUS_UNRECOVERABLE, func, "array %s: no persisted version can be restored: %s%s",
                      s.name.c_str(), other_count(s.cache_writers, a.nprocs).c_str(),
                      s.flushing() ? " (no flushed version is readable)" : "");
  return core::fail(GDS_STATUS_UNRECOVERABLE, func,
                    "array %s: no persisted version can be restored (files lost beyond what copy type %s rebuilds, "
                    "and no flushed version readable)",
                    s.name.c_str(), copy_name(s.copy));
}

}  // namespace gds::persist

using namespace gds::core;

extern "C" {

GDS_API GDS_status_t GDS_get_restart_info(GDS_gds_t gds, GDS_restart_info_t *info) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  GDS_TRY(resolve(__func__, gds, &c));
  GDS_REQUIRE(info != nullptr, GDS_STATUS_NULL_ARGUMENT, "info is NULL");
  *info = gds::persist::state(*c->array).info;
  return GDS_STATUS_OK;
} GDS_API_CATCH

}  // extern "C"
