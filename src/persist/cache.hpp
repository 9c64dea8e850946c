// What the cache level's files share (cache.cpp: the level, an array's
// cache opened, a version's files laid out; cache_pipeline.cpp: a cached
// version's protocol from start to retire; cache_restart.cpp: restart from
// cached versions). Internal to the persist module.
//
// Directory: <base>/gds.<job>/node<group>/<array name>/r<rank>/ (names.hpp).
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/array.hpp"
#include "core/background.hpp"
#include "core/phase.hpp"
#include "persist/files.hpp"
#include "persist/format.hpp"
#include "persist/levels.hpp"
#include "persist/result.hpp"
#include "persist/scheme.hpp"
#include "persist/state.hpp"
#include "versions/level.hpp"

namespace gds::persist {

// The phases of a cached version (cache_pipeline.cpp), each ending agreed,
// and the kill points between them.
inline constexpr core::Phase kCachePrepare{
    "cache.prepare", "every process laid out its files and knows the lengths it receives; nothing is written yet"};
inline constexpr core::Phase kCacheDurable{
    "cache.durable", "every process's files and their redundancy are written and fsynced; no commit record yet"};
inline constexpr core::Point kCacheRecord{"cache.record",
                                          "durable everywhere; this process has not started its commit record"};
inline constexpr core::Phase kCacheRecorded{
    "cache.recorded", "every process has its commit record: restart takes the version (one record is enough)"};
inline constexpr core::Point kCacheDrop{"cache.drop", "recorded everywhere; older files not yet removed"};

// The phases of the restart (cache_distribute.cpp, cache_restart.cpp,
// restart.cpp, prefix_restart.cpp), each ending agreed: GDS_TEST_KILL and
// GDS_TEST_FAIL reach them like the others; a restart that fails in one
// fails on every process, and the next restart starts over.
inline constexpr core::Phase kRestartDistribute{
    "restart.distribute", "every process has its cache directory where it runs, or knows it lacks it"};
inline constexpr core::Phase kRestartFetch{
    "restart.fetch", "a process lacking its directory took the prefix's scavenged copy, where there is one"};
inline constexpr core::Phase kRestartRecords{
    "restart.records", "the processes agree on a candidate version and the records of its chain"};
inline constexpr core::Phase kRestartFiles{
    "restart.files", "every process checked its files of the chain; the peers that rebuild know who lost theirs"};
inline constexpr core::Phase kRestartRebuild{
    "restart.rebuild", "the lost files of one version of the chain are rebuilt from the redundancy"};
inline constexpr core::Phase kRestartFlushes{
    "restart.flushes", "every process read the metadata of a flushed version (the prefix)"};
inline constexpr core::Phase kRestartReplay{
    "restart.replay", "one entry of the level's catalogue is in memory, and a memory version if navigable"};
inline constexpr core::Phase kRestartSettle{"restart.settle", "the memory holds the newest entry restored"};
inline constexpr core::Phase kRestartRecorded{
    "restart.recorded", "the level recorded what the restart took; the others forgot what is not on its timeline"};

// Asynchronous versions of an array in flight at once.
inline constexpr std::size_t kInflight = 2;
// Bytes of a synchronous unit's files up to which they are written on the
// calling thread rather than the cache lane (cache_pipeline.cpp).
inline constexpr std::uint64_t kWriteHere = std::uint64_t{1} << 20;

// A version's file as the pieces it is written from: its header, then runs
// of blocks where they are in the memory version, or all of it in one
// buffer.
struct VersionPieces {
  std::vector<std::byte> head;
  std::vector<versions::Stored> own;  // where its blocks are in it
  FileView view;                      // its pieces and size
  std::uint64_t held = 0;             // bytes of blocks in it
  std::uint32_t header_crc = 0;
};

// One array's version of a cached version, from its layout to its
// retirement: its own file, or its segment of its group's file.
struct CachedFile {
  core::Array *a = nullptr;
  VersionHeader h;
  VersionPieces file;
  std::uint64_t next = 0;
  std::string label, next_label;
  Record record;
};

// The one file a unit writes on this process, protected by the first
// member's scheme: an array's version file (v<n>.gdsv in its directory),
// or a version group's (v<n>.gdsg in the group's: a head naming the
// members, then each member's version file as a segment).
struct UnitFile {
  Files where;                  // its directory and kind
  std::string path;
  std::vector<std::byte> head;  // a group's: its head
  FileView view;                // its pieces and size
  std::vector<std::byte> copy;  // asynchronous: the file whole (the memory changes once GDS_version_inc returns)
  Exchange x;                   // the scheme's protection of it
  bool exchanged = false;       // its messages completed
  Result mpi;                   // completing them
  core::Background::Ticket own = 0, protect = 0;  // the jobs writing the file and what arrived
  std::shared_ptr<Result> own_result = std::make_shared<Result>(), protect_result = std::make_shared<Result>();
  bool here = false;            // written on the calling thread (a small synchronous unit)
};

// A cached version in flight: one array's, or a version group's members'
// (one file and one commit record for all). The same units exist on every
// process of the arrays, in the same order; a group's is shared by its
// members' Cachers.
struct Unit {
  std::optional<std::string> group;
  std::string group_dir;  // of the group's files and records
  std::vector<CachedFile> files;
  UnitFile out;
  bool sync = false;      // waited for inside GDS_version_inc (failures returned there, not raised)
  core::Ballot::Field<std::uint64_t> wishes;  // per file, whether the next cached version should be full
  bool laid_out = true;    // every file (false where a member's version was not frozen here)
  enum class Step { writing, recording } step = Step::writing;
  bool reached = false;   // this process reached the step's phase (once per step: its kill point counts reaches)
  core::Background::Ticket recorded = 0;  // the job writing this process's record
  std::shared_ptr<Result> record_result = std::make_shared<Result>();
  [[nodiscard]] bool involves(const core::Array *a) const;
};

// One array's cache on this process: its directory and scheme, the
// versions it holds, and those in flight.
class Cacher {
 public:
  std::string dir;                 // this process's
  std::shared_ptr<Spares> spares;  // in it
  std::map<std::string, std::shared_ptr<Spares>> group_spares;  // in the directories of its groups' files
  std::vector<int> group_of;       // per rank of the array's communicator
  std::vector<long long> host_of;  // per rank: its host's key (core::FailureGroups)
  std::unique_ptr<Scheme> scheme;
  std::uint64_t cache_size = 2;    // versions it keeps (GDS_CACHE_SIZE)
  std::uint64_t nblocks = 0;
  std::vector<std::uint64_t> changed;  // bits: blocks changed since the last cached version
  bool force_full = true;              // the next cached version holds every block
  bool full_wished = false;            // agreed at the last prepare: some process's changes add up to its part
  std::uint64_t since_cached = 0;      // versions made since the last cached one
  std::deque<Cached> cached;           // on disk, oldest first (dropped chain members included)
  versions::Catalogue catalogue;       // the same versions' blocks in their files
  std::uint64_t delta_bytes = 0;       // held by incremental files since the last full one
  std::vector<std::byte> buffer;       // synchronous: a version file of many pieces in one
  std::vector<std::vector<std::byte>> stages;  // asynchronous: copies of version files, for the next ones
  std::shared_ptr<Unit> prepared;              // the version's unit between prepare and start (first member's)
  std::deque<std::shared_ptr<Unit>> units;     // in flight, oldest first
  std::uint64_t started = 0;                   // units started (their messages' tags)
  GDS_status_t failed_since_wait = GDS_STATUS_OK;  // the first failure since the last GDS_cache_wait
};

inline Cacher &cacher(core::Array &a) { return *state(a).cacher; }
// The array's own version files.
inline Files own_files(const Cacher &c) { return Files{c.dir, c.spares, false}; }
// The files of a version group whose directory (this process's) is `dir`,
// whose first member is the array of `c`: the spares shared by every
// Cacher of the process that writes there.
Files group_files(Cacher &c, const std::string &dir);

// Directories (cache.cpp).
std::string group_dir(const ArrayState &s, int group);
// A process's directory of a group's commit records.
std::string group_record_dir(core::Array &a, const std::string &group);
// Removes the files of the versions `gone` says from a group's directory
// (its group files, their PARTNER copies and XOR parity, its commit
// records; data files go to the spares), and (unless files may be being
// written, `writing`: then the spares stay too) every other file.
template <class Gone>
void remove_group_versions(const Files &g, Gone gone, bool writing = false) {
  if (!writing) g.spares->clear();
  for (const std::string &name : list_dir(g.dir)) {
    const CacheName c = parse_cache_name(name);
    if (c.kind == CacheName::other || c.tmp) {
      if (!writing) remove_file(g.dir + "/" + name);
      continue;
    }
    if (!gone(c.number)) continue;
    if (c.kind == CacheName::record) remove_file(g.dir + "/" + name);
    else g.spares->keep(g.dir + "/" + name);
  }
}
// Every file of version n this process holds in the array's directory (the
// data files kept as spares); nothing if `grouped` (its unit removes its group's file).
void remove_version(Cacher &c, std::uint64_t n, bool grouped);
// Removes the files of every version not in `keep` from this process's directory; how many.
std::size_t remove_others(Cacher &c, const std::vector<std::uint64_t> &keep);
// Forgets every cached version of the array and removes its files: the
// next cached version is a full one.
void reset_cache(core::Array &a);
// The version's commit record; the cache lists it (the caller takes it back
// if the record fails). `grouped`: its file is a segment of a group's.
Record record_of(Cacher &c, const VersionHeader &h, std::uint64_t held, bool grouped);
// What no retained version up to version n (recorded) needs: the chain of the oldest of them.
void drop_before(Cacher &c, std::uint64_t n);

// The pipeline (cache_pipeline.cpp). Collective over the arrays'
// communicator where it agrees.
// Phase prepare of a unit whose files are laid out: their lengths sent to
// the schemes' peers (one message per peer for all files), the schemes'
// buffers reserved, the files copied (`copy`: asynchronous), and whether
// each array's next cached version should be full reserved in the
// version's ballot. Reached by every process whatever `local` says (what
// it found so far); returns this process's status, which the version's
// agreement settles (kCachePrepare ends there).
GDS_status_t prepare(const char *func, MPI_Comm comm, GDS_status_t local, Unit &u, bool copy, core::Ballot &ballot);
// After the version's agreement: what the processes wished of the next
// cached versions, from the ballot.
void prepared(Unit &u, const core::Ballot &ballot);
// Whether a prepared unit still builds on the versions its files name (an
// older unit in flight may have failed meanwhile: asynchronous writes).
bool still_valid(const Unit &u);
// Starts a prepared unit: the schemes' messages posted, the files' writes
// queued; every array involved lists it. Cannot fail (what fails later
// fails the unit).
void start(const std::shared_ptr<Unit> &u);
// Moves the units in flight of `a` (and of its group's members) on, in one
// agreement for all of them; `wait`: none (what is done already), the
// oldest, or all of them. The first failure a version met or the agreement's.
enum class Wait { none, oldest, all };
GDS_status_t progress(const char *func, core::Array &a, Wait wait);
// The versions in flight of array `a`.
std::size_t in_flight(const core::Array &a);
// GDS_cache_wait: every version of the array in flight completed; the
// first failure since the last wait (then forgotten).
GDS_status_t wait(const char *func, core::Array &a);
// GDS_free: the same, and afterwards nothing of the array is in flight
// even if completing failed.
GDS_status_t forget(const char *func, core::Array &a);

// Restart (cache_restart.cpp): the level's recover.
GDS_status_t recover(const char *func, core::Array &a, std::unique_ptr<Recovery> *out);
// Restart's phase distribute (cache_distribute.cpp): a process whose
// directory holds no commit record gets it from the node that holds it.
// Collective; one allreduce where no process lacks its directory.
GDS_status_t distribute(const char *func, core::Array &a);
// Restart's phase fetch: a process whose directory still holds no commit
// record takes the newest scavenged copy of it from the prefix. Collective (its agreement).
GDS_status_t fetch(const char *func, core::Array &a);
// Whether this process's directories hold a commit record of the array (its own or its groups').
bool has_records(const char *func, core::Array &a);
// The newest commit record's version in a process's directory (kNone: none; cache_distribute.cpp).
std::uint64_t newest_record(const std::string &dir);
// The process count that wrote this process's newest commit record of the
// array (0: none), read quietly (local; the cache's directory is set).
std::uint64_t cache_writers(core::Array &a);
// Why a cache written by `writers` processes cannot restart a run of `nprocs`.
std::string other_count(std::uint64_t writers, int nprocs);
// GDS_finalize: the next run warns again of the copy types it falls back from
// (each fallback is warned about once per run).
void forget_fallback_warnings();

}  // namespace gds::persist
