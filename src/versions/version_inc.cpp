// GDS_version_inc and GDS_version_restore: the collective side of versions.
#include <cstring>
#include <vector>

#include "core/array.hpp"
#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "gds_version.h"
#include "rma/local_access.hpp"
#include "rma/transfer.hpp"
#include "versions/store.hpp"

using namespace gds::core;
using gds::versions::BlockRange;
using gds::versions::SlotRef;
using gds::versions::Store;

namespace {

// What every process tells every other first: how many written ranges it
// sends it, whether it can go on, and a value all must share.
struct Hello {
  std::uint64_t ranges;
  std::uint64_t status;
  std::uint64_t agreed;
  std::uint64_t errors;  // global errors this process has pending
  std::uint64_t checks;  // whether it has checks to run before the snapshot
};

// What the exchange told every process about all of them.
struct Poll {
  bool errors = false;  // some process has global errors pending
  bool checks = false;  // some process has high-priority checks
};

// Completes this process's writes, then hands every process the ranges of
// its memory the others wrote, and marks them dirty in its store; blocks
// open to direct access since the last version, and every block of a
// GDS_create array, are compared with their last version instead. Every process returns the same
// status; on failure nothing changed.
GDS_status_t exchange_writes(const char *func, ArrayObject &a, GDS_status_t local, std::uint64_t agreed,
                             Poll *poll = nullptr) {
  if (local == GDS_STATUS_OK) {
    local = gds::errors::checked(func, &a, a.window.flush_all(func));
    gds::rma::forget_outstanding(a);
  }
  const auto p = static_cast<std::size_t>(a.nprocs);
  std::vector<BlockRange> &written = a.tracker.merged();
  const Hello hello{0, static_cast<std::uint64_t>(local), agreed, gds::errors::global_pending(&a),
                    poll != nullptr && gds::errors::has_high_checks(a) ? 1u : 0u};
  std::vector<Hello> out(p, hello), in(p);
  if (local == GDS_STATUS_OK)
    for (const BlockRange &r : written) ++out[static_cast<std::size_t>(r.rank)].ranges;
  constexpr int kWords = sizeof(Hello) / sizeof(std::uint64_t);
  int rc = MPI_Alltoall(out.data(), kWords, MPI_UINT64_T, in.data(), kWords, MPI_UINT64_T, a.comm);
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Alltoall", rc);
  if (local != GDS_STATUS_OK) return local;
  for (const Hello &h : in)
    if (h.status != GDS_STATUS_OK) return fail(GDS_STATUS_REMOTE_ERROR, func, "another process failed this collective call");
  for (const Hello &h : in)
    if (h.agreed != agreed)
      return fail(GDS_STATUS_COLLECTIVE_MISMATCH, func, "processes passed different arguments to this collective call");
  if (poll != nullptr)
    for (const Hello &h : in) {
      poll->errors = poll->errors || h.errors != 0;
      poll->checks = poll->checks || h.checks != 0;
    }

  // The ranges themselves, as (first, last) pairs, sorted by destination already.
  std::vector<int> send_counts(p), send_displs(p), recv_counts(p), recv_displs(p);
  int send_total = 0, recv_total = 0;
  for (std::size_t r = 0; r < p; ++r) {
    send_counts[r] = static_cast<int>(2 * out[r].ranges);
    recv_counts[r] = static_cast<int>(2 * in[r].ranges);
    send_displs[r] = send_total;
    recv_displs[r] = recv_total;
    send_total += send_counts[r];
    recv_total += recv_counts[r];
  }
  std::vector<std::uint32_t> send(static_cast<std::size_t>(send_total)), recv(static_cast<std::size_t>(recv_total));
  for (std::size_t i = 0; i < written.size(); ++i) {
    send[2 * i] = written[i].first;
    send[2 * i + 1] = written[i].last;
  }
  rc = MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_UINT32_T, recv.data(),
                     recv_counts.data(), recv_displs.data(), MPI_UINT32_T, a.comm);
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Alltoallv", rc);
  a.tracker.clear();
  GDS_TRY(a.window.sync(func));  // see what the others wrote

  std::vector<BlockRange> mine(recv.size() / 2);
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = BlockRange{a.rank, recv[2 * i], recv[2 * i + 1]};
  a.store->mark_dirty(mine);
  a.store->compare_suspects(static_cast<const std::byte *>(a.local_base));
  if (a.user != nullptr) a.store->compare_dirty(static_cast<const std::byte *>(a.local_base));
  return GDS_STATUS_OK;
}

void log_stats(const char *func, const ArrayObject &a) {
  const GDS_version_stats_t s = a.store->stats(a.current_version);
  log(Level::debug, func,
      "array #%llu now at version %llu: %llu version(s) held from %llu, %llu bytes stored, %llu shared, "
      "%llu allocated",
      static_cast<unsigned long long>(a.id), static_cast<unsigned long long>(s.current),
      static_cast<unsigned long long>(s.versions), static_cast<unsigned long long>(s.oldest),
      static_cast<unsigned long long>(s.bytes_stored), static_cast<unsigned long long>(s.bytes_shared),
      static_cast<unsigned long long>(s.bytes_allocated));
}

// Refusals common to the collective calls; they are reported, then agreed.
GDS_status_t check_collective(const char *func, const ArrayObject &a) {
  if (!a.accesses.empty())
    return fail(GDS_STATUS_ACCESS_CONFLICT, func,
                "%zu region(s) of the array are open by GDS_access; call GDS_release first", a.accesses.size());
  return GDS_STATUS_OK;
}

}  // namespace

extern "C" {

GDS_API GDS_status_t GDS_version_inc(GDS_gds_t gds, GDS_size_t increment, const char *label, size_t label_size) {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_status_t s = GDS_STATUS_OK;
  GDS_TRY(resolve_collective(__func__, gds, &cursor, &s));
  ArrayObject &a = *cursor->array;
  Store &store = *a.store;
  if (s == GDS_STATUS_OK) s = check_collective(__func__, a);
  if (s == GDS_STATUS_OK && increment == 0) s = fail(GDS_STATUS_INVALID, __func__, "increment=0; it must be at least 1");
  if (s == GDS_STATUS_OK && label == nullptr && label_size > 0)
    s = fail(GDS_STATUS_NULL_ARGUMENT, __func__, "label is NULL but label_size=%zu", label_size);

  // A stable point: the exchange completes every write and polls for global
  // errors; those are delivered, and the high-priority checks run once, before
  // the snapshot. Handlers may write, so the exchange then runs again.
  constexpr int kMaxRounds = 8;
  bool checked = false;
  for (int round = 0;; ++round) {
    Poll poll;
    GDS_TRY(exchange_writes(__func__, a, s, increment, &poll));
    if (round == kMaxRounds) {
      s = fail(GDS_STATUS_RECOVERY_FAILED, __func__, "errors kept being raised through %d rounds of recovery", round);
      GDS_TRY(agree(__func__, a.comm, s));  // every process got here alike
    }
    if (poll.errors) {
      GDS_TRY(gds::errors::deliver_global(__func__, &a));
      continue;
    }
    if (poll.checks && !checked) {
      checked = true;
      s = gds::errors::run_version_checks(__func__, a);
      continue;  // the next exchange agrees on s and polls what the checks raised
    }
    break;
  }

  // Slabs for the new blocks, if any process is short of slots.
  std::uint64_t data_short = 0, table_short = 0;
  store.shortage(&data_short, &table_short);
  int need[2] = {data_short > 0, table_short > 0}, any[2] = {0, 0};
  int rc = MPI_Allreduce(need, any, 2, MPI_INT, MPI_MAX, a.comm);
  if (rc != MPI_SUCCESS) return mpi_fail(__func__, "MPI_Allreduce", rc);
  s = GDS_STATUS_OK;
  if (any[0] || any[1]) s = store.grow(__func__, any[0] != 0, data_short, any[1] != 0, table_short);

  SlotRef table = gds::versions::kZero;
  if (s == GDS_STATUS_OK) s = store.freeze(__func__, static_cast<const std::byte *>(a.local_base), &table);

  // Everyone learns where everyone's table is; the version exists once all succeeded.
  struct Done {
    std::uint64_t status;
    SlotRef table;
  };
  const Done mine{static_cast<std::uint64_t>(s), table};
  std::vector<Done> all(static_cast<std::size_t>(a.nprocs));
  rc = MPI_Allgather(&mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, a.comm);
  if (rc != MPI_SUCCESS) return mpi_fail(__func__, "MPI_Allgather", rc);
  bool ok = true;
  for (const Done &d : all) ok = ok && d.status == GDS_STATUS_OK;
  if (!ok) {
    store.abandon();
    if (s == GDS_STATUS_NOMEM)  // through the Open Resilience dispatcher
      return gds::errors::detected(__func__, &a, s, nullptr, nullptr, static_cast<std::int64_t>(a.current_version),
                                   store.failed_bytes());
    return s != GDS_STATUS_OK ? s : fail(GDS_STATUS_REMOTE_ERROR, __func__, "another process failed this collective call");
  }
  std::vector<SlotRef> tables(all.size());
  for (std::size_t r = 0; r < all.size(); ++r) tables[r] = all[r].table;
  store.commit(a.current_version, std::move(a.current_label), std::move(tables));
  a.current_version += increment;
  a.current_label.assign(label == nullptr ? "" : label, label_size);

  // Retention: without a byte budget every process wishes alike.
  std::uint64_t drop = store.drop_wish();
  if (store.has_byte_budget()) {
    std::uint64_t wish = drop;
    rc = MPI_Allreduce(&wish, &drop, 1, MPI_UINT64_T, MPI_MAX, a.comm);
    if (rc != MPI_SUCCESS) return mpi_fail(__func__, "MPI_Allreduce", rc);
  }
  store.drop_oldest(drop);
  if (debug_level() >= 2) log_stats(__func__, a);
  return GDS_STATUS_OK;
}

GDS_API GDS_status_t GDS_version_restore(GDS_gds_t gds, GDS_size_t version) {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_status_t s = GDS_STATUS_OK;
  GDS_TRY(resolve_collective(__func__, gds, &cursor, &s));
  ArrayObject &a = *cursor->array;
  Store &store = *a.store;
  if (s == GDS_STATUS_OK) s = check_collective(__func__, a);
  const gds::versions::Version *v = store.find(version);
  if (s == GDS_STATUS_OK && v == nullptr)
    s = store.dropped(version)
            ? fail(GDS_STATUS_VERSION_DROPPED, __func__, "version=%llu was dropped by retention",
                   static_cast<unsigned long long>(version))
            : fail(GDS_STATUS_NO_VERSION, __func__, "version=%llu does not exist (current is %llu)",
                   static_cast<unsigned long long>(version), static_cast<unsigned long long>(a.current_version));
  GDS_TRY(exchange_writes(__func__, a, s, version));
  store.restore(*v, static_cast<std::byte *>(a.local_base));
  // Nobody writes again before every process has rolled back.
  return agree(__func__, a.comm, a.window.sync(__func__));
}

}  // extern "C"
