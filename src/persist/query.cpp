// GDS_restart_query: what this job has persisted, before any array exists.
//
// It reads what restart reads, with the environment's settings: the commit
// records of the node-local cache (each process its own rank's, in its
// failure group's directory: arrays' records and version groups' records),
// then the prefix (rank 0: each array's newest complete flush; a group's
// newest version flushed by all its members, which the group's member list
// in the prefix names). The processes elect the best finding (three
// collectives of a few words and a broadcast of the label), so all return
// the same.
#include <algorithm>
#include <cstring>
#include <map>

#include "core/collective.hpp"
#include "core/groups.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "core/util.hpp"
#include "gds_group.h"
#include "persist/files.hpp"
#include "persist/format.hpp"
#include "persist/h5.hpp"
#include "persist/names.hpp"
#include "persist/prefix_files.hpp"
#include "persist/query.hpp"
#include "persist/state.hpp"

namespace gds::persist {

namespace {

// What was found of one array or group.
struct Found {
  int level = GDS_LEVEL_NONE;
  std::uint64_t version = 0, current = 0;
  std::string holds;
};
using Findings = std::map<std::string, Found>;  // by name

// Keeps `f` for `name` if it is newer (cache before prefix at equal versions).
void keep(Findings *all, const std::string &name, const Found &f) {
  auto [it, fresh] = all->emplace(name, f);
  if (!fresh && (f.version > it->second.version ||
                 (f.version == it->second.version && f.level < it->second.level)))
    it->second = f;
}

// Version n's successor and its label, from process dir's version file
// (`group`: from the first member's in the group's file in dir).
Result read_successor(const std::string &dir, std::uint64_t n, Found *f, bool group = false) {
  Mapped file;
  VersionFile v;
  PERSIST_TRY(file.open(group ? group_version_path(dir, n) : version_path(dir, n)));
  std::span<const std::byte> bytes = file.bytes();
  if (group) {
    GroupVersion g;
    PERSIST_TRY(parse_group_version(bytes, &g, false));
    bytes = bytes.subspan(g.members.front().at, g.members.front().bytes);
  }
  PERSIST_TRY(parse_version(bytes, &v, false));
  f->current = v.h.next;
  f->holds = v.next_label;
  return {};
}

// The cache: this process's records in its failure group's directory.
void scan_cache(const Settings &g, int rank, Findings *out) {
  const std::string node = node_dir(job_dir(expand_base(g.base), g.job), core::failure_groups().mine);
  for (const std::string &entry : list_dir(node)) {
    const std::string dir = rank_dir(node + "/" + entry, rank);
    const std::optional<std::string> group = group_of_dir(entry);
    for (const std::string &name : list_dir(dir)) {
      const CacheName c = parse_cache_name(name);
      if (c.kind != CacheName::record || c.tmp) continue;
      std::vector<std::byte> bytes;
      if (!read_file(dir + "/" + name, &bytes).ok()) continue;
      Found f{GDS_LEVEL_CACHE, c.number, 0, ""};
      if (group) {
        GroupRecord r;
        if (!parse_group_record(bytes, &r).ok() || r.number != c.number) continue;
        const Result read = r.in_group_file ? read_successor(dir, r.number, &f, true)
                                            : read_successor(rank_dir(node + "/" + r.members.front().first, rank),
                                                             r.number, &f);
        if (!read.ok()) continue;
        keep(out, *group, f);
        for (const auto &[member, rec] : r.members) keep(out, member, f);
      } else {
        Record r;
        if (!parse_record(bytes, &r).ok() || r.number != c.number) continue;
        if (!read_successor(dir, r.number, &f).ok()) continue;
        keep(out, entry, f);
      }
    }
  }
}

// The prefix (rank 0): every array's newest complete flush, every group's
// newest version complete for all its members.
void scan_prefix(const Settings &g, Findings *out) {
  const std::string job = job_dir(g.prefix, g.job);
  std::map<std::string, std::vector<std::uint64_t>> flushed;  // newest first
  for (const std::string &entry : list_dir(job)) {
    std::vector<std::uint64_t> vs = flushed_versions(job + "/" + entry);
    if (!vs.empty()) flushed.emplace(entry, std::move(vs));
  }
  const auto found = [&](const std::string &array, std::uint64_t n, Found *f) {
    h5::Meta m;
    if (!h5::read_meta(flushed_path(job + "/" + array, n), &m).ok()) return false;
    *f = Found{GDS_LEVEL_PREFIX, n, m.next, m.next_label};
    return true;
  };
  for (const auto &[array, vs] : flushed) {
    Found f;
    for (const std::uint64_t n : vs)
      if (found(array, n, &f)) {
        keep(out, array, f);
        break;
      }
  }
  for (const std::string &entry : list_dir(job)) {
    const std::optional<std::string> group = group_of_dir(entry);
    if (!group) continue;
    std::vector<std::string> members = read_group_members(job + "/" + entry);
    if (members.empty() || flushed.count(members.front()) == 0) continue;
    for (const std::uint64_t n : flushed.at(members.front())) {
      const bool all = std::all_of(members.begin(), members.end(), [&](const std::string &m) {
        const auto it = flushed.find(m);
        return it != flushed.end() && std::find(it->second.begin(), it->second.end(), n) != it->second.end();
      });
      Found f;
      if (all && found(members.front(), n, &f)) {
        keep(out, *group, f);
        break;
      }
    }
  }
}

// The finding this process reports for `name` (nullptr: any): its newest,
// the cache before the prefix at equal versions; nullptr if none.
const Found *best_of(const Findings &mine, const char *name) {
  const Found *best = nullptr;
  for (const auto &[n, f] : mine)
    if ((name == nullptr || n == name) &&
        (best == nullptr || f.version > best->version || (f.version == best->version && f.level < best->level)))
      best = &f;
  return best;
}

// The best finding of every process, on every process, with no data that
// grows with the processes: the newest version (an agreement), then the
// best level of it and the lowest rank holding that (an allreduce), then
// that process's successor number and label (a broadcast of 272 bytes).
GDS_status_t elect(const char *func, MPI_Comm world, GDS_status_t s, const Found *mine, GDS_persisted_t *out) {
  std::uint64_t newest[1] = {mine != nullptr ? mine->version + 1 : 0};
  GDS_TRY(core::agree(func, world, s, newest));
  *out = GDS_persisted_t{};
  if (newest[0] == 0) return GDS_STATUS_OK;
  const bool holds = mine != nullptr && mine->version + 1 == newest[0];
  // (levels 1-2: the cache wins) and the lowest rank: its complement
  std::uint64_t who[1] = {holds ? (std::uint64_t{4} - static_cast<std::uint64_t>(mine->level)) << 32 |
                                      (~static_cast<std::uint64_t>(core::g_rt.world_rank) & 0xffffffffu)
                                : 0};
  GDS_TRY(core::agree(func, world, GDS_STATUS_OK, who));
  const int root = static_cast<int>(~who[0] & 0xffffffffu);
  struct {
    std::uint64_t current, holds_size;
    char holds[GDS_PERSISTED_LABEL_MAX + 1];
  } told{};
  if (core::g_rt.world_rank == root) {
    told.current = mine->current;
    told.holds_size = mine->holds.size();
    std::memcpy(told.holds, mine->holds.data(), std::min<std::size_t>(mine->holds.size(), GDS_PERSISTED_LABEL_MAX));
  }
  const int rc = core::bcast(&told, static_cast<int>(sizeof told), MPI_BYTE, root, world);
  GDS_TRY(core::agree(func, world, rc == MPI_SUCCESS ? GDS_STATUS_OK : core::mpi_fail(func, "MPI_Bcast", rc)));
  out->found = 1;
  out->level = static_cast<int>(4 - (who[0] >> 32));
  out->version = newest[0] - 1;
  out->current = told.current;
  out->holds_size = told.holds_size;
  std::memcpy(out->holds, told.holds, sizeof told.holds);
  out->holds[GDS_PERSISTED_LABEL_MAX] = '\0';
  return GDS_STATUS_OK;
}

}  // namespace

std::vector<std::string> read_group_members(const std::string &path) {
  std::vector<std::byte> bytes;
  if (!read_file(path, &bytes).ok()) return {};
  std::string text(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  if (text.rfind("gds-group 1\n", 0) != 0) return {};
  std::vector<std::string> members;
  std::size_t at = 12;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string::npos) return {};  // cut short
    std::string name = text.substr(at, end - at);
    if (!core::valid_name(name)) return {};
    members.push_back(std::move(name));
    at = end + 1;
  }
  return members;
}

Result write_group_members(const std::string &path, const std::vector<std::string> &members) {
  std::string text = "gds-group 1\n";
  for (const std::string &m : members) text += m + "\n";
  return write_file_atomically(path, {{text.data(), text.size()}});
}

}  // namespace gds::persist

using namespace gds::core;
using namespace gds::persist;

extern "C" {

GDS_API GDS_status_t GDS_restart_query(const char *name, GDS_persisted_t *state) try {
  GDS_ENTER();
  MPI_Comm world = g_rt.world;
  GDS_status_t s = GDS_STATUS_OK;
  if (state == nullptr) s = fail(GDS_STATUS_NULL_ARGUMENT, __func__, "state is NULL");
  else if (name != nullptr && !valid_name(name))
    s = fail(GDS_STATUS_INVALID, __func__, "name=\"%s\" is not an array's or group's name (1-64 letters, digits, "
             "'-', '_' or '.', not first)", name);
  const Settings &g = g_settings;
  const bool restart = g.restart >= 0 ? g.restart == 1 : g.job_given;
  Findings mine;
  if (s == GDS_STATUS_OK && restart) {
    if (g.copy != Copy::none) scan_cache(g, g_rt.world_rank, &mine);
    if (!g.prefix.empty() && g_rt.world_rank == 0) scan_prefix(g, &mine);
  }
  return elect(__func__, world, s, best_of(mine, name), state);
} GDS_API_CATCH

}  // extern "C"
