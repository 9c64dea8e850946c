// The prefix level: versions flushed to a global directory as HDF5 files
// (h5.hpp) that hold the array's global content, written in the background,
// and restart from them on any number of processes.
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
#include "core/killpoint.hpp"
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
#include "persist/state.hpp"
#include "rma/state.hpp"
#include "versions/level.hpp"
#include "versions/state.hpp"

using gds::core::Array;
using gds::core::Background;
using gds::core::Lane;

namespace gds::persist {

namespace {

using gds::core::ull;

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
struct Result {
  GDS_status_t status = GDS_STATUS_OK;
  std::string what;
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
  std::shared_ptr<Result> result = std::make_shared<Result>();
  IndexEntry entry;  // for the index, once published
};

std::string errno_text() { return std::strerror(errno); }

// This process's part as the version's blocks hold it.
struct Part {
  std::vector<const std::byte *> blocks;  // nullptr: all zero
  unsigned shift = 0;
  std::uint64_t bytes = 0;
  // The pieces of local bytes [at, at + n): fn(pointer or nullptr for zeros, length).
  template <class F>
  void pieces(std::uint64_t at, std::uint64_t n, F &&fn) const {
    while (n > 0) {
      const auto b = static_cast<std::uint32_t>(at >> shift);
      const std::uint64_t off = at - (std::uint64_t{b} << shift);
      const std::uint64_t take = std::min(n, block_length(bytes, shift, b) - off);
      fn(blocks[b] == nullptr ? nullptr : blocks[b] + off, take);
      at += take;
      n -= take;
    }
  }
};

// The flush thread's write: every run of elements to its place in the file.
void write_part(const std::string &path, std::uint64_t offset, std::uint64_t data_bytes, std::uint64_t esize,
                std::uint64_t stripe, bool checksum, const Part &part, const std::vector<Run> &runs, Result *r) {
  const auto failed = [&](const std::string &what) {
    r->status = GDS_STATUS_IO_ERROR;
    r->what = path + ": " + what;
  };
  File file(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (!file.is_open()) return failed("cannot be opened: " + errno_text());
  struct stat st {};
  if (::fstat(file.get(), &st) != 0 || static_cast<std::uint64_t>(st.st_size) < offset + data_bytes)
    return failed("is shorter than its data (changed by someone else?)");
  const std::uint64_t block = std::uint64_t{1} << part.shift;
  std::unique_ptr<std::byte, decltype(&std::free)> zeros(static_cast<std::byte *>(std::calloc(1, block)), &std::free);
  if (!zeros) return failed("no memory for a block of zeros");
  for (const Run &run : runs) {
    if (run.stride == 1) {
      std::vector<iovec> iov;
      part.pieces(run.local * esize, run.count * esize, [&](const std::byte *p, std::uint64_t n) {
        iov.push_back(iovec{const_cast<std::byte *>(p != nullptr ? p : zeros.get()), n});
      });
      if (checksum) {
        // The CRC32C of each piece of a stripe, from the same bytes.
        std::uint64_t at = run.global * esize, left = run.count * esize;
        std::size_t i = 0, used = 0;  // in iov
        while (left > 0) {
          const std::uint64_t s = at / stripe, len = std::min(left, (s + 1) * stripe - at);
          std::uint32_t crc = 0;
          for (std::uint64_t need = len; need > 0;) {
            const std::uint64_t take = std::min<std::uint64_t>(need, iov[i].iov_len - used);
            crc = core::crc32c(static_cast<const std::byte *>(iov[i].iov_base) + used, take, crc);
            need -= take;
            used += take;
            if (used == iov[i].iov_len) ++i, used = 0;
          }
          r->pieces.push_back(Piece{s, at - s * stripe, len, crc});
          at += len;
          left -= len;
        }
      }
      if (!pwritev_all(file.get(), iov, offset + run.global * esize)) return failed("write failed: " + errno_text());
      continue;
    }
    // Elements interleaved with other processes' (a GDS_create mapping):
    // one write each (byte ranges, which a network file system keeps apart
    // where a shared mapping would write whole pages back).
    std::vector<std::byte> element(static_cast<std::size_t>(esize));
    for (std::uint64_t j = 0; j < run.count; ++j) {
      std::byte *dst = element.data();
      part.pieces((run.local + j) * esize, esize, [&](const std::byte *p, std::uint64_t n) {
        if (p != nullptr) std::memcpy(dst, p, n);
        else std::memset(dst, 0, n);
        dst += n;
      });
      std::vector<iovec> one{{element.data(), esize}};
      if (!pwritev_all(file.get(), one, offset + (run.global + j * run.stride) * esize))
        return failed("write failed: " + errno_text());
    }
  }
  if (::fsync(file.get()) != 0) return failed("fsync failed: " + errno_text());
}

// Which stripes process `rank` of `nprocs` checksums: [first, last).
void stripe_share(std::uint64_t nstripes, int rank, int nprocs, std::uint64_t *first, std::uint64_t *last) {
  *first = nstripes * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(nprocs);
  *last = nstripes * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(nprocs);
}

void checksum_share(const std::string &path, std::uint64_t offset, std::uint64_t bytes, std::uint64_t stripe,
                    std::uint64_t first, std::uint64_t last, Result *r) {
  File file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file.is_open()) {
    r->status = GDS_STATUS_IO_ERROR;
    r->what = path + ": cannot be opened: " + errno_text();
    return;
  }
  std::vector<std::byte> buffer(static_cast<std::size_t>(std::min(stripe, std::max<std::uint64_t>(bytes, 1))));
  for (std::uint64_t s = first; s < last; ++s) {
    const std::uint64_t at = s * stripe, n = std::min(stripe, bytes - std::min(bytes, at));
    if (!pread_all(file.get(), buffer.data(), n, offset + at)) {
      r->status = GDS_STATUS_IO_ERROR;
      r->what = path + ": cannot be read back: " + errno_text();
      return;
    }
    r->crcs.push_back(core::crc32c(buffer.data(), n));
  }
}

}  // namespace

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
};

namespace {

Flusher &flusher(Array &a) { return *state(a).flusher; }

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
// version's blocks will tile it): "" or why not. Never throws (it runs
// between collectives, and inside the version store's fill).
std::string read_part(const std::string &path, const h5::Meta &m, const std::vector<Run> &runs, std::uint64_t esize,
                      std::byte *out, std::uint64_t lo, std::uint64_t hi, const Blocks *blocks = nullptr) try {
  File file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file.is_open()) return "cannot be opened: " + errno_text();
  std::vector<std::byte> buffer(static_cast<std::size_t>(std::min(m.stripe_bytes, std::max<std::uint64_t>(m.data_bytes, 1))));
  std::uint64_t loaded = kNone, loaded_bytes = 0;
  std::string why;
  const auto load = [&](std::uint64_t s) {
    if (s == loaded) return true;
    const std::uint64_t at = s * m.stripe_bytes;
    loaded_bytes = std::min(m.stripe_bytes, m.data_bytes - at);
    if (!pread_all(file.get(), buffer.data(), loaded_bytes, m.data_offset + at)) {
      why = "cannot be read: " + errno_text();
      return false;
    }
    if (core::crc32c(buffer.data(), loaded_bytes) != m.crcs[s]) {
      why = "stripe " + std::to_string(s) + " (data bytes " + std::to_string(at) + "-" +
            std::to_string(at + loaded_bytes - 1) + ") does not match its checksum";
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
        if (!pread_all(file.get(), dst, whole, m.data_offset + at)) {
          why = "cannot be read: " + errno_text();
          return false;
        }
        const std::uint64_t local = lo + static_cast<std::uint64_t>(dst - out);
        const std::uint64_t block = blocks == nullptr ? 0 : std::uint64_t{1} << blocks->shift;
        if (blocks != nullptr && local % block == 0 && (whole % block == 0 || local + whole == blocks->part_bytes))
          blocks->deferred->push_back(Deferred{s, local, whole});
        else if (core::crc32c(dst, whole) != m.crcs[s]) {
          why = "stripe " + std::to_string(s) + " (data bytes " + std::to_string(at) + "-" +
                std::to_string(at + whole - 1) + ") does not match its checksum";
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
  return "";
} catch (const std::bad_alloc &) {
  return "no memory to read it";
}

// The deferred stripes' checks, from the CRC32Cs of the blocks of the
// frozen version `v` (`join` joins whole blocks): "" or why not.
std::string check_deferred(const std::vector<Deferred> &deferred, const h5::Meta &m, const versions::Frozen &v,
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
    if (crc != m.crcs[d.stripe])
      return "stripe " + std::to_string(d.stripe) + " (data bytes " + std::to_string(d.stripe * m.stripe_bytes) +
             "-" + std::to_string(d.stripe * m.stripe_bytes + d.bytes - 1) + ") does not match its checksum";
  }
  return "";
}

// Whether a flushed file's metadata is this array's: "" or why not.
std::string matches(Array &a, const h5::Meta &m) {
  const ArrayState &s = state(a);
  if (m.array != s.name) return "holds array \"" + m.array + "\", not \"" + s.name + "\"";
  const core::Dims &count = a.layout->count();
  bool same = m.dims.size() == count.size();
  for (std::size_t k = 0; same && k < count.size(); ++k) same = m.dims[k] == count[k];
  if (!same) return "has another shape than the array";
  if (m.column_major != (a.layout->order() == core::Order::col_major)) return "has another storage order";
  if (m.element_type != a.type->name || m.element_bytes != a.type->extent)
    return "holds " + m.element_type + " elements, not " + a.type->name;
  return "";
}

// A failed flush, raised through Open Resilience on the process that found
// it once the collective part of the call is over (a handler may call GDS).
struct Failure {
  std::uint64_t number = 0;
  GDS_status_t status = GDS_STATUS_OK;
  std::string what;
};

void raise(const char *func, Array &a, std::uint64_t number, GDS_status_t status, const std::string &what) {
  core::fail(status, func, "array %s: the flush of version %llu to the prefix failed: %s", state(a).name.c_str(),
             ull(number), what.c_str());
  core::detected(func, &a, status, core::Detected{nullptr, nullptr, static_cast<std::int64_t>(number), 0, a.rank,
                                                  what.c_str()});
}

// The stripes' checksums from the pieces every process wrote (rank 0):
// each stripe's pieces, in order, must cover it exactly.
bool join_pieces(std::vector<Piece> pieces, std::uint64_t bytes, std::uint64_t stripe,
                 std::vector<std::uint32_t> *crcs, std::string *what) {
  std::sort(pieces.begin(), pieces.end(),
            [](const Piece &x, const Piece &y) { return x.stripe != y.stripe ? x.stripe < y.stripe : x.at < y.at; });
  const std::uint64_t nstripes = std::max<std::uint64_t>(1, h5::stripes(bytes, stripe));
  crcs->assign(nstripes, 0);
  std::size_t i = 0;
  for (std::uint64_t s = 0; s < nstripes; ++s) {
    const std::uint64_t len = std::min(stripe, bytes - std::min(bytes, s * stripe));
    std::uint64_t at = 0;
    std::uint32_t crc = 0;
    for (; i < pieces.size() && pieces[i].stripe == s; ++i) {
      if (pieces[i].at != at) break;
      crc = core::crc32c_combine(crc, static_cast<std::uint32_t>(pieces[i].crc), pieces[i].len);
      at += pieces[i].len;
    }
    if (at != len) {
      *what = "the processes' elements do not cover stripe " + std::to_string(s) + " of the data exactly";
      return false;
    }
    (*crcs)[s] = crc;
  }
  return true;
}

// Rank 0's publish job: the file made durable under its final name, the
// index updated (no HDF5, no MPI, no error recording: the flush thread).
void publish(const std::string &tmp, const std::string &path, const std::string &dir, const std::string &job_dir,
             const std::string &array, const IndexEntry &entry, Result *r) {
  File file(::open(tmp.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file.is_open() || ::fsync(file.get()) != 0) {
    r->status = GDS_STATUS_IO_ERROR;
    r->what = tmp + ": fsync failed: " + errno_text();
    return;
  }
  core::kill_point("flush.rename");
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    r->status = GDS_STATUS_IO_ERROR;
    r->what = "cannot rename " + tmp + ": " + errno_text();
    return;
  }
  // Renamed: the flush is there. A directory that cannot be synced is a
  // warning (the name may not survive a crash of the file server).
  if (!fsync_dir(dir))
    core::log(core::Level::warning, "GDS_version_inc", "%s cannot be synced: %s", dir.c_str(), errno_text().c_str());
  core::kill_point("flush.index");
  update_index("GDS_version_inc", job_dir, array, {entry}, false);
}

// Rank 0: the flushed versions beyond the newest `keep` removed (a job of
// its own: removing a large file is slow on some file systems, and no
// flush waits for it).
void prune(const std::string &dir, const std::string &job_dir, const std::string &array, std::uint64_t keep) {
  const std::vector<std::uint64_t> all = flushed_versions(dir);
  if (all.size() <= keep) return;
  for (std::size_t i = static_cast<std::size_t>(keep); i < all.size(); ++i)
    ::unlink(flushed_path(dir, all[i]).c_str());
  update_index("GDS_version_inc", job_dir, array, {}, false);
}

// Queues `work` (which fills the result) on the flush lane (or `lane`);
// memory running out inside it is its failure, reported as `nomem`.
template <class F>
Background::Ticket submit_flush(std::shared_ptr<Result> r, std::string nomem, F work, Lane lane = Lane::flush) {
  return Background::submit(
      [r = std::move(r), nomem = std::move(nomem), work = std::move(work)](const std::atomic<bool> &) {
        try {
          work(r.get());
        } catch (...) {
          r->status = GDS_STATUS_NOMEM;
          r->what = nomem;
        }
      },
      lane);
}

// An agreement failed (MPI): every flush in flight ends here (its jobs
// waited for, its file removed), and the array starts no more.
void abandon_all(Array &a) {
  Flusher &f = flusher(a);
  f.broken = true;
  for (const Flight &other : f.flights) {
    Background::wait(other.ticket, Lane::flush);
    if (a.rank == 0) remove_file(other.tmp);
  }
  f.flights.clear();
  f.failed_since_wait = GDS_STATUS_MPI_ERROR;
}

// Stage write -> checksum, for interleaved elements: every process reads
// back its share of the stripes and checksums them.
void start_checksum(Array &a, Flight &fl) {
  core::kill_point("flush.checksum");
  std::uint64_t first = 0, last = 0;
  stripe_share(std::max<std::uint64_t>(1, h5::stripes(fl.bytes, fl.stripe)), a.rank, a.nprocs, &first, &last);
  fl.result = std::make_shared<Result>();
  fl.ticket = submit_flush(fl.result, fl.tmp + ": no memory to checksum it",
                           [path = fl.tmp, offset = fl.offset, bytes = fl.bytes, stripe = fl.stripe, first,
                            last](Result *r) { checksum_share(path, offset, bytes, stripe, first, last, r); });
  fl.stage = Stage::checksum;
}

// The stripes' checksums on rank 0 (*crcs), from the pieces every process
// wrote (stage write) or from the stripes they read back (stage checksum).
// The same collective calls on every process whatever fails.
GDS_status_t gather_checksums(Array &a, const Flight &fl, std::vector<std::uint32_t> *crcs, std::string *what) {
  int rc = MPI_SUCCESS;
  std::vector<int> counts(static_cast<std::size_t>(a.nprocs)), displs(static_cast<std::size_t>(a.nprocs));
  if (fl.stage == Stage::write) {
    const int mine_bytes = static_cast<int>(fl.result->pieces.size() * sizeof(Piece));
    rc = MPI_Gather(&mine_bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, a.communicator());
    if (rc != MPI_SUCCESS) std::fill(counts.begin(), counts.end(), 0);  // the Gatherv is made anyway (same calls)
    std::vector<Piece> all;
    if (a.rank == 0) {
      std::size_t total = 0;
      for (int r = 0; r < a.nprocs; ++r) {
        displs[static_cast<std::size_t>(r)] = static_cast<int>(total);
        total += static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
      }
      all.resize(total / sizeof(Piece));
    }
    const int rc2 = MPI_Gatherv(fl.result->pieces.data(), mine_bytes, MPI_BYTE, all.data(), counts.data(),
                                displs.data(), MPI_BYTE, 0, a.communicator());
    if (rc == MPI_SUCCESS) rc = rc2;
    if (rc == MPI_SUCCESS && a.rank == 0 && !join_pieces(std::move(all), fl.bytes, fl.stripe, crcs, what))
      return GDS_STATUS_INTERNAL;
  } else {
    const std::uint64_t nstripes = std::max<std::uint64_t>(1, h5::stripes(fl.bytes, fl.stripe));
    for (int r = 0; r < a.nprocs; ++r) {
      std::uint64_t first = 0, last = 0;
      stripe_share(nstripes, r, a.nprocs, &first, &last);
      counts[static_cast<std::size_t>(r)] = static_cast<int>(last - first);
      displs[static_cast<std::size_t>(r)] = static_cast<int>(first);
    }
    crcs->resize(a.rank == 0 ? nstripes : 0);
    rc = MPI_Gatherv(fl.result->crcs.data(), static_cast<int>(fl.result->crcs.size()), MPI_UINT32_T, crcs->data(),
                     counts.data(), displs.data(), MPI_UINT32_T, 0, a.communicator());
  }
  if (rc == MPI_SUCCESS) return GDS_STATUS_OK;
  *what = "MPI_Gather of the checksums failed";
  return GDS_STATUS_MPI_ERROR;
}

// Stage -> publish: rank 0 adds the checksums to the file and hands it to
// its publish job, then to the pruning of what the prefix no longer keeps.
// A failure is agreed at the next step, as a failed job's would be.
void seal(const char *func, Array &a, Flight &fl) {
  ArrayState &s = state(a);
  Flusher &f = flusher(a);
  std::string what;
  std::vector<std::uint32_t> crcs;
  GDS_status_t st = gather_checksums(a, fl, &crcs, &what);
  fl.result = std::make_shared<Result>();
  fl.ticket = 0;
  if (st == GDS_STATUS_OK && a.rank == 0) {
    core::kill_point("flush.finish");
    st = h5::finish(func, fl.tmp, fl.stripe, crcs);
    if (st != GDS_STATUS_OK) {
      what = GDS_last_error_message();
    } else {
      fl.ticket = submit_flush(fl.result, fl.tmp + ": no memory to publish it",
                               [tmp = fl.tmp, path = fl.path, dir = f.dir, job_dir = f.job_dir, array = s.name,
                                entry = fl.entry](Result *r) { publish(tmp, path, dir, job_dir, array, entry, r); });
      // Removing what the prefix no longer keeps (once this flush is
      // there) delays neither the next flush nor GDS_flush_wait.
      f.pruning = submit_flush(
          std::make_shared<Result>(), "",
          [published = fl.ticket, dir = f.dir, job_dir = f.job_dir, array = s.name, keep = f.prefix_size](Result *) {
            Background::wait(published, Lane::flush);
            prune(dir, job_dir, array, keep);
          },
          Lane::cleanup);
    }
  }
  if (st != GDS_STATUS_OK) {
    fl.result->status = st;
    fl.result->what = what;
  }
  fl.stage = Stage::publish;
}

// Moves the oldest flush in flight on by one stage if every process is
// ready for it (blocking: waits until this process is): write, then
// checksum (interleaved elements only), then publish. False if it could not
// (another process is still busy, or an agreement failed).
bool progress_one(const char *func, Array &a, bool blocking, Failure *failure) {
  Flusher &f = flusher(a);
  Flight &fl = f.flights.front();
  if (blocking) Background::wait(fl.ticket, Lane::flush);
  const bool done = Background::finished(fl.ticket, Lane::flush);
  const bool failed_here = done && fl.result->status != GDS_STATUS_OK;
  std::uint64_t any[2] = {!done, failed_here};
  if (core::agree(func, a.communicator(), GDS_STATUS_OK, any) != GDS_STATUS_OK) {
    // Without agreement the stages cannot go on together.
    *failure = Failure{fl.number, GDS_STATUS_MPI_ERROR, "MPI_Allreduce failed; no more flushes of this array"};
    abandon_all(a);
    return false;
  }
  if (any[0]) return false;
  if (any[1]) {  // the flush is dropped; the process whose job failed raises it
    const GDS_status_t status = failed_here ? fl.result->status : GDS_STATUS_REMOTE_ERROR;
    if (failed_here) *failure = Failure{fl.number, status, fl.result->what};
    if (a.rank == 0) remove_file(fl.tmp);
    if (f.failed_since_wait == GDS_STATUS_OK) f.failed_since_wait = status;
    f.flights.pop_front();
    return true;
  }
  if (fl.stage == Stage::publish) {  // published (rank 0): done
    f.flights.pop_front();
    return true;
  }
  if (fl.stage == Stage::write && !f.contiguous) start_checksum(a, fl);
  else seal(func, a, fl);
  return true;
}

// Moves the flushes in flight on (blocking: until none is left); what
// failed is added to `failures`, for the caller to raise once its
// collective part is over.
void progress(const char *func, Array &a, bool blocking, std::vector<Failure> *failures) {
  Flusher &f = flusher(a);
  while (!f.broken && !f.flights.empty()) {
    Failure failure;
    const bool moved = progress_one(func, a, blocking, &failure);
    if (failure.status != GDS_STATUS_OK) failures->push_back(std::move(failure));
    if (!moved) break;
  }
}

// Starts the flush of committed version `number` (collective).
void start(const char *func, Array &a, std::uint64_t number, std::vector<Failure> *failures) {
  ArrayState &s = state(a);
  Flusher &f = flusher(a);
  const versions::ArrayState &vs = versions::state(a);
  const versions::Version *v = vs.store->find(number);
  Flight fl;
  fl.number = number;
  fl.path = flushed_path(f.dir, number);
  fl.tmp = fl.path + ".tmp";
  fl.bytes = f.data_bytes;
  fl.stripe = h5::stripe_bytes_for(fl.bytes);
  core::kill_point("flush.create");
  std::uint64_t made[2] = {GDS_STATUS_OK, 0};
  if (a.rank == 0) {
    h5::Meta m;
    m.array = s.name;
    m.version = number;
    m.label = v != nullptr ? v->label : std::string();
    m.next = vs.current;
    m.next_label = vs.label;
    m.element_type = a.type->name;
    m.element_bytes = a.type->extent;
    m.column_major = a.layout->order() == core::Order::col_major;
    m.dims.assign(a.layout->count().begin(), a.layout->count().end());
    m.flavor = a.blocks != nullptr ? "alloc" : "create";
    m.block_bytes = vs.store->block_bytes();
    m.library = std::string("GDS ") + GDS_VERSION_STRING;
    m.nprocs = static_cast<std::uint64_t>(a.nprocs);
    m.time = static_cast<std::uint64_t>(std::time(nullptr));
    fl.entry = IndexEntry{number, fl.bytes, m.time, m.nprocs, m.label};
    made[0] = static_cast<std::uint64_t>(h5::create(func, fl.tmp, m, *a.type, &made[1]));
    if (made[0] != GDS_STATUS_OK) remove_file(fl.tmp);
  }
  const std::string why = a.rank == 0 && made[0] != GDS_STATUS_OK ? GDS_last_error_message() : "";
  if (MPI_Bcast(made, 2, MPI_UINT64_T, 0, a.communicator()) != MPI_SUCCESS) {
    if (a.rank == 0) remove_file(fl.tmp);
    abandon_all(a);
    failures->push_back(Failure{number, GDS_STATUS_MPI_ERROR, "MPI_Bcast failed; no more flushes of this array"});
    return;
  }
  if (made[0] != GDS_STATUS_OK) {
    if (f.failed_since_wait == GDS_STATUS_OK) f.failed_since_wait = static_cast<GDS_status_t>(made[0]);
    if (a.rank == 0) failures->push_back(Failure{number, static_cast<GDS_status_t>(made[0]), why});
    return;
  }
  fl.offset = made[1];
  Part part;
  part.blocks = versions::version_blocks(a, number);
  part.shift = vs.store->shift();
  part.bytes = vs.store->local_bytes();
  fl.ticket = submit_flush(fl.result, fl.tmp + ": no memory to write it",
                           [path = fl.tmp, offset = fl.offset, bytes = fl.bytes, esize = f.esize, stripe = fl.stripe,
                            checksum = f.contiguous, part = std::move(part), runs = f.runs](Result *r) {
                             write_part(path, offset, bytes, esize, stripe, checksum, part, *runs, r);
                           });
  f.flights.push_back(std::move(fl));
}

using Usable = std::vector<std::pair<std::uint64_t, h5::Meta>>;

// The flushed versions, newest first, as rank 0 lists them, on every process.
GDS_status_t list_flushes(const char *func, Array &a, std::vector<std::uint64_t> *found) {
  MPI_Comm comm = a.communicator();
  if (a.rank == 0) *found = flushed_versions(flusher(a).dir);
  std::uint64_t count = found->size();
  int rc = MPI_Bcast(&count, 1, MPI_UINT64_T, 0, comm);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Bcast", rc);
  found->resize(static_cast<std::size_t>(count));
  rc = MPI_Bcast(found->data(), static_cast<int>(count), MPI_UINT64_T, 0, comm);
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
    std::string why = h5::read_meta(path, &m);
    const std::string other = why.empty() ? matches(a, m) : std::string();
    std::uint64_t any_foreign[1] = {!other.empty()};
    GDS_TRY(core::agree(func, comm, GDS_STATUS_OK, any_foreign));
    if (any_foreign[0] != 0)
      return core::fail(GDS_STATUS_INVALID, func,
                        "the flushed array %s (%s) %s; give this array another %s or start a new job",
                        s.name.c_str(), path.c_str(), other.empty() ? "differs on another process" : other.c_str(),
                        GDS_NAME_KEY);
    if (why.empty() && m.version != n) why = "says it is version " + std::to_string(m.version);
    const GDS_status_t mine = why.empty() ? GDS_STATUS_OK : GDS_STATUS_CORRUPT;
    if (!why.empty()) {
      const std::string what = path + " " + why;
      core::log(core::Level::warning, func, "array %s: %s; trying an older flushed version", s.name.c_str(),
                what.c_str());
      core::fail(GDS_STATUS_CORRUPT, func, "%s", what.c_str());
      core::detected(func, &a, GDS_STATUS_CORRUPT,
                     core::Detected{nullptr, nullptr, static_cast<std::int64_t>(n), 0, a.rank, what.c_str()});
    }
    if (core::agree(func, comm, mine) == GDS_STATUS_OK) usable->emplace_back(n, std::move(m));
  }
  return GDS_STATUS_OK;
}

// Restart from the newest flushed version every process can read; the
// older flushed versions (up to the prefix size) become navigable memory
// versions first. Collective.
GDS_status_t recover(const char *func, Array &a) {
  ArrayState &s = state(a);
  Flusher &f = flusher(a);
  MPI_Comm comm = a.communicator();
  std::vector<std::uint64_t> found;
  GDS_TRY(list_flushes(func, a, &found));
  if (found.empty()) return GDS_STATUS_OK;  // nothing flushed: a fresh start
  Usable usable;
  GDS_TRY(usable_flushes(func, a, found, &usable));
  std::reverse(usable.begin(), usable.end());  // oldest first
  const versions::Store &store = *versions::state(a).store;
  const versions::BlockRuns all_blocks =
      store.nblocks() == 0 ? versions::BlockRuns{} : versions::BlockRuns{{0, store.nblocks()}};
  const core::Crc32cJoin join(store.block_bytes());
  std::vector<Deferred> deferred;
  const std::uint64_t part_bytes = store.local_bytes();
  const Blocks blocks{store.shift(), part_bytes, &deferred};
  std::uint64_t navigable = 0;
  const std::pair<std::uint64_t, h5::Meta> *last = nullptr;
  bool dirty = false;  // memory holds part of a version that failed
  for (const auto &u : usable) {
    const std::string path = flushed_path(f.dir, u.first);
    const auto refuse = [&](const std::string &why) {
      const std::string what = path + ": " + why;
      core::log(core::Level::warning, func, "array %s: %s", s.name.c_str(), what.c_str());
      core::fail(GDS_STATUS_CORRUPT, func, "%s", what.c_str());
      core::detected(func, &a, GDS_STATUS_CORRUPT,
                     core::Detected{nullptr, nullptr, static_cast<std::int64_t>(u.first), 0, a.rank, what.c_str()});
      return GDS_STATUS_CORRUPT;
    };
    deferred.clear();
    std::string why;
    versions::ReplayOptions how;
    if (&u != &usable.back()) {
      // An older version: read straight into its version memory, the
      // array's memory left for the newest.
      how.fill = [&](std::uint64_t offset, std::uint64_t bytes, std::byte *dst) {
        if (why.empty()) why = read_part(path, u.second, *f.runs, f.esize, dst, offset, offset + bytes, &blocks);
      };
    } else {
      const GDS_status_t synced = rma::write_local_part(func, a, [&](std::byte *memory) {
        why = read_part(path, u.second, *f.runs, f.esize, memory, 0, part_bytes, &blocks);
        return GDS_STATUS_OK;
      });
      // A file that cannot be read is refused (an older version is tried);
      // a window that cannot be synchronized fails the restart.
      std::uint64_t unreadable[1] = {!why.empty()};
      if (!why.empty()) refuse(why);
      GDS_TRY(core::agree(func, comm, synced, unreadable));
      if (unreadable[0] != 0) {
        dirty = true;
        continue;
      }
    }
    // The stripes read in place are checked before the version is made of them.
    how.check = [&](const versions::Frozen &v) {
      if (why.empty()) why = check_deferred(deferred, u.second, v, join);
      return why.empty() ? GDS_STATUS_OK : refuse(why);
    };
    bool refused = false;
    GDS_TRY(versions::replay(func, a, u.first, u.second.label, u.second.next, u.second.next_label, all_blocks, how,
                             &refused));
    if (refused) {
      dirty = dirty || !how.fill;
      continue;
    }
    ++navigable;
    last = &u;
    dirty = false;
  }
  if (last == nullptr)
    return core::fail(GDS_STATUS_UNRECOVERABLE, func,
                      "array %s: none of the %zu flushed version(s) in %s can be read (see the warnings)",
                      s.name.c_str(), found.size(), f.dir.c_str());
  if (dirty) {  // a newer version failed half-read: the current content back to the last good one
    std::string why;
    const GDS_status_t synced = rma::write_local_part(func, a, [&](std::byte *memory) {
      why = read_part(flushed_path(f.dir, last->first), last->second, *f.runs, f.esize, memory, 0, part_bytes);
      return GDS_STATUS_OK;
    });
    GDS_TRY(core::agree(func, comm,
                        !why.empty() ? core::fail(GDS_STATUS_UNRECOVERABLE, func, "array %s: version %llu: %s",
                                                  s.name.c_str(), ull(last->first), why.c_str())
                                     : synced));
  }
  s.info.restarted = 1;
  s.info.level = GDS_LEVEL_PREFIX;
  s.info.version = last->first;
  s.info.versions = navigable;
  s.info.rebuilt_processes = 0;
  s.info.rebuilt_files = 0;
  if (a.rank == 0)
    core::log(core::Level::info, func,
              "array %s restarted from version %llu of the prefix %s (%llu version(s) navigable, written by %llu "
              "process(es), read by %d)",
              s.name.c_str(), ull(last->first), f.dir.c_str(), ull(navigable), ull(last->second.nprocs), a.nprocs);
  return GDS_STATUS_OK;
}

}  // namespace

namespace {

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
  if (removed > 0) update_index(func, f.job_dir, array, {}, true);
  return removed;
}

}  // namespace

GDS_status_t open_prefix(const char *func, Array &a, bool from_prefix) {
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
  GDS_status_t st = make_dirs(func, f->dir);
  if (st == GDS_STATUS_OK && ::access(f->dir.c_str(), W_OK | X_OK) != 0)
    st = core::fail(GDS_STATUS_IO_ERROR, func, "the prefix directory %s is not writable", f->dir.c_str());
  GDS_TRY(core::agree(func, comm, st));
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
  const int rc = MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Allreduce", rc);
  f->contiguous = total * sizeof(Piece) <= core::kMaxPiece;
  // Flushes a crash cut short are not versions.
  if (a.rank == 0)
    for (const std::string &name : list_dir(f->dir))
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0) remove_file(f->dir + "/" + name);
  if (from_prefix) GDS_TRY(recover(func, a));
  if (s.info.restarted) {
    // Flushes newer than the restarted version belong to a timeline that is
    // gone (the cache restarted from an older version, or they are damaged):
    // removed, so that no later restart takes them.
    if (a.rank == 0)
      if (const std::size_t stale = remove_flushes(func, *f, s.name, s.info.version); stale > 0)
        core::log(core::Level::info, func, "array %s: removed %zu flushed version(s) newer than version %llu, "
                  "which it restarted from", s.name.c_str(), stale, ull(s.info.version));
    return GDS_STATUS_OK;
  }
  if (s.restart) return GDS_STATUS_OK;  // nothing to restart from
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

void flush_committed(const char *func, Array &a, std::uint64_t number) {
  ArrayState &s = state(a);
  if (!s.flushing() || !s.flusher || s.flusher->broken) return;
  Flusher &f = flusher(a);
  std::vector<Failure> failures;
  const auto raise_all = [&] {
    for (const Failure &x : failures) raise(func, a, x.number, x.status, x.what);
  };
  progress(func, a, false, &failures);
  if (++f.since < s.flush) return raise_all();
  f.since = 0;
  // At most `inflight` flushes writing (each reads a memory version, which
  // retention cannot drop until it is written), and not many more waiting
  // for their checksums: waits for the oldest beyond.
  const auto writing = [&] {
    return static_cast<std::uint64_t>(
        std::count_if(f.flights.begin(), f.flights.end(), [](const Flight &fl) { return fl.stage == Stage::write; }));
  };
  while (!f.broken && !f.flights.empty() && (writing() >= s.inflight || f.flights.size() > 2 * s.inflight)) {
    Failure failure;
    progress_one(func, a, true, &failure);
    if (failure.status != GDS_STATUS_OK) failures.push_back(std::move(failure));
  }
  if (!f.broken) start(func, a, number, &failures);
  raise_all();  // once the collective part is over (a handler may call GDS)
}

void flush_dropping(Array &a, std::uint64_t number) {
  ArrayState &s = state(a);
  if (!s.flusher) return;
  for (const Flight &fl : s.flusher->flights)
    if (fl.number == number && fl.stage == Stage::write) Background::wait(fl.ticket, Lane::flush);
}

void prune_wait(Array &a) {
  if (state(a).flusher) Background::wait(state(a).flusher->pruning, Lane::cleanup);
}

GDS_status_t flush_wait(const char *func, Array &a) {
  ArrayState &s = state(a);
  if (!s.flusher) return GDS_STATUS_OK;
  Flusher &f = *s.flusher;
  std::vector<Failure> failures;
  progress(func, a, true, &failures);
  for (const Failure &x : failures) raise(func, a, x.number, x.status, x.what);
  const GDS_status_t failed = f.failed_since_wait;
  f.failed_since_wait = GDS_STATUS_OK;
  return failed != GDS_STATUS_OK
             ? core::fail(failed == GDS_STATUS_REMOTE_ERROR ? GDS_STATUS_IO_ERROR : failed, func,
                          "array %s: a flush to the prefix failed (raised when it did)", s.name.c_str())
             : GDS_STATUS_OK;
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

}  // extern "C"
