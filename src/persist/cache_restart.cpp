// The cache level's restart: the newest version whose commit record some
// process has and whose files every process has or gets rebuilt from the
// scheme's redundancy (older candidates when a rebuild fails). Phases, each
// ending agreed (core::Phase, cache.hpp), none of whose collectives carries
// data that grows with the number of processes:
//   distribute, fetch
//             a process whose directory holds no commit record gets it from
//             the node that holds it, else from a scavenged copy in the
//             prefix (cache_distribute.cpp)
//   records   the candidate: the newest version some process has a record
//             of (one allreduce), then its record's fields and those of the
//             versions of its chain, one allreduce each (maxima of the fields
//             and of their complements: every process that has a record
//             must say the same, or the version is left out)
//   files     which of the chain's files every process has, each checked to
//             the last block: the phase's agreement says which versions some
//             process lost, and each process tells the peers that rebuild
//             with it (the scheme's) which it lost; a file of another array
//             of the same name is refused everywhere
//   rebuild   what was lost, version by version, from the redundancy; each
//             file under a temporary name, checked block by block, renamed
// The files stay mapped in the Recovery (read once: no copies, no new
// memory) until restart took a version (recovered, restart.recorded): then
// every process records the versions it lacks the record of.
#include <algorithm>
#include <cstdio>
#include <cstring>
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

constexpr int kTagLost = 0x6d74;  // the lost flags to the scheme's peers

// What one process found of a version: its record's fields, and where the
// array's file is: its own (group empty) or a segment of the group's file.
struct Found {
  std::uint64_t number = 0, base = 0, prev = kNone, oldest = 0, nprocs = 0;
  std::string group;
};
// Words of a group's name in an agreement (names have at most 64 characters).
constexpr std::size_t kNameWords = 8;
using Records = std::map<std::uint64_t, Found>;  // by version

const versions::Store &store(Array &a) { return *versions::state(a).store; }

// This process's commit records of the array in `dir`, and in the group
// records of the version groups it was in; a damaged one is warned about
// (unless `quiet`) and left out.
void own_records(const char *func, Array &a, std::vector<Found> *mine, std::set<std::uint64_t> *recorded,
                 bool quiet = false) {
  const ArrayState &s = state(a);
  const Cacher &c = cacher(a);
  const auto take = [&](const Record &r, const std::string &group) {
    mine->push_back(Found{r.number, r.base, r.prev, r.oldest, r.nprocs, group});
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
    if (why.ok()) take(r, "");
    else ignore(path, why);
  }
  const std::string node = group_dir(s, core::failure_groups().mine);
  for (const std::string &entry : list_dir(node)) {
    const std::optional<std::string> group = group_of_dir(entry);
    if (!group) continue;
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
        if (member == s.name && r.rank == static_cast<std::uint32_t>(a.rank)) take(r, g.in_group_file ? *group : "");
    }
  }
}

}  // namespace

bool has_records(const char *func, Array &a) {
  std::vector<Found> mine;
  std::set<std::uint64_t> recorded;
  own_records(func, a, &mine, &recorded, true);
  return !recorded.empty();
}

namespace {

// Phase records: what the processes' commit records say, learnt a version
// at a time, each by one allreduce of a few words (no process sends
// anything that grows with the number of processes). Every process asks
// the same versions in the same order: each question follows from agreed answers.
class RecordBook {
 public:
  RecordBook(const char *func, Array &a) : func_(func), a_(a) {
    std::vector<Found> found_here;
    own_records(func, a, &found_here, &recorded);
    for (Found &f : found_here) mine_[f.number] = std::move(f);
  }

  // The newest version below `limit` some process has a record of (kNone: none).
  GDS_status_t newest_below(std::uint64_t limit, std::uint64_t *out) {
    auto it = mine_.lower_bound(limit);
    std::uint64_t v[1] = {it == mine_.begin() ? 0 : std::prev(it)->first + 1};
    GDS_TRY(core::agree(func_, a_.communicator(), GDS_STATUS_OK, v));
    *out = v[0] == 0 ? kNone : v[0] - 1;
    return GDS_STATUS_OK;
  }

  // Version n's record as every process that has one says it: *known if some
  // process has one and all that do say the same (then in `found`). A
  // record of another process count: *writers (the restart's refusal names it).
  GDS_status_t ask(std::uint64_t n, bool *known, std::uint64_t *writers) {
    if (auto it = found.find(n); it != found.end()) return *known = true, *writers = 0, GDS_STATUS_OK;
    // has, then each field and its complement (a maximum of complements is
    // the complement of the minimum), the fields being the record's and
    // the words of the name of the group whose file holds the array's
    // (a process that lost its directory learns it here)
    constexpr std::size_t kFields = 4 + kNameWords;
    std::uint64_t v[1 + 2 * kFields] = {};
    if (auto it = mine_.find(n); it != mine_.end()) {
      const Found &f = it->second;
      std::uint64_t fields[kFields] = {f.base, f.prev, f.oldest, f.nprocs};
      std::memcpy(fields + 4, f.group.data(), std::min(f.group.size(), 8 * kNameWords));
      v[0] = 1;
      for (std::size_t k = 0; k < kFields; ++k) v[1 + k] = fields[k], v[1 + kFields + k] = ~fields[k];
    }
    GDS_TRY(core::agree(func_, a_.communicator(), GDS_STATUS_OK, v));
    bool same = v[0] != 0;
    for (std::size_t k = 0; k < kFields; ++k) same = same && v[1 + k] == ~v[1 + kFields + k];
    *writers = v[0] != 0 && (v[4] != static_cast<std::uint64_t>(a_.nprocs) || ~v[4 + kFields] != v[4]) ? v[4] : 0;
    *known = same && *writers == 0;
    if (*known) {
      char name[8 * kNameWords + 1] = {};
      std::memcpy(name, v + 5, 8 * kNameWords);
      found[n] = Found{n, v[1], v[2], v[3], v[4], name};
      *known = found[n].group.empty() || core::valid_name(found[n].group);
    }
    return GDS_STATUS_OK;
  }

  Records found;                     // the records agreed so far
  std::set<std::uint64_t> recorded;  // the versions this process has a record of

 private:
  const char *func_;
  Array &a_;
  std::map<std::uint64_t, Found> mine_;
};

// The chain of a candidate version, oldest first: back along `prev` to the
// full version the oldest version retained with it starts from (or, if that
// one's record is gone or `own` asks, to the candidate's own full version).
// Empty if a record on the way is missing.
GDS_status_t chain_of(RecordBook &book, const Found &top, bool own, std::vector<std::uint64_t> *chain) {
  chain->clear();
  std::uint64_t stop = top.base, writers = 0;
  bool known = false;
  if (!own) {
    GDS_TRY(book.ask(top.oldest, &known, &writers));
    if (known) stop = book.found.at(top.oldest).base;
  }
  chain->push_back(top.number);
  while (chain->back() != stop && chain->back() > stop) {
    const std::uint64_t prev = book.found.at(chain->back()).prev;
    known = false;
    if (prev != kNone) GDS_TRY(book.ask(prev, &known, &writers));
    if (!known) break;
    chain->push_back(prev);
  }
  if (chain->back() != stop) chain->clear();
  std::reverse(chain->begin(), chain->end());
  return GDS_STATUS_OK;
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

// A version of the chain as restart maps it: the array's version file, or
// its group's file with the array's version file as a segment.
struct ChainFile {
  Mapped file;
  std::uint64_t at = 0, length = 0;  // the array's version file in it
  [[nodiscard]] std::span<const std::byte> version() const { return file.bytes().subspan(at, length); }
};

// The files of version f.number: the array's, or its group's.
Files files_of(Array &a, const Found &f) {
  Cacher &c = cacher(a);
  return f.group.empty() ? own_files(c) : group_files(c, group_record_dir(a, f.group));
}
std::string path_of(Array &a, const Found &f) {
  return f.group.empty() ? version_path(cacher(a).dir, f.number)
                         : group_version_path(group_record_dir(a, f.group), f.number);
}

// Maps this process's file of version f.number and checks the array's
// version file in it to the last block (of a group's file: its head, and
// the array's segment).
Result read_version(Array &a, const Found &f, ChainFile *out) {
  const ArrayState &s = state(a);
  const Cacher &c = cacher(a);
  if (f.group.empty()) {
    const Places p{a.communicator(), a.rank, a.nprocs, c.group_of, c.dir, c.spares};
    PERSIST_TRY(read_own_version(p, f.number, &out->file));
    out->at = 0;
    out->length = out->file.bytes().size();
    return {};
  }
  const std::string path = path_of(a, f);
  PERSIST_TRY(out->file.open(path));
  GroupVersion g;
  if (Result why = parse_group_version(out->file.bytes(), &g, false); !why.ok()) return why.within(path);
  if (g.number != f.number || g.rank != static_cast<std::uint32_t>(a.rank) ||
      g.nprocs != static_cast<std::uint32_t>(a.nprocs))
    return Result::corrupt(path + ": written for another version or process");
  const auto m = std::find_if(g.members.begin(), g.members.end(), [&](const GroupSegment &x) { return x.name == s.name; });
  if (m == g.members.end()) return Result::corrupt(path + ": holds no version file of array " + s.name);
  out->at = m->at;
  out->length = m->bytes;
  VersionFile v;
  if (Result why = parse_version(out->version(), &v, true); !why.ok()) return why.within(path + ", array " + s.name);
  if (v.h.number != f.number || v.h.rank != g.rank || v.h.nprocs != g.nprocs || v.h.header_crc != m->version_crc)
    return Result::corrupt(path + ": the version file of array " + s.name + " is not the one its head names");
  return {};
}

// Phase files: which of the chain's files this process has, checked to the
// last block (they stay mapped in *files for the replay); the phase's
// agreement says which versions some process lost (*any_lost, per version),
// and each process tells the peers it rebuilds with (the scheme's tells(),
// hears()) which it lost: *lost, per version, the flags of this process and
// of those peers (the others' are unknown here and left false: the scheme
// needs only its peers').
GDS_status_t check_files(const char *func, Array &a, const Records &found, const std::vector<std::uint64_t> &chain,
                         std::vector<ChainFile> *files, std::vector<char> *any_lost,
                         std::vector<std::vector<char>> *lost) {
  const ArrayState &s = state(a);
  const Cacher &c = cacher(a);
  const std::size_t len = chain.size();
  std::vector<char> mine(len);
  files->clear();
  files->resize(len);
  bool foreign = false;
  for (std::size_t i = 0; i < len; ++i) {
    const Found &f = found.at(chain[i]);
    const Result why = read_version(a, f, &(*files)[i]);
    mine[i] = !why.ok();
    if (why.ok()) {
      VersionFile v;
      (void)parse_version((*files)[i].version(), &v, false);
      if (v.h.signature != s.signature || v.h.part_bytes != store(a).local_bytes() || v.h.shift != store(a).shift())
        foreign = true;
      else if (v.h.base != f.base || v.h.prev != f.prev)
        mine[i] = 1;
    } else if (!why.missing()) {
      damaged(func, a, chain[i], why);
    }
  }
  std::vector<std::uint64_t> values(len + 1);
  values[0] = foreign;
  for (std::size_t i = 0; i < len; ++i) values[i + 1] = mine[i];
  GDS_TRY(kRestartFiles.end(func, a.communicator(), GDS_STATUS_OK, values));
  if (values[0] != 0)
    return core::fail(GDS_STATUS_INVALID, func,
                      "the persisted array %s has another shape, element type, order, block size or distribution; "
                      "give this array another %s or start a new job",
                      s.name.c_str(), GDS_NAME_KEY);
  any_lost->assign(len, 0);
  lost->assign(len, std::vector<char>(static_cast<std::size_t>(a.nprocs), 0));
  bool some = false;
  for (std::size_t i = 0; i < len; ++i) {
    (*any_lost)[i] = values[i + 1] != 0;
    some = some || values[i + 1] != 0;
  }
  if (!some) return GDS_STATUS_OK;
  // The flags to the scheme's peers (one message each way per peer).
  const std::vector<int> tells = c.scheme->tells(), hears = c.scheme->hears();
  std::vector<std::vector<char>> in(hears.size(), std::vector<char>(len));
  std::vector<MPI_Request> reqs;
  for (std::size_t j = 0; j < hears.size(); ++j) {
    reqs.emplace_back();
    MPI_Irecv(in[j].data(), static_cast<int>(len), MPI_CHAR, hears[j], kTagLost, a.communicator(), &reqs.back());
  }
  for (const int peer : tells) {
    reqs.emplace_back();
    MPI_Isend(mine.data(), static_cast<int>(len), MPI_CHAR, peer, kTagLost, a.communicator(), &reqs.back());
  }
  const int rc = core::wait_all(&reqs);
  for (std::size_t i = 0; i < len; ++i) {
    (*lost)[i][static_cast<std::size_t>(a.rank)] = mine[i];
    for (std::size_t j = 0; j < hears.size(); ++j) (*lost)[i][static_cast<std::size_t>(hears[j])] = in[j][i];
  }
  return core::agree(func, a.communicator(), rc == MPI_SUCCESS ? GDS_STATUS_OK : core::mpi_fail(func, "MPI_Waitall", rc));
}

// Reads back a rebuilt file at `tmp` (checked whole: a group's, every
// member's) and renames it to its place, mapped in *file.
Result take_rebuilt(Array &a, const Found &f, const std::string &tmp, ChainFile *file) {
  const Files where = files_of(a, f);
  Mapped rebuilt;
  Result why = rebuilt.open(tmp);
  if (why.ok()) why = check_file(where, rebuilt.bytes(), f.number, a.rank, a.nprocs);
  if (!why.ok())
    return Result::failure(GDS_STATUS_UNRECOVERABLE, "version " + std::to_string(f.number) + " of process " +
                                                         std::to_string(a.rank) + " rebuilt wrong: " + why.what());
  const std::string path = path_of(a, f);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Result::io(path, "cannot rename the rebuilt file to it", errno);
  return read_version(a, f, file);
}

// Phase rebuild: what was lost, version by version, from the scheme's
// redundancy; each file under a temporary name, checked block by block,
// then renamed. *rebuilt: the processes and files rebuilt, counted (one
// allreduce, where something was lost).
GDS_status_t rebuild_lost(const char *func, Array &a, const Records &found, const std::vector<std::uint64_t> &chain,
                          const std::vector<char> &any_lost, const std::vector<std::vector<char>> &lost,
                          std::vector<ChainFile> *files, std::uint64_t rebuilt[2]) {
  Cacher &c = cacher(a);
  std::uint64_t mine = 0;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    if (!any_lost[i]) continue;
    const Found &f = found.at(chain[i]);
    const Files where = files_of(a, f);
    const std::string tmp = path_of(a, f) + ".tmp";
    const bool lost_here = lost[i][static_cast<std::size_t>(a.rank)] != 0;
    // (Where the group's directory cannot be made, the rebuild's file cannot
    // be opened: the scheme still takes part in every message, and says so.)
    if (lost_here && where.group) (void)make_dirs(where.dir);
    // The whole file this process has (a group's: every member's) is what the scheme protected.
    Result here = c.scheme->rebuild(chain[i], lost[i], lost_here ? std::span<const std::byte>() : (*files)[i].file.bytes(),
                                    tmp, where);
    if (lost_here && here.ok()) here = take_rebuilt(a, f, tmp, &(*files)[i]);
    if (lost_here && !here.ok()) remove_file(tmp);
    // Beyond the redundancy (or damaged further): an older candidate; any other failure fails the restart.
    const bool beyond = here.status() == GDS_STATUS_UNRECOVERABLE || here.status() == GDS_STATUS_CORRUPT;
    std::uint64_t cannot[1] = {beyond};
    if (beyond) (void)here.report(func);
    GDS_TRY(kRestartRebuild.end(func, a.communicator(), beyond ? GDS_STATUS_OK : here.report(func), cannot));
    if (cannot[0] != 0) return GDS_STATUS_UNRECOVERABLE;
    mine += lost_here;
  }
  rebuilt[0] = mine != 0;  // processes
  rebuilt[1] = mine;       // files
  if (std::none_of(any_lost.begin(), any_lost.end(), [](char x) { return x != 0; })) return GDS_STATUS_OK;
  const int rc = core::allreduce(MPI_IN_PLACE, rebuilt, 2, MPI_UINT64_T, MPI_SUM, a.communicator());
  return core::agree(func, a.communicator(), rc == MPI_SUCCESS ? GDS_STATUS_OK : core::mpi_fail(func, "MPI_Allreduce", rc));
}

// The chain's files as a catalogue: each version's blocks where its file
// holds them; the versions the newest one retained are navigable.
void catalogue_of(const Records &found, const std::vector<std::uint64_t> &chain, const std::vector<ChainFile> &files,
                  versions::Catalogue *out) {
  const Found &newest = found.at(chain.back());
  out->entries.clear();
  for (std::size_t i = 0; i < chain.size(); ++i) {
    VersionFile v;
    (void)parse_version(files[i].version(), &v, false);  // checked (or rebuilt) before
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
  std::vector<ChainFile> files;
  std::uint64_t rebuilt_processes = 0, rebuilt_files = 0;

  Result read(std::size_t i, std::uint64_t at, std::uint64_t bytes, std::byte *dst, bool) override {
    const std::span<const std::byte> file = files[i].version();  // checked to the last block before
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
  std::set<std::string> wrote;  // directories
  for (std::size_t i = 0; i < taken.size(); ++i) {
    if (recorded.count(taken[i]) != 0) continue;
    VersionFile v;
    (void)parse_version(files[i].version(), &v, false);  // checked before
    const Found &f = found.at(taken[i]);
    const Record r{static_cast<std::uint32_t>(a.rank), static_cast<std::uint32_t>(a.nprocs), v.h.header_crc,
                   taken[i], f.base, f.prev, f.oldest};
    std::vector<std::byte> bytes;
    std::string dir = c.dir;
    if (f.group.empty()) {
      bytes = encode_record(r);
    } else {
      // The group's record of the version, with this member added (the
      // members restart one after another: an earlier one may have written it).
      dir = group_record_dir(a, f.group);
      GroupRecord g{r.number, {}, true};
      std::vector<std::byte> old;
      if (read_file(record_path(dir, r.number), &old).ok() && parse_group_record(old, &g).ok() && g.number == r.number &&
          g.in_group_file)
        std::erase_if(g.members, [&](const auto &m) { return m.first == state(a).name; });
      else
        g = GroupRecord{r.number, {}, true};
      g.members.emplace_back(state(a).name, r);
      bytes = encode_group_record(g);
    }
    PERSIST_TRY(write_file_atomically(record_path(dir, r.number), {{bytes.data(), bytes.size()}}));
    wrote.insert(dir);
  }
  for (const std::string &dir : wrote) PERSIST_TRY(sync_dir(dir));
  return {};
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
    c.cached.push_back(Cached{kept[i], f.base, f.prev, f.oldest, held, !f.group.empty()});
    c.delta_bytes = catalogue.entries[i].full ? 0 : c.delta_bytes + held;
  }
  c.catalogue.entries.assign(catalogue.entries.begin(), catalogue.entries.begin() + static_cast<std::ptrdiff_t>(taken) + 1);
  remove_others(c, kept);
  GDS_TRY(kRestartRecorded.end(func, a.communicator(), record_taken(a, kept).report(func)));
  c.force_full = rebuilt_processes != 0;  // redundancy whole again from the next cached version on
  s.info.restarted = 1;
  s.info.level = GDS_LEVEL_CACHE;
  s.info.version = kept.back();
  s.info.versions = navigable;
  s.info.rebuilt_processes = static_cast<int>(rebuilt_processes);
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
  std::vector<Found> mine;
  std::set<std::uint64_t> recorded;
  own_records("GDS_alloc", a, &mine, &recorded, true);
  std::uint64_t newest = 0, writers = 0;
  for (const Found &f : mine)
    if (f.number >= newest) newest = f.number, writers = f.nprocs;
  return writers;
}

GDS_status_t recover(const char *func, Array &a, std::unique_ptr<Recovery> *out) {
  auto r = std::make_unique<CacheRecovery>();
  GDS_TRY(distribute(func, a));
  GDS_TRY(fetch(func, a));
  RecordBook book(func, a);
  GDS_status_t last = GDS_STATUS_OK;  // a candidate was found and could not be restored: why
  for (std::uint64_t limit = kNone;;) {
    std::uint64_t cand = kNone, writers = 0;
    bool known = false;
    GDS_TRY(book.newest_below(limit, &cand));
    if (cand == kNone) break;
    limit = cand;
    GDS_TRY(book.ask(cand, &known, &writers));
    if (writers != 0) {
      state(a).cache_writers = writers;  // restart names it if no level restores the array
      return core::fail(GDS_STATUS_UNRECOVERABLE, func, "array %s: %s", state(a).name.c_str(),
                        other_count(writers, a.nprocs).c_str());
    }
    if (!known) continue;  // the records disagree: not a candidate
    if (last == GDS_STATUS_OK) last = GDS_STATUS_UNRECOVERABLE;
    // Every version retained with the candidate navigable; else, if an older
    // one cannot be rebuilt (its redundancy not whole since an earlier
    // rebuild), the candidate from its own full version on; else an older one.
    const Found top = book.found.at(cand);
    std::vector<std::uint64_t> whole;
    for (const bool own : {false, true}) {
      std::vector<std::uint64_t> chain;
      GDS_TRY(chain_of(book, top, own, &chain));
      if (!own) whole = chain;
      GDS_TRY(kRestartRecords.end(func, a.communicator(), GDS_STATUS_OK));
      if (chain.empty() || (own && chain == whole)) continue;
      std::vector<char> any_lost;
      std::vector<std::vector<char>> lost;
      GDS_TRY(check_files(func, a, book.found, chain, &r->files, &any_lost, &lost));
      std::uint64_t rebuilt[2] = {0, 0};
      if (const GDS_status_t status = rebuild_lost(func, a, book.found, chain, any_lost, lost, &r->files, rebuilt);
          status != GDS_STATUS_OK) {
        if (status != GDS_STATUS_UNRECOVERABLE) return status;  // MPI or the file system failed: agreed
        continue;  // beyond the redundancy
      }
      if (own && a.rank == 0)
        core::log(core::Level::info, func, "array %s: version %llu restarts from its own full version %llu on; the "
                  "older versions retained with it could not be rebuilt", state(a).name.c_str(), ull(cand),
                  ull(chain.front()));
      r->rebuilt_processes = rebuilt[0];
      r->rebuilt_files = rebuilt[1];
      r->found = book.found;
      r->recorded = book.recorded;
      catalogue_of(r->found, chain, r->files, &r->catalogue);
      r->chain = std::move(chain);
      *out = std::move(r);
      return GDS_STATUS_OK;
    }
  }
  if (last == GDS_STATUS_OK) return GDS_STATUS_OK;  // nothing to restart from
  return core::fail(last, func,
                    "array %s: no cached version can be restored (files lost beyond what copy type %s rebuilds)",
                    state(a).name.c_str(), copy_name(state(a).copy));
}

}  // namespace gds::persist
