// The cache restart's first phases: a process finds its files where they
// are, as SCR's distribute and fetch do at SCR_Init.
//
//   distribute  a process whose directory holds no commit record runs on
//               another node than the one that wrote its files (a relaunch
//               that did not keep every process on its node: mpiexec places
//               processes in the node list's order, so a spare taking a lost
//               node's place shifts the processes after it). The node that
//               holds its directory sends it: each node's first process of
//               the array offers the directories of other processes it finds
//               in its node's cache (a sparse exchange), each lacking process
//               asks the holder of the newest one (a second), and the holder
//               sends the files (point to point). Only where some process
//               lacks its directory (one allreduce says so); agreed.
//   fetch       a process still lacking takes its directory from the newest
//               copy that gds-index scavenge left in the prefix (gds-run, when
//               it gave a job up, scavenged the nodes still up): a new
//               allocation with every cache gone restarts from it. Local.
// What neither finds is lost: the restart rebuilds it from the redundancy.
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/mpi_args.hpp"
#include "core/util.hpp"
#include "persist/cache.hpp"
#include "persist/names.hpp"

using gds::core::Array;

namespace gds::persist {

std::uint64_t newest_record(const std::string &dir) {
  std::uint64_t newest = kNone;
  for (const std::string &name : list_dir(dir)) {
    const CacheName c = parse_cache_name(name);
    if (c.kind == CacheName::record && !c.tmp && (newest == kNone || c.number > newest)) newest = c.number;
  }
  return newest;
}

namespace {

using gds::core::ull;

constexpr int kTagOffer = 0x6d70, kTagAsk = 0x6d71, kTagManifest = 0x6d72, kTagData = 0x6d73;
constexpr std::uint64_t kChunk = std::uint64_t{1} << 30;  // bytes per message (an int count)

// A process's directories in one failure group's directory of a cache:
// the array's, and its version groups' records.
struct Holding {
  std::string node_dir;  // <base or copy>/node<g>
  std::uint64_t newest = kNone;
};

// A file of a holding as it travels: which directory, its name, its size.
struct Entry {
  std::string group;  // "" for the array's directory, else the version group's
  std::string name;
  std::uint64_t bytes = 0;
  std::string path;   // the holder's
};

std::vector<Entry> entries_of(Array &a, const std::string &node_dir, int rank) {
  const ArrayState &s = state(a);
  std::vector<Entry> out;
  const auto add = [&](const std::string &group, const std::string &dir) {
    for (const std::string &name : list_dir(dir)) {
      const CacheName c = parse_cache_name(name);
      if (c.kind == CacheName::other || c.tmp) continue;
      struct stat st {};
      if (::stat((dir + "/" + name).c_str(), &st) != 0) continue;
      out.push_back(Entry{group, name, static_cast<std::uint64_t>(st.st_size), dir + "/" + name});
    }
  };
  add("", rank_dir(node_dir + "/" + s.name, rank));
  for (const std::string &entry : list_dir(node_dir))
    if (const std::optional<std::string> group = group_of_dir(entry)) add(*group, rank_dir(node_dir + "/" + entry, rank));
  return out;
}

// Where an entry goes on its owner.
std::string destination(Array &a, const Entry &e) {
  return (e.group.empty() ? cacher(a).dir : group_record_dir(a, e.group)) + "/" + e.name;
}

// The data messages a holding's files take.
std::uint64_t chunks(const std::vector<Entry> &entries) {
  std::uint64_t n = 0;
  for (const Entry &e : entries) n += (e.bytes + kChunk - 1) / kChunk;
  return n;
}

// The manifest of a holding: the number of data messages that follow, then
// per entry its group, name and size, as text lines.
std::vector<char> encode(const std::vector<Entry> &entries) {
  const std::string head = std::to_string(chunks(entries)) + "\n";
  std::vector<char> out(head.begin(), head.end());
  for (const Entry &e : entries) {
    const std::string line = e.group + "/" + e.name + " " + std::to_string(e.bytes) + "\n";
    out.insert(out.end(), line.begin(), line.end());
  }
  return out;
}

// The entries of a manifest (false if it is malformed); *messages: the data messages that follow.
bool decode(const std::vector<char> &bytes, std::vector<Entry> *out, std::uint64_t *messages) {
  const auto first = std::find(bytes.begin(), bytes.end(), '\n');
  const std::optional<std::uint64_t> n = core::parse_unsigned(std::string(bytes.begin(), first).c_str());
  *messages = n.value_or(0);
  if (first == bytes.end() || !n) return false;
  std::size_t at = static_cast<std::size_t>(first - bytes.begin()) + 1;
  while (at < bytes.size()) {
    const auto end = std::find(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.end(), '\n');
    if (end == bytes.end()) return false;
    const std::string line(bytes.begin() + static_cast<std::ptrdiff_t>(at), end);
    at = static_cast<std::size_t>(end - bytes.begin()) + 1;
    const std::size_t slash = line.find('/'), space = line.rfind(' ');
    if (slash == std::string::npos || space == std::string::npos || space < slash) return false;
    Entry e{line.substr(0, slash), line.substr(slash + 1, space - slash - 1), 0, ""};
    const std::optional<std::uint64_t> size = core::parse_unsigned(line.substr(space + 1).c_str());
    const CacheName c = parse_cache_name(e.name);
    if (!size || c.kind == CacheName::other || c.tmp || e.name.find('/') != std::string::npos ||
        (!e.group.empty() && !core::valid_name(e.group)))
      return false;
    e.bytes = *size;
    out->push_back(std::move(e));
  }
  return chunks(*out) == *messages;
}

// The holder's side: the files of each holding asked for, sent (requests pending in *reqs).
Result send_holdings(MPI_Comm comm, Array &a, const std::vector<std::pair<int, std::string>> &asked,
                     std::vector<std::vector<char>> *manifests, std::vector<Mapped> *maps,
                     std::vector<MPI_Request> *reqs) {
  for (const auto &[to, node_dir] : asked) {
    // The files that map, as they are: the manifest never names one that is not sent.
    std::vector<Entry> entries;
    const std::size_t first = maps->size();
    for (Entry &e : entries_of(a, node_dir, to)) {
      Mapped m;
      if (!m.open(e.path).ok()) continue;
      e.bytes = m.bytes().size();
      entries.push_back(std::move(e));
      maps->push_back(std::move(m));
    }
    manifests->push_back(encode(entries));
    const std::vector<char> &m = manifests->back();
    reqs->emplace_back();
    int rc = MPI_Isend(m.data(), static_cast<int>(m.size()), MPI_CHAR, to, kTagManifest, comm, &reqs->back());
    if (rc != MPI_SUCCESS) return Result::mpi("MPI_Isend", rc);
    for (std::size_t k = 0; k < entries.size(); ++k) {
      const Entry &e = entries[k];
      const std::span<const std::byte> bytes = (*maps)[first + k].bytes();
      for (std::uint64_t at = 0; at < e.bytes; at += kChunk) {
        reqs->emplace_back();
        rc = MPI_Isend(bytes.data() + at, static_cast<int>(std::min(kChunk, e.bytes - at)), MPI_BYTE, to, kTagData,
                       comm, &reqs->back());
        if (rc != MPI_SUCCESS) return Result::mpi("MPI_Isend", rc);
      }
    }
  }
  return {};
}

// The owner's side: its holding from `from`, written into its directories.
Result receive_holding(MPI_Comm comm, Array &a, int from, std::uint64_t *files, std::uint64_t *bytes) {
  MPI_Status st;
  int rc = MPI_Probe(from, kTagManifest, comm, &st);
  if (rc != MPI_SUCCESS) return Result::mpi("MPI_Probe", rc);
  int count = 0;
  MPI_Get_count(&st, MPI_CHAR, &count);
  std::vector<char> manifest(static_cast<std::size_t>(std::max(count, 0)));
  rc = MPI_Recv(manifest.data(), count, MPI_CHAR, from, kTagManifest, comm, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return Result::mpi("MPI_Recv", rc);
  std::vector<Entry> entries;
  std::uint64_t messages = 0;
  if (!decode(manifest, &entries, &messages)) {  // its data received and dropped: nothing left behind
    std::vector<std::byte> drop(static_cast<std::size_t>(kChunk));
    for (std::uint64_t k = 0; k < messages; ++k) {
      rc = MPI_Recv(drop.data(), static_cast<int>(kChunk), MPI_BYTE, from, kTagData, comm, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return Result::mpi("MPI_Recv", rc);
    }
    return Result::corrupt("a malformed manifest of files arrived from process " + std::to_string(from));
  }
  Result r;
  std::vector<std::byte> data;
  for (const Entry &e : entries) {  // every chunk received, whatever failed, so that none is left behind
    data.resize(e.bytes);
    for (std::uint64_t at = 0; at < e.bytes; at += kChunk) {
      rc = MPI_Recv(data.data() + at, static_cast<int>(std::min(kChunk, e.bytes - at)), MPI_BYTE, from, kTagData, comm,
                    MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return Result::mpi("MPI_Recv", rc);
    }
    const std::string to = destination(a, e);
    const std::size_t slash = to.rfind('/');
    if (r.ok()) r = make_dirs(to.substr(0, slash));
    if (r.ok()) r = write_file(to, {{data.data(), data.size()}});
    if (r.ok()) r = sync_dir(to.substr(0, slash));
    ++*files;
    *bytes += e.bytes;
  }
  return r;
}

// The newest record of process `rank` of array `name` in a failure group's
// directory: in the array's directory, or in a version group's (a member
// of a group has its records there).
std::uint64_t newest_in(const std::string &node_dir, const std::string &name, int rank) {
  std::uint64_t newest = newest_record(rank_dir(node_dir + "/" + name, rank));
  for (const std::string &entry : list_dir(node_dir))
    if (group_of_dir(entry)) {
      const std::uint64_t n = newest_record(rank_dir(node_dir + "/" + entry, rank));
      if (n != kNone && (newest == kNone || n > newest)) newest = n;
    }
  return newest;
}

// Whether process r sees `node_dir` of this process's cache where it
// expects its own directory: it runs on this host (so the base's path is
// the same file system here and there), its base is this one (one without
// {node}, or r is on this node), and the directory is its group's.
bool sees_it(Array &a, const Cacher &c, int r, const std::string &jd, const std::string &node_dir) {
  const auto i = static_cast<std::size_t>(r), me = static_cast<std::size_t>(a.rank);
  return c.host_of[i] == c.host_of[me] && (!state(a).base_per_node || c.group_of[i] == c.group_of[me]) &&
         node_dir == persist::node_dir(jd, c.group_of[i]);
}

// The holdings this process offers: the process directories in its node's
// cache, found by the first process of its failure group (the others on
// the node see the same), but not those their processes see where they
// expect them (one host acting as several nodes over one base sees every
// directory: the offers would grow with the processes).
std::vector<std::pair<int, Holding>> holdings(Array &a) {
  const ArrayState &s = state(a);
  const Cacher &c = cacher(a);
  std::vector<std::pair<int, Holding>> out;
  const int mine = c.group_of[static_cast<std::size_t>(a.rank)];
  for (int r = 0; r < a.rank; ++r)
    if (c.group_of[static_cast<std::size_t>(r)] == mine) return out;  // not the first of its node
  const std::string jd = job_dir(s.base, g_settings.job);
  for (const std::string &node : list_dir(jd)) {
    if (!is_node_dir(node)) continue;
    for (const std::string &entry : list_dir(jd + "/" + node + "/" + s.name)) {
      const std::optional<std::uint64_t> rank = rank_of_dir(entry);
      if (!rank || *rank >= static_cast<std::uint64_t>(a.nprocs) ||
          sees_it(a, c, static_cast<int>(*rank), jd, jd + "/" + node))
        continue;
      const Holding h{jd + "/" + node, newest_in(jd + "/" + node, s.name, static_cast<int>(*rank))};
      if (h.newest != kNone) out.emplace_back(static_cast<int>(*rank), h);
    }
  }
  return out;
}

}  // namespace

GDS_status_t distribute(const char *func, Array &a) {
  MPI_Comm comm = a.communicator();
  const bool lacks = !has_records(func, a);  // (read once: the directory listing and every record)
  std::uint64_t lacking[1] = {lacks};
  GDS_TRY(core::agree(func, comm, GDS_STATUS_OK, lacking));
  if (lacking[0] == 0) return GDS_STATUS_OK;
  // Offers: (version low, version high, index) to each process held.
  const std::vector<std::pair<int, Holding>> held = holdings(a);
  std::vector<std::pair<int, std::vector<std::uint32_t>>> offers;
  for (std::size_t i = 0; i < held.size(); ++i)
    offers.push_back({held[i].first, {static_cast<std::uint32_t>(held[i].second.newest),
                                      static_cast<std::uint32_t>(held[i].second.newest >> 32),
                                      static_cast<std::uint32_t>(i)}});
  int best_from = -1;
  std::uint32_t best_index = 0;
  std::uint64_t best = kNone;
  GDS_TRY(core::sparse_exchange(func, comm, kTagOffer, offers, [&](int from, std::span<const std::uint32_t> w) {
    if (!lacks || w.size() != 3) return;
    const std::uint64_t n = w[0] | (std::uint64_t{w[1]} << 32);
    if (best == kNone || n > best || (n == best && from < best_from)) best = n, best_from = from, best_index = w[2];
  }));
  // Asks: the index of the holding wanted, to its holder.
  std::vector<std::pair<int, std::vector<std::uint32_t>>> asks;
  if (best_from >= 0) asks.push_back({best_from, {best_index}});
  std::vector<std::pair<int, std::string>> asked;
  bool malformed = false;
  GDS_TRY(core::sparse_exchange(func, comm, kTagAsk, asks, [&](int from, std::span<const std::uint32_t> w) {
    if (w.size() != 1 || w[0] >= held.size() || held[w[0]].first != from) malformed = true;
    else asked.emplace_back(from, held[w[0]].second.node_dir);
  }));
  // The files, point to point: the holders' sends posted, then each owner receives its holding.
  std::vector<std::vector<char>> manifests;
  std::vector<Mapped> maps;
  std::vector<MPI_Request> reqs;
  manifests.reserve(asked.size());
  Result sent = malformed ? Result::corrupt("a malformed request for files arrived") : Result();
  if (sent.ok()) sent = send_holdings(comm, a, asked, &manifests, &maps, &reqs);
  std::uint64_t files = 0, bytes = 0;
  Result got = best_from >= 0 ? receive_holding(comm, a, best_from, &files, &bytes) : Result();
  const int rc = core::wait_all(&reqs);
  if (sent.ok() && rc != MPI_SUCCESS) sent = Result::mpi("MPI_Waitall", rc);
  const Result &why = !got.ok() ? got : sent;
  if (best_from >= 0 && got.ok())
    core::log(core::Level::info, func, "array %s: process %d received its cache directory (%llu file(s), %llu bytes, "
              "version %llu the newest) from process %d, on the node that wrote it", state(a).name.c_str(), a.rank,
              ull(files), ull(bytes), ull(best), best_from);
  std::uint64_t moved[1] = {files};
  GDS_TRY(kRestartDistribute.end(func, comm, why.report(func), moved));
  state(a).distributed_files = moved[0];
  return GDS_STATUS_OK;
}

namespace {

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

// This process's files fetched from the newest scavenged copy of its
// directory in the prefix, if it lacks them (*files: how many).
void fetch_scavenged(const char *func, Array &a, std::uint64_t *files) {
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
      const std::uint64_t n = newest_in(at, s.name, a.rank);
      if (n != kNone && (newest == kNone || n > newest)) newest = n, best = at;
    }
  if (best.empty()) return;
  std::uint64_t bytes = 0;
  Result r = fetch_dir(rank_dir(best + "/" + s.name, a.rank), cacher(a).dir, files, &bytes);
  for (const std::string &entry : list_dir(best)) {  // its version groups' records
    const std::optional<std::string> group = group_of_dir(entry);
    if (group && r.ok()) r = fetch_dir(rank_dir(best + "/" + entry, a.rank), group_record_dir(a, *group), files, &bytes);
  }
  if (!r.ok()) {
    core::log(core::Level::warning, func, "array %s: fetching the scavenged copy %s failed (%s); the restart goes on "
              "without it", s.name.c_str(), best.c_str(), r.what().c_str());
    return;
  }
  core::log(core::Level::info, func, "array %s: fetched %llu file(s), %llu bytes, of process %d from %s (newest "
            "record: version %llu)", s.name.c_str(), ull(*files), ull(bytes), a.rank, best.c_str(), ull(newest));
}

}  // namespace

GDS_status_t fetch(const char *func, Array &a) {
  std::uint64_t fetched[1] = {0};  // the most any process fetched: for the restart's line
  fetch_scavenged(func, a, &fetched[0]);
  GDS_TRY(kRestartFetch.end(func, a.communicator(), GDS_STATUS_OK, fetched));
  state(a).fetched_files = fetched[0];
  return GDS_STATUS_OK;
}

}  // namespace gds::persist
