// What the prefix level's files share (prefix.cpp: the level and its
// housekeeping; prefix_flush.cpp: the flush pipeline; prefix_restart.cpp:
// restart from flushed versions). Internal to the persist module.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/array.hpp"
#include "core/background.hpp"
#include "core/phase.hpp"
#include "persist/h5.hpp"
#include "persist/levels.hpp"
#include "persist/prefix_files.hpp"
#include "persist/state.hpp"
#include "versions/level.hpp"

namespace gds::persist {

using gds::core::Background;

// The phases of a flush (prefix_flush.cpp), each ending agreed at a later
// collective call of the array, and the kill points between them.
inline constexpr core::Point kFlushCreate{"flush.create", "the flush's version is committed in memory; no file yet"};
inline constexpr core::Phase kFlushWritten{
    "flush.written", "every process wrote its elements into the flush's file (still under its temporary name)"};
inline constexpr core::Point kFlushChecksum{"flush.checksum",
                                            "written everywhere; the stripes are to be read back and checksummed"};
inline constexpr core::Phase kFlushSummed{"flush.summed", "every process checksummed its share of the stripes"};
inline constexpr core::Point kFlushFinish{"flush.finish", "rank 0 has the stripes' checksums, not yet in the file"};
inline constexpr core::Point kFlushRename{"flush.rename", "the file is complete and fsynced under its temporary name"};
inline constexpr core::Point kFlushIndex{"flush.index", "the flush is there under its final name; not yet indexed"};
inline constexpr core::Phase kFlushPublished{
    "flush.published", "rank 0 renamed the file to its final name and rewrote the index: restart may take it"};

// `count` of this process's elements from local element `local` are global
// elements `global`, `global + stride`, ... (in the data's storage order).
struct Run {
  std::uint64_t local, global, count, stride;
};

// The CRC32C of `len` bytes of stripe `stripe` from byte `at` of it, which
// one process wrote: the pieces of a stripe, joined in order, make its CRC.
struct Piece {
  std::uint64_t stripe, at, len;
  std::uint64_t crc;
};

// What a flush thread's job found; read by the application's thread once
// the job has finished.
struct Done {
  Result result;
  std::vector<std::uint32_t> crcs;  // the checksum stage's: its share of the stripes
  std::vector<Piece> pieces;        // the write's (when every run is contiguous)
};

// A flush's stages: write (every process), checksum (every process, only
// when some elements interleave: the stripes are read back), publish (rank
// 0: fsync, rename, index).
enum class Stage { write, checksum, publish };

struct Flight {
  std::uint64_t number = 0;
  std::string tmp, path;
  std::uint64_t offset = 0, bytes = 0, stripe = 0;
  Stage stage = Stage::write;
  Background::Ticket ticket = 0;  // this stage's job on this process (0: none here)
  std::shared_ptr<Done> done = std::make_shared<Done>();
  IndexEntry entry;  // for the index, once published (rank 0)
  versions::Catalogue::Entry version;  // for the catalogue, once published
};


class Flusher {
 public:
  std::string job_dir, dir;  // <prefix>/gds.<job>, and the array's directory in it
  std::shared_ptr<const std::vector<Run>> runs;
  std::uint64_t esize = 0, data_bytes = 0;
  std::uint64_t since = 0;  // versions made since the last flush
  std::uint64_t prefix_size = 2;
  // Every process's runs are contiguous (no interleaved elements): the
  // stripes' checksums are made while writing, not read back (agreed).
  bool contiguous = true;
  std::deque<Flight> flights;
  Background::Ticket pruning = 0;  // rank 0's latest removal of old flushes (on the cleanup lane)
  GDS_status_t failed_since_wait = GDS_STATUS_OK;  // the first failure since the last GDS_flush_wait
  // An agreement failed (MPI): the processes may no longer agree on the
  // flushes' stages, so this array makes no more prefix collectives.
  bool broken = false;
  // The flushed versions this run published or restarted from, oldest
  // first (at most prefix_size): each one's blocks from local byte 0.
  versions::Catalogue catalogue;
};


inline Flusher &flusher(core::Array &a) { return *state(a).flusher; }

// The flush pipeline (prefix_flush.cpp).
// After GDS_version_inc committed version `number`: moves the flushes in
// flight on and starts this version's if it is due (collective).
void flush_committed(const char *func, core::Array &a, std::uint64_t number);
// Restart's flush of the version it restarted (SCR_FLUSH_ON_RESTART): version
// `number`, in memory, flushed now and waited for. Collective.
GDS_status_t flush_restarted(const char *func, core::Array &a, std::uint64_t number);
// Before retention drops version `number` here (local).
void flush_dropping(core::Array &a, std::uint64_t number);

// Restart from flushed versions (prefix_restart.cpp): the level's recover
// (collective), with the Recovery that reads them.
GDS_status_t prefix_recover(const char *func, core::Array &a, std::unique_ptr<Recovery> *out);
// Removes the array's flushed versions newer than `number` (they belong to
// a timeline that is gone). Rank 0.
void remove_newer(const char *func, core::Array &a, std::uint64_t number);

}  // namespace gds::persist
