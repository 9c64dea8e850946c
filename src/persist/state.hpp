// The persist module: the cache level under the memory versions (versions
// calls it through versions::Level), its settings and each array's state.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/array.hpp"
#include "core/module.hpp"
#include "gds_version.h"
#include "persist/format.hpp"
#include "persist/result.hpp"
#include "versions/level.hpp"

namespace gds::persist {

enum class Copy { none, single, partner, xor_, rs };
const char *copy_name(Copy c);
std::optional<Copy> parse_copy(const std::string &text);

// The settings for every array, read at GDS_init: GDS_* variables, else
// SCR_* variables, else the KEY=VALUE lines of $SCR_CONF_FILE, else defaults.
struct Settings {
  Copy copy = Copy::none;        // GDS_COPY_TYPE / SCR_COPY_TYPE; none: memory only
  bool copy_given = false;       // a copy type was asked for (else the default when a cache base is given)
  std::string base;              // GDS_CACHE_BASE / SCR_CACHE_BASE
  std::uint64_t set_size = 8;    // GDS_SET_SIZE / SCR_SET_SIZE (XOR, RS)
  bool set_size_given = false;
  std::uint64_t set_failures = 2;  // GDS_SET_FAILURES / SCR_SET_FAILURES: lost nodes per RS set
  bool set_failures_given = false;
  std::uint64_t cache_size = 2;  // GDS_CACHE_SIZE / SCR_CACHE_SIZE: versions the cache keeps
  std::uint64_t every = 1;       // GDS_CACHE_EVERY: every n-th version goes to the cache
  std::string job = "default";   // GDS_JOB_ID / SCR_JOB_ID
  bool job_given = false;
  int restart = -1;              // GDS_RESTART: 1 restart, 0 never, -1 when a job id is given
  std::string prefix;            // GDS_PREFIX / SCR_PREFIX: the global directory; empty: no flush
  std::uint64_t flush = 1;       // GDS_FLUSH, else SCR_FLUSH x the cache's every: every n-th version is flushed
  std::uint64_t prefix_size = 2; // GDS_PREFIX_SIZE / SCR_PREFIX_SIZE: flushed versions kept per array
  std::uint64_t inflight = 1;    // GDS_FLUSH_INFLIGHT: flushes of an array in flight at once
  bool sync = true;              // GDS_CACHE_SYNC=0: cached versions completed at later calls
  bool fetch = true;             // GDS_FETCH / SCR_FETCH=0: a restart fetches nothing from the prefix
  bool distribute = true;        // GDS_DISTRIBUTE / SCR_DISTRIBUTE=0: a restart takes nothing from the cache
  bool purge = false;            // GDS_CACHE_PURGE / SCR_CACHE_PURGE=1: the same, and the cache is cleared
  bool flush_on_restart = false; // GDS_FLUSH_ON_RESTART / SCR_FLUSH_ON_RESTART / SCR_GLOBAL_RESTART=1
  bool copy_file = false;        // SCR_COPY_TYPE=FILE: SCR_CONF_FILE's checkpoint descriptor gives the copy type
  std::vector<std::string> notes;  // SCR settings GDS does not apply, said once at GDS_init (scr_settings.cpp)
  Result error;                  // a bad setting, refused at GDS_alloc/GDS_create
};
extern Settings g_settings;
// Reads g_settings (GDS_init).
void read_settings();
// A cache base as this process uses it: every "{node}" replaced by its
// node's name (core::FailureGroups::node: the Slurm node, node<id>, or the
// host), so that one setting gives each node a directory of its own, also
// where several nodes share a file system (virtual nodes of one host).
std::string expand_base(const std::string &base);
// The lines GDS_init says of SCR settings GDS does otherwise, or that SCR
// never had (the environment's SCR_* variables and SCR_CONF_FILE's keys).
std::vector<std::string> scr_notes(const std::map<std::string, std::string> &conf);

// One cached version, as this process knows it.
struct Cached {
  std::uint64_t number = 0, base = 0, prev = kNone, oldest = 0;
  std::uint64_t held_bytes = 0;  // of this process's file
  bool grouped = false;          // the file is a segment of a version group's (in the group's directory)
};

class Cacher;   // cache.hpp: the cache level's work for an array
class Flusher;  // prefix_level.hpp: the prefix level's

struct ArrayState final : core::ArrayState {
  static constexpr core::Layer kLayer = 2;  // its place above core (core/module.hpp)
  ~ArrayState() override;
  // From prepare (the same on every process).
  Copy copy = Copy::none;
  bool copy_given = false;  // by an info key or a variable (not SCR's default for a cache base alone)
  std::uint64_t set_size = 0, cache_size = 0, every = 1;
  bool set_size_given = false;
  std::uint64_t set_failures = 2;  // RS: encoding parts per set (fewer in sets of k or fewer members)
  bool set_failures_given = false;
  bool restart = false;
  std::string name, base;
  bool base_per_node = false;  // the base names {node}: each node's expands to a path of its own
  bool default_name = false;  // named at attach (array<k>), not by GDS_NAME_KEY: its group may rename it
  std::string prefix;  // empty: no flush
  std::uint64_t flush = 1, prefix_size = 2, inflight = 1;
  bool sync = true;  // cached versions complete inside GDS_version_inc (else at later calls)
  std::uint64_t signature = 0;  // of the shape, type, order: what persisted files must match
  // From attach.
  std::uint64_t fetched_files = 0;    // restart: files fetched from a scavenged copy in the prefix
  std::uint64_t distributed_files = 0;  // restart: the most files a process received from another node
  std::unique_ptr<Cacher> cacher;     // the cache level's work for this array (persistent() only)
  std::shared_ptr<Flusher> flusher;   // the prefix level's (flushing() only)
  GDS_restart_info_t info{};
  std::string restart_note;            // rank 0: what restart took, until said (say_restarts)
  const char *restart_func = nullptr;  // the call that restarted it
  bool after_finished = false;        // its job's last run had finished (job_opened)
  std::uint64_t cache_writers = 0;  // restart: the processes that wrote the cache, if not this run's count
  [[nodiscard]] bool persistent() const { return copy != Copy::none; }
  [[nodiscard]] bool flushing() const { return !prefix.empty(); }
};

inline ArrayState &state(core::Array &a) { return a.state<ArrayState>(); }

core::Module &module();
// A run opened the job directory `job_dir` (of the cache on this host, or
// of the prefix): its finished record goes (module.cpp), and is written
// there again at GDS_finalize unless the run was halted (job_halted).
// Returns whether the record was there: the job's last run had finished.
bool job_opened(const std::string &job_dir, bool prefix);
void job_halted();

// Cache level (cache.cpp; levels.hpp). Opens the array's cache directory
// and its redundancy scheme (collective); without restart asked for, an
// earlier run's files of the array go.
GDS_status_t open_cache(const char *func, core::Array &a);

// Completes every cached version of the array in flight (asynchronous
// cache); GDS_STATUS_IO_ERROR if one failed since the last wait. Collective.
GDS_status_t cache_wait(const char *func, core::Array &a);
// The same for GDS_free: afterwards nothing of the array is in flight, even
// if completing failed.
GDS_status_t cache_forget(const char *func, core::Array &a);
// Completes the array's cached versions in flight up to version `number`
// (before a flush of it is published). Collective.
GDS_status_t cache_settle(const char *func, core::Array &a, std::uint64_t number);
// Whether a cached version of the array up to `number` is in flight.
bool cache_behind(const core::Array &a, std::uint64_t number);

// Prefix level (prefix.cpp; levels.hpp). Collective.
// Opens the array's prefix directory (restart, from any process count, is
// restart.cpp's). Without restart asked for, an earlier run's flushes of
// the array go.
GDS_status_t open_prefix(const char *func, core::Array &a);
// Waits for every flush of the array (durable, renamed, indexed);
// GDS_STATUS_IO_ERROR if one failed since the last wait.
GDS_status_t flush_wait(const char *func, core::Array &a);
// Waits for the removal of flushes beyond the prefix size (rank 0; local).
void prune_wait(core::Array &a);

}  // namespace gds::persist
