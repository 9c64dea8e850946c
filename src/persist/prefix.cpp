// The prefix level (versions::Level): versions flushed to a global
// directory as HDF5 files (h5.hpp) that hold the array's global content,
// written in the background (prefix_flush.cpp), and restart from them on any
// number of processes (prefix_restart.cpp). This file: the level, and the
// array's prefix directory opened and kept clean.
//
// Directory: <prefix>/gds.<job>/<array>/v<n>.h5, written as v<n>.h5.tmp and
// renamed once complete on every process; <prefix>/gds.<job>/index lists the
// complete flushed versions of every array (rewritten under a lock).
//
// A flush, started by flush_committed() once GDS_version_inc committed the
// version in memory:
//   create    rank 0 lays out the file (h5::create) and broadcasts where the
//             data goes; this is all the application waits for
//   write     every process's flush thread writes its elements from the
//             memory version's frozen blocks (never the current content)
//             into the file, in global order, and fsyncs it (no MPI, no HDF5)
//   checksum  once every process has written (agreed at a later GDS call),
//             every flush thread checksums its share of the file's stripes
//   finish    once every process has (agreed), rank 0 gathers the
//             checksums, adds them (h5::finish), fsyncs, renames the file to
//             its final name, rewrites the index and removes the flushed
//             versions beyond the prefix size
// The agreements are made in GDS_version_inc, GDS_flush_wait, GDS_free and
// GDS_finalize, which are collective anyway; a bounded number of flushes
// per array is writing (GDS_FLUSH_INFLIGHT; twice as many may wait for
// their checksums), GDS_version_inc waits for the oldest beyond it.
// Retention waits for a flush's write before it drops the version it reads.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "core/background.hpp"
#include "core/collective.hpp"
#include "core/crc32c.hpp"
#include "core/log.hpp"
#include "core/module.hpp"
#include "core/mpi_args.hpp"
#include "core/runtime.hpp"
#include "core/util.hpp"
#include "gds_config.h"
#include "persist/files.hpp"
#include "persist/h5.hpp"
#include "persist/names.hpp"
#include "persist/prefix_files.hpp"
#include "persist/prefix_level.hpp"
#include "persist/levels.hpp"
#include "persist/query.hpp"
#include "persist/state.hpp"
#include "rma/state.hpp"
#include "versions/level.hpp"
#include "versions/state.hpp"

using gds::core::Array;

namespace gds::persist {

namespace {

using gds::core::ull;

// This process's elements in the global data, as runs.
GDS_status_t compute_runs(const char *func, Array &a, std::vector<Run> *out) {
  const core::Layout &l = *a.layout;
  const std::size_t n = l.ndims();
  std::vector<std::uint64_t> extent(n), stride(n);
  for (std::size_t k = 0; k < n; ++k) extent[k] = l.count()[l.storage_dim(k)];
  stride[n - 1] = 1;
  for (std::size_t k = n - 1; k > 0; --k) stride[k - 1] = stride[k] * extent[k];
  if (a.blocks != nullptr) {
    std::vector<std::uint64_t> lo(n), ext(n);
    for (std::size_t k = 0; k < n; ++k) {
      lo[k] = a.local_lo[l.storage_dim(k)];
      ext[k] = a.local_ext[l.storage_dim(k)];
      if (ext[k] == 0) return GDS_STATUS_OK;
    }
    // Runs span the dimensions the box covers whole, and part of the next.
    std::size_t m = n - 1;
    std::uint64_t len = ext[m];
    while (m > 0 && ext[m] == extent[m]) len *= ext[--m];
    std::vector<std::uint64_t> idx(m, 0);
    for (std::uint64_t local = 0;; local += len) {
      std::uint64_t g = lo[m] * stride[m];
      for (std::size_t k = 0; k < m; ++k) g += (lo[k] + idx[k]) * stride[k];
      out->push_back(Run{local, g, len, 1});
      std::size_t k = m;
      bool more = false;
      while (k-- > 0) {
        if (++idx[k] < ext[k]) {
          more = true;
          break;
        }
        idx[k] = 0;
      }
      if (!more) break;
    }
    return GDS_STATUS_OK;
  }
  // GDS_create: the mapping functions, element by element, merged into
  // runs of a constant stride (a cyclic mapping is one run).
  std::vector<core::Index> global(n);
  for (std::uint64_t i = 0; i < a.local_count; ++i) {
    GDS_TRY(a.user->to_global(func, i, global.data()));
    std::uint64_t g = 0;
    for (std::size_t k = 0; k < n; ++k) g += global[l.storage_dim(k)] * stride[k];
    if (!out->empty()) {
      Run &r = out->back();
      if (r.count == 1 && g > r.global) {
        r.stride = g - r.global;
        r.count = 2;
        continue;
      }
      if (r.count > 1 && g == r.global + r.count * r.stride) {
        ++r.count;
        continue;
      }
    }
    out->push_back(Run{i, g, 1, 1});
  }
  return GDS_STATUS_OK;
}


// Removes the array's flushed versions newer than `newest` (every one
// without it) and reindexes the job; how many went. Rank 0.
std::size_t remove_flushes(const char *func, const Flusher &f, const std::string &array,
                           std::optional<std::uint64_t> newest) {
  std::size_t removed = 0;
  for (const std::uint64_t n : flushed_versions(f.dir))
    if (!newest || n > *newest) {
      remove_file(flushed_path(f.dir, n));
      ++removed;
    }
  if (removed == 0) return 0;
  if (Result indexed = update_index(func, f.job_dir, array, {}, true); !indexed.ok())
    core::log(core::Level::warning, func, "the index is not updated: %s", indexed.what().c_str());
  return removed;
}


class PrefixLevel final : public PersistentLevel {
 public:
  [[nodiscard]] int id() const override { return GDS_LEVEL_PREFIX; }
  [[nodiscard]] const char *name() const override { return "prefix"; }
  [[nodiscard]] bool holds(const Array &a) const override { return a.state<ArrayState>().flushing(); }

  // Nothing to prepare or start: the flush starts once the version is
  // committed in memory (it reads the memory version).
  void committed(const char *func, Array &a, std::uint64_t number) override {
    say_restarts();  // a version made: the restarts before it are over
    flush_committed(func, a, number);
  }

  [[nodiscard]] std::string differs(const Array &a, const Array &b) const override {
    const ArrayState &x = a.state<ArrayState>(), &y = b.state<ArrayState>();
    if (x.prefix != y.prefix) return "prefixes " + x.prefix + " and " + y.prefix;
    if (x.flush != y.flush) return "flush intervals";
    return "";
  }

  bool restart_info(const Array &a, GDS_restart_info_t *info) const override {
    *info = a.state<ArrayState>().info;
    return true;
  }

  // The group's member list, for GDS_restart_query when the cache is gone
  // (rank 0 writes it; agreed).
  GDS_status_t open_group(const char *func, const std::string &name, std::span<Array *const> members) override {
    say_restarts(&name, members);
    Array &first = *members.front();
    GDS_status_t status = GDS_STATUS_OK;
    if (first.rank == 0) {
      std::vector<std::string> names;
      for (const Array *a : members) names.push_back(a->state<ArrayState>().name);
      const ArrayState &s = state(first);
      const std::string job = job_dir(s.prefix, g_settings.job);
      Result written = make_dirs(job);
      if (written.ok()) written = write_group_members(job + "/" + group_dir_name(name), names);
      status = written.report(func);
    }
    return core::agree(func, first.communicator(), status);
  }
  void drop(Array &a, std::uint64_t number) override { flush_dropping(a, number); }

  [[nodiscard]] std::optional<versions::Location> locate(Array &a, std::uint64_t number,
                                                         std::uint32_t block) const override {
    const versions::Catalogue &c = flusher(a).catalogue;
    const versions::Catalogue::Entry *e = c.find(number);
    if (e == nullptr) return std::nullopt;
    return c.locate(static_cast<std::size_t>(e - c.entries.data()), block, versions::state(a).store->shift());
  }

  GDS_status_t recover(const char *func, Array &a, std::unique_ptr<Recovery> *out) override {
    return prefix_recover(func, a, out);
  }
  void restarted_elsewhere(const char *func, Array &a, int, std::optional<std::uint64_t> number) override {
    if (number) remove_newer(func, a, *number);
  }
};

PrefixLevel g_prefix;

}  // namespace

PersistentLevel &prefix_level() { return g_prefix; }

void remove_newer(const char *func, Array &a, std::uint64_t number) {
  const ArrayState &s = state(a);
  if (a.rank != 0) return;
  if (const std::size_t stale = remove_flushes(func, *s.flusher, s.name, number); stale > 0)
    core::log(core::Level::info, func, "array %s: removed %zu flushed version(s) newer than version %llu, which it "
              "restarted from", s.name.c_str(), stale, ull(number));
}

GDS_status_t open_prefix(const char *func, Array &a) {
  ArrayState &s = state(a);
  MPI_Comm comm = a.communicator();
  if (a.ndims() > 32)
    return core::fail(GDS_STATUS_INVALID_INFO, func,
                      "array %s has %zu dimensions; HDF5 datasets (the prefix's files) have at most 32", s.name.c_str(),
                      a.ndims());
  auto f = std::make_shared<Flusher>();
  f->job_dir = persist::job_dir(s.prefix, g_settings.job);
  f->dir = f->job_dir + "/" + s.name;
  f->esize = a.type->extent;
  f->data_bytes = f->esize;
  for (const core::Index c : a.layout->count()) {
    if (c != 0 && f->data_bytes > UINT64_MAX / c)
      return core::fail(GDS_STATUS_INVALID, func, "the array's %s bytes overflow 2^64; it cannot be flushed",
                        "global");
    f->data_bytes *= c;
  }
  s.flusher = f;
  // Every process: the prefix is global, and each should say what is wrong with it.
  Result made = make_dirs(f->dir);
  if (made.ok() && !writable_dir(f->dir)) made = Result::io(f->dir, "is not writable", EACCES);
  // Every process opens the prefix: the first to look removes its record.
  std::uint64_t finished[1] = {job_opened(f->job_dir, true)};
  GDS_TRY(core::agree(func, comm, made.report(func), finished));
  s.after_finished = finished[0] != 0 || s.after_finished;
  auto runs = std::make_shared<std::vector<Run>>();
  GDS_TRY(core::agree(func, comm, compute_runs(func, a, runs.get())));
  f->runs = runs;
  f->prefix_size = s.prefix_size;
  // Checksums made while writing need every run contiguous, and not too
  // many pieces to gather (a piece per run and stripe).
  std::uint64_t pieces = 0;
  const std::uint64_t stripe = h5::stripe_bytes_for(f->data_bytes);
  for (const Run &r : *runs) pieces += r.stride == 1 ? 2 + r.count * f->esize / stripe : std::uint64_t{1} << 40;
  // (All of them gathered on rank 0 must stay well inside int counts.)
  std::uint64_t total = std::min<std::uint64_t>(pieces, std::uint64_t{1} << 40);
  const int rc = core::allreduce(MPI_IN_PLACE, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Allreduce", rc);
  f->contiguous = total * sizeof(Piece) <= core::kMaxPiece;
  // Flushes a crash cut short are not versions.
  if (a.rank == 0)
    for (const std::string &name : list_dir(f->dir))
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0) remove_file(f->dir + "/" + name);
  if (s.restart) return GDS_STATUS_OK;  // restart.cpp asks the levels
  // A fresh start: an earlier run's flushes of this array are removed, so
  // that no later restart mixes them with this run's.
  if (a.rank == 0)
    if (const std::size_t removed = remove_flushes(func, *f, s.name, std::nullopt); removed > 0)
      core::log(core::Level::info, func,
                "array %s: removed %zu flushed version(s) an earlier run left in %s (restart was not asked for: "
                "%s=1 or GDS_RESTART=1)",
                s.name.c_str(), removed, f->dir.c_str(), GDS_RESTART_KEY);
  return GDS_STATUS_OK;
}

}  // namespace gds::persist

using namespace gds::core;

extern "C" {

GDS_API GDS_status_t GDS_flush_wait(GDS_gds_t gds) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  GDS_status_t s = GDS_STATUS_OK;
  GDS_TRY(resolve_collective(__func__, gds, &c, &s));
  GDS_TRY(agree(__func__, c->array->communicator(), s));
  return gds::persist::flush_wait(__func__, *c->array);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cache_wait(GDS_gds_t gds) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  GDS_status_t s = GDS_STATUS_OK;
  GDS_TRY(resolve_collective(__func__, gds, &c, &s));
  GDS_TRY(agree(__func__, c->array->communicator(), s));
  return gds::persist::cache_wait(__func__, *c->array);
} GDS_API_CATCH

}  // extern "C"

