// The cache level (versions::Level): versions as files in a node-local
// directory per process, protected across failure groups by a redundancy
// scheme (one file per scheme); its catalogue of their blocks, rebuilt from
// the files at restart (recover).
//
// Phases of a cached version (inside GDS_version_inc's phase persist), each
// ending with an agreed status:
//   decide      every process is ready; full or incremental (agreed)
//   write       v<n>.gdsv: the blocks changed since the previous cached
//               version (all of them for a full one), fsynced; the scheme
//               learns every file length it will receive (prepare)
//   redundancy  the scheme protects the file (PARTNER copy, XOR parity), fsynced
//   record      v<n>.done, written only after every process has the version
//               durable: restart takes version n if any process's record
//               says so, since every process's data was durable before it
//   drop        files no retained version needs any more are removed
// Asynchronous (the default; GDS_CACHE_SYNC=1 keeps the phases above inside
// GDS_version_inc): GDS_version_inc decides, copies the version's file
// into memory of its own, agrees, posts the scheme's messages (start) and
// queues the file's write on the cache lane, then returns. Later calls on
// the array (GDS_version_inc, GDS_cache_wait, GDS_free, GDS_finalize)
// complete the requests (MPI_Testall: MPI progresses them inside the
// application's own calls too), queue the write of what arrived (PARTNER
// copies, XOR parity), and agree, in one allreduce per call for all of the
// array's versions in flight:
//   durable     every process has written and fsynced its files: the
//               commit record's write is queued
//   recorded    every process has its record: the catalogue has the
//               version, and what no retained version needs goes
// At most kInflight versions of an array are in flight; GDS_version_inc
// waits for the oldest beyond. A failure anywhere takes the version (and
// the younger ones in flight, which may build on it) out of the cache;
// it is raised to the error handlers, and GDS_cache_wait returns it.
// Durability: as in the synchronous case, a version is restartable once a
// process has its commit record; a crash loses the versions in flight (up
// to kInflight, and the records wait for a later call). A flush is
// published only after the cache's versions up to it (settle), so that
// the prefix never holds a version newer than the cache's newest.
// Directory: <base>/gds.<job>/node<group>/<array name>/r<rank>/.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "core/background.hpp"
#include "core/bits.hpp"
#include "core/collective.hpp"
#include "core/groups.hpp"
#include "core/killpoint.hpp"
#include "core/log.hpp"
#include "core/module.hpp"
#include "core/mpi_args.hpp"
#include "core/runtime.hpp"
#include "core/util.hpp"
#include "persist/files.hpp"
#include "persist/levels.hpp"
#include "persist/names.hpp"
#include "persist/state.hpp"
#include "rma/state.hpp"
#include "versions/level.hpp"
#include "versions/state.hpp"

using gds::core::Array;

namespace gds::persist {

namespace {

using gds::core::ull;

Places places(Array &a) {
  ArrayState &s = state(a);
  return Places{a.communicator(), a.rank, a.nprocs, s.group_of, s.dir, s.spares, !s.sync};
}

using core::Background;
using core::Lane;

// Asynchronous versions of an array in flight at once.
constexpr std::size_t kInflight = 2;

std::string group_dir(const ArrayState &s, int group) { return node_dir(job_dir(s.base, g_settings.job), group); }

const versions::Store &store(Array &a) { return *versions::state(a).store; }

// Every file of version n this process holds (the data files kept as spares).
void remove_version(ArrayState &s, std::uint64_t n) {
  remove_file(record_path(s.dir, n));
  s.spares->keep(version_path(s.dir, n));
  if (s.scheme) s.scheme->remove(n);
}

// Removes the files of every version not in `keep` (kept: none) from this process's directory.
std::size_t remove_others(ArrayState &s, const std::set<std::uint64_t> &keep) {
  std::size_t removed = 0;
  for (const std::string &name : list_dir(s.dir)) {
    const CacheName c = parse_cache_name(name);
    if (c.kind != CacheName::other && !c.tmp && keep.count(c.number) != 0) continue;
    remove_file(s.dir + "/" + name);
    ++removed;
  }
  return removed;
}

// Spare files per directory: what one dropped full version frees (its own
// file, and a PARTNER copy or XOR parity).
constexpr std::size_t kSpares = 4;
// Pieces (runs of changed blocks) up to which schemes read a version file in place.
constexpr std::size_t kMaxPieces = 64;

// Writes a commit record (tmp, fsync, rename; the caller syncs the directory).
GDS_status_t write_record(const char *func, const std::string &dir, const Record &r) {
  const std::vector<std::byte> record = encode_record(r);
  return write_file_atomically(func, record_path(dir, r.number), {{const_cast<std::byte *>(record.data()), record.size()}});
}

// A cached version's file as the pieces it is written from: its header,
// then runs of blocks where they are in the memory version (or all of it in
// one buffer, s.buffer).
struct VersionPieces {
  std::vector<std::byte> head;
  std::vector<versions::Stored> own;  // where its blocks are in it
  std::vector<iovec> pieces;
  std::uint64_t size = 0;  // of the file
  std::uint64_t held = 0;  // bytes of blocks in it
  std::uint32_t header_crc = 0;
};

// Lays out version v's file with header h: every block for a full version,
// else the blocks changed since the last cached version. Schemes read the
// file from where its pieces are, unless it is in many small pieces
// (scattered changes): then from one copy in s.buffer rather than in many
// messages. No exception escapes (it runs between collectives): exhausted
// memory is GDS_STATUS_NOMEM.
GDS_status_t lay_out(const char *func, ArrayState &s, const versions::Frozen &v, const VersionHeader &h,
                     VersionPieces *out) noexcept try {
  std::vector<std::uint32_t> blocks, crcs;
  std::vector<iovec> data;
  const auto add = [&](std::uint32_t first, std::uint32_t count) {
    const std::uint64_t start = std::uint64_t{first} << v.shift;
    std::uint64_t run = 0;
    for (std::uint32_t b = first; b < first + count; ++b) {
      blocks.push_back(b);
      crcs.push_back(v.crcs[b]);  // taken as the version froze the block
      run += block_length(v.bytes, v.shift, b);
    }
    data.push_back(iovec{const_cast<std::byte *>(v.memory + start), run});
    out->own.push_back(versions::Stored{first, count, out->held});  // from the data's start, for now
    out->held += run;
  };
  if (h.full) {
    if (s.nblocks > 0) add(0, static_cast<std::uint32_t>(s.nblocks));
  } else {
    core::for_each_run_of_bits(s.changed, static_cast<std::uint32_t>(s.nblocks), add);
  }
  out->head = encode_version_head(h, *v.label, *v.next_label, blocks, crcs);
  VersionFile parsed;  // the header as written, for its CRC (the commit record names it)
  (void)parse_version(std::span<const std::byte>(out->head.data(), kVersionHeaderBytes), &parsed, false);
  out->header_crc = parsed.h.header_crc;
  out->size = out->head.size() + out->held;
  for (versions::Stored &o : out->own) o.at += out->head.size();
  out->pieces.assign(1, iovec{out->head.data(), out->head.size()});
  out->pieces.insert(out->pieces.end(), data.begin(), data.end());
  if (s.copy != Copy::single && out->pieces.size() > kMaxPieces) {
    s.buffer.resize(out->size);
    std::byte *p = s.buffer.data();
    for (const iovec &piece : out->pieces) {
      std::memcpy(p, piece.iov_base, piece.iov_len);
      p += piece.iov_len;
    }
    out->pieces.assign(1, iovec{s.buffer.data(), s.buffer.size()});
  }
  return GDS_STATUS_OK;
} catch (...) {
  return core::exception_status(func);
}

// The phases of a cached version (README "Levels, schemes and the phases of
// a cached version"). Each ends in an agreed status; one that fails leaves
// nothing of the version.

// decide: a full version, or the blocks changed since the last cached one
// (full once they add up to a part, or if any process must write one).
GDS_status_t phase_decide(const char *func, Array &a, const versions::Frozen &v, GDS_status_t local, bool *full) {
  ArrayState &s = state(a);
  std::uint64_t changed_bytes = 0;
  for (const std::uint64_t w : s.changed) changed_bytes += static_cast<std::uint64_t>(std::popcount(w));
  changed_bytes <<= v.shift;
  std::uint64_t any_full[1] = {s.force_full || s.cached.empty() || s.delta_bytes + changed_bytes >= v.bytes};
  GDS_TRY(core::agree(func, a.communicator(), local, any_full));
  *full = any_full[0] != 0;
  return GDS_STATUS_OK;
}

// write: this process's version file (header *h, pieces *file); the scheme
// learns the lengths it will receive and reserves its buffers, agreed with
// the write, so that redundancy starts only where every process can take
// part in all of it.
GDS_status_t phase_write(const char *func, Array &a, const versions::Frozen &v, bool full, VersionHeader *h,
                         VersionPieces *file) {
  ArrayState &s = state(a);
  const std::uint64_t n = v.number;
  remove_file(record_path(s.dir, n));  // a record left by an attempt that failed after it
  h->rank = static_cast<std::uint32_t>(a.rank);
  h->nprocs = static_cast<std::uint32_t>(a.nprocs);
  h->number = n;
  h->next = v.next;
  h->base = full ? n : s.cached.back().base;
  h->prev = s.cached.empty() ? kNone : s.cached.back().number;
  h->part_bytes = v.bytes;
  h->shift = v.shift;
  h->full = full;
  h->signature = s.signature;
  GDS_status_t status = lay_out(func, s, v, *h, file);
  h->header_crc = file->header_crc;
  if (status == GDS_STATUS_OK) status = s.spares->write(func, version_path(s.dir, n), file->pieces);
  const GDS_status_t ready = s.scheme->prepare(func, n, file->size);
  if (status == GDS_STATUS_OK) status = ready;
  const GDS_status_t agreed = core::agree(func, a.communicator(), status);
  if (agreed != GDS_STATUS_OK) remove_version(s, n);
  return agreed;
}

// redundancy: the scheme's copies or parity, and the directory synced.
GDS_status_t phase_redundancy(const char *func, Array &a, std::uint64_t n, const VersionPieces &file) {
  ArrayState &s = state(a);
  GDS_status_t status = s.scheme->encode(func, n, FileView{file.pieces, file.size});
  if (status == GDS_STATUS_OK) status = sync_dir(func, s.dir);
  core::kill_point("cache.agree");
  const GDS_status_t agreed = core::agree(func, a.communicator(), status);
  if (agreed != GDS_STATUS_OK) remove_version(s, n);
  return agreed;
}

// The version's commit record; the cache lists it (taken back if the record fails).
Record record_of(ArrayState &s, const VersionHeader &h, std::uint64_t held) {
  s.cached.push_back(Cached{h.number, h.base, h.prev, 0, held});
  const std::size_t keep = static_cast<std::size_t>(std::min<std::uint64_t>(s.cache_size, s.cached.size()));
  s.cached.back().oldest = s.cached[s.cached.size() - keep].number;
  return Record{h.rank, h.nprocs, h.header_crc, h.number, h.base, h.prev, s.cached.back().oldest};
}

// The catalogue has a version once its record is written.
void catalogue_add(ArrayState &s, const versions::Frozen &v, const VersionHeader &h, VersionPieces *file) {
  s.catalogue.entries.push_back(versions::Catalogue::Entry{h.number, v.next, *v.label, *v.next_label, h.full != 0,
                                                           true, std::move(file->own)});
}

// record: the commit record, after which restart may take the version
// (and the catalogue has it).
GDS_status_t phase_record(const char *func, Array &a, const versions::Frozen &v, const VersionHeader &h,
                          VersionPieces *file) {
  ArrayState &s = state(a);
  GDS_status_t status = write_record(func, s.dir, record_of(s, h, file->held));
  if (status == GDS_STATUS_OK) status = sync_dir(func, s.dir);
  const GDS_status_t agreed = core::agree(func, a.communicator(), status);
  if (agreed != GDS_STATUS_OK) {
    s.cached.pop_back();
    remove_version(s, h.number);
    return agreed;
  }
  catalogue_add(s, v, h, file);
  return agreed;
}

// The next cached version starts from this one (its increment). Cannot fail.
void start_from(Array &a, bool full, std::uint64_t held) {
  ArrayState &s = state(a);
  if (full) s.delta_bytes = 0;
  else s.delta_bytes += held;
  std::fill(s.changed.begin(), s.changed.end(), 0);
  s.since_cached = 0;
  s.force_full = false;
}

// What no retained version up to version n (recorded) needs: the chain of
// the oldest of them. Cannot fail.
void drop_before(Array &a, std::uint64_t n) {
  ArrayState &s = state(a);
  std::size_t upto = 0;  // versions in s.cached up to n (younger ones are in flight)
  while (upto < s.cached.size() && s.cached[upto].number <= n) ++upto;
  const std::size_t keep = static_cast<std::size_t>(std::min<std::uint64_t>(s.cache_size, upto));
  if (keep == 0) return;
  const std::uint64_t needed = s.cached[upto - keep].base;
  while (s.cached.front().number < needed) {
    remove_version(s, s.cached.front().number);
    s.cached.pop_front();
  }
  s.catalogue.drop_older_than(needed);
}

// drop: what no retained version needs; the next cached version starts
// from this one. Cannot fail.
void phase_drop(Array &a, bool full, std::uint64_t held) {
  drop_before(a, state(a).cached.back().number);
  start_from(a, full, held);
}

// What one process found of a version: its record's fields.
struct Found {
  std::uint64_t number, base, prev, oldest, nprocs;
};
using Records = std::map<std::uint64_t, Found>;  // by version

// The phases of a restart from the cache. Each ends in an agreed status.

// Records: every process's commit records, gathered; versions whose records
// disagree are left out. *recorded: the versions this process has a record of.
GDS_status_t gather_records(const char *func, Array &a, Records *found, std::set<std::uint64_t> *recorded) {
  ArrayState &s = state(a);
  MPI_Comm comm = a.communicator();
  std::vector<std::uint64_t> mine;
  for (const std::string &name : list_dir(s.dir)) {
    const CacheName c = parse_cache_name(name);
    if (c.kind != CacheName::record || c.tmp) continue;
    std::vector<std::byte> bytes;
    Record r;
    if (!read_file(s.dir + "/" + name, &bytes) || !parse_record(bytes, &r).empty() ||
        record_path(s.dir, r.number) != s.dir + "/" + name) {
      core::log(core::Level::warning, func, "array %s: ignoring the unreadable or corrupt commit record %s/%s",
                s.name.c_str(), s.dir.c_str(), name.c_str());
      continue;
    }
    mine.insert(mine.end(), {r.number, r.base, r.prev, r.oldest, r.nprocs});
    recorded->insert(r.number);
  }
  // The commit records of the version groups the array was in.
  const std::string node = group_dir(s, core::failure_groups().mine);
  for (const std::string &entry : list_dir(node)) {
    if (!group_of_dir(entry)) continue;
    const std::string gdir = rank_dir(node + "/" + entry, a.rank);
    for (const std::string &name : list_dir(gdir)) {
      const CacheName c = parse_cache_name(name);
      if (c.kind != CacheName::record || c.tmp) continue;
      std::vector<std::byte> bytes;
      GroupRecord g;
      if (!read_file(gdir + "/" + name, &bytes) || !parse_group_record(bytes, &g).empty() ||
          record_path(gdir, g.number) != gdir + "/" + name) {
        core::log(core::Level::warning, func, "array %s: ignoring the unreadable or corrupt group commit record %s/%s",
                  s.name.c_str(), gdir.c_str(), name.c_str());
        continue;
      }
      for (const auto &[member, r] : g.members)
        if (member == s.name && r.rank == static_cast<std::uint32_t>(a.rank)) {
          mine.insert(mine.end(), {r.number, r.base, r.prev, r.oldest, r.nprocs});
          recorded->insert(r.number);
        }
    }
  }
  int count = static_cast<int>(mine.size()), total = 0;
  std::vector<int> counts(static_cast<std::size_t>(a.nprocs)), displs(static_cast<std::size_t>(a.nprocs));
  int rc = MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Allgather", rc);
  for (int r = 0; r < a.nprocs; ++r) {
    displs[static_cast<std::size_t>(r)] = total;
    total += counts[static_cast<std::size_t>(r)];
  }
  std::vector<std::uint64_t> all(static_cast<std::size_t>(total));
  rc = MPI_Allgatherv(mine.data(), count, MPI_UINT64_T, all.data(), counts.data(), displs.data(), MPI_UINT64_T, comm);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Allgatherv", rc);
  std::set<std::uint64_t> inconsistent;
  for (std::size_t i = 0; i + 5 <= all.size(); i += 5) {
    const Found f{all[i], all[i + 1], all[i + 2], all[i + 3], all[i + 4]};
    if (f.nprocs != static_cast<std::uint64_t>(a.nprocs))
      return core::fail(GDS_STATUS_UNRECOVERABLE, func,
                        "array %s was persisted by %llu processes and this run has %d; restart needs as many",
                        s.name.c_str(), ull(f.nprocs), a.nprocs);
    auto [it, fresh] = found->emplace(f.number, f);
    if (!fresh && (it->second.base != f.base || it->second.prev != f.prev || it->second.oldest != f.oldest))
      inconsistent.insert(f.number);
  }
  for (const std::uint64_t n : inconsistent) found->erase(n);
  return GDS_STATUS_OK;
}

// The chain of a candidate version, oldest first: back along `prev` to the
// full version the oldest version retained with it starts from (or, if that
// one's record is gone, to the candidate's own full version). Empty if a
// record on the way is missing.
std::vector<std::uint64_t> chain_of(const Records &found, const Found &top) {
  const std::uint64_t stop = found.count(top.oldest) != 0 ? found.at(top.oldest).base : top.base;
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

// Files: which of the chain's files every process has, checked to the last
// block (*oks: a flag per process and version, rank-major). They stay
// mapped in *files for the replay (read once: no copies, no new memory). A
// file of another array of this name is refused everywhere.
GDS_status_t check_files(const char *func, Array &a, const Records &found, const std::vector<std::uint64_t> &chain,
                         std::vector<Mapped> *files, std::vector<char> *oks) {
  ArrayState &s = state(a);
  const Places p = places(a);
  const std::size_t len = chain.size();
  std::vector<char> ok(len);
  oks->assign(len * static_cast<std::size_t>(a.nprocs), 0);
  files->clear();
  files->resize(len);
  bool foreign = false;
  for (std::size_t i = 0; i < len; ++i) {
    const std::string why = read_own_version(p, chain[i], &(*files)[i]);
    ok[i] = why.empty();
    if (ok[i]) {
      VersionFile v;
      (void)parse_version((*files)[i].bytes(), &v, false);
      const Found &f = found.at(chain[i]);
      if (v.h.signature != s.signature || v.h.part_bytes != store(a).local_bytes() || v.h.shift != store(a).shift())
        foreign = true;
      else if (v.h.base != f.base || v.h.prev != f.prev)
        ok[i] = 0;
    } else if (why != "missing") {
      const std::string what = version_path(s.dir, chain[i]) + ": " + why;  // outlives the raise
      const core::Detected d{nullptr, nullptr, static_cast<std::int64_t>(chain[i]), 0, a.rank, what.c_str()};
      core::log(core::Level::warning, func, "array %s: %s; %s", s.name.c_str(), what.c_str(),
                s.copy == Copy::single ? "SINGLE keeps no redundancy: the restart falls back to an older version"
                                       : "rebuilding it from redundancy");
      core::fail(GDS_STATUS_CORRUPT, func, "%s", what.c_str());
      core::detected(func, &a, GDS_STATUS_CORRUPT, d);
    }
  }
  std::uint64_t any_foreign[1] = {foreign};
  GDS_TRY(core::agree(func, a.communicator(), GDS_STATUS_OK, any_foreign));
  if (any_foreign[0] != 0)
    return core::fail(GDS_STATUS_INVALID, func,
                      "the persisted array %s has another shape, element type, order, block size or distribution; "
                      "give this array another %s or start a new job",
                      s.name.c_str(), GDS_NAME_KEY);
  const int rc = MPI_Allgather(ok.data(), static_cast<int>(len), MPI_CHAR, oks->data(), static_cast<int>(len),
                               MPI_CHAR, a.communicator());
  return rc == MPI_SUCCESS ? GDS_STATUS_OK : core::mpi_fail(func, "MPI_Allgather", rc);
}

// Rebuild: what was lost, version by version, from the scheme's redundancy;
// each file under a temporary name, checked block by block, then renamed.
GDS_status_t rebuild_lost(const char *func, Array &a, const std::vector<std::uint64_t> &chain,
                          const std::vector<char> &oks, std::vector<Mapped> *files, std::set<int> *processes,
                          std::uint64_t *rebuilt_files) {
  ArrayState &s = state(a);
  const std::size_t len = chain.size();
  for (std::size_t i = 0; i < len; ++i) {
    std::vector<char> lost(static_cast<std::size_t>(a.nprocs));
    bool any = false;
    for (int r = 0; r < a.nprocs; ++r) {
      lost[static_cast<std::size_t>(r)] = !oks[static_cast<std::size_t>(r) * len + i];
      any = any || lost[static_cast<std::size_t>(r)];
    }
    if (!any) continue;
    const std::string path = version_path(s.dir, chain[i]), tmp = path + ".tmp";
    const bool lost_here = lost[static_cast<std::size_t>(a.rank)] != 0;
    GDS_status_t here =
        s.scheme->rebuild(func, chain[i], lost, lost_here ? std::span<const std::byte>() : (*files)[i].bytes(), tmp);
    if (lost_here) {
      if (here == GDS_STATUS_OK) {
        Mapped rebuilt;
        VersionFile v;
        std::string why = rebuilt.open(tmp) ? parse_version(rebuilt.bytes(), &v, true) : "cannot be read back";
        if (why.empty() && (v.h.number != chain[i] || v.h.rank != static_cast<std::uint32_t>(a.rank)))
          why = "written for another version or process";
        if (!why.empty())
          here = core::fail(GDS_STATUS_UNRECOVERABLE, func, "version %llu of process %d rebuilt wrong: %s",
                            ull(chain[i]), a.rank, why.c_str());
        else if (::rename(tmp.c_str(), path.c_str()) != 0)
          here = core::fail(GDS_STATUS_IO_ERROR, func, "cannot rename %s to %s", tmp.c_str(), path.c_str());
        else
          (*files)[i] = std::move(rebuilt);  // the mapping follows the file
      }
      if (here != GDS_STATUS_OK) remove_file(tmp);
    }
    GDS_TRY(core::agree(func, a.communicator(), here));
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

// Records taken: every process records the versions restart took where it
// lacks the record (killed before writing it, its group's files lost, a
// damaged one): restart took them on another process's record, which a later
// loss of that process's group would take with it, and every version after.
GDS_status_t record_taken(const char *func, Array &a, const Records &found, const std::vector<std::uint64_t> &chain,
                          const std::vector<Mapped> &files, const std::set<std::uint64_t> &recorded) {
  ArrayState &s = state(a);
  GDS_status_t recording = GDS_STATUS_OK;
  bool wrote = false;
  for (std::size_t i = 0; i < chain.size() && recording == GDS_STATUS_OK; ++i) {
    if (recorded.count(chain[i]) != 0) continue;
    VersionFile v;
    (void)parse_version(files[i].bytes(), &v, false);  // checked before
    const Found &f = found.at(chain[i]);
    const Record r{static_cast<std::uint32_t>(a.rank), static_cast<std::uint32_t>(a.nprocs), v.h.header_crc,
                   chain[i], f.base, f.prev, f.oldest};
    recording = write_record(func, s.dir, r);
    wrote = true;
  }
  if (wrote && recording == GDS_STATUS_OK) recording = sync_dir(func, s.dir);
  return core::agree(func, a.communicator(), recording);
}


// The redundancy the failure groups allow, as SCR decides it: PARTNER and
// XOR need two groups or more (SINGLE otherwise, with a warning when the
// copy type was asked for); an XOR set has at most as many members as there
// are groups (GDS_SET_SIZE is a maximum, as SCR_SET_SIZE is); XOR needs
// every process in a set with processes of other groups (PARTNER
// otherwise, with a warning). The same on every process: group_of is.
void fit_to_groups(const char *func, Array &a, std::vector<std::vector<int>> *sets) {
  ArrayState &s = state(a);
  const auto ngroups = static_cast<std::uint64_t>(std::set<int>(s.group_of.begin(), s.group_of.end()).size());
  const auto warn = [&](const char *what, Copy instead) {
    if (a.rank == 0 && s.copy_given)
      core::log(core::Level::warning, func, "array %s: copy type %s %s; using %s", s.name.c_str(), copy_name(s.copy),
                what, copy_name(instead));
    s.copy = instead;
  };
  if ((s.copy == Copy::partner || s.copy == Copy::xor_) && ngroups < 2)
    warn("needs processes in 2 or more failure groups and this array's are all in one (GDS_NODE_ID or "
         "GDS_RANKS_PER_NODE make one host act as several); no redundancy",
         Copy::single);
  if (s.copy != Copy::xor_) return;
  if (s.set_size > ngroups) {
    if (s.set_size_given)
      GDS_DEBUG("array %s: XOR sets of at most %llu (the failure groups) instead of %llu", s.name.c_str(),
                ull(ngroups), ull(s.set_size));
    s.set_size = ngroups;
  }
  *sets = xor_sets(s.group_of, static_cast<int>(s.set_size));
  if (sets->empty())
    warn("cannot put every process in a set with processes of other failure groups (one group holds more than "
         "half of them)",
         Copy::partner);
}

// Forgets every cached version of the array and removes its files (a
// restart took another level's version, or none): the next cached version
// is a full one.
void reset_cache(Array &a) {
  ArrayState &s = state(a);
  remove_others(s, {});
  s.cached.clear();
  s.catalogue.entries.clear();
  s.delta_bytes = 0;
  s.since_cached = 0;
  s.force_full = true;
  std::fill(s.changed.begin(), s.changed.end(), 0);
}

}  // namespace

// A restart's state from recover to recovered: the records gathered, the
// chain taken, its files (mapped: read once, no copies) and what was rebuilt.
struct CacheRestart {
  Records found;
  std::set<std::uint64_t> recorded;  // here
  std::vector<std::uint64_t> chain;
  std::vector<Mapped> files;
  std::set<int> rebuilt_processes;
  std::uint64_t rebuilt_files = 0;
};

namespace {

// A process's directory of a group's commit records.
std::string group_record_dir(Array &a, const std::string &group) {
  return rank_dir(group_dir(state(a), core::failure_groups().mine) + "/" + group_dir_name(group), a.rank);
}

// Removes the group commit records in `dir` whose version `gone` says,
// and (unless records are being written in the background, `writing`)
// files left half written.
template <class Gone>
void remove_group_records(const std::string &dir, Gone gone, bool writing = false) {
  for (const std::string &name : list_dir(dir)) {
    const CacheName c = parse_cache_name(name);
    const bool record = c.kind == CacheName::record && !c.tmp;
    if (record ? !gone(c.number) : writing) continue;
    remove_file(dir + "/" + name);
  }
}

// ---- Asynchronous cached versions (GDS_CACHE_SYNC unset) ----

// One array's cached version in flight: its file whole in memory of its
// own, the scheme's exchange, and the jobs writing them (each job writes
// only its result; the application's thread reads it once the job finished).
struct Flight {
  Array *a = nullptr;
  VersionHeader h;
  VersionPieces file;           // own: where its blocks are; pieces: {copy}
  std::vector<std::byte> copy;  // the file, then zeros up to the scheme's room()
  bool full = false;
  std::uint64_t next = 0;
  std::string label, next_label;
  Record record;
  Exchange x;
  bool exchanged = false;
  GDS_status_t mpi = GDS_STATUS_OK;  // completing the exchange
  Background::Ticket own = 0, protect = 0, recorded = 0;
  std::string own_why, protect_why, record_why;
};

// A version in flight: one array's, or a version group's members' (one
// commit record for all). The same on every process of the arrays.
struct Unit {
  std::optional<std::string> group;
  std::string group_dir;  // of the group's records
  std::vector<std::unique_ptr<Flight>> flights;
  bool recording = false;  // durable everywhere: the records are being written
  [[nodiscard]] bool involves(const Array *a) const {
    return std::any_of(flights.begin(), flights.end(), [&](const auto &f) { return f->a == a; });
  }
};

// What a job does, its failure kept (memory running out inside it too).
template <class F>
Background::Ticket submit_job(std::string *why, F work) {
  return Background::submit(
      [why, work = std::move(work)](const std::atomic<bool> &) {
        try {
          *why = work();
        } catch (...) {
          *why = "no memory to write it";
        }
      },
      Lane::cache);
}

// Whether the flight's local work is over (waits for it if `block`);
// queues the write of what the exchange brought once it completed.
bool advance(const char *func, Flight &f, bool recording, bool block) {
  if (recording) {
    if (block) Background::wait(f.recorded, Lane::cache);
    return Background::finished(f.recorded, Lane::cache);
  }
  if (!f.exchanged) {
    int done = 1, rc = MPI_SUCCESS;
    if (!f.x.reqs.empty()) {
      rc = block ? MPI_Waitall(static_cast<int>(f.x.reqs.size()), f.x.reqs.data(), MPI_STATUSES_IGNORE)
                 : MPI_Testall(static_cast<int>(f.x.reqs.size()), f.x.reqs.data(), &done, MPI_STATUSES_IGNORE);
    }
    if (rc != MPI_SUCCESS) {
      f.mpi = core::mpi_fail(func, block ? "MPI_Waitall" : "MPI_Testall", rc);
      // What is still active may read or write the buffers: ended before they go.
      for (MPI_Request &r : f.x.reqs) {
        if (r == MPI_REQUEST_NULL) continue;
        MPI_Cancel(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
    }
    if (done != 0 || rc != MPI_SUCCESS) {
      f.exchanged = true;
      f.x.reqs.clear();
      if (f.x.store && f.mpi == GDS_STATUS_OK)
        f.protect = submit_job(&f.protect_why, [fl = &f] { return fl->x.store(fl->x); });
    }
  }
  if (!f.exchanged) return false;
  if (block) {
    Background::wait(f.own, Lane::cache);
    Background::wait(f.protect, Lane::cache);
  }
  return Background::finished(f.own, Lane::cache) && Background::finished(f.protect, Lane::cache);
}

// What failed of a flight whose work is over ("" if nothing).
std::string failure_of(const Flight &f) {
  if (f.mpi != GDS_STATUS_OK) return "MPI failed completing its redundancy";
  if (!f.own_why.empty()) return f.own_why;
  if (!f.protect_why.empty()) return f.protect_why;
  return f.record_why;
}

// Ends a flight that will not be completed: its work waited for, its files removed.
void abandon(const char *func, Flight &f) {
  (void)advance(func, f, false, true);
  Background::wait(f.recorded, Lane::cache);
  ArrayState &s = state(*f.a);
  remove_version(s, f.h.number);
  s.cached.erase(std::remove_if(s.cached.begin(), s.cached.end(), [&](const Cached &c) { return c.number == f.h.number; }),
                 s.cached.end());
  s.force_full = true;  // what it held since the last cached version goes with the next one
  s.delta_bytes = 0;
}

class CacheLevel final : public versions::Level {
 public:
  [[nodiscard]] int id() const override { return GDS_LEVEL_CACHE; }
  [[nodiscard]] const char *name() const override { return "cache"; }
  [[nodiscard]] bool holds(const Array &a) const override { return a.state<ArrayState>().persistent(); }

  // A version for the cache every `every` versions, in the phases above;
  // between them, kill points. In a group, the record waits for end_group.
  // Asynchronous: the earlier versions in flight progress first (at most
  // kInflight of them), then the version starts.
  GDS_status_t commit(const char *func, Array &a, const versions::Frozen &v, GDS_status_t local, bool) override {
    ArrayState &s = state(a);
    for (const auto &[first, count] : v.changed)
      for (std::uint32_t b = first; b < first + count; ++b) core::set_bit(s.changed, b);
    if (!s.sync && (!group_ || flights_.empty())) GDS_TRY(progress(func, a, Wait::none));
    if (++s.since_cached < s.every) return core::agree(func, a.communicator(), local);
    if (!s.sync) {
      while (in_flight(a) >= kInflight) GDS_TRY(progress(func, a, Wait::oldest));
      bool full = false;
      core::kill_point("cache.decide");
      GDS_TRY(phase_decide(func, a, v, local, &full));
      core::kill_point("cache.write");
      std::unique_ptr<Flight> f;
      GDS_TRY(start_flight(func, a, v, full, &f));
      if (group_) {
        flights_.push_back(std::move(f));
      } else {
        units_.emplace_back();
        units_.back().flights.push_back(std::move(f));
      }
      return GDS_STATUS_OK;
    }
    bool full = false;
    core::kill_point("cache.decide");
    GDS_TRY(phase_decide(func, a, v, local, &full));
    VersionHeader h;
    VersionPieces file;
    core::kill_point("cache.write");
    GDS_TRY(phase_write(func, a, v, full, &h, &file));
    core::kill_point("cache.redundancy");
    GDS_TRY(phase_redundancy(func, a, h.number, file));
    if (group_) {
      pending_.push_back(Pending{&a, v.next, *v.label, *v.next_label, h, std::move(file), full});
      return GDS_STATUS_OK;
    }
    core::kill_point("cache.record");
    const std::uint64_t held = file.held;
    GDS_TRY(phase_record(func, a, v, h, &file));
    core::kill_point("cache.drop");
    phase_drop(a, full, held);
    return GDS_STATUS_OK;
  }

  void begin_group(const std::string &group) override {
    group_ = group;
    pending_.clear();
    flights_.clear();
    group_broken_ = false;
  }

  // record, for a group: one commit record per process naming every
  // member's version (<node>/<group>@group/r<rank>/v<n>.done), then each
  // member's drop.
  GDS_status_t end_group(const char *func, MPI_Comm comm, GDS_status_t status) override {
    if (!group_) return status;
    const std::string name = std::move(*group_);
    group_.reset();
    if (!flights_.empty()) {  // asynchronous: the group's record comes once every member's files are durable
      std::vector<std::unique_ptr<Flight>> flights = std::move(flights_);
      flights_.clear();
      const bool broken = std::exchange(group_broken_, false);
      if (status != GDS_STATUS_OK || broken) {  // broken: a member's earlier version failed meanwhile (raised)
        for (auto &f : flights) {
          abandon(func, *f);
          failed_[f->a] = GDS_STATUS_IO_ERROR;
        }
        return status;
      }
      units_.emplace_back();
      Unit &u = units_.back();
      u.group = name;
      u.group_dir = group_record_dir(*flights.front()->a, name);
      u.flights = std::move(flights);
      return status;
    }
    std::vector<Pending> pend = std::move(pending_);
    pending_.clear();
    if (status != GDS_STATUS_OK || pend.empty()) {
      for (Pending &p : pend) remove_version(state(*p.a), p.h.number);
      return status;
    }
    core::kill_point("cache.record");
    GroupRecord g{pend.front().h.number, {}};
    for (Pending &p : pend) {
      ArrayState &s = state(*p.a);
      g.members.emplace_back(s.name, record_of(s, p.h, p.file.held));
    }
    const std::string dir = group_record_dir(*pend.front().a, name);
    status = make_dirs(func, dir);
    if (status == GDS_STATUS_OK) {
      const std::vector<std::byte> bytes = encode_group_record(g);
      status = write_file_atomically(func, record_path(dir, g.number),
                                     {{const_cast<std::byte *>(bytes.data()), bytes.size()}});
    }
    if (status == GDS_STATUS_OK) status = sync_dir(func, dir);
    const GDS_status_t agreed = core::agree(func, comm, status);
    if (agreed != GDS_STATUS_OK) {
      for (Pending &p : pend) {
        state(*p.a).cached.pop_back();
        remove_version(state(*p.a), p.h.number);
      }
      return agreed;
    }
    core::kill_point("cache.drop");
    std::uint64_t needed = kNone;
    for (Pending &p : pend) {
      ArrayState &s = state(*p.a);
      const std::string label = p.label, next_label = p.next_label;
      versions::Frozen v;
      v.next = p.next;
      v.label = &label;
      v.next_label = &next_label;
      const std::uint64_t held = p.file.held;
      catalogue_add(s, v, p.h, &p.file);
      phase_drop(*p.a, p.full, held);
      needed = std::min(needed, s.cached.front().number);
    }
    remove_group_records(dir, [&](std::uint64_t n) { return n < needed; });
    return GDS_STATUS_OK;
  }

  [[nodiscard]] std::string differs(const Array &a, const Array &b) const override {
    const ArrayState &x = a.state<ArrayState>(), &y = b.state<ArrayState>();
    if (x.copy != y.copy) return std::string("copy types ") + copy_name(x.copy) + " and " + copy_name(y.copy);
    if (x.base != y.base) return "cache bases " + x.base + " and " + y.base;
    if (x.every != y.every || x.cache_size != y.cache_size) return "cache every or cache size";
    if (x.sync != y.sync) return "synchronous and asynchronous cache writes";
    return "";
  }

  // The group's records that are not on its members' timeline go (an
  // earlier run's, or all of them on a fresh start).
  GDS_status_t open_group(const char *, const std::string &name, std::span<Array *const> members) override {
    std::set<std::uint64_t> keep;
    for (const Cached &c : state(*members.front()).cached) keep.insert(c.number);
    remove_group_records(group_record_dir(*members.front(), name), [&](std::uint64_t n) { return keep.count(n) == 0; });
    return GDS_STATUS_OK;
  }

  bool restart_info(const Array &a, GDS_restart_info_t *info) const override {
    *info = a.state<ArrayState>().info;
    return true;
  }

  void restored(Array &a, std::uint64_t) override { state(a).force_full = true; }
  // The cache keeps its own versions (GDS_CACHE_SIZE), not memory's.
  void drop(Array &, std::uint64_t) override {}

  [[nodiscard]] std::optional<versions::Location> locate(Array &a, std::uint64_t number,
                                                         std::uint32_t block) const override {
    const versions::Catalogue &c = state(a).catalogue;
    const versions::Catalogue::Entry *e = c.find(number);
    if (e == nullptr) return std::nullopt;
    return c.locate(static_cast<std::size_t>(e - c.entries.data()), block, store(a).shift());
  }

  // The newest version whose record some process has and whose files every
  // process has or gets rebuilt (older candidates when a rebuild fails).
  GDS_status_t recover(const char *func, Array &a, versions::Catalogue *out) override {
    ArrayState &s = state(a);
    auto r = std::make_shared<CacheRestart>();
    GDS_TRY(gather_records(func, a, &r->found, &r->recorded));
    if (r->found.empty()) return GDS_STATUS_OK;  // nothing to restart from
    GDS_status_t last = GDS_STATUS_UNRECOVERABLE;
    for (auto cand = r->found.rbegin(); cand != r->found.rend(); ++cand) {
      std::vector<std::uint64_t> chain = chain_of(r->found, cand->second);
      if (chain.empty()) continue;
      std::vector<char> oks;
      GDS_TRY(check_files(func, a, r->found, chain, &r->files, &oks));
      r->rebuilt_processes.clear();
      r->rebuilt_files = 0;
      if (const GDS_status_t status =
              rebuild_lost(func, a, chain, oks, &r->files, &r->rebuilt_processes, &r->rebuilt_files);
          status != GDS_STATUS_OK) {
        last = status == GDS_STATUS_REMOTE_ERROR ? GDS_STATUS_UNRECOVERABLE : status;
        continue;  // an older candidate
      }
      catalogue_of(r->found, chain, r->files, out);
      r->chain = std::move(chain);
      s.cache_restart = std::move(r);
      return GDS_STATUS_OK;
    }
    return core::fail(last, func,
                      "array %s: no cached version can be restored (files lost beyond what copy type %s rebuilds)",
                      s.name.c_str(), copy_name(s.copy));
  }

  std::string read(Array &a, const versions::Catalogue &, std::size_t i, std::uint64_t at, std::uint64_t bytes,
                   std::byte *dst, bool) override {
    const CacheRestart &r = *state(a).cache_restart;
    const std::span<const std::byte> file = r.files[i].bytes();  // checked to the last block before
    if (at > file.size() || bytes > file.size() - at) return "shorter than its blocks";
    std::memcpy(dst, file.data() + at, bytes);
    return "";
  }

  // The chain up to the version taken becomes what the cache holds; every
  // process records what it lacks the record of.
  GDS_status_t recovered(const char *func, Array &a, const versions::Catalogue &c, std::size_t taken,
                         std::uint64_t navigable) override {
    ArrayState &s = state(a);
    const std::shared_ptr<CacheRestart> r = std::move(s.cache_restart);
    const std::vector<std::uint64_t> chain(r->chain.begin(), r->chain.begin() + static_cast<std::ptrdiff_t>(taken) + 1);
    s.cached.clear();
    s.delta_bytes = 0;
    for (std::size_t i = 0; i < chain.size(); ++i) {
      const Found &f = r->found.at(chain[i]);
      std::uint64_t held = 0;
      for (const versions::Stored &o : c.entries[i].own)
        held += std::min(std::uint64_t{o.first + o.count} << store(a).shift(), store(a).local_bytes()) -
                (std::uint64_t{o.first} << store(a).shift());
      s.cached.push_back(Cached{chain[i], f.base, f.prev, f.oldest, held});
      s.delta_bytes = c.entries[i].full ? 0 : s.delta_bytes + held;
    }
    s.catalogue.entries.assign(c.entries.begin(), c.entries.begin() + static_cast<std::ptrdiff_t>(taken) + 1);
    remove_others(s, std::set<std::uint64_t>(chain.begin(), chain.end()));
    GDS_TRY(record_taken(func, a, r->found, chain, r->files, r->recorded));
    s.force_full = !r->rebuilt_processes.empty();  // redundancy whole again from the next cached version on
    s.info.restarted = 1;
    s.info.level = GDS_LEVEL_CACHE;
    s.info.version = chain.back();
    s.info.versions = navigable;
    s.info.rebuilt_processes = static_cast<int>(r->rebuilt_processes.size());
    s.info.rebuilt_files = r->rebuilt_files;
    if (a.rank == 0)
      core::log(core::Level::info, func,
                "array %s restarted from version %llu of the cache (%llu version(s) navigable, %d process(es) "
                "rebuilt)",
                s.name.c_str(), ull(chain.back()), ull(navigable), s.info.rebuilt_processes);
    return GDS_STATUS_OK;
  }

  void restarted_elsewhere(const char *, Array &a, int, std::optional<std::uint64_t>) override {
    state(a).cache_restart.reset();
    reset_cache(a);  // the cache starts over from the restarted content
  }

 private:
  // A group member's version, written and redundant, waiting for the group's record.
  struct Pending {
    Array *a;
    std::uint64_t next;
    std::string label, next_label;
    VersionHeader h;
    VersionPieces file;
    bool full;
  };
  std::optional<std::string> group_;  // between begin_group and end_group
  std::vector<Pending> pending_;
  std::vector<std::unique_ptr<Flight>> flights_;  // asynchronous: the group's members' versions started
  std::deque<Unit> units_;                        // asynchronous versions in flight, oldest first
  bool group_broken_ = false;                     // flights_ build on a version that failed
  std::map<const Array *, GDS_status_t> failed_;  // since the array's last GDS_cache_wait (or its GDS_free)

 public:
  // ---- Asynchronous versions ----

  enum class Wait { none, oldest, all };

  // Completes what it can of the versions in flight of `a` (and of its
  // group): one agreement over the array's communicator for all of them,
  // then the steps every process is ready for, oldest first. `wait`: none
  // (what is done already), the oldest of them, or all of them. Returns
  // the first failure a version met (raised to the handlers as it was
  // agreed) or the agreement's.
  GDS_status_t progress(const char *func, Array &a, Wait wait) {
    for (;;) {
      std::vector<std::size_t> mine;
      for (std::size_t i = 0; i < units_.size(); ++i)
        if (units_[i].involves(&a)) mine.push_back(i);
      if (mine.empty()) return GDS_STATUS_OK;
      // 0: over everywhere, 1: not yet somewhere, 2: failed somewhere.
      std::vector<std::uint64_t> values(mine.size(), 0);
      for (std::size_t k = 0; k < mine.size(); ++k) {
        Unit &u = units_[mine[k]];
        const bool block = wait == Wait::all || (wait == Wait::oldest && k == 0);
        for (auto &f : u.flights) {
          if (!advance(func, *f, u.recording, block)) values[k] = std::max<std::uint64_t>(values[k], 1);
          else if (!failure_of(*f).empty()) values[k] = 2;
        }
      }
      GDS_TRY(core::agree(func, a.communicator(), GDS_STATUS_OK, values));
      std::size_t gone = 0;  // units retired or failed, from mine's front
      bool stop = false;
      for (std::size_t k = 0; k < mine.size() && !stop; ++k) {
        Unit &u = units_[mine[k] - gone];
        if (values[k] == 1) {
          stop = true;
        } else if (values[k] == 2) {
          fail_from(func, mine[k] - gone);
          stop = true;
          ++gone;  // the oldest waited for is over
        } else if (!u.recording) {
          core::kill_point("cache.record");
          start_records(func, u);
        } else {
          core::kill_point("cache.drop");
          retire(u);
          units_.erase(units_.begin() + static_cast<std::ptrdiff_t>(mine[k] - gone));
          ++gone;
        }
      }
      if (wait == Wait::none || (wait == Wait::oldest && gone > 0)) return GDS_STATUS_OK;
    }
  }

  // The unit at `first` failed: it ends, and so does every younger unit
  // (and the group's versions being started) of an array it involves,
  // transitively, since they may build on its versions. Its failures are
  // raised (read once its jobs are over); every array involved remembers
  // it for GDS_cache_wait. The arrays involved share a communicator, on
  // which the same units exist everywhere.
  void fail_from(const char *func, std::size_t first) {
    std::set<const Array *> hit;
    std::vector<std::size_t> doomed;
    for (std::size_t i = first; i < units_.size(); ++i) {
      const Unit &u = units_[i];
      if (i != first && std::none_of(u.flights.begin(), u.flights.end(), [&](const auto &f) { return hit.count(f->a); }))
        continue;
      for (const auto &f : u.flights) hit.insert(f->a);
      doomed.push_back(i);
    }
    struct Failure {
      Array *a;
      std::uint64_t number;
      std::string why;
    };
    std::vector<Failure> failures;
    for (const std::size_t i : doomed) {
      Unit &u = units_[i];
      for (auto &f : u.flights) {
        abandon(func, *f);
        if (std::string why = failure_of(*f); i == first && !why.empty())
          failures.push_back(Failure{f->a, f->h.number, std::move(why)});
      }
      if (u.group)
        remove_group_records(u.group_dir, [n = u.flights.front()->h.number](std::uint64_t m) { return m == n; }, true);
    }
    for (auto i = doomed.rbegin(); i != doomed.rend(); ++i) units_.erase(units_.begin() + static_cast<std::ptrdiff_t>(*i));
    for (const Array *x : hit) failed_[x] = GDS_STATUS_IO_ERROR;
    if (std::any_of(flights_.begin(), flights_.end(), [&](const auto &f) { return hit.count(f->a) != 0; }))
      group_broken_ = true;
    for (const Failure &x : failures) raise(func, *x.a, x.number, x.why);  // handlers may call GDS: last
  }

  // The versions in flight of array `a` (for the limit).
  [[nodiscard]] std::size_t in_flight(const Array &a) const {
    return static_cast<std::size_t>(
        std::count_if(units_.begin(), units_.end(), [&](const Unit &u) { return u.involves(&a); }));
  }

  // A failure of a version in flight, raised where it is agreed on.
  static void raise(const char *func, Array &a, std::uint64_t number, const std::string &why) {
    core::fail(GDS_STATUS_IO_ERROR, func, "array %s: cached version %llu failed (written in the background): %s",
               state(a).name.c_str(), ull(number), why.c_str());
    core::detected(func, &a, GDS_STATUS_IO_ERROR,
                   core::Detected{nullptr, nullptr, static_cast<std::int64_t>(number), 0, a.rank, why.c_str()});
  }

  // Every process has the unit's files durable: the commit records' writes.
  static void start_records(const char *func, Unit &u) {
    u.recording = true;
    if (!u.group) {
      Flight &f = *u.flights.front();
      const std::string dir = state(*f.a).dir, path = record_path(dir, f.record.number);
      f.recorded = submit_job(&f.record_why, [dir, path, bytes = encode_record(f.record)] {
        return store_file_atomically(dir, path, {{const_cast<std::byte *>(bytes.data()), bytes.size()}});
      });
      return;
    }
    GroupRecord g{u.flights.front()->h.number, {}};
    for (auto &f : u.flights) g.members.emplace_back(state(*f->a).name, f->record);
    Flight &f = *u.flights.front();
    if (const GDS_status_t made = make_dirs(func, u.group_dir); made != GDS_STATUS_OK) {
      f.record_why = GDS_last_error_message();
      return;
    }
    f.recorded = submit_job(&f.record_why, [dir = u.group_dir, path = record_path(u.group_dir, g.number),
                                            bytes = encode_group_record(g)] {
      return store_file_atomically(dir, path, {{const_cast<std::byte *>(bytes.data()), bytes.size()}});
    });
  }

  // Every process has the unit's records: the catalogue has its versions,
  // what no retained version needs goes, and the buffers are kept for the next.
  void retire(Unit &u) {
    std::uint64_t needed = kNone;
    for (auto &f : u.flights) {
      ArrayState &s = state(*f->a);
      versions::Frozen v;
      v.next = f->next;
      v.label = &f->label;
      v.next_label = &f->next_label;
      catalogue_add(s, v, f->h, &f->file);
      drop_before(*f->a, f->h.number);
      needed = std::min(needed, s.cached.front().number);
      if (s.scheme) s.scheme->give_back(std::move(f->x.in));
      if (s.stages.size() < kInflight) s.stages.push_back(std::move(f->copy));
    }
    if (u.group) remove_group_records(u.group_dir, [&](std::uint64_t n) { return n < needed; }, true);
  }

  // write, asynchronously: the version's file copied whole (the memory
  // version changes once GDS_version_inc returns), the scheme prepared;
  // agreed; then the scheme's messages posted and the file's write queued.
  GDS_status_t start_flight(const char *func, Array &a, const versions::Frozen &v, bool full,
                            std::unique_ptr<Flight> *out) {
    ArrayState &s = state(a);
    auto f = std::make_unique<Flight>();
    f->a = &a;
    f->full = full;
    f->next = v.next;
    f->label = *v.label;
    f->next_label = *v.next_label;
    const std::uint64_t n = v.number;
    remove_file(record_path(s.dir, n));
    VersionHeader &h = f->h;
    h.rank = static_cast<std::uint32_t>(a.rank);
    h.nprocs = static_cast<std::uint32_t>(a.nprocs);
    h.number = n;
    h.next = v.next;
    h.base = full ? n : s.cached.back().base;
    h.prev = s.cached.empty() ? kNone : s.cached.back().number;
    h.part_bytes = v.bytes;
    h.shift = v.shift;
    h.full = full;
    h.signature = s.signature;
    GDS_status_t status = lay_out(func, s, v, h, &f->file);
    h.header_crc = f->file.header_crc;
    const GDS_status_t ready = s.scheme->prepare(func, n, f->file.size);
    if (status == GDS_STATUS_OK) status = ready;
    if (status == GDS_STATUS_OK) {
      try {
        if (!s.stages.empty()) {
          f->copy = std::move(s.stages.back());
          s.stages.pop_back();
        }
        f->copy.resize(s.scheme->room(f->file.size));
        std::byte *p = f->copy.data();
        for (const iovec &piece : f->file.pieces) {
          std::memcpy(p, piece.iov_base, piece.iov_len);
          p += piece.iov_len;
        }
        std::memset(p, 0, f->copy.size() - f->file.size);
      } catch (const std::bad_alloc &) {
        status = core::fail_critical(GDS_STATUS_NOMEM, func, "array %s: no memory for a copy of cached version %llu",
                                     s.name.c_str(), ull(n));
      }
    }
    GDS_TRY(core::agree(func, a.communicator(), status));
    f->file.pieces.assign(1, iovec{f->copy.data(), f->file.size});
    // What may throw (memory) comes before any message or job uses f.
    f->record = record_of(s, h, f->file.held);
    core::kill_point("cache.redundancy");
    if (const GDS_status_t started = s.scheme->start(func, n, f->copy.data(), &f->x); started != GDS_STATUS_OK)
      f->mpi = started;
    const std::string path = version_path(s.dir, n), dir = s.dir;
    s.spares->claim(path, f->file.size);
    f->own = submit_job(&f->own_why, [fl = f.get(), path, dir] {
      std::string why = store_file(path, {{fl->copy.data(), fl->file.size}});
      if (why.empty() && !fsync_dir(dir)) why = dir + ": cannot fsync";
      return why;
    });
    start_from(a, full, f->file.held);
    *out = std::move(f);
    return GDS_STATUS_OK;
  }

  // GDS_cache_wait, GDS_free: every version of the array in flight
  // completed; the first failure since the last wait (then forgotten).
  GDS_status_t wait(const char *func, Array &a) {
    GDS_TRY(progress(func, a, Wait::all));
    const auto it = failed_.find(&a);
    if (it == failed_.end()) return GDS_STATUS_OK;
    failed_.erase(it);
    return core::fail(GDS_STATUS_IO_ERROR, func, "array %s: a cached version failed since the last wait (raised "
                      "when it did)", state(a).name.c_str());
  }

  // GDS_cache_wait's part of GDS_free: the array is forgotten even if
  // completing its versions failed (their work waited for, no record).
  GDS_status_t forget(const char *func, Array &a) {
    const GDS_status_t status = wait(func, a);
    for (auto u = units_.begin(); u != units_.end();) {
      if (!u->involves(&a)) {
        ++u;
        continue;
      }
      for (auto &f : u->flights) abandon(func, *f);
      u = units_.erase(u);
    }
    failed_.erase(&a);
    return status;
  }

  // Every version of `a` up to `number` in flight completed (a flush of
  // version `number` is published only then, so that the prefix never
  // holds a version newer than the cache's newest: restart takes the
  // cache's first and removes newer flushes). Collective.
  GDS_status_t settle(const char *func, Array &a, std::uint64_t number) {
    while (behind(a, number)) GDS_TRY(progress(func, a, Wait::oldest));
    return GDS_STATUS_OK;
  }
  [[nodiscard]] bool behind(const Array &a, std::uint64_t number) const {
    return std::any_of(units_.begin(), units_.end(), [&](const Unit &u) {
      return std::any_of(u.flights.begin(), u.flights.end(),
                         [&](const auto &f) { return f->a == &a && f->h.number <= number; });
    });
  }
};

CacheLevel g_cache;

}  // namespace

versions::Level &cache_level() { return g_cache; }

GDS_status_t cache_wait(const char *func, Array &a) {
  return state(a).persistent() ? g_cache.wait(func, a) : GDS_STATUS_OK;
}

GDS_status_t cache_forget(const char *func, Array &a) {
  return state(a).persistent() ? g_cache.forget(func, a) : GDS_STATUS_OK;
}

GDS_status_t cache_settle(const char *func, Array &a, std::uint64_t number) {
  return state(a).persistent() ? g_cache.settle(func, a, number) : GDS_STATUS_OK;
}

bool cache_behind(const Array &a, std::uint64_t number) {
  return a.state<ArrayState>().persistent() && g_cache.behind(a, number);
}

GDS_status_t open_cache(const char *func, Array &a) {
  ArrayState &s = state(a);
  MPI_Comm comm = a.communicator();
  s.group_of.assign(static_cast<std::size_t>(a.nprocs), 0);
  int mine = core::failure_groups().mine;
  int rc = MPI_Allgather(&mine, 1, MPI_INT, s.group_of.data(), 1, MPI_INT, comm);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Allgather", rc);
  std::vector<std::vector<int>> sets;
  fit_to_groups(func, a, &sets);
  s.dir = rank_dir(group_dir(s, mine) + "/" + s.name, a.rank);
  s.spares = std::make_shared<Spares>(s.dir, kSpares);
  GDS_status_t status = make_dirs(func, s.dir);
  if (status == GDS_STATUS_OK && !writable_dir(s.dir))
    status = core::fail(GDS_STATUS_IO_ERROR, func, "the cache directory %s is not writable", s.dir.c_str());
  GDS_TRY(core::agree(func, comm, status));
  const versions::Store &st = store(a);
  s.nblocks = st.nblocks();
  s.changed.assign(core::words_for(s.nblocks), 0);
  const Places p = places(a);
  switch (s.copy) {
    case Copy::single: s.scheme = make_single(p); break;
    case Copy::partner: s.scheme = make_partner(p); break;
    case Copy::xor_: GDS_TRY(make_xor(func, p, sets, &s.scheme)); break;
    case Copy::none: break;
  }
  if (s.restart) return GDS_STATUS_OK;  // restart.cpp asks the levels
  const std::size_t removed = remove_others(s, {});
  if (removed > 0)
    core::log(core::Level::info, func,
              "array %s: removed %zu file(s) an earlier run left in %s (restart was not asked for: %s=1 or "
              "GDS_RESTART=1)",
              s.name.c_str(), removed, s.dir.c_str(), GDS_RESTART_KEY);
  return GDS_STATUS_OK;
}

}  // namespace gds::persist

