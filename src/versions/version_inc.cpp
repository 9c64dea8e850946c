// GDS_version_inc and GDS_version_restore: the collective side of versions.
//
// GDS_version_inc is a sequence of phases; each ends with a status every
// process agrees on, so all go on to the next phase or all stop, and a
// failed phase leaves the array as it was (no version, the same number):
//
//   settle    a stable point: every write complete, global errors delivered,
//             the HIGH checks run (and again, while handlers keep writing)
//   exchange  every process learns which blocks of its memory the others
//             wrote, and compares the blocks written behind GDS's back
//   reserve   every process has room for its changed blocks (slabs grow)
//   freeze    the changed blocks and the block table are copied; every
//             process learns where every table is
//   persist   the level above memory (the cache, src/persist), if the array
//             has one, makes the version durable; if it cannot, the frozen
//             copies are abandoned
//   commit    the version exists: numbers, label, retention
#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "core/array.hpp"
#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/phase.hpp"
#include "core/runtime.hpp"
#include "core/util.hpp"
#include "gds_version.h"
#include "rma/stable_point.hpp"
#include "rma/state.hpp"
#include "versions/level.hpp"
#include "versions/state.hpp"

using namespace gds::core;
using gds::rma::BlockRange;
using gds::versions::SlotRef;
using gds::versions::Store;

namespace gds::versions {
namespace {

using gds::core::ull;

// How many times global errors may be delivered (handlers may write, raise
// more, ...) before the snapshot gives up.
constexpr int kMaxSettleRounds = 8;

// Phase settle. `local` is what the call found so far on this process; a
// failure after the last agreement goes to *late.
GDS_status_t settle(const char *func, Array &a, GDS_status_t local, GDS_status_t *late) {
  Resilience *r = resilience();
  bool checks_left = true;
  for (int round = 0;; ++round) {
    bool delivered = false;
    bool checks = checks_left && r != nullptr && r->has_version_checks(a);
    GDS_TRY(rma::stable_point(func, &a, local, &delivered, &checks, late));
    local = *late;  // agreed on in the next round, or by the next phase
    *late = GDS_STATUS_OK;
    if (round == kMaxSettleRounds)  // every process counts the same rounds
      return agree(func, a.communicator(),
                   fail(GDS_STATUS_RECOVERY_FAILED, func, "errors kept being raised through %d rounds of recovery",
                        round));
    if (delivered) continue;
    if (checks) {  // some process has HIGH checks: they run once, the next stable point agrees on them
      checks_left = false;
      if (local == GDS_STATUS_OK) local = r->has_version_checks(a) ? r->run_version_checks(func, a) : GDS_STATUS_OK;
      continue;
    }
    *late = local;
    return GDS_STATUS_OK;
  }
}

// Phase exchange. Every process tells every other how many written ranges
// it sends it, its status and the value all must share (the increment or
// version); then the ranges. Blocks open to direct access since the last
// version, and every block of a GDS_create array, are compared with their
// last version. A failure after the last collective of the phase (seeing
// what the others wrote) goes to `*late`, for the next phase to agree on.
GDS_status_t exchange(const char *func, Array &a, GDS_status_t local, std::uint64_t agreed, GDS_status_t *late) {
  rma::ArrayState &rs = rma::state(a);
  Store &store = *state(a).store;
  struct Hello {
    std::uint64_t ranges;
    std::uint64_t status;
    std::uint64_t agreed;
  };
  const auto p = static_cast<std::size_t>(a.nprocs);
  if (local == GDS_STATUS_OK) local = rs.window.complete_remote(func);
  const std::vector<BlockRange> &written = rma::writes_since_drain(a);
  std::vector<Hello> out(p, Hello{0, static_cast<std::uint64_t>(local), agreed}), in(p);
  if (local == GDS_STATUS_OK)
    for (const BlockRange &r : written) ++out[static_cast<std::size_t>(r.rank)].ranges;
  constexpr int kWords = sizeof(Hello) / sizeof(std::uint64_t);
  int rc = MPI_Alltoall(out.data(), kWords, MPI_UINT64_T, in.data(), kWords, MPI_UINT64_T, a.communicator());
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Alltoall", rc);
  if (local != GDS_STATUS_OK) return local;
  for (const Hello &h : in)
    if (h.status != GDS_STATUS_OK) return remote_failure(func);
  for (const Hello &h : in)
    if (h.agreed != agreed) return arguments_differ(func);

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
                     recv_counts.data(), recv_displs.data(), MPI_UINT32_T, a.communicator());
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Alltoallv", rc);
  *late = rs.window.sync(func);  // see what the others wrote
  if (*late != GDS_STATUS_OK) return GDS_STATUS_OK;

  std::vector<BlockRange> mine(recv.size() / 2);
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = BlockRange{a.rank, recv[2 * i], recv[2 * i + 1]};
  store.mark_dirty(mine);
  store.suspect(rma::exposed_since_drain(a));
  rma::drain_writes(a);
  store.compare_suspects(rs.base);
  if (a.user != nullptr) store.compare_dirty(rs.base);
  return GDS_STATUS_OK;
}

// Phase reserve: slabs for the new blocks, if any process is short of slots.
// One agreement tells whether any process is short and whether any failed.
GDS_status_t reserve(const char *func, Array &a, GDS_status_t local) {
  Store &store = *state(a).store;
  std::uint64_t data_short = 0, table_short = 0;
  store.shortage(&data_short, &table_short);
  std::uint64_t any[2] = {data_short > 0, table_short > 0};
  GDS_TRY(agree(func, a.communicator(), local, any));
  if (!any[0] && !any[1]) return GDS_STATUS_OK;
  return agree(func, a.communicator(), store.grow(func, any[0] != 0, data_short, any[1] != 0, table_short));
}

// Phase freeze: every process copies its changed blocks and table; all
// learn where every table is. On failure nothing was made.
GDS_status_t freeze(const char *func, Array &a, GDS_status_t local, std::vector<SlotRef> *tables,
                    const Store::Fill &fill = nullptr) {
  Store &store = *state(a).store;
  SlotRef table = kZero;
  const GDS_status_t s = local != GDS_STATUS_OK ? local : store.freeze(func, rma::state(a).base, &table, fill);
  struct Done {
    std::uint64_t status;
    SlotRef table;
  };
  const Done mine{static_cast<std::uint64_t>(s), table};
  std::vector<Done> all(static_cast<std::size_t>(a.nprocs));
  const int rc = MPI_Allgather(&mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, a.communicator());
  if (rc != MPI_SUCCESS) {
    store.abandon();
    return mpi_fail(func, "MPI_Allgather", rc);
  }
  bool ok = true;
  for (const Done &d : all) ok = ok && d.status == GDS_STATUS_OK;
  if (!ok) {
    store.abandon();
    return s != GDS_STATUS_OK ? s : remote_failure(func);
  }
  tables->resize(all.size());
  for (std::size_t r = 0; r < all.size(); ++r) (*tables)[r] = all[r].table;
  return GDS_STATUS_OK;
}

// The version freeze() made (as `number`, then `next`), until commit or abandon.
Frozen frozen(Array &a, std::uint64_t number, std::uint64_t next, const std::string &label,
              const std::string &next_label) {
  const Store &store = *state(a).store;
  return Frozen{number,
                next,
                &label,
                &next_label,
                store.dirty_runs(),
                store.pending_crcs(),
                rma::state(a).base,
                store.local_bytes(),
                store.shift()};
}

// Whether a level above memory holds the array.
bool levelled(const Array &a) {
  const std::span<Level *const> above = levels();
  return std::any_of(above.begin(), above.end(), [&](const Level *l) { return l->holds(a); });
}

// Phase persist: the levels above memory that hold the arrays make the
// version durable in order, or the frozen copies are abandoned. Each agrees
// on its outcome, which the next one starts from; a failure leaves the
// levels after it alone. A group's members go to each level in one call
// (one commit record).
GDS_status_t persist(const char *func, std::span<Array *const> members, GDS_status_t local, std::uint64_t increment,
                     const std::string &new_label, const std::string *group) {
  std::vector<Frozen> v;
  v.reserve(members.size());
  for (Array *a : members) v.push_back(frozen(*a, state(*a).current, state(*a).current + increment, state(*a).label,
                                              new_label));
  GDS_status_t status = local;
  bool agreed = false;
  for (gds::versions::Level *l : levels()) {
    if (!l->holds(*members.front())) continue;
    status = l->commit(func, members, v, status, agreed, group);
    agreed = true;
    if (status != GDS_STATUS_OK) break;
  }
  if (status != GDS_STATUS_OK)
    for (Array *a : members) state(*a).store->abandon();
  return status;
}

// Warnings for drops that cost the program something: a handle moved to a
// dropped version, and the last version the array's checks vouched for (made
// before they last all passed), after which an error a check finds can only
// be rolled back to versions nothing has checked.
void warn_drops(const char *func, Array &a, std::uint64_t count) {
  ArrayState &s = state(a);
  const std::deque<Version> &vs = s.store->versions();
  if (count == 0 || count > vs.size()) return;
  const Retention &r = s.store->retention();
  char why[200];
  int used = 0;
  if (r.max_versions > 0 && vs.size() > r.max_versions)
    used = std::snprintf(why, sizeof why, "%llu versions at most; ", ull(r.max_versions));
  if (r.process_bytes > 0)
    std::snprintf(why + used, sizeof why - static_cast<std::size_t>(used),
                  "default budget: %llu bytes for the array, %llu for all of this process's arrays", ull(r.max_bytes),
                  ull(r.process_bytes));
  else if (r.max_bytes > 0)
    std::snprintf(why + used, sizeof why - static_cast<std::size_t>(used), "budget: %llu bytes", ull(r.max_bytes));
  else
    std::snprintf(why + used, sizeof why - static_cast<std::size_t>(used), "no byte budget");
  std::vector<std::uint64_t> handles = a.clones;
  handles.push_back(a.primary);
  for (std::uint64_t h : handles) {
    Cursor *c = nullptr;
    if (g_arrays.find(h, &c) != GDS_STATUS_OK || c->at_current || c->version < vs.front().number ||
        c->version > vs[count - 1].number)
      continue;
    log(core::Level::warning, func,
        "retention (%s) drops version %llu of array #%llu, which a handle points at: reading through it now "
        "fails with GDS_STATUS_VERSION_DROPPED",
        why, ull(c->version), ull(a.id));
  }
  if (a.checks == 0 || a.checks_passed == 0 || s.warned_unchecked) return;
  std::size_t vouched = vs.size();  // the newest version made before the checks last passed
  for (std::size_t i = 0; i < vs.size() && vs[i].made <= a.checks_passed; ++i) vouched = i;
  if (vouched == vs.size() || vouched >= count) return;
  s.warned_unchecked = true;
  log(core::Level::warning, func,
      "retention (%s) drops version %llu of array #%llu, the newest one made before its checks last passed: an "
      "error found now can only be rolled back to versions no check has vouched for (keep more versions, or "
      "run the checks more often; warned once per array)",
      why, ull(vs[vouched].number), ull(a.id));
}

// Phase commit: the members' versions exist; retention drops the oldest
// (without a byte budget every process wishes alike; with one the processes
// agree on the most any wishes, for all members in one allreduce). Nothing
// in it can fail but that allreduce.
GDS_status_t commit(const char *func, std::span<Array *const> members, std::uint64_t increment,
                    const std::string &label, std::span<std::vector<SlotRef>> tables) {
  std::vector<std::uint64_t> drop(members.size());
  bool budget = false;
  for (std::size_t i = 0; i < members.size(); ++i) {
    ArrayState &s = state(*members[i]);
    s.store->commit(s.current, std::move(s.label), std::move(tables[i]));
    s.current += increment;
    s.label = label;
    s.newest_holds = label;
  }
  for (std::size_t i = 0; i < members.size(); ++i) {  // after every commit: the process-wide budget sees them all
    drop[i] = state(*members[i]).store->drop_wish();
    budget = budget || state(*members[i]).store->has_byte_budget();
  }
  if (budget) GDS_TRY(agree(func, members.front()->communicator(), GDS_STATUS_OK, drop));
  for (std::size_t m = 0; m < members.size(); ++m) {
    Array &a = *members[m];
    Store &store = *state(a).store;
    if (!state(a).pinned.empty()) {  // retention stops at the oldest pinned version
      const std::uint64_t oldest_pinned = *state(a).pinned.begin();
      std::uint64_t keep = 0;
      while (keep < drop[m] && keep < store.versions().size() &&
             store.versions()[static_cast<std::size_t>(keep)].number < oldest_pinned)
        ++keep;
      drop[m] = keep;
    }
    warn_drops(func, a, drop[m]);
    for (std::uint64_t i = 0; i < drop[m] && i < store.versions().size(); ++i)
      for (gds::versions::Level *l : levels())
        if (l->holds(a)) l->drop(a, store.versions()[static_cast<std::size_t>(i)].number);
    store.drop_oldest(drop[m]);  // memory's drop
  }
  return GDS_STATUS_OK;
}

void log_stats(const char *func, const Array &a) {
  const ArrayState &s = state(a);
  const GDS_version_stats_t st = s.store->stats(s.current);
  log(core::Level::debug, func,
      "array #%llu now at version %llu: %llu version(s) held from %llu, %llu bytes stored, %llu shared, "
      "%llu allocated",
      ull(a.id), ull(st.current), ull(st.versions), ull(st.oldest), ull(st.bytes_stored), ull(st.bytes_shared),
      ull(st.bytes_allocated));
}

// Refusals common to the collective calls; they are reported, then agreed.
GDS_status_t check_collective(const char *func, const Array &a) {
  const std::size_t open = rma::state(a).accesses.size();
  if (open != 0)
    return fail(GDS_STATUS_ACCESS_CONFLICT, func,
                "%zu region(s) of the array are open by GDS_access; call GDS_release first", open);
  return GDS_STATUS_OK;
}

}  // namespace

// The phases for `members` (one array, or a version group's members on
// one communicator, all at the same number), each ending agreed; a failure
// of the system (MPI, memory) is raised through Open Resilience once, by
// the caller. All members make the version, or none does.
GDS_status_t make_version(const char *func, std::span<Array *const> members, std::span<const GDS_status_t> local,
                          std::uint64_t increment, std::string new_label, const std::string *group) {
  const std::size_t k = members.size();
  std::vector<GDS_status_t> late(k, GDS_STATUS_OK);
  // A phase is reached (kill point, injected failure) once per version, by the first member.
  const auto first = [&](std::size_t i, GDS_status_t s, const core::Phase &p) {
    return i == 0 ? p.reach(func, s) : s;
  };
  for (std::size_t i = 0; i < k; ++i) GDS_TRY(settle(func, *members[i], first(i, local[i], kSettle), &late[i]));
  for (std::size_t i = 0; i < k; ++i)
    GDS_TRY(exchange(func, *members[i], first(i, late[i], kExchange), increment, &late[i]));
  for (std::size_t i = 0; i < k; ++i) GDS_TRY(reserve(func, *members[i], first(i, late[i], kReserve)));
  // Without a level the persist phase has no agreement of its own: its
  // (injected) failure is agreed on by freeze's.
  const bool above = levelled(*members.front());
  GDS_status_t frozen_status = kFreeze.reach(func, GDS_STATUS_OK);
  if (!above) frozen_status = kPersist.reach(func, frozen_status);
  std::vector<std::vector<SlotRef>> tables(k);
  for (std::size_t i = 0; i < k; ++i) {
    const GDS_status_t made = freeze(func, *members[i], i == 0 ? frozen_status : GDS_STATUS_OK, &tables[i]);
    if (made != GDS_STATUS_OK) {
      for (std::size_t j = 0; j < i; ++j) state(*members[j]).store->abandon();
      return made;
    }
  }
  if (above) GDS_TRY(persist(func, members, kPersist.reach(func, GDS_STATUS_OK), increment, new_label, group));
  kCommit.reach();
  const std::uint64_t number = state(*members.front()).current;
  GDS_TRY(commit(func, members, increment, new_label, tables));
  if (above)
    for (Array *a : members)
      for (gds::versions::Level *l : levels())
        if (l->holds(*a)) l->committed(func, *a, number);
  return GDS_STATUS_OK;
}


GDS_status_t check_inc_args(const char *func, std::uint64_t current, std::uint64_t increment, const char *label,
                            std::size_t label_size, std::string *new_label) {
  if (increment == 0) return fail(GDS_STATUS_INVALID, func, "increment=0; it must be at least 1");
  if (increment > UINT64_MAX - current)
    return fail(GDS_STATUS_INVALID, func,
                "increment=%llu would take the version number past 2^64 - 1 (the current version is %llu)",
                ull(increment), ull(current));
  if (label == nullptr && label_size > 0)
    return fail(GDS_STATUS_NULL_ARGUMENT, func, "label is NULL but label_size=%zu", label_size);
  if (label_size > GDS_VERSION_LABEL_MAX)
    return fail(GDS_STATUS_INVALID, func, "label_size=%zu is more than GDS_VERSION_LABEL_MAX (%d)", label_size,
                GDS_VERSION_LABEL_MAX);
  try {
    new_label->assign(label == nullptr ? "" : label, label_size);
  } catch (const std::bad_alloc &) {
    return fail_critical(GDS_STATUS_NOMEM, func, "no memory for a %zu-byte label", label_size);
  }
  return GDS_STATUS_OK;
}

// The label that describes version `number`'s content: its successor's
// (the label given to the GDS_version_inc that froze it).
void pin(core::Array &a, std::uint64_t number) { state(a).pinned.insert(number); }

void unpin(core::Array &a, std::uint64_t number) {
  auto &pins = state(a).pinned;
  if (auto it = pins.find(number); it != pins.end()) pins.erase(it);
}

const std::string &content_label(const core::Array &a, std::uint64_t number) {
  const ArrayState &s = state(a);
  const std::deque<Version> &vs = s.store->versions();
  const auto next = std::upper_bound(vs.begin(), vs.end(), number,
                                     [](std::uint64_t n, const Version &v) { return n < v.number; });
  return next == vs.end() ? s.newest_holds : next->label;
}

GDS_status_t restore_version(const char *func, core::Array &a, std::uint64_t version, GDS_status_t s) {
  ArrayState &vs = state(a);
  if (s == GDS_STATUS_OK) s = check_collective(func, a);
  const Version *v = vs.store->find(version);
  if (s == GDS_STATUS_OK && v == nullptr)
    s = vs.store->dropped(version)
            ? fail(GDS_STATUS_VERSION_DROPPED, func, "version=%llu was dropped by retention", ull(version))
            : fail(GDS_STATUS_NO_VERSION, func, "version=%llu does not exist (current is %llu)", ull(version),
                   ull(vs.current));
  GDS_status_t late = GDS_STATUS_OK;
  GDS_TRY(checked(func, &a, exchange(func, a, s, version, &late)));
  // All roll back or none does.
  GDS_TRY(checked(func, &a, agree(func, a.communicator(), late)));
  gds::rma::ArrayState &rs = gds::rma::state(a);
  vs.store->restore(*v, rs.base);
  std::string label = content_label(a, version);  // the current content is the version's
  vs.label = std::move(label);
  for (gds::versions::Level *l : levels())
    if (l->holds(a)) l->restored(a, version);
  // Nobody writes again before every process has rolled back.
  return agree(func, a.communicator(), rs.window.sync(func));
}




GDS_status_t replay(const char *func, core::Array &a, std::uint64_t number, std::string label, std::uint64_t next,
                    std::string next_label, const BlockRuns &changed, const ReplayOptions &options, bool *refused) {
  ArrayState &s = state(a);
  std::vector<BlockRange> written;
  written.reserve(changed.size());
  for (const auto &[first, count] : changed) written.push_back(BlockRange{a.rank, first, first + count - 1});
  s.store->mark_dirty(written);
  GDS_TRY(reserve(func, a, GDS_STATUS_OK));
  std::vector<SlotRef> tables;
  GDS_TRY(freeze(func, a, GDS_STATUS_OK, &tables, options.fill));
  if (options.check) {
    std::uint64_t bad[1] = {options.check(frozen(a, number, next, label, next_label)) != GDS_STATUS_OK};
    const GDS_status_t agreed = agree(func, a.communicator(), GDS_STATUS_OK, bad);
    if (agreed != GDS_STATUS_OK || bad[0] != 0) s.store->abandon();
    GDS_TRY(agreed);
    *refused = bad[0] != 0;
    if (*refused) return GDS_STATUS_OK;
  }
  s.current = number;
  s.restarted = true;
  s.label = std::move(label);
  Array *one[1] = {&a};
  GDS_TRY(commit(func, one, next - number, next_label, std::span<std::vector<SlotRef>>(&tables, 1)));
  // Filled from elsewhere, the version is not what the memory holds: the
  // next version copies every block.
  if (options.fill) s.store->mark_dirty(written);
  return GDS_STATUS_OK;
}

}  // namespace gds::versions

using namespace gds::versions;

extern "C" {

GDS_API GDS_status_t GDS_version_inc(GDS_gds_t gds, GDS_size_t increment, const char *label, size_t label_size) try {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_status_t s = GDS_STATUS_OK;
  GDS_TRY(resolve_collective(__func__, gds, &cursor, &s));
  Array &a = *cursor->array;
  if (s == GDS_STATUS_OK) s = check_collective(__func__, a);
  if (s == GDS_STATUS_OK && state(a).group != nullptr)
    s = fail(GDS_STATUS_INVALID, __func__,
             "the array is in a version group; version it with GDS_group_version_inc (or free the group first)");
  const std::uint64_t current = state(a).current;
  std::string new_label;
  if (s == GDS_STATUS_OK) s = check_inc_args(__func__, current, increment, label, label_size, &new_label);
  Array *const members[1] = {&a};
  const GDS_status_t made = make_version(__func__, members, {&s, 1}, increment, std::move(new_label), nullptr);
  if (made != GDS_STATUS_OK)
    return checked(__func__, &a, made,
                   Detected{nullptr, nullptr, static_cast<std::int64_t>(current),
                            made == GDS_STATUS_NOMEM ? state(a).store->failed_bytes() : 0});
  if (debug_level() >= 2) log_stats(__func__, a);
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_version_restore(GDS_gds_t gds, GDS_size_t version) try {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_status_t s = GDS_STATUS_OK;
  GDS_TRY(resolve_collective(__func__, gds, &cursor, &s));
  return restore_version(__func__, *cursor->array, version, s);
} GDS_API_CATCH

}  // extern "C"
