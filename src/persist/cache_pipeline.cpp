// The cache's pipeline: a cached version (a unit: one array's file, or a
// version group's members' files with one commit record) from its layout
// to its retirement, as SCR's asynchronous flush has it: prepare, start,
// test, complete, wait. Synchronous writes are the same pipeline waited for
// inside GDS_version_inc; asynchronous ones move on at the array's later
// collective calls (GDS_version_inc, GDS_cache_wait, GDS_free,
// GDS_finalize), in one agreement per call for all of the array's units.
//
//   prepare   (GDS_version_inc) each file's length to the scheme's peers,
//             their buffers reserved, the file copied if asynchronous;
//             agreed (kCachePrepare)
//   start     the scheme's messages posted (sent from where the file's
//             pieces are), the file's write queued on the cache lane
//   test      local: MPI_Testall, or MPI_Waitall when waiting; what arrived
//             (PARTNER copies, XOR parity) is written on the cache lane
//   complete  one agreement over the units in flight: those durable
//             everywhere (kCacheDurable) get their commit records queued;
//             those recorded everywhere (kCacheRecorded) are retired: the
//             catalogue has them, what no retained version needs goes
//   wait      test and complete until the units waited for are retired
//
// A failure anywhere takes the unit (and the younger units of the arrays
// it involves, which may build on its versions) out of the cache: a
// synchronous unit's is returned by GDS_version_inc, an asynchronous one's
// raised to the error handlers where it happened and returned by the next
// GDS_cache_wait.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>

#include "core/collective.hpp"
#include "core/costs.hpp"
#include "core/log.hpp"
#include "core/module.hpp"
#include "core/util.hpp"
#include "persist/cache.hpp"
#include "persist/names.hpp"

using gds::core::Array;
using gds::core::Background;
using gds::core::Lane;

namespace gds::persist {

namespace {

using gds::core::ull;

constexpr int kTagLengths = 0x6d20, kTagData = 0x6d40;  // data: one tag per unit in flight (of 64)
constexpr int kDataTags = 64;

// Queues `work` (returning a Result) on the cache lane, or (`here`) runs it
// now on the calling thread (ticket 0: finished); memory running out inside
// it is its failure.
template <class F>
Background::Ticket submit(std::shared_ptr<Result> out, F work, bool here) {
  auto job = [out = std::move(out), work = std::move(work)](const std::atomic<bool> &) {
    try {
      *out = work();
    } catch (...) {
      *out = Result::nomem("no memory to write a cached version's file");
    }
  };
  if (!here) return Background::submit(std::move(job), Lane::cache);
  job(std::atomic<bool>{false});
  return 0;
}

// Sends the unit's file length to the scheme's peers and receives theirs;
// *heard: the lengths heard (0 from a process with nothing laid out).
Result exchange_lengths(MPI_Comm comm, const Unit &u, std::vector<std::uint64_t> *heard) {
  const Scheme &scheme = *cacher(*u.files.front().a).scheme;
  const std::vector<int> tells = scheme.tells(), hears = scheme.hears();
  std::uint64_t mine = u.out.view.size;
  heard->assign(hears.size(), 0);
  std::vector<MPI_Request> reqs;
  for (std::size_t j = 0; j < hears.size(); ++j) {
    reqs.emplace_back();
    MPI_Irecv(heard->data() + j, 1, MPI_UINT64_T, hears[j], kTagLengths, comm, &reqs.back());
  }
  for (const int peer : tells) {
    reqs.emplace_back();
    MPI_Isend(&mine, 1, MPI_UINT64_T, peer, kTagLengths, comm, &reqs.back());
  }
  const int rc = core::wait_all(&reqs);
  if (rc != MPI_SUCCESS) return Result::mpi("MPI_Waitall", rc);
  return {};
}

// The file whole in memory of its own (the memory version changes once
// GDS_version_inc returns), from the buffers of an earlier unit if any.
Result stage(Cacher &c, UnitFile &f, std::uint64_t number) noexcept try {
  if (!c.stages.empty()) {
    f.copy = std::move(c.stages.back());
    c.stages.pop_back();
  }
  f.copy.resize(f.view.size);
  std::byte *p = f.copy.data();
  for (const iovec &piece : f.view.pieces) {
    std::memcpy(p, piece.iov_base, piece.iov_len);
    p += piece.iov_len;
  }
  f.view.pieces.assign(1, iovec{f.copy.data(), f.copy.size()});
  return {};
} catch (const std::bad_alloc &) {
  return Result::nomem("no memory for a copy of cached version " + std::to_string(number));
}

// Whether the file's local work is over (waits for it if `block`): its
// exchange completed (then what arrived is queued for writing), its jobs finished.
bool advance(UnitFile &f, bool block) {
  if (!f.exchanged) {
    bool done = false;
    const core::Timed waiting(core::Work::redundancy, false);
    f.mpi = progress(f.x, block, &done);
    if (done || !f.mpi.ok()) {
      f.exchanged = true;
      if (f.x.store && f.mpi.ok())
        f.protect = submit(f.protect_result, [x = &f.x] { return x->store(*x); }, f.here);
    }
  }
  if (!f.exchanged) return false;
  if (block) {
    Background::wait(f.own, Lane::cache);
    Background::wait(f.protect, Lane::cache);
  }
  return Background::finished(f.own, Lane::cache) && Background::finished(f.protect, Lane::cache);
}

// Test: whether this process's part of the unit's step is over, and what failed ("ok" if nothing).
bool test(Unit &u, bool block, Result *failed) {
  if (u.step == Unit::Step::recording) {
    if (block) Background::wait(u.recorded, Lane::cache);
    if (!Background::finished(u.recorded, Lane::cache)) return false;
    *failed = *u.record_result;
    return true;
  }
  if (!advance(u.out, block)) return false;
  const UnitFile &f = u.out;
  *failed = !f.mpi.ok() ? f.mpi : !f.own_result->ok() ? *f.own_result : *f.protect_result;
  return true;
}

// Ends a unit that will not be completed: its work waited for, its files
// removed (a group's, with its record, from the group's directory).
void abandon(Unit &u) {
  (void)advance(u.out, true);
  const std::uint64_t n = u.files.front().h.number;
  for (const CachedFile &f : u.files) {
    Cacher &c = cacher(*f.a);
    remove_version(c, n, u.group.has_value());
    c.cached.erase(std::remove_if(c.cached.begin(), c.cached.end(), [&](const Cached &x) { return x.number == n; }),
                   c.cached.end());
    c.force_full = true;  // what it held since the last cached version goes with the next one
    c.delta_bytes = 0;
  }
  if (u.group) remove_group_versions(u.out.where, [n](std::uint64_t m) { return m == n; }, true);
}

// Every process has the unit's files durable: this process's commit
// record (one naming every member for a group) is queued.
void start_records(Unit &u) {
  u.step = Unit::Step::recording;
  u.reached = false;
  if (!u.group) {
    const CachedFile &f = u.files.front();
    const std::string dir = cacher(*f.a).dir;
    u.recorded = submit(u.record_result, [dir, path = record_path(dir, f.record.number), bytes = encode_record(f.record)] {
      PERSIST_TRY(write_file_atomically(path, {{const_cast<std::byte *>(bytes.data()), bytes.size()}}));
      return sync_dir(dir);
    }, u.out.here);
    return;
  }
  GroupRecord g{u.files.front().h.number, {}, true};
  for (const CachedFile &f : u.files) g.members.emplace_back(state(*f.a).name, f.record);
  u.recorded = submit(u.record_result, [dir = u.group_dir, path = record_path(u.group_dir, g.number),
                                        bytes = encode_group_record(g)] {
    PERSIST_TRY(make_dirs(dir));
    PERSIST_TRY(write_file_atomically(path, {{const_cast<std::byte *>(bytes.data()), bytes.size()}}));
    return sync_dir(dir);
  }, u.out.here);
}

// Every process has the unit's records: the catalogue has its versions,
// what no retained version needs goes, and its buffers serve the next.
void retire(Unit &u) {
  std::uint64_t needed = kNone;
  for (CachedFile &f : u.files) {
    Cacher &c = cacher(*f.a);
    c.catalogue.entries.push_back(versions::Catalogue::Entry{f.h.number, f.next, f.label, f.next_label, f.h.full != 0,
                                                             true, std::move(f.file.own)});
    drop_before(c, f.h.number);
    needed = std::min(needed, c.cached.front().number);
  }
  Cacher &first = cacher(*u.files.front().a);
  first.scheme->give_back(std::move(u.out.x.in));
  if (!u.out.copy.empty() && first.stages.size() < kInflight) first.stages.push_back(std::move(u.out.copy));
  if (u.group) remove_group_versions(u.out.where, [&](std::uint64_t n) { return n < needed; }, true);
}

// Takes unit `u` off the lists of every array it involves.
void unlist(const Unit *u) {
  for (const CachedFile &f : u->files) {
    auto &units = cacher(*f.a).units;
    units.erase(std::remove_if(units.begin(), units.end(), [&](const auto &x) { return x.get() == u; }), units.end());
  }
}

// A failure of an asynchronous unit, raised where it happened (handlers may call GDS: last).
void raise(const char *func, Array &a, std::uint64_t number, const Result &why) {
  core::fail(GDS_STATUS_IO_ERROR, func, "array %s: cached version %llu failed (completed after GDS_version_inc "
             "returned): %s", state(a).name.c_str(), ull(number), why.what().c_str());
  core::detected(func, &a, GDS_STATUS_IO_ERROR,
                 core::Detected{nullptr, nullptr, static_cast<std::int64_t>(number), 0, a.rank, why.what().c_str()});
}

// Unit `failed` failed on some process (`here`: what failed on this one):
// it ends, and so does every younger unit of an array it involves,
// transitively (they may build on its versions). Returns the failure of a
// synchronous unit (this process's, or GDS_STATUS_REMOTE_ERROR); an
// asynchronous one's is raised here and remembered for GDS_cache_wait.
GDS_status_t fail_from(const char *func, const std::shared_ptr<Unit> &failed, const Result &here) {
  std::set<Array *> hit;
  std::vector<std::shared_ptr<Unit>> doomed{failed};
  for (std::size_t i = 0; i < doomed.size(); ++i)  // the younger units of the arrays hit, and theirs
    for (const CachedFile &f : doomed[i]->files) {
      hit.insert(f.a);
      const auto &units = cacher(*f.a).units;
      const auto at = std::find(units.begin(), units.end(), doomed[i]);
      for (auto it = at == units.end() ? at : std::next(at); it != units.end(); ++it)
        if (std::find(doomed.begin(), doomed.end(), *it) == doomed.end()) doomed.push_back(*it);
    }
  for (const auto &u : doomed) {
    if (u->step == Unit::Step::recording) Background::wait(u->recorded, Lane::cache);
    abandon(*u);
    unlist(u.get());
  }
  if (failed->sync) return here.ok() ? core::remote_failure(func) : here.report(func);
  for (Array *a : hit)
    if (cacher(*a).failed_since_wait == GDS_STATUS_OK) cacher(*a).failed_since_wait = GDS_STATUS_IO_ERROR;
  if (!here.ok()) raise(func, *failed->files.front().a, failed->files.front().h.number, here);
  return GDS_STATUS_OK;
}

}  // namespace

GDS_status_t prepare(const char *func, MPI_Comm comm, GDS_status_t local, Unit &u, bool copy, core::Ballot &ballot) {
  std::vector<std::uint64_t> heard;
  Result r = exchange_lengths(comm, u, &heard);  // every process sends, whatever it found
  u.wishes = ballot.reserve<std::uint64_t>(u.files.size());
  const bool ready = r.ok() && local == GDS_STATUS_OK && u.laid_out;
  if (ready) {
    Cacher &first = cacher(*u.files.front().a);
    r = first.scheme->prepare(u.files.front().h.number, u.out.view.size, heard);
    if (r.ok() && copy) r = stage(first, u.out, u.files.front().h.number);
  }
  // Whether the next cached version should be full: this one's changes and
  // the increments since the last full one add up to the part (a group's:
  // the members' together, to all their parts: its members are full together).
  std::vector<std::uint64_t> delta(u.files.size()), part(u.files.size());
  for (std::size_t i = 0; i < u.files.size() && r.ok() && ready; ++i) {
    const CachedFile &f = u.files[i];
    const Cacher &c = cacher(*f.a);
    std::uint64_t changed = 0;
    for (const std::uint64_t w : c.changed) changed += static_cast<std::uint64_t>(std::popcount(w));
    delta[i] = (f.h.full ? 0 : c.delta_bytes + f.file.held) + (changed << f.h.shift);
    part[i] = f.h.part_bytes;
  }
  if (u.group) {
    const std::uint64_t all_delta = std::accumulate(delta.begin(), delta.end(), std::uint64_t{0});
    const std::uint64_t all_parts = std::accumulate(part.begin(), part.end(), std::uint64_t{0});
    std::fill(delta.begin(), delta.end(), all_delta);
    std::fill(part.begin(), part.end(), all_parts);
  }
  for (std::size_t i = 0; i < u.files.size() && r.ok() && ready; ++i)
    ballot.put(u.wishes, i, std::uint64_t{delta[i] >= part[i]});
  if (local == GDS_STATUS_OK) local = r.report(func);
  return kCachePrepare.reach(func, local);
}

void prepared(Unit &u, const core::Ballot &ballot) {
  for (std::size_t i = 0; i < u.files.size(); ++i) cacher(*u.files[i].a).full_wished = ballot.get(u.wishes, i) != 0;
}

bool still_valid(const Unit &u) {
  bool valid = true;
  for (const CachedFile &f : u.files) {
    const Cacher &c = cacher(*f.a);
    const std::uint64_t prev = c.cached.empty() ? kNone : c.cached.back().number;
    valid = valid && f.h.prev == prev && (f.h.full || !c.force_full);
  }
  if (!valid)  // what it held since the last cached version goes with the next one, which is full
    for (const CachedFile &f : u.files) {
      Cacher &c = cacher(*f.a);
      c.force_full = true;
      c.delta_bytes = 0;
      if (c.failed_since_wait == GDS_STATUS_OK) c.failed_since_wait = GDS_STATUS_IO_ERROR;
    }
  return valid;
}

void start(const std::shared_ptr<Unit> &u) {
  for (CachedFile &f : u->files) {
    Cacher &c = cacher(*f.a);
    // The next cached version starts from this one (its increment).
    f.record = record_of(c, f.h, f.file.held, u->group.has_value());
    c.delta_bytes = f.h.full ? 0 : c.delta_bytes + f.file.held;
    std::fill(c.changed.begin(), c.changed.end(), 0);
    c.since_cached = 0;
    c.force_full = false;
    c.units.push_back(u);
  }
  // A small synchronous unit writes on this thread, which waits for the
  // writes anyway: handing the file to the cache lane and back costs more
  // than its overlap with the messages saves.
  UnitFile &f = u->out;
  f.here = u->sync && f.view.size <= kWriteHere;
  Cacher &c = cacher(*u->files.front().a);
  const std::uint64_t n = u->files.front().h.number;
  const int tag = kTagData + static_cast<int>(c.started++ % kDataTags);
  f.mpi = c.scheme->start(n, tag, f.view, f.where, &f.x);
  f.where.spares->claim(f.path, f.view.size);
  // Written here, before the scheme's store, which syncs the same
  // directory: one fsync of it makes both files' entries durable.
  const bool store_syncs = f.here && f.x.store && f.mpi.ok();
  f.own = submit(f.own_result, [view = f.view, path = f.path, dir = f.where.dir, group = f.where.group, store_syncs] {
    if (group) PERSIST_TRY(make_dirs(dir));  // the group's directory (its scheme's store writes there after this)
    PERSIST_TRY(write_file(path, view.pieces));
    core::add_bytes(core::Work::cache, view.size);
    return store_syncs ? Result() : sync_dir(dir);
  }, f.here);
  core::add_call(core::Work::cache);
  if (!f.x.reqs.empty() || !f.x.inflows.empty()) core::add_call(core::Work::redundancy);
}

std::size_t in_flight(const Array &a) { return a.state<ArrayState>().cacher->units.size(); }

GDS_status_t progress(const char *func, Array &a, Wait wait) {
  for (;;) {
    // A copy: units leave the array's list as they retire or fail.
    const std::vector<std::shared_ptr<Unit>> units(cacher(a).units.begin(), cacher(a).units.end());
    if (units.empty()) return GDS_STATUS_OK;
    // Per unit, over the processes: 0 over everywhere, 1 not yet somewhere, 2 failed somewhere.
    std::vector<std::uint64_t> values(units.size(), 0);
    std::vector<Result> failed(units.size());
    for (std::size_t k = 0; k < units.size(); ++k) {
      Unit &u = *units[k];
      const bool block = wait == Wait::all || (wait == Wait::oldest && k == 0);
      const core::Phase &phase = u.step == Unit::Step::writing ? kCacheDurable : kCacheRecorded;
      if (!test(u, block, &failed[k])) values[k] = 1;
      else if (!failed[k].ok()) values[k] = 2;
      else if (!std::exchange(u.reached, true) && phase.reach(func, GDS_STATUS_OK) != GDS_STATUS_OK) {
        failed[k] = Result::recorded(GDS_STATUS_MPI_ERROR);
        values[k] = 2;
      }
    }
    // One agreement ends the step of every unit tested (kCacheDurable or kCacheRecorded).
    GDS_TRY(core::agree(func, a.communicator(), GDS_STATUS_OK, values));
    bool oldest_gone = false;
    for (std::size_t k = 0; k < units.size(); ++k) {
      Unit &u = *units[k];
      if (values[k] == 1) break;  // units move on in order
      if (values[k] == 2) {
        oldest_gone = oldest_gone || k == 0;
        GDS_TRY(fail_from(func, units[k], failed[k]));
        break;
      }
      if (u.step == Unit::Step::writing) {
        kCacheRecord.reach();
        start_records(u);
      } else {
        kCacheDrop.reach();
        retire(u);
        unlist(&u);
        oldest_gone = oldest_gone || k == 0;
      }
    }
    if (wait == Wait::none || (wait == Wait::oldest && oldest_gone)) return GDS_STATUS_OK;
  }
}

GDS_status_t wait(const char *func, Array &a) {
  GDS_TRY(progress(func, a, Wait::all));
  Cacher &c = cacher(a);
  if (std::exchange(c.failed_since_wait, GDS_STATUS_OK) == GDS_STATUS_OK) return GDS_STATUS_OK;
  return core::fail(GDS_STATUS_IO_ERROR, func, "array %s: a cached version failed since the last wait (raised "
                    "when it did)", state(a).name.c_str());
}

GDS_status_t forget(const char *func, Array &a) {
  const GDS_status_t status = wait(func, a);
  Cacher &c = cacher(a);
  while (!c.units.empty()) {  // left by a failed agreement: ended here
    const std::shared_ptr<Unit> u = c.units.front();
    abandon(*u);
    unlist(u.get());
  }
  c.failed_since_wait = GDS_STATUS_OK;
  return status;
}

}  // namespace gds::persist
