// The cache level (versions::Level): versions as files in a node-local
// directory per process, protected across failure groups by a redundancy
// scheme (one file per scheme: single.cpp, partner.cpp, xor.cpp). This
// file: the level, an array's cache opened, and a version's files laid out
// and handed to the pipeline (cache_pipeline.cpp), which writes them in
// phases that each end agreed:
//   prepare   every process laid out its files (the blocks changed since
//             the previous cached version, all of them for a full one) and
//             learnt the lengths its scheme receives
//   durable   every process's files and redundancy are written and fsynced
//   recorded  every process has its commit record (v<n>.done, or one
//             record per group version): restart takes version n if any
//             process's record says so, since every process's data was
//             durable before any record was written
// then what no retained version needs goes. Synchronous writes (the
// default) are the pipeline followed by its wait inside GDS_version_inc:
// when it returns, the version is in the cache with its redundancy.
// Asynchronous writes (GDS_CACHE_SYNC=0) return after prepare and complete
// at the array's later collective calls (at most kInflight versions in
// flight; GDS_version_inc waits for the oldest beyond): a crash loses the
// versions still in flight. Restart: cache_restart.cpp.
#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <numeric>
#include <set>

#include "core/bits.hpp"
#include "core/collective.hpp"
#include "core/costs.hpp"
#include "core/groups.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"
#include "core/mpi_args.hpp"
#include "core/util.hpp"
#include "persist/cache.hpp"
#include "persist/levels.hpp"
#include "persist/names.hpp"
#include "versions/state.hpp"

using gds::core::Array;

namespace gds::persist {

ArrayState::~ArrayState() = default;

namespace {

using gds::core::ull;

// Spare files per directory: what one dropped full version frees (its own
// file, and a PARTNER copy or XOR parity).
constexpr std::size_t kSpares = 4;
// Pieces (runs of changed blocks) up to which schemes send a version file
// from where its blocks are; beyond, from one copy (scattered changes).
constexpr std::size_t kMaxPieces = 64;

Places places(Array &a) {
  Cacher &c = cacher(a);
  return Places{a.communicator(), a.rank, a.nprocs, c.group_of, c.dir, c.spares};
}

// Lays out file f of version v (its header fields set but for the CRC):
// every block for a full version, else the blocks changed since the last
// cached version, each from the version's frozen copy (the bytes its CRC
// was taken of, whatever lands in the array's memory meanwhile; the
// all-zero block from zero_bytes()), adjacent copies as one piece. Many
// small pieces go into one copy (`buffer`). No exception escapes (it runs
// between collectives).
Result lay_out(const versions::Frozen &v, Cacher &c, CachedFile *f) noexcept try {
  std::vector<std::uint32_t> blocks, crcs;
  std::vector<iovec> data;
  VersionPieces &out = f->file;
  const std::byte *zeros = core::zero_bytes(std::size_t{1} << v.shift);
  if (zeros == nullptr) return Result::nomem("no address space for the zero block of a cached version");
  bool last_zero = false;
  const auto append = [&](const std::byte *p, std::uint64_t n) {
    const bool zero = p == nullptr;
    if (!data.empty() && zero == last_zero) {
      iovec &last = data.back();
      const std::size_t joined = last.iov_len + n;
      if (zero ? core::zero_bytes(joined) != nullptr
               : static_cast<const std::byte *>(last.iov_base) + last.iov_len == p) {
        if (zero) last.iov_base = const_cast<std::byte *>(core::zero_bytes(joined));
        last.iov_len = joined;
        return;
      }
    }
    data.push_back(iovec{const_cast<std::byte *>(zero ? zeros : p), n});
    last_zero = zero;
  };
  const auto add = [&](std::uint32_t first, std::uint32_t count) {
    std::uint64_t run = 0;
    for (std::uint32_t b = first; b < first + count; ++b) {
      blocks.push_back(b);
      crcs.push_back(v.crcs[b]);  // taken as the version froze the block
      const std::uint64_t n = block_length(v.bytes, v.shift, b);
      append(v.block(b), n);
      run += n;
    }
    out.own.push_back(versions::Stored{first, count, out.held});  // from the data's start, for now
    out.held += run;
  };
  if (f->h.full) {
    if (c.nblocks > 0) add(0, static_cast<std::uint32_t>(c.nblocks));
  } else {
    core::for_each_run_of_bits(c.changed, static_cast<std::uint32_t>(c.nblocks), add);
  }
  out.head = encode_version_head(f->h, *v.label, *v.next_label, blocks, crcs);
  VersionFile parsed;  // the header as written, for its CRC (the commit record names it)
  (void)parse_version(std::span<const std::byte>(out.head.data(), kVersionHeaderBytes), &parsed, false);
  f->h.header_crc = out.header_crc = parsed.h.header_crc;
  out.view.size = out.head.size() + out.held;
  for (versions::Stored &o : out.own) o.at += out.head.size();
  out.view.pieces.assign(1, iovec{out.head.data(), out.head.size()});
  out.view.pieces.insert(out.view.pieces.end(), data.begin(), data.end());
  if (out.view.pieces.size() > kMaxPieces) {
    c.buffer.resize(out.view.size);
    std::byte *p = c.buffer.data();
    for (const iovec &piece : out.view.pieces) {
      std::memcpy(p, piece.iov_base, piece.iov_len);
      p += piece.iov_len;
    }
    out.view.pieces.assign(1, iovec{c.buffer.data(), c.buffer.size()});
  }
  return {};
} catch (const std::bad_alloc &) {
  return Result::nomem("no memory to lay out cached version " + std::to_string(v.number));
}

// Array a's file of version v in a unit: full (every block) if it must be
// or some process's changes added up to its part at the last prepare; a
// version group's members are full together (`group_full`), so that they
// share one chain: a group's file holds every member's segment, and no
// member's chain keeps older group files than the others' do.
CachedFile file_of(Array &a, const versions::Frozen &v, bool grouped, bool group_full, Result *laid) {
  ArrayState &s = state(a);
  Cacher &c = cacher(a);
  CachedFile f;
  f.a = &a;
  f.next = v.next;
  f.label = *v.label;
  f.next_label = *v.next_label;
  const bool full = group_full || c.force_full || c.cached.empty() || c.full_wished;
  VersionHeader &h = f.h;
  h.rank = static_cast<std::uint32_t>(a.rank);
  h.nprocs = static_cast<std::uint32_t>(a.nprocs);
  h.number = v.number;
  h.next = v.next;
  h.base = full ? v.number : c.cached.back().base;
  h.prev = c.cached.empty() ? kNone : c.cached.back().number;
  h.part_bytes = v.bytes;
  h.shift = v.shift;
  h.full = full;
  h.signature = s.signature;
  if (!grouped) remove_file(record_path(c.dir, v.number));  // a record left by an attempt that failed after it
  *laid = lay_out(v, c, &f);
  return f;
}

}  // namespace

bool Unit::involves(const Array *a) const {
  return std::any_of(files.begin(), files.end(), [&](const CachedFile &f) { return f.a == a; });
}

std::string group_dir(const ArrayState &s, int group) { return node_dir(job_dir(s.base, g_settings.job), group); }

std::string group_record_dir(Array &a, const std::string &group) {
  return rank_dir(group_dir(state(a), core::failure_groups().mine) + "/" + group_dir_name(group), a.rank);
}

Files group_files(Cacher &c, const std::string &dir) {
  // One pool per directory for the process (a group's first member may change).
  static std::map<std::string, std::weak_ptr<Spares>> pools;
  std::shared_ptr<Spares> &mine = c.group_spares[dir];
  if (!mine) {
    mine = pools[dir].lock();
    if (!mine) pools[dir] = mine = std::make_shared<Spares>(dir, kSpares);
  }
  return Files{dir, mine, true};
}

void remove_version(Cacher &c, std::uint64_t n, bool grouped) {
  if (grouped) return;  // in the group's directory: the group's unit removes it
  remove_file(record_path(c.dir, n));
  c.spares->keep(version_path(c.dir, n));
  if (c.scheme) c.scheme->remove(n, own_files(c));
}

std::size_t remove_others(Cacher &c, const std::vector<std::uint64_t> &keep) {
  std::size_t removed = 0;
  for (const std::string &name : list_dir(c.dir)) {
    const CacheName n = parse_cache_name(name);
    if (n.kind != CacheName::other && !n.tmp && std::count(keep.begin(), keep.end(), n.number) != 0) continue;
    remove_file(c.dir + "/" + name);
    ++removed;
  }
  return removed;
}

void reset_cache(Array &a) {
  Cacher &c = cacher(a);
  remove_others(c, {});
  c.cached.clear();
  c.catalogue.entries.clear();
  c.delta_bytes = 0;
  c.since_cached = 0;
  c.force_full = true;
  c.full_wished = false;
  std::fill(c.changed.begin(), c.changed.end(), 0);
}

Record record_of(Cacher &c, const VersionHeader &h, std::uint64_t held, bool grouped) {
  c.cached.push_back(Cached{h.number, h.base, h.prev, 0, held, grouped});
  const std::size_t keep = static_cast<std::size_t>(std::min<std::uint64_t>(c.cache_size, c.cached.size()));
  c.cached.back().oldest = c.cached[c.cached.size() - keep].number;
  return Record{h.rank, h.nprocs, h.header_crc, h.number, h.base, h.prev, c.cached.back().oldest};
}

void drop_before(Cacher &c, std::uint64_t n) {
  std::size_t upto = 0;  // versions in c.cached up to n (younger ones are in flight)
  while (upto < c.cached.size() && c.cached[upto].number <= n) ++upto;
  const std::size_t keep = static_cast<std::size_t>(std::min<std::uint64_t>(c.cache_size, upto));
  if (keep == 0) return;
  const std::uint64_t needed = c.cached[upto - keep].base;
  while (c.cached.front().number < needed) {
    remove_version(c, c.cached.front().number, c.cached.front().grouped);
    c.cached.pop_front();
  }
  c.catalogue.drop_older_than(needed);
}

namespace {

// RS's largest set: a rest joining the last set of GDS_SET_SIZE makes it
// at most twice as large, and a GF(2^8) code has 255 positions.
constexpr std::uint64_t kRsLargestSet = 127;

std::set<std::string> g_fallbacks_said;  // the copy type fallbacks warned about in this run

// The redundancy the failure groups allow, as SCR decides it: PARTNER and
// XOR need two groups or more (SINGLE otherwise, with a warning when the
// copy type was asked for); an XOR set has at most as many members as there
// are groups (GDS_SET_SIZE is a maximum, as SCR_SET_SIZE is); XOR needs
// every process in a set with processes of other groups (PARTNER
// otherwise, with a warning). The same on every process: group_of is.
void fit_to_groups(const char *func, Array &a, const std::vector<int> &group_of, std::vector<std::vector<int>> *sets) {
  ArrayState &s = state(a);
  const auto ngroups = static_cast<std::uint64_t>(std::set<int>(group_of.begin(), group_of.end()).size());
  const auto warn = [&](const char *what, Copy instead) {
    if (a.rank == 0 && s.copy_given) {
      // A rerun at another process count lands here too: say that first.
      const std::uint64_t writers = s.restart ? cache_writers(a) : 0;
      const std::string cause = writers != 0 && writers != static_cast<std::uint64_t>(a.nprocs)
                                    ? " (" + other_count(writers, a.nprocs) + ")"
                                    : "";
      // Once per fallback and run: a program of many arrays (a group's members) reads it once.
      const bool first = g_fallbacks_said.insert(std::string(copy_name(s.copy)) + what + cause).second;
      if (first)
        core::log(core::Level::warning, func,
                  "array %s: copy type %s %s; using %s%s (and for every later array where the same holds: "
                  "GDS_DEBUG_LEVEL=1 names each)",
                  s.name.c_str(), copy_name(s.copy), what, copy_name(instead), cause.c_str());
      else
        GDS_DEBUG("array %s: copy type %s %s; using %s%s", s.name.c_str(), copy_name(s.copy), what,
                  copy_name(instead), cause.c_str());
    }
    s.copy = instead;
  };
  if ((s.copy == Copy::partner || s.copy == Copy::xor_ || s.copy == Copy::rs) && ngroups < 2)
    warn("needs processes in 2 or more failure groups and this array's are all in one (GDS_NODE_ID or "
         "GDS_RANKS_PER_NODE make one host act as several); no redundancy",
         Copy::single);
  if (s.copy != Copy::xor_ && s.copy != Copy::rs) return;
  if (s.set_size > ngroups) {
    if (s.set_size_given)
      GDS_DEBUG("array %s: %s sets of at most %llu (the failure groups) instead of %llu", s.name.c_str(),
                copy_name(s.copy), ull(ngroups), ull(s.set_size));
    s.set_size = ngroups;
  }
  if (s.copy == Copy::rs && s.set_size > kRsLargestSet) {
    GDS_DEBUG("array %s: RS sets of at most %llu (a code over GF(2^8)) instead of %llu", s.name.c_str(),
              ull(kRsLargestSet), ull(s.set_size));
    s.set_size = kRsLargestSet;
  }
  *sets = xor_sets(group_of, static_cast<int>(s.set_size));
  if (s.copy == Copy::rs && !sets->empty()) {
    std::size_t smallest = sets->front().size();
    for (const std::vector<int> &set : *sets) smallest = std::min(smallest, set.size());
    if (s.set_failures + 1 > smallest && a.rank == 0 &&
        g_fallbacks_said.insert("RS failures " + std::to_string(smallest)).second)
      core::log(core::Level::warning, func,
                "array %s: copy type RS with %s=%llu, but a set has %zu members (as the failure groups and "
                "GDS_SET_SIZE allow): a set of s members survives min(%llu, s - 1) lost nodes, so its sets survive "
                "%zu lost node(s) each",
                s.name.c_str(), s.set_failures_given ? "GDS_SET_FAILURES" : "the default GDS_SET_FAILURES",
                ull(s.set_failures), smallest, ull(s.set_failures), smallest - 1);
  }
  if (sets->empty())
    warn("cannot put every process in a set with processes of other failure groups (one group holds more than "
         "half of them)",
         Copy::partner);
}

// The members' versions due at the cache (every GDS_CACHE_EVERY-th), as
// the files of a unit, laid out (empty where this process could not freeze
// its version: the agreement will fail, but the lengths are exchanged);
// *laid: the first failure.
Unit unit_of(std::span<Array *const> members, std::span<const versions::Frozen> versions, const std::string *group,
             Result *laid) {
  Unit u;
  std::vector<std::size_t> due;
  bool group_full = false;
  for (std::size_t i = 0; i < members.size(); ++i) {
    Cacher &c = cacher(*members[i]);
    for (const auto &[first, count] : versions[i].changed)
      for (std::uint32_t b = first; b < first + count; ++b) core::set_bit(c.changed, b);
    if (c.since_cached + 1 < state(*members[i]).every) continue;
    due.push_back(i);
  }
  // A group's unit holds every member or none: due when one is (members
  // that joined with different counts since their last cached versions
  // line up here), so that they share one chain in the group's files.
  if (group != nullptr && !due.empty()) {
    due.resize(members.size());
    std::iota(due.begin(), due.end(), std::size_t{0});
    for (const std::size_t i : due) {
      const Cacher &c = cacher(*members[i]);
      group_full = group_full || c.force_full || c.cached.empty() || c.full_wished;
    }
  }
  for (const std::size_t i : due) {
    Result r;
    if (versions[i].valid) {
      u.files.push_back(file_of(*members[i], versions[i], group != nullptr, group_full, &r));
    } else {  // the round is made again, or the version fails: nothing to lay out
      u.files.emplace_back();
      u.files.back().a = members[i];
      u.laid_out = false;
    }
    if (laid->ok()) *laid = r;
  }
  if (u.files.empty()) return u;
  Array &first = *u.files.front().a;
  Cacher &c = cacher(first);
  UnitFile &out = u.out;
  if (group != nullptr) {
    u.group = *group;
    u.group_dir = group_record_dir(first, *group);
    out.where = group_files(c, u.group_dir);
  } else {
    out.where = own_files(c);
  }
  u.sync = state(*members.front()).sync;
  if (!u.laid_out || !laid->ok()) return u;  // nothing to write: the lengths exchanged say 0
  const std::uint64_t n = u.files.front().h.number;
  if (!u.group) {
    out.path = version_path(c.dir, n);
    out.view = u.files.front().file.view;
    return u;
  }
  // One file for the group: its head, then every member's version file.
  try {
    GroupVersion g;
    g.rank = static_cast<std::uint32_t>(first.rank);
    g.nprocs = static_cast<std::uint32_t>(first.nprocs);
    g.number = n;
    for (const CachedFile &f : u.files)
      g.members.push_back(GroupSegment{state(*f.a).name, 0, f.file.view.size, f.h.header_crc});
    out.head = encode_group_version_head(&g);
    out.path = group_version_path(u.group_dir, n);
    out.view.pieces.assign(1, iovec{out.head.data(), out.head.size()});
    out.view.size = out.head.size();
    for (const CachedFile &f : u.files) {
      out.view.pieces.insert(out.view.pieces.end(), f.file.view.pieces.begin(), f.file.view.pieces.end());
      out.view.size += f.file.view.size;
    }
  } catch (const std::bad_alloc &) {
    *laid = Result::nomem("no memory to lay out the group file of cached version " + std::to_string(n));
  }
  return u;
}

class CacheLevel final : public PersistentLevel {
 public:
  [[nodiscard]] int id() const override { return GDS_LEVEL_CACHE; }
  [[nodiscard]] const char *name() const override { return "cache"; }
  [[nodiscard]] bool holds(const Array &a) const override { return a.state<ArrayState>().persistent(); }

  // Prepare: the members' versions due at the cache, in one unit, laid out,
  // their lengths sent to the schemes' peers (no collective: the version's
  // agreement settles it).
  GDS_status_t prepare(const char *func, std::span<Array *const> members, std::span<const versions::Frozen> versions,
                       GDS_status_t local, const std::string *group, core::Ballot &ballot) override {
    const core::Timed timed(core::Work::cache, false);
    say_restarts();  // a version made: the restarts before it are over
    Array &first = *members.front();
    Cacher &c = cacher(first);
    c.prepared.reset();
    Result laid;
    auto u = std::make_shared<Unit>(unit_of(members, versions, group, &laid));
    if (u->files.empty()) return GDS_STATUS_OK;
    if (local == GDS_STATUS_OK) local = laid.report(func);
    local = persist::prepare(func, first.communicator(), local, *u, !state(first).sync, ballot);
    c.prepared = std::move(u);
    return local;
  }

  // Start, once the version's agreement went through: the unit's messages
  // and writes started, and waited for unless writes are asynchronous (then
  // the units in flight move on first, at most kInflight per array).
  GDS_status_t start(const char *func, std::span<Array *const> members, const core::Ballot &ballot) override {
    const core::Timed timed(core::Work::cache, false);
    Array &first = *members.front();
    for (Array *a : members) ++cacher(*a).since_cached;
    std::shared_ptr<Unit> u = std::move(cacher(first).prepared);
    if (!u) return GDS_STATUS_OK;
    prepared(*u, ballot);
    const bool sync = state(first).sync;
    if (!sync) {
      GDS_TRY(progress(func, first, Wait::none));
      for (Array *a : members)
        while (in_flight(*a) >= kInflight) GDS_TRY(progress(func, *a, Wait::oldest));
      if (!still_valid(*u)) return GDS_STATUS_OK;  // a version it builds on failed meanwhile (raised)
    }
    persist::start(u);
    return sync ? progress(func, first, Wait::all) : GDS_STATUS_OK;
  }

  void abandon(std::span<Array *const> members) override { cacher(*members.front()).prepared.reset(); }

  [[nodiscard]] std::string differs(const Array &a, const Array &b) const override {
    const ArrayState &x = a.state<ArrayState>(), &y = b.state<ArrayState>();
    if (x.copy != y.copy) return std::string("copy types ") + copy_name(x.copy) + " and " + copy_name(y.copy);
    if (x.base != y.base) return "cache bases " + x.base + " and " + y.base;
    if (x.every != y.every || x.cache_size != y.cache_size) return "cache every or cache size";
    // (One scheme protects the group's files: its members' sets must be alike.)
    if ((x.copy == Copy::xor_ || x.copy == Copy::rs) && x.set_size != y.set_size) return "set sizes";
    if (x.copy == Copy::rs && x.set_failures != y.set_failures) return "RS set failures (GDS_SET_FAILURES)";
    if (x.sync != y.sync) return "synchronous and asynchronous cache writes";
    return "";
  }

  // The group's records that are not on its members' timeline go (an
  // earlier run's, or all of them on a fresh start).
  GDS_status_t open_group(const char *, const std::string &name, std::span<Array *const> members) override {
    say_restarts(&name, members);
    std::set<std::uint64_t> keep;  // every member's versions (members may have taken different chains)
    for (Array *m : members)
      for (const Cached &c : cacher(*m).cached) keep.insert(c.number);
    const Files g = group_files(cacher(*members.front()), group_record_dir(*members.front(), name));
    remove_group_versions(g, [&](std::uint64_t n) { return keep.count(n) == 0; });
    return GDS_STATUS_OK;
  }

  bool restart_info(const Array &a, GDS_restart_info_t *info) const override {
    *info = a.state<ArrayState>().info;
    return true;
  }

  void restored(Array &a, std::uint64_t) override { cacher(a).force_full = true; }
  // The cache keeps its own versions (GDS_CACHE_SIZE), not memory's.
  void drop(Array &, std::uint64_t) override {}

  [[nodiscard]] std::optional<versions::Location> locate(Array &a, std::uint64_t number,
                                                         std::uint32_t block) const override {
    const versions::Catalogue &c = cacher(a).catalogue;
    const versions::Catalogue::Entry *e = c.find(number);
    if (e == nullptr) return std::nullopt;
    return c.locate(static_cast<std::size_t>(e - c.entries.data()), block, versions::state(a).store->shift());
  }

  GDS_status_t recover(const char *func, Array &a, std::unique_ptr<Recovery> *out) override {
    return persist::recover(func, a, out);
  }

  void restarted_elsewhere(const char *, Array &a, int, std::optional<std::uint64_t>) override {
    reset_cache(a);  // the cache starts over from the restarted content
  }
};

CacheLevel g_cache;

bool persistent(const Array &a) { return a.state<ArrayState>().persistent(); }

}  // namespace

PersistentLevel &cache_level() { return g_cache; }

void forget_fallback_warnings() { g_fallbacks_said.clear(); }

GDS_status_t cache_wait(const char *func, Array &a) {
  const core::Timed timed(core::Work::cache, false);
  return persistent(a) ? wait(func, a) : GDS_STATUS_OK;
}

GDS_status_t cache_forget(const char *func, Array &a) {
  const core::Timed timed(core::Work::cache, false);
  return persistent(a) ? forget(func, a) : GDS_STATUS_OK;
}

GDS_status_t cache_settle(const char *func, Array &a, std::uint64_t number) {
  while (cache_behind(a, number)) GDS_TRY(progress(func, a, Wait::oldest));
  return GDS_STATUS_OK;
}

bool cache_behind(const Array &a, std::uint64_t number) {
  if (!persistent(a)) return false;
  const Cacher &c = *a.state<ArrayState>().cacher;
  return std::any_of(c.units.begin(), c.units.end(), [&](const std::shared_ptr<Unit> &u) {
    return std::any_of(u->files.begin(), u->files.end(),
                       [&](const CachedFile &f) { return f.a == &a && f.h.number <= number; });
  });
}

GDS_status_t open_cache(const char *func, Array &a) {
  ArrayState &s = state(a);
  s.cacher = std::make_unique<Cacher>();
  Cacher &c = *s.cacher;
  MPI_Comm comm = a.communicator();
  GDS_TRY(core::groups_of(func, comm, &c.group_of, &c.host_of));
  const int mine = core::failure_groups().mine;
  c.dir = rank_dir(group_dir(s, mine) + "/" + s.name, a.rank);
  std::vector<std::vector<int>> sets;
  fit_to_groups(func, a, c.group_of, &sets);
  c.cache_size = s.cache_size;
  c.spares = std::make_shared<Spares>(c.dir, kSpares);
  Result made = make_dirs(c.dir);
  if (made.ok() && !writable_dir(c.dir)) made = Result::io(c.dir, "is not writable", EACCES);
  // The processes of a host share its record: the first to look removes it.
  std::uint64_t finished[1] = {job_opened(job_dir(s.base, g_settings.job), false)};
  GDS_TRY(core::agree(func, comm, made.report(func), finished));
  s.after_finished = finished[0] != 0;
  c.nblocks = versions::state(a).store->nblocks();
  c.changed.assign(core::words_for(c.nblocks), 0);
  const Places p = places(a);
  Result scheme;
  switch (s.copy) {
    case Copy::single: c.scheme = make_single(p); break;
    case Copy::partner: c.scheme = make_partner(p); break;
    case Copy::xor_: scheme = make_xor(p, sets, &c.scheme); break;
    case Copy::rs: scheme = make_rs(p, sets, static_cast<int>(s.set_failures), &c.scheme); break;
    case Copy::none: break;
  }
  GDS_TRY(scheme.report(func));
  if (s.restart) return GDS_STATUS_OK;  // restart.cpp asks the levels
  const std::size_t removed = remove_others(c, {});
  if (removed > 0)
    core::log(core::Level::info, func,
              "array %s: removed %zu file(s) an earlier run left in %s (restart was not asked for: %s=1 or "
              "GDS_RESTART=1)",
              s.name.c_str(), removed, c.dir.c_str(), GDS_RESTART_KEY);
  return GDS_STATUS_OK;
}

}  // namespace gds::persist
