// The cache level's restart: the newest version whose commit record some
// process has and whose files every process has or gets rebuilt from the
// scheme's redundancy (older candidates when a rebuild fails). Phases, each
// ending agreed:
//   distribute, fetch
//             a process whose directory holds no commit record gets it from
//             the node that holds it, else from a scavenged copy in the
//             prefix (cache_distribute.cpp)
//   records   every process's commit records (its own and its version
//             groups'), gathered; versions whose records disagree are left out
//   files     which of a candidate chain's files every process has, each
//             checked to the last block; a file of another array of the
//             same name is refused everywhere
//   rebuild   what was lost, version by version, from the redundancy; each
//             file under a temporary name, checked block by block, renamed
// The files stay mapped in the Recovery (read once: no copies, no new
// memory) until restart took a version (recovered): then every process
// records the versions it lacks the record of.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "core/collective.hpp"
#include "core/groups.hpp"
#include "core/log.hpp"
#include "core/module.hpp"
#include "core/mpi_args.hpp"
#include "core/util.hpp"
#include "persist/cache.hpp"
#include "persist/names.hpp"
#include "versions/state.hpp"

using gds::core::Array;

namespace gds::persist {

namespace {

using gds::core::ull;

// What one process found of a version: its record's fields.
struct Found {
  std::uint64_t number, base, prev, oldest, nprocs;
};
using Records = std::map<std::uint64_t, Found>;  // by version

const versions::Store &store(Array &a) { return *versions::state(a).store; }

// This process's commit records of the array in `dir`, and in the group
// records of the version groups it was in; a damaged one is warned about
// (unless `quiet`) and left out.
void own_records(const char *func, Array &a, std::vector<std::uint64_t> *mine, std::set<std::uint64_t> *recorded,
                 bool quiet = false) {
  const ArrayState &s = state(a);
  const Cacher &c = cacher(a);
  const auto take = [&](const Record &r) {
    mine->insert(mine->end(), {r.number, r.base, r.prev, r.oldest, r.nprocs});
    recorded->insert(r.number);
  };
  const auto ignore = [&](const std::string &path, const Result &why) {
    if (!quiet)
      core::log(core::Level::warning, func, "array %s: ignoring the unreadable or corrupt commit record %s (%s)",
              s.name.c_str(), path.c_str(), why.what().c_str());
  };
  for (const std::string &name : list_dir(c.dir)) {
    const CacheName n = parse_cache_name(name);
    if (n.kind != CacheName::record || n.tmp) continue;
    const std::string path = c.dir + "/" + name;
    std::vector<std::byte> bytes;
    Record r;
    Result why = read_file(path, &bytes);
    if (why.ok()) why = parse_record(bytes, &r);
    if (why.ok() && record_path(c.dir, r.number) != path) why = Result::corrupt("named for another version");
    if (why.ok()) take(r);
    else ignore(path, why);
  }
  const std::string node = group_dir(s, core::failure_groups().mine);
  for (const std::string &entry : list_dir(node)) {
    if (!group_of_dir(entry)) continue;
    const std::string gdir = rank_dir(node + "/" + entry, a.rank);
    for (const std::string &name : list_dir(gdir)) {
      const CacheName n = parse_cache_name(name);
      if (n.kind != CacheName::record || n.tmp) continue;
      const std::string path = gdir + "/" + name;
      std::vector<std::byte> bytes;
      GroupRecord g;
      Result why = read_file(path, &bytes);
      if (why.ok()) why = parse_group_record(bytes, &g);
      if (why.ok() && record_path(gdir, g.number) != path) why = Result::corrupt("named for another version");
      if (!why.ok()) {
        ignore(path, why);
        continue;
      }
      for (const auto &[member, r] : g.members)
        if (member == s.name && r.rank == static_cast<std::uint32_t>(a.rank)) take(r);
    }
  }
}

// Copies the cache files of `from` into `to` (made if need be); adds to *files and *bytes.
Result fetch_dir(const std::string &from, const std::string &to, std::uint64_t *files, std::uint64_t *bytes) {
  PERSIST_TRY(make_dirs(to));
  for (const std::string &name : list_dir(from)) {
    const CacheName c = parse_cache_name(name);
    if (c.kind == CacheName::other || c.tmp) continue;
    std::uint64_t n = 0;
    PERSIST_TRY(copy_file(from + "/" + name, to + "/" + name, &n));
    ++*files;
    *bytes += n;
  }
  return sync_dir(to);
}

}  // namespace

bool has_records(const char *func, Array &a) {
  std::vector<std::uint64_t> mine;
  std::set<std::uint64_t> recorded;
  own_records(func, a, &mine, &recorded, true);
  return !recorded.empty();
}

std::uint64_t newest_record(const std::string &dir) {
  std::uint64_t newest = kNone;
  for (const std::string &name : list_dir(dir)) {
    const CacheName c = parse_cache_name(name);
    if (c.kind == CacheName::record && !c.tmp && (newest == kNone || c.number > newest)) newest = c.number;
  }
  return newest;
}

namespace {

// Phase fetch: see cache_distribute.cpp. Local; what it fetched is noted for the restart's line.
void fetch_scavenged(const char *func, Array &a) {
  ArrayState &s = state(a);
  if (s.prefix.empty() || !g_settings.fetch || has_records(func, a)) return;
  // The copy (node, failure group) of this process's directory with the newest record.
  const std::string scav = scavenged_dir(job_dir(s.prefix, g_settings.job));
  std::string best;
  std::uint64_t newest = kNone;
  for (const std::string &node : list_dir(scav))
    for (const std::string &group : list_dir(scav + "/" + node)) {
      if (!is_node_dir(group)) continue;
      const std::string at = scav + "/" + node + "/" + group;
      const std::uint64_t n = newest_record(rank_dir(at + "/" + s.name, a.rank));
      if (n != kNone && (newest == kNone || n > newest)) newest = n, best = at;
    }
  if (best.empty()) return;
  std::uint64_t files = 0, bytes = 0;
  Result r = fetch_dir(rank_dir(best + "/" + s.name, a.rank), cacher(a).dir, &files, &bytes);
  for (const std::string &entry : list_dir(best)) {  // its version groups' records
    const std::optional<std::string> group = group_of_dir(entry);
    if (group && r.ok()) r = fetch_dir(rank_dir(best + "/" + entry, a.rank), group_record_dir(a, *group), &files, &bytes);
  }
  if (!r.ok()) {
    core::log(core::Level::warning, func, "array %s: fetching the scavenged copy %s failed (%s); the restart goes on "
              "without it", s.name.c_str(), best.c_str(), r.what().c_str());
    return;
  }
  s.fetched_files += files;
  core::log(core::Level::info, func, "array %s: fetched %llu file(s), %llu bytes, of process %d from %s (newest "
            "record: version %llu)", s.name.c_str(), ull(files), ull(bytes), a.rank, best.c_str(), ull(newest));
}

// Phase records: every process's commit records, gathered; versions whose
// records disagree are left out. *recorded: the versions this process has
// a record of.
GDS_status_t gather_records(const char *func, Array &a, Records *found, std::set<std::uint64_t> *recorded) {
  const ArrayState &s = state(a);
  MPI_Comm comm = a.communicator();
  std::vector<std::uint64_t> mine;
  own_records(func, a, &mine, recorded);
  int count = static_cast<int>(mine.size()), total = 0;
  std::vector<int> counts(static_cast<std::size_t>(a.nprocs)), displs(static_cast<std::size_t>(a.nprocs));
  int rc = core::allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Allgather", rc);
  for (int r = 0; r < a.nprocs; ++r) {
    displs[static_cast<std::size_t>(r)] = total;
    total += counts[static_cast<std::size_t>(r)];
  }
  std::vector<std::uint64_t> all(static_cast<std::size_t>(total));
  rc = core::allgatherv(mine.data(), count, MPI_UINT64_T, all.data(), counts.data(), displs.data(), MPI_UINT64_T, comm);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Allgatherv", rc);
  std::set<std::uint64_t> inconsistent;
  for (std::size_t i = 0; i + 5 <= all.size(); i += 5) {
    const Found f{all[i], all[i + 1], all[i + 2], all[i + 3], all[i + 4]};
    if (f.nprocs != static_cast<std::uint64_t>(a.nprocs)) {
      state(a).cache_writers = f.nprocs;  // restart names it if no level restores the array
      return core::fail(GDS_STATUS_UNRECOVERABLE, func, "array %s: %s", s.name.c_str(),
                        other_count(f.nprocs, a.nprocs).c_str());
    }
    auto [it, fresh] = found->emplace(f.number, f);
    if (!fresh && (it->second.base != f.base || it->second.prev != f.prev || it->second.oldest != f.oldest))
      inconsistent.insert(f.number);
  }
  for (const std::uint64_t n : inconsistent) found->erase(n);
  return GDS_STATUS_OK;
}

// The chain of a candidate version, oldest first: back along `prev` to the
// full version the oldest version retained with it starts from (or, if that
// one's record is gone or `own` asks, to the candidate's own full version).
// Empty if a record on the way is missing.
std::vector<std::uint64_t> chain_of(const Records &found, const Found &top, bool own = false) {
  const std::uint64_t stop = !own && found.count(top.oldest) != 0 ? found.at(top.oldest).base : top.base;
  std::vector<std::uint64_t> chain{top.number};
  bool whole = true;
  while (whole && chain.back() != stop && chain.back() > stop) {
    const std::uint64_t prev = found.at(chain.back()).prev;
    whole = prev != kNone && found.count(prev) != 0;
    if (whole) chain.push_back(prev);
  }
  if (!whole || chain.back() != stop) return {};
  std::reverse(chain.begin(), chain.end());
  return chain;
}

// A damaged file of this process: warned about, raised, and left to the rebuild.
void damaged(const char *func, Array &a, std::uint64_t n, const Result &why) {
  const ArrayState &s = state(a);
  core::log(core::Level::warning, func, "array %s: %s; %s", s.name.c_str(), why.what().c_str(),
            s.copy == Copy::single ? "SINGLE keeps no redundancy: the restart falls back to an older version"
                                   : "rebuilding it from redundancy");
  (void)why.report(func);
  core::detected(func, &a, why.status(),
                 core::Detected{nullptr, nullptr, static_cast<std::int64_t>(n), 0, a.rank, why.what().c_str()});
}

// Phase files: which of the chain's files every process has, checked to
// the last block (*oks: a flag per process and version, rank-major). They
// stay mapped in *files for the replay.
GDS_status_t check_files(const char *func, Array &a, const Records &found, const std::vector<std::uint64_t> &chain,
                         std::vector<Mapped> *files, std::vector<char> *oks) {
  const ArrayState &s = state(a);
  const Cacher &c = cacher(a);
  const Places p{a.communicator(), a.rank, a.nprocs, c.group_of, c.dir, c.spares};
  const std::size_t len = chain.size();
  std::vector<char> ok(len);
  oks->assign(len * static_cast<std::size_t>(a.nprocs), 0);
  files->clear();
  files->resize(len);
  bool foreign = false;
  for (std::size_t i = 0; i < len; ++i) {
    const Result why = read_own_version(p, chain[i], &(*files)[i]);
    ok[i] = why.ok();
    if (ok[i]) {
      VersionFile v;
      (void)parse_version((*files)[i].bytes(), &v, false);
      const Found &f = found.at(chain[i]);
      if (v.h.signature != s.signature || v.h.part_bytes != store(a).local_bytes() || v.h.shift != store(a).shift())
        foreign = true;
      else if (v.h.base != f.base || v.h.prev != f.prev)
        ok[i] = 0;
    } else if (!why.missing()) {
      damaged(func, a, chain[i], why);
    }
  }
  std::uint64_t any_foreign[1] = {foreign};
  GDS_TRY(core::agree(func, a.communicator(), GDS_STATUS_OK, any_foreign));
  if (any_foreign[0] != 0)
    return core::fail(GDS_STATUS_INVALID, func,
                      "the persisted array %s has another shape, element type, order, block size or distribution; "
                      "give this array another %s or start a new job",
                      s.name.c_str(), GDS_NAME_KEY);
  const int rc = core::allgather(ok.data(), static_cast<int>(len), MPI_CHAR, oks->data(), static_cast<int>(len),
                               MPI_CHAR, a.communicator());
  return rc == MPI_SUCCESS ? GDS_STATUS_OK : core::mpi_fail(func, "MPI_Allgather", rc);
}

// Reads back a rebuilt file at `tmp` and renames it to `path`, mapped in *file.
Result take_rebuilt(Array &a, std::uint64_t n, const std::string &tmp, const std::string &path, Mapped *file) {
  Mapped rebuilt;
  VersionFile v;
  Result why = rebuilt.open(tmp);
  if (why.ok()) why = parse_version(rebuilt.bytes(), &v, true);
  if (why.ok() && (v.h.number != n || v.h.rank != static_cast<std::uint32_t>(a.rank)))
    why = Result::corrupt("written for another version or process");
  if (!why.ok())
    return Result::failure(GDS_STATUS_UNRECOVERABLE, "version " + std::to_string(n) + " of process " +
                                                         std::to_string(a.rank) + " rebuilt wrong: " + why.what());
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Result::io(path, "cannot rename the rebuilt file to it", errno);
  *file = std::move(rebuilt);  // the mapping follows the file
  return {};
}

// Phase rebuild: what was lost, version by version, from the scheme's
// redundancy; each file under a temporary name, checked block by block,
// then renamed.
GDS_status_t rebuild_lost(const char *func, Array &a, const std::vector<std::uint64_t> &chain,
                          const std::vector<char> &oks, std::vector<Mapped> *files, std::set<int> *processes,
                          std::uint64_t *rebuilt_files) {
  Cacher &c = cacher(a);
  const std::size_t len = chain.size();
  for (std::size_t i = 0; i < len; ++i) {
    std::vector<char> lost(static_cast<std::size_t>(a.nprocs));
    bool any = false;
    for (int r = 0; r < a.nprocs; ++r) {
      lost[static_cast<std::size_t>(r)] = !oks[static_cast<std::size_t>(r) * len + i];
      any = any || lost[static_cast<std::size_t>(r)];
    }
    if (!any) continue;
    const std::string path = version_path(c.dir, chain[i]), tmp = path + ".tmp";
    const bool lost_here = lost[static_cast<std::size_t>(a.rank)] != 0;
    Result here = c.scheme->rebuild(chain[i], lost, lost_here ? std::span<const std::byte>() : (*files)[i].bytes(), tmp);
    if (lost_here && here.ok()) here = take_rebuilt(a, chain[i], tmp, path, &(*files)[i]);
    if (lost_here && !here.ok()) remove_file(tmp);
    GDS_TRY(core::agree(func, a.communicator(), here.report(func)));
    for (int r = 0; r < a.nprocs; ++r)
      if (lost[static_cast<std::size_t>(r)]) {
        processes->insert(r);
        ++*rebuilt_files;
      }
  }
  return GDS_STATUS_OK;
}

// The chain's files as a catalogue: each version's blocks where its file
// holds them; the versions the newest one retained are navigable.
void catalogue_of(const Records &found, const std::vector<std::uint64_t> &chain, const std::vector<Mapped> &files,
                  versions::Catalogue *out) {
  const Found &newest = found.at(chain.back());
  out->entries.clear();
  for (std::size_t i = 0; i < chain.size(); ++i) {
    VersionFile v;
    (void)parse_version(files[i].bytes(), &v, false);  // checked (or rebuilt) before
    versions::Catalogue::Entry e{chain[i], v.h.next, v.label, v.next_label, v.h.full, chain[i] >= newest.oldest, {}};
    std::uint64_t at = v.data_offset;
    for (const std::uint32_t b : v.blocks) {
      if (e.own.empty() || e.own.back().first + e.own.back().count != b)
        e.own.push_back(versions::Stored{b, 0, at});
      ++e.own.back().count;
      at += block_length(v.h.part_bytes, v.h.shift, b);
    }
    out->entries.push_back(std::move(e));
  }
}

// What the cache found: the records gathered, the chain taken, its files
// (mapped: read once, no copies) and what was rebuilt.
class CacheRecovery final : public Recovery {
 public:
  Records found;
  std::set<std::uint64_t> recorded;  // here
  std::vector<std::uint64_t> chain;
  std::vector<Mapped> files;
  std::set<int> rebuilt_processes;
  std::uint64_t rebuilt_files = 0;

  Result read(std::size_t i, std::uint64_t at, std::uint64_t bytes, std::byte *dst, bool) override {
    const std::span<const std::byte> file = files[i].bytes();  // checked to the last block before
    if (at > file.size() || bytes > file.size() - at) return Result::corrupt("shorter than its blocks");
    std::memcpy(dst, file.data() + at, bytes);
    return {};
  }

  // The chain up to the version taken becomes what the cache holds; every
  // process records what it lacks the record of.
  GDS_status_t recovered(const char *func, Array &a, std::size_t taken, std::uint64_t navigable) override;

 private:
  // Every process records the versions restart took where it lacks the
  // record (killed before writing it, its group's files lost, a damaged
  // one): restart took them on another process's record, which a later
  // loss of that process's group would take with it, and every version after.
  Result record_taken(Array &a, const std::vector<std::uint64_t> &taken) const;
};

Result CacheRecovery::record_taken(Array &a, const std::vector<std::uint64_t> &taken) const {
  const Cacher &c = cacher(a);
  bool wrote = false;
  for (std::size_t i = 0; i < taken.size(); ++i) {
    if (recorded.count(taken[i]) != 0) continue;
    VersionFile v;
    (void)parse_version(files[i].bytes(), &v, false);  // checked before
    const Found &f = found.at(taken[i]);
    const Record r{static_cast<std::uint32_t>(a.rank), static_cast<std::uint32_t>(a.nprocs), v.h.header_crc,
                   taken[i], f.base, f.prev, f.oldest};
    const std::vector<std::byte> bytes = encode_record(r);
    PERSIST_TRY(write_file_atomically(record_path(c.dir, r.number), {{const_cast<std::byte *>(bytes.data()), bytes.size()}}));
    wrote = true;
  }
  return wrote ? sync_dir(c.dir) : Result();
}

GDS_status_t CacheRecovery::recovered(const char *func, Array &a, std::size_t taken, std::uint64_t navigable) {
  ArrayState &s = state(a);
  Cacher &c = cacher(a);
  const std::vector<std::uint64_t> kept(chain.begin(), chain.begin() + static_cast<std::ptrdiff_t>(taken) + 1);
  c.cached.clear();
  c.delta_bytes = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const Found &f = found.at(kept[i]);
    std::uint64_t held = 0;
    for (const versions::Stored &o : catalogue.entries[i].own)
      held += std::min(std::uint64_t{o.first + o.count} << store(a).shift(), store(a).local_bytes()) -
              (std::uint64_t{o.first} << store(a).shift());
    c.cached.push_back(Cached{kept[i], f.base, f.prev, f.oldest, held});
    c.delta_bytes = catalogue.entries[i].full ? 0 : c.delta_bytes + held;
  }
  c.catalogue.entries.assign(catalogue.entries.begin(), catalogue.entries.begin() + static_cast<std::ptrdiff_t>(taken) + 1);
  remove_others(c, kept);
  GDS_TRY(core::agree(func, a.communicator(), record_taken(a, kept).report(func)));
  c.force_full = !rebuilt_processes.empty();  // redundancy whole again from the next cached version on
  s.info.restarted = 1;
  s.info.level = GDS_LEVEL_CACHE;
  s.info.version = kept.back();
  s.info.versions = navigable;
  s.info.rebuilt_processes = static_cast<int>(rebuilt_processes.size());
  s.info.rebuilt_files = rebuilt_files;
  if (a.rank == 0)
    core::log(core::Level::info, func,
              "array %s restarted from version %llu of the cache (%llu version(s) navigable, %d process(es) "
              "rebuilt)",
              s.name.c_str(), ull(kept.back()), ull(navigable), s.info.rebuilt_processes);
  return GDS_STATUS_OK;
}

}  // namespace

std::string other_count(std::uint64_t writers, int nprocs) {
  return "the cache was written by " + std::to_string(writers) + " processes, this run has " + std::to_string(nprocs) +
         ": a cache restarts only at its own process count; flush to a prefix to restart at another (GDS_PREFIX, "
         "GDS_FLUSH)";
}

std::uint64_t cache_writers(Array &a) {
  std::vector<std::uint64_t> mine;
  std::set<std::uint64_t> recorded;
  own_records("GDS_alloc", a, &mine, &recorded, true);
  std::uint64_t newest = 0, writers = 0;
  for (std::size_t i = 0; i + 5 <= mine.size(); i += 5)
    if (mine[i] >= newest) newest = mine[i], writers = mine[i + 4];
  return writers;
}

GDS_status_t recover(const char *func, Array &a, std::unique_ptr<Recovery> *out) {
  auto r = std::make_unique<CacheRecovery>();
  GDS_TRY(distribute(func, a));
  fetch_scavenged(func, a);
  std::uint64_t fetched[1] = {state(a).fetched_files};  // (the most any process fetched: for the restart's line)
  GDS_TRY(core::agree(func, a.communicator(), GDS_STATUS_OK, fetched));
  state(a).fetched_files = fetched[0];
  GDS_TRY(gather_records(func, a, &r->found, &r->recorded));
  if (r->found.empty()) return GDS_STATUS_OK;  // nothing to restart from
  GDS_status_t last = GDS_STATUS_UNRECOVERABLE;
  for (auto cand = r->found.rbegin(); cand != r->found.rend(); ++cand)
    // Every version retained with the candidate navigable; else, if an older
    // one cannot be rebuilt (its redundancy not whole since an earlier
    // rebuild), the candidate from its own full version on; else an older one.
    for (const bool own : {false, true}) {
      std::vector<std::uint64_t> chain = chain_of(r->found, cand->second, own);
      if (chain.empty() || (own && chain == chain_of(r->found, cand->second, false))) continue;
      std::vector<char> oks;
      GDS_TRY(check_files(func, a, r->found, chain, &r->files, &oks));
      r->rebuilt_processes.clear();
      r->rebuilt_files = 0;
      if (const GDS_status_t status = rebuild_lost(func, a, chain, oks, &r->files, &r->rebuilt_processes,
                                                   &r->rebuilt_files);
          status != GDS_STATUS_OK) {
        last = status == GDS_STATUS_REMOTE_ERROR ? GDS_STATUS_UNRECOVERABLE : status;
        continue;
      }
      if (own && a.rank == 0)
        core::log(core::Level::info, func, "array %s: version %llu restarts from its own full version %llu on; the "
                  "older versions retained with it could not be rebuilt", state(a).name.c_str(),
                  ull(cand->second.number), ull(chain.front()));
      catalogue_of(r->found, chain, r->files, &r->catalogue);
      r->chain = std::move(chain);
      *out = std::move(r);
      return GDS_STATUS_OK;
    }
  return core::fail(last, func,
                    "array %s: no cached version can be restored (files lost beyond what copy type %s rebuilds)",
                    state(a).name.c_str(), copy_name(state(a).copy));
}

}  // namespace gds::persist
