// The prefix level's flush pipeline: versions flushed to the global
// directory as HDF5 files (h5.hpp), written in the background.
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
#include "core/costs.hpp"
#include "core/crc32c.hpp"
#include "core/phase.hpp"
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
#include "persist/state.hpp"
#include "rma/state.hpp"
#include "versions/level.hpp"
#include "versions/state.hpp"

using gds::core::Array;
using gds::core::Lane;

namespace gds::persist {

namespace {

using gds::core::ull;

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

// The flush thread's write: every run of elements to its place in the file
// (the stripes' pieces' checksums into *pieces, with `checksum`).
Result write_part(const std::string &path, std::uint64_t offset, std::uint64_t data_bytes, std::uint64_t esize,
                  std::uint64_t stripe, bool checksum, const Part &part, const std::vector<Run> &runs,
                  std::vector<Piece> *pieces) {
  File file(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (!file.is_open()) return Result::io(path, "cannot be opened", errno);
  struct stat st {};
  if (::fstat(file.get(), &st) != 0 || static_cast<std::uint64_t>(st.st_size) < offset + data_bytes)
    return Result::failure(GDS_STATUS_IO_ERROR, path + ": is shorter than its data (changed by someone else?)");
  const std::uint64_t block = std::uint64_t{1} << part.shift;
  std::unique_ptr<std::byte, decltype(&std::free)> zeros(static_cast<std::byte *>(std::calloc(1, block)), &std::free);
  if (!zeros) return Result::nomem(path + ": no memory for a block of zeros");
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
          pieces->push_back(Piece{s, at - s * stripe, len, crc});
          at += len;
          left -= len;
        }
      }
      PERSIST_TRY(pwritev_all(file.get(), path, iov, offset + run.global * esize));
      core::add_bytes(core::Work::flush, run.count * esize);
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
      PERSIST_TRY(pwritev_all(file.get(), path, one, offset + (run.global + j * run.stride) * esize));
      core::add_bytes(core::Work::flush, esize);
    }
  }
  if (::fsync(file.get()) != 0) return Result::io(path, "cannot fsync", errno);
  return {};
}

// Which stripes process `rank` of `nprocs` checksums: [first, last).
void stripe_share(std::uint64_t nstripes, int rank, int nprocs, std::uint64_t *first, std::uint64_t *last) {
  *first = nstripes * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(nprocs);
  *last = nstripes * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(nprocs);
}

Result checksum_share(const std::string &path, std::uint64_t offset, std::uint64_t bytes, std::uint64_t stripe,
                      std::uint64_t first, std::uint64_t last, std::vector<std::uint32_t> *crcs) {
  File file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file.is_open()) return Result::io(path, "cannot be opened", errno);
  std::vector<std::byte> buffer(static_cast<std::size_t>(std::min(stripe, std::max<std::uint64_t>(bytes, 1))));
  for (std::uint64_t s = first; s < last; ++s) {
    const std::uint64_t at = s * stripe, n = std::min(stripe, bytes - std::min(bytes, at));
    PERSIST_TRY(pread_all(file.get(), path, buffer.data(), n, offset + at));
    crcs->push_back(core::crc32c(buffer.data(), n));
  }
  return {};
}

// A failed flush, raised through Open Resilience on the process that found
// it once the collective part of the call is over (a handler may call GDS).
struct Failure {
  std::uint64_t number = 0;
  Result why;
};

void raise(const char *func, Array &a, const Failure &x) {
  core::fail(x.why.status(), func, "array %s: the flush of version %llu to the prefix failed: %s",
             state(a).name.c_str(), ull(x.number), x.why.what().c_str());
  core::detected(func, &a, x.why.status(), core::Detected{nullptr, nullptr, static_cast<std::int64_t>(x.number), 0,
                                                          a.rank, x.why.what().c_str()});
}

// The stripes' checksums from the pieces every process wrote (rank 0):
// each stripe's pieces, in order, must cover it exactly.
Result join_pieces(std::vector<Piece> pieces, std::uint64_t bytes, std::uint64_t stripe,
                   std::vector<std::uint32_t> *crcs) {
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
    if (at != len)
      return Result::failure(GDS_STATUS_INTERNAL, "the processes' elements do not cover stripe " + std::to_string(s) +
                                                      " of the data exactly");
    (*crcs)[s] = crc;
  }
  return {};
}

// Rank 0's publish job: the file made durable under its final name, the
// index updated (no HDF5, no MPI, no error recording: the flush thread).
Result publish(const std::string &tmp, const std::string &path, const std::string &dir, const std::string &job_dir,
               const std::string &array, const IndexEntry &entry) {
  File file(::open(tmp.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file.is_open() || ::fsync(file.get()) != 0) return Result::io(tmp, "cannot fsync", errno);
  kFlushRename.reach();
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Result::io(tmp, "cannot be renamed", errno);
  // Renamed: the flush is there. A directory that cannot be synced is a
  // warning (the name may not survive a crash of the file server).
  if (Result synced = sync_dir(dir); !synced.ok())
    core::log(core::Level::warning, "GDS_version_inc", "%s", synced.what().c_str());
  kFlushIndex.reach();
  if (Result indexed = update_index("GDS_version_inc", job_dir, array, {entry}, false); !indexed.ok())
    core::log(core::Level::warning, "GDS_version_inc", "the index is not updated: %s", indexed.what().c_str());
  return {};
}

// Rank 0: the flushed versions beyond the newest `keep` removed (a job of
// its own: removing a large file is slow on some file systems, and no
// flush waits for it).
void prune(const std::string &dir, const std::string &job_dir, const std::string &array, std::uint64_t keep) {
  const std::vector<std::uint64_t> all = flushed_versions(dir);
  if (all.size() <= keep) return;
  for (std::size_t i = static_cast<std::size_t>(keep); i < all.size(); ++i)
    ::unlink(flushed_path(dir, all[i]).c_str());
  if (Result indexed = update_index("GDS_version_inc", job_dir, array, {}, false); !indexed.ok())
    core::log(core::Level::warning, "GDS_version_inc", "the index is not updated: %s", indexed.what().c_str());
}

// Queues `work` (which returns the job's Result, given its Done) on the
// flush lane (or `lane`); memory running out inside it is its failure.
template <class F>
Background::Ticket submit_flush(std::shared_ptr<Done> d, std::string path, F work, Lane lane = Lane::flush) {
  return Background::submit(
      [d = std::move(d), path = std::move(path), work = std::move(work)](const std::atomic<bool> &) {
        try {
          d->result = work(d.get());
        } catch (...) {
          d->result = Result::nomem(path + ": no memory for its flush");
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
  kFlushChecksum.reach();
  std::uint64_t first = 0, last = 0;
  stripe_share(std::max<std::uint64_t>(1, h5::stripes(fl.bytes, fl.stripe)), a.rank, a.nprocs, &first, &last);
  fl.done = std::make_shared<Done>();
  fl.ticket = submit_flush(fl.done, fl.tmp,
                           [path = fl.tmp, offset = fl.offset, bytes = fl.bytes, stripe = fl.stripe, first,
                            last](Done *d) { return checksum_share(path, offset, bytes, stripe, first, last, &d->crcs); });
  fl.stage = Stage::checksum;
}

// The stripes' checksums on rank 0 (*crcs), from the pieces every process
// wrote (stage write) or from the stripes they read back (stage checksum).
// The same collective calls on every process whatever fails.
Result gather_checksums(Array &a, const Flight &fl, std::vector<std::uint32_t> *crcs) {
  int rc = MPI_SUCCESS;
  std::vector<int> counts(static_cast<std::size_t>(a.nprocs)), displs(static_cast<std::size_t>(a.nprocs));
  if (fl.stage == Stage::write) {
    const int mine_bytes = static_cast<int>(fl.done->pieces.size() * sizeof(Piece));
    rc = core::gather(&mine_bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, a.communicator());
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
    const int rc2 = core::gatherv(fl.done->pieces.data(), mine_bytes, MPI_BYTE, all.data(), counts.data(),
                                displs.data(), MPI_BYTE, 0, a.communicator());
    if (rc == MPI_SUCCESS) rc = rc2;
    if (rc == MPI_SUCCESS && a.rank == 0) return join_pieces(std::move(all), fl.bytes, fl.stripe, crcs);
  } else {
    const std::uint64_t nstripes = std::max<std::uint64_t>(1, h5::stripes(fl.bytes, fl.stripe));
    for (int r = 0; r < a.nprocs; ++r) {
      std::uint64_t first = 0, last = 0;
      stripe_share(nstripes, r, a.nprocs, &first, &last);
      counts[static_cast<std::size_t>(r)] = static_cast<int>(last - first);
      displs[static_cast<std::size_t>(r)] = static_cast<int>(first);
    }
    crcs->resize(a.rank == 0 ? nstripes : 0);
    rc = core::gatherv(fl.done->crcs.data(), static_cast<int>(fl.done->crcs.size()), MPI_UINT32_T, crcs->data(),
                     counts.data(), displs.data(), MPI_UINT32_T, 0, a.communicator());
  }
  return rc == MPI_SUCCESS ? Result() : Result::mpi("MPI_Gather of the checksums", rc);
}

// Stage -> publish: rank 0 adds the checksums to the file and hands it to
// its publish job, then to the pruning of what the prefix no longer keeps.
// A failure is agreed at the next step, as a failed job's would be.
void seal(Array &a, Flight &fl) {
  ArrayState &s = state(a);
  Flusher &f = flusher(a);
  std::vector<std::uint32_t> crcs;
  Result sealed = gather_checksums(a, fl, &crcs);
  fl.done = std::make_shared<Done>();
  fl.ticket = 0;
  if (sealed.ok() && a.rank == 0) {
    kFlushFinish.reach();
    sealed = h5::finish(fl.tmp, fl.stripe, crcs);
  }
  if (sealed.ok() && a.rank == 0) {
    fl.ticket = submit_flush(fl.done, fl.tmp,
                             [tmp = fl.tmp, path = fl.path, dir = f.dir, job_dir = f.job_dir, array = s.name,
                              entry = fl.entry](Done *) { return publish(tmp, path, dir, job_dir, array, entry); });
    // Removing what the prefix no longer keeps (once this flush is
    // there) delays neither the next flush nor GDS_flush_wait.
    f.pruning = submit_flush(
        std::make_shared<Done>(), f.dir,
        [published = fl.ticket, dir = f.dir, job_dir = f.job_dir, array = s.name, keep = f.prefix_size](Done *) {
          Background::wait(published, Lane::flush);
          prune(dir, job_dir, array, keep);
          return Result();
        },
        Lane::cleanup);
  }
  if (!sealed.ok()) fl.done->result = sealed;
  fl.stage = Stage::publish;
}

// The phase the oldest flight's next agreement ends.
const core::Phase &phase_of(Stage stage) {
  return stage == Stage::write ? kFlushWritten : stage == Stage::checksum ? kFlushSummed : kFlushPublished;
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
  const GDS_status_t reached = done ? phase_of(fl.stage).reach(func, GDS_STATUS_OK) : GDS_STATUS_OK;
  if (reached != GDS_STATUS_OK) fl.done->result = Result::recorded(reached);
  const bool failed_here = done && !fl.done->result.ok();
  std::uint64_t any[2] = {!done, failed_here};
  if (core::agree(func, a.communicator(), GDS_STATUS_OK, any) != GDS_STATUS_OK) {
    // Without agreement the stages cannot go on together.
    *failure = Failure{fl.number, Result::failure(GDS_STATUS_MPI_ERROR,
                                                  "MPI_Allreduce failed; no more flushes of this array")};
    abandon_all(a);
    return false;
  }
  if (any[0]) return false;
  if (any[1]) {  // the flush is dropped; the process whose job failed raises it
    if (failed_here) *failure = Failure{fl.number, fl.done->result};
    if (a.rank == 0) remove_file(fl.tmp);
    if (f.failed_since_wait == GDS_STATUS_OK)
      f.failed_since_wait = failed_here ? fl.done->result.status() : GDS_STATUS_REMOTE_ERROR;
    f.flights.pop_front();
    return true;
  }
  if (fl.stage == Stage::publish) {  // published (rank 0): done, and in the catalogue
    f.catalogue.entries.push_back(std::move(fl.version));
    if (f.catalogue.entries.size() > f.prefix_size)
      f.catalogue.drop_older_than(f.catalogue.entries[f.catalogue.entries.size() - f.prefix_size].number);
    f.flights.pop_front();
    return true;
  }
  if (fl.stage == Stage::write && !f.contiguous) {
    start_checksum(a, fl);
    return true;
  }
  // Published only after the cache's versions up to it (asynchronous cache
  // writes): the prefix never holds a version newer than the cache's
  // newest, which restart takes first. The same units everywhere: agreed.
  if (cache_behind(a, fl.number)) {
    if (!blocking) return false;
    const std::uint64_t number = fl.number;  // fl may go: the cache raises failures to handlers
    if (const GDS_status_t settled = cache_settle(func, a, number); settled != GDS_STATUS_OK) {
      *failure = Failure{number, Result::failure(settled, "the cache's versions before it could not be completed; "
                                                          "no more flushes of this array")};
      abandon_all(a);
      return false;
    }
    return true;
  }
  seal(a, fl);
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
    if (!failure.why.ok()) failures->push_back(std::move(failure));
    if (!moved) break;
  }
}

// Rank 0 lays out the file of version `number`'s flush (*created); the
// others learn where its data goes (made[0]: the status, made[1]: the
// offset). Returns the broadcast's outcome.
Result create(Array &a, Flight &fl, const versions::Version *v, std::uint64_t made[2], Result *created) {
  ArrayState &s = state(a);
  const versions::ArrayState &vs = versions::state(a);
  if (a.rank == 0) {
    h5::Meta m;
    m.array = s.name;
    m.version = fl.number;
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
    fl.entry = IndexEntry{fl.number, fl.bytes, m.time, m.nprocs, m.label};
    *created = h5::create(fl.tmp, m, *a.type, &made[1]);
    if (!created->ok()) remove_file(fl.tmp);
    made[0] = static_cast<std::uint64_t>(created->status());
  }
  const int rc = core::bcast(made, 2, MPI_UINT64_T, 0, a.communicator());
  return rc == MPI_SUCCESS ? Result() : Result::mpi("MPI_Bcast", rc);
}

// Starts the flush of committed version `number` (collective).
void start(Array &a, std::uint64_t number, std::vector<Failure> *failures) {
  Flusher &f = flusher(a);
  const versions::ArrayState &vs = versions::state(a);
  const versions::Version *v = vs.store->find(number);
  Flight fl;
  fl.number = number;
  fl.path = flushed_path(f.dir, number);
  fl.tmp = fl.path + ".tmp";
  fl.bytes = f.data_bytes;
  fl.stripe = h5::stripe_bytes_for(fl.bytes);
  fl.version = versions::Catalogue::Entry{number, vs.current, v != nullptr ? v->label : std::string(), vs.label, true,
                                          true, {}};
  if (vs.store->nblocks() > 0) fl.version.own.push_back(versions::Stored{0, vs.store->nblocks(), 0});
  kFlushCreate.reach();
  core::add_call(core::Work::flush);
  std::uint64_t made[2] = {GDS_STATUS_OK, 0};
  Result created;
  if (const Result told = create(a, fl, v, made, &created); !told.ok()) {
    if (a.rank == 0) remove_file(fl.tmp);
    abandon_all(a);
    failures->push_back(Failure{number, told.within("no more flushes of this array")});
    return;
  }
  if (made[0] != GDS_STATUS_OK) {
    if (f.failed_since_wait == GDS_STATUS_OK) f.failed_since_wait = static_cast<GDS_status_t>(made[0]);
    if (a.rank == 0) failures->push_back(Failure{number, created});
    return;
  }
  fl.offset = made[1];
  Part part;
  part.blocks = versions::version_blocks(a, number);
  part.shift = vs.store->shift();
  part.bytes = vs.store->local_bytes();
  fl.ticket = submit_flush(fl.done, fl.tmp,
                           [path = fl.tmp, offset = fl.offset, bytes = fl.bytes, esize = f.esize, stripe = fl.stripe,
                            checksum = f.contiguous, part = std::move(part), runs = f.runs](Done *d) {
                             return write_part(path, offset, bytes, esize, stripe, checksum, part, *runs, &d->pieces);
                           });
  f.flights.push_back(std::move(fl));
}

}  // namespace

void flush_committed(const char *func, Array &a, std::uint64_t number) {
  ArrayState &s = state(a);
  if (!s.flushing() || !s.flusher || s.flusher->broken) return;
  const core::Timed timed(core::Work::flush, false);
  Flusher &f = flusher(a);
  std::vector<Failure> failures;
  const auto raise_all = [&] {
    for (const Failure &x : failures) raise(func, a, x);
  };
  progress(func, a, false, &failures);
  if (s.flush == 0 || ++f.since < s.flush) return raise_all();  // 0: no periodic flush (SCR_FLUSH=0)
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
    if (!failure.why.ok()) failures.push_back(std::move(failure));
  }
  if (!f.broken) start(a, number, &failures);
  raise_all();  // once the collective part is over (a handler may call GDS)
}

GDS_status_t flush_restarted(const char *func, Array &a, std::uint64_t number) {
  ArrayState &s = state(a);
  if (!s.flushing() || !s.flusher || s.flusher->broken) return GDS_STATUS_OK;
  std::vector<Failure> failures;
  {
    const core::Timed timed(core::Work::flush, false);
    start(a, number, &failures);
  }
  for (const Failure &x : failures) raise(func, a, x);
  return flush_wait(func, a);
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
  const core::Timed timed(core::Work::flush, false);
  Flusher &f = *s.flusher;
  std::vector<Failure> failures;
  progress(func, a, true, &failures);
  for (const Failure &x : failures) raise(func, a, x);
  const GDS_status_t failed = f.failed_since_wait;
  f.failed_since_wait = GDS_STATUS_OK;
  return failed != GDS_STATUS_OK
             ? core::fail(failed == GDS_STATUS_REMOTE_ERROR ? GDS_STATUS_IO_ERROR : failed, func,
                          "array %s: a flush to the prefix failed (raised when it did)", s.name.c_str())
             : GDS_STATUS_OK;
}

}  // namespace gds::persist
