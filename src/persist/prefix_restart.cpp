// The prefix level's restart: the flushed versions every process can read,
// as a catalogue (each one full: every block from local byte 0 of its
// data), read back stripe by stripe with every stripe checked against its
// checksum before use (or, where the version store's blocks tile it,
// against their CRC32Cs once the version is frozen). Any process count.
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
#include "persist/cache.hpp"
#include "persist/prefix_level.hpp"
#include "persist/state.hpp"
#include "rma/state.hpp"
#include "versions/level.hpp"
#include "versions/state.hpp"

using gds::core::Array;

namespace gds::persist {

namespace {

using gds::core::ull;

// A whole stripe read straight into the array's memory at `local`, whose
// check waits for the CRC32Cs of the version store's blocks of it.
struct Deferred {
  std::uint64_t stripe, local, bytes;
};

// Where the version store's blocks tile a stripe read into memory, its
// check can wait for their CRC32Cs (taken as the version is frozen) instead
// of a pass of its own.
struct Blocks {
  unsigned shift;            // log2 of the block size
  std::uint64_t part_bytes;  // of this process's part (its last block may be short)
  std::vector<Deferred> *deferred;
};

// Reads bytes [lo, hi) of this process's part of a flushed version (its
// elements in local order) to `out`, every stripe checked against its
// checksum before use (or, with `blocks`, its check deferred where the
// version's blocks will tile it). Never throws (it runs between
// collectives, and inside the version store's fill).
Result read_part(const std::string &path, const h5::Meta &m, const std::vector<Run> &runs, std::uint64_t esize,
                 std::byte *out, std::uint64_t lo, std::uint64_t hi, const Blocks *blocks = nullptr) try {
  File file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file.is_open()) return Result::io(path, "cannot be opened", errno);
  std::vector<std::byte> buffer(static_cast<std::size_t>(std::min(m.stripe_bytes, std::max<std::uint64_t>(m.data_bytes, 1))));
  std::uint64_t loaded = kNone, loaded_bytes = 0;
  Result why;
  const auto load = [&](std::uint64_t s) {
    if (s == loaded) return true;
    const std::uint64_t at = s * m.stripe_bytes;
    loaded_bytes = std::min(m.stripe_bytes, m.data_bytes - at);
    why = pread_all(file.get(), path, buffer.data(), loaded_bytes, m.data_offset + at);
    if (!why.ok()) return false;
    if (core::crc32c(buffer.data(), loaded_bytes) != m.crcs[s]) {
      why = Result::corrupt(path + ": " + stripe_mismatch(s, at, loaded_bytes));
      loaded = kNone;
      return false;
    }
    loaded = s;
    return true;
  };
  // Global bytes [at, at + n) to `dst`: whole stripes read where they go
  // and checked there, the others through the buffer.
  const auto copy = [&](std::uint64_t at, std::uint64_t n, std::byte *dst) {
    while (n > 0) {
      const std::uint64_t s = at / m.stripe_bytes;
      const std::uint64_t whole = std::min(m.stripe_bytes, m.data_bytes - s * m.stripe_bytes);
      if (at == s * m.stripe_bytes && n >= whole && s != loaded) {
        why = pread_all(file.get(), path, dst, whole, m.data_offset + at);
        if (!why.ok()) return false;
        const std::uint64_t local = lo + static_cast<std::uint64_t>(dst - out);
        const std::uint64_t block = blocks == nullptr ? 0 : std::uint64_t{1} << blocks->shift;
        if (blocks != nullptr && local % block == 0 && (whole % block == 0 || local + whole == blocks->part_bytes))
          blocks->deferred->push_back(Deferred{s, local, whole});
        else if (core::crc32c(dst, whole) != m.crcs[s]) {
          why = Result::corrupt(path + ": " + stripe_mismatch(s, at, whole));
          return false;
        }
        at += whole;
        dst += whole;
        n -= whole;
        continue;
      }
      if (!load(s)) return false;
      const std::uint64_t off = at - s * m.stripe_bytes, take = std::min(n, loaded_bytes - off);
      std::memcpy(dst, buffer.data() + off, take);
      at += take;
      dst += take;
      n -= take;
    }
    return true;
  };
  // Each run's (or element's) local bytes [l0, l1) clipped to [lo, hi).
  const auto clipped = [&](std::uint64_t l0, std::uint64_t l1, std::uint64_t global_at) {
    const std::uint64_t from = std::max(l0, lo), to = std::min(l1, hi);
    return from >= to || copy(global_at + (from - l0), to - from, out + (from - lo));
  };
  for (const Run &run : runs) {
    const std::uint64_t l0 = run.local * esize, l1 = l0 + run.count * esize;
    if (l1 <= lo || l0 >= hi) continue;
    if (run.stride == 1) {
      if (!clipped(l0, l1, run.global * esize)) return why;
      continue;
    }
    const std::uint64_t j1 = std::min(run.count, (hi - l0 + esize - 1) / esize);
    for (std::uint64_t j = lo > l0 ? (lo - l0) / esize : 0; j < j1; ++j)
      if (!clipped(l0 + j * esize, l0 + (j + 1) * esize, (run.global + j * run.stride) * esize)) return why;
  }
  return {};
} catch (const std::bad_alloc &) {
  return Result::nomem(path + ": no memory to read it");
}

// The deferred stripes' checks, from the CRC32Cs of the blocks of the
// frozen version `v` (`join` joins whole blocks).
Result check_deferred(const std::vector<Deferred> &deferred, const h5::Meta &m, const versions::Frozen &v,
                      const core::Crc32cJoin &join) {
  const std::uint64_t block = std::uint64_t{1} << v.shift;
  for (const Deferred &d : deferred) {
    std::size_t b = static_cast<std::size_t>(d.local >> v.shift);
    std::uint32_t crc = v.crcs[b];
    for (std::uint64_t done = std::min(block, d.bytes); done < d.bytes; done += block) {
      const std::uint64_t len = std::min(block, d.bytes - done);
      ++b;
      crc = len == block ? join.join(crc, v.crcs[b]) : core::crc32c_combine(crc, v.crcs[b], len);
    }
    if (crc != m.crcs[d.stripe]) return Result::corrupt(stripe_mismatch(d.stripe, d.stripe * m.stripe_bytes, d.bytes));
  }
  return {};
}


// Whether a flushed file's metadata is this array's (GDS_STATUS_INVALID: why not).
Result matches(Array &a, const h5::Meta &m) {
  const ArrayState &s = state(a);
  const auto differs = [](std::string why) { return Result::failure(GDS_STATUS_INVALID, std::move(why)); };
  if (m.array != s.name) return differs("holds array \"" + m.array + "\", not \"" + s.name + "\"");
  const core::Dims &count = a.layout->count();
  bool same = m.dims.size() == count.size();
  for (std::size_t k = 0; same && k < count.size(); ++k) same = m.dims[k] == count[k];
  if (!same) return differs("has another shape than the array");
  if (m.column_major != (a.layout->order() == core::Order::col_major)) return differs("has another storage order");
  if (m.element_type != a.type->name || m.element_bytes != a.type->extent)
    return differs("holds " + m.element_type + " elements, not " + a.type->name);
  return {};
}


using Usable = std::vector<std::pair<std::uint64_t, h5::Meta>>;

// The flushed versions, newest first, as rank 0 lists them, on every process.
GDS_status_t list_flushes(const char *func, Array &a, std::vector<std::uint64_t> *found) {
  MPI_Comm comm = a.communicator();
  if (a.rank == 0) *found = flushed_versions(flusher(a).dir);
  std::uint64_t count = found->size();
  int rc = core::bcast(&count, 1, MPI_UINT64_T, 0, comm);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Bcast", rc);
  found->resize(static_cast<std::size_t>(count));
  rc = core::bcast(found->data(), static_cast<int>(count), MPI_UINT64_T, 0, comm);
  return rc == MPI_SUCCESS ? GDS_STATUS_OK : core::mpi_fail(func, "MPI_Bcast", rc);
}

// The newest prefix_size flushed versions whose metadata every process
// accepts, newest first; a sound flush of another array of this name is
// refused, as the cache does.
GDS_status_t usable_flushes(const char *func, Array &a, const std::vector<std::uint64_t> &found, Usable *usable) {
  ArrayState &s = state(a);
  const Flusher &f = flusher(a);
  MPI_Comm comm = a.communicator();
  for (const std::uint64_t n : found) {
    if (usable->size() >= s.prefix_size) break;
    const std::string path = flushed_path(f.dir, n);
    h5::Meta m;
    Result why = h5::read_meta(path, &m);
    const Result other = why.ok() ? matches(a, m) : Result();
    std::uint64_t any_foreign[1] = {!other.ok()};
    GDS_TRY(core::agree(func, comm, GDS_STATUS_OK, any_foreign));
    if (any_foreign[0] != 0)
      return core::fail(GDS_STATUS_INVALID, func,
                        "the flushed array %s (%s) %s; give this array another %s or start a new job",
                        s.name.c_str(), path.c_str(), other.ok() ? "differs on another process" : other.what().c_str(),
                        GDS_NAME_KEY);
    if (why.ok() && m.version != n) why = Result::corrupt(path + ": says it is version " + std::to_string(m.version));
    if (!why.ok()) {
      core::log(core::Level::warning, func, "array %s: %s; trying an older flushed version", s.name.c_str(),
                why.what().c_str());
      (void)why.report(func);
      core::detected(func, &a, why.status(),
                     core::Detected{nullptr, nullptr, static_cast<std::int64_t>(n), 0, a.rank, why.what().c_str()});
    }
    // Unreadable somewhere: an older flush (the phase fails only where MPI does).
    std::uint64_t unreadable[1] = {!why.ok()};
    GDS_TRY(kRestartFlushes.end(func, comm, GDS_STATUS_OK, unreadable));
    if (unreadable[0] == 0) usable->emplace_back(n, std::move(m));
  }
  return GDS_STATUS_OK;
}

// What the prefix found: each entry's metadata, and the stripes whose
// checks wait for the frozen version.
class PrefixRecovery final : public Recovery {
 public:
  PrefixRecovery(Array &a, std::uint64_t block_bytes) : a_(a), join_(block_bytes) {}
  std::vector<h5::Meta> metas;  // per catalogue entry

  Result read(std::size_t i, std::uint64_t at, std::uint64_t bytes, std::byte *dst, bool check_later) override {
    const Flusher &f = flusher(a_);
    if (check_later && entry_ != i) {
      deferred_.clear();
      entry_ = i;
    }
    const versions::Store &store = *versions::state(a_).store;
    const Blocks blocks{store.shift(), store.local_bytes(), &deferred_};
    return read_part(flushed_path(f.dir, metas[i].version), metas[i], *f.runs, f.esize, dst, at, at + bytes,
                     check_later ? &blocks : nullptr);
  }

  Result check(std::size_t i, const versions::Frozen &v) override {
    Result why;
    if (entry_ == i) why = check_deferred(deferred_, metas[i], v, join_);
    deferred_.clear();
    entry_ = kNoEntry;
    return why.ok() ? why : why.within(flushed_path(flusher(a_).dir, metas[i].version));
  }

  GDS_status_t recovered(const char *func, Array &a, std::size_t taken, std::uint64_t navigable) override {
    ArrayState &s = state(a);
    Flusher &f = flusher(a);
    f.catalogue.entries.assign(catalogue.entries.begin(),
                               catalogue.entries.begin() + static_cast<std::ptrdiff_t>(taken) + 1);
    s.info.restarted = 1;
    s.info.level = GDS_LEVEL_PREFIX;
    s.info.version = catalogue.entries[taken].number;
    s.info.versions = navigable;
    s.info.rebuilt_processes = 0;
    s.info.rebuilt_files = 0;
    if (a.rank == 0)
      core::log(core::Level::info, func,
                "array %s restarted from version %llu of the prefix %s (%llu version(s) navigable, written by %llu "
                "process(es), read by %d)",
                s.name.c_str(), ull(s.info.version), f.dir.c_str(), ull(navigable), ull(metas[taken].nprocs),
                a.nprocs);
    remove_newer(func, a, s.info.version);
    return GDS_STATUS_OK;
  }

 private:
  static constexpr std::size_t kNoEntry = ~std::size_t{0};
  Array &a_;
  std::vector<Deferred> deferred_;
  std::size_t entry_ = kNoEntry;  // whose checks are deferred
  core::Crc32cJoin join_;
};

}  // namespace

GDS_status_t prefix_recover(const char *func, Array &a, std::unique_ptr<Recovery> *out) {
  std::vector<std::uint64_t> found;
  GDS_TRY(list_flushes(func, a, &found));
  if (found.empty()) return GDS_STATUS_OK;  // nothing flushed: a fresh start
  Usable usable;
  GDS_TRY(usable_flushes(func, a, found, &usable));
  if (usable.empty())
    return core::fail(GDS_STATUS_UNRECOVERABLE, func,
                      "array %s: none of the %zu flushed version(s) in %s can be read (see the warnings)",
                      state(a).name.c_str(), found.size(), flusher(a).dir.c_str());
  const versions::Store &store = *versions::state(a).store;
  auto r = std::make_unique<PrefixRecovery>(a, store.block_bytes());
  for (auto u = usable.rbegin(); u != usable.rend(); ++u) {  // oldest first
    versions::Catalogue::Entry e{u->first, u->second.next, u->second.label, u->second.next_label, true, true, {}};
    if (store.nblocks() > 0) e.own.push_back(versions::Stored{0, store.nblocks(), 0});
    r->catalogue.entries.push_back(std::move(e));
    r->metas.push_back(std::move(u->second));
  }
  *out = std::move(r);
  return GDS_STATUS_OK;
}

}  // namespace gds::persist
