// GDS_version_restore (and a version group's restore), pins, content
// labels, and the replay of persisted versions at restart.
//
// A restore of `members` to one version, whatever the number of members:
//   exchange  every write is complete, every process knows its dirty blocks
//             (exchange.hpp: one MPI_Ibarrier)
//   agree     every process can restore every member (one allreduce)
//   restore   each process copies back the blocks that differ (no message)
//   settle    nobody writes again before every process has rolled back
//             (one allreduce)
#include <algorithm>

#include "core/collective.hpp"
#include "core/costs.hpp"
#include "core/log.hpp"
#include "core/module.hpp"
#include "core/runtime.hpp"
#include "core/util.hpp"
#include "rma/state.hpp"
#include "versions/exchange.hpp"
#include "versions/level.hpp"
#include "versions/state.hpp"

using gds::core::Array;
using gds::core::ull;
using gds::rma::BlockRange;

namespace gds::versions {

namespace {

// Why member `a` cannot be restored to `version` (a status with its message), or OK.
GDS_status_t restorable(const char *func, const Array &a, std::uint64_t version) {
  const ArrayState &vs = state(a);
  const std::size_t open = rma::state(a).accesses.size();
  if (open != 0)
    return core::fail(GDS_STATUS_ACCESS_CONFLICT, func,
                      "%zu region(s) of the array are open by GDS_access; call GDS_release first", open);
  if (vs.store->find(version) != nullptr) return GDS_STATUS_OK;
  return vs.store->dropped(version)
             ? core::fail(GDS_STATUS_VERSION_DROPPED, func, "version=%llu was dropped by retention", ull(version))
             : core::fail(GDS_STATUS_NO_VERSION, func, "version=%llu does not exist (current is %llu)", ull(version),
                          ull(vs.current));
}

}  // namespace

void pin(core::Array &a, std::uint64_t number) { state(a).pinned.insert(number); }

void unpin(core::Array &a, std::uint64_t number) {
  auto &pins = state(a).pinned;
  if (auto it = pins.find(number); it != pins.end()) pins.erase(it);
}

// The label that describes version `number`'s content: its successor's
// (the label given to the GDS_version_inc that froze it).
const std::string &content_label(const core::Array &a, std::uint64_t number) {
  const ArrayState &s = state(a);
  const std::deque<Version> &vs = s.store->versions();
  const auto next = std::upper_bound(vs.begin(), vs.end(), number,
                                     [](std::uint64_t n, const Version &v) { return n < v.number; });
  return next == vs.end() ? s.newest_holds : next->label;
}

GDS_status_t restore_versions(const char *func, std::span<Array *const> members, std::uint64_t version,
                              GDS_status_t s) {
  for (const Array *a : members)
    if (s == GDS_STATUS_OK) s = restorable(func, *a, version);
  Array &first = *members.front();
  MPI_Comm comm = first.communicator();
  s = exchange(func, members, s);
  // GDS_create arrays: the program writes their memory itself; a block
  // changed since its base is copied back too.
  for (Array *a : members)
    if (s == GDS_STATUS_OK && a->user != nullptr && !state(*a).tracking.now)  // else: the kernel said which
      state(*a).store->compare_dirty(rma::state(*a).base);
  core::Signature sig;
  sig.add(version);
  // All roll back or none does.
  GDS_TRY(core::checked(func, &first, core::agree(func, comm, s, sig.value())));
  GDS_status_t synced = GDS_STATUS_OK;
  for (Array *a : members) {
    ArrayState &vs = state(*a);
    rma::ArrayState &rs = rma::state(*a);
    vs.store->restore(*vs.store->find(version), rs.base);
    std::string label = content_label(*a, version);  // the current content is the version's
    vs.label = std::move(label);
    for (Level *l : levels())
      if (l->holds(*a)) l->restored(*a, version);
    if (synced == GDS_STATUS_OK) synced = rs.window.sync(func);
  }
  // Nobody writes again before every process has rolled back.
  return core::agree(func, comm, synced);
}

GDS_status_t restore_version(const char *func, core::Array &a, std::uint64_t version, GDS_status_t s) {
  Array *const one[1] = {&a};
  return restore_versions(func, one, version, s);
}

GDS_status_t replay(const char *func, core::Array &a, std::uint64_t number, std::string label, std::uint64_t next,
                    std::string next_label, const BlockRuns &changed, const ReplayOptions &options, bool *refused) {
  ArrayState &s = state(a);
  Store &store = *s.store;
  MPI_Comm comm = a.communicator();
  std::vector<BlockRange> written;
  written.reserve(changed.size());
  for (const auto &[first, count] : changed) written.push_back(BlockRange{a.rank, first, first + count - 1});
  store.mark_dirty(written);
  for (;;) {  // room for the version, grown where some process lacks it
    const Store::Shortage need = store.shortage();
    std::uint64_t lacks[3] = {need.data > 0, need.tables > 0, need.directory};
    GDS_TRY(core::agree(func, comm, GDS_STATUS_OK, lacks));
    if (lacks[0] == 0 && lacks[1] == 0 && lacks[2] == 0) break;
    GDS_TRY(core::agree(func, comm, store.grow(func, lacks[0] != 0, lacks[1] != 0, lacks[2] != 0, need)));
  }
  GDS_status_t made = store.freeze(func, rma::state(a).base, options.fill);
  const Frozen v = frozen_version(a, number, next, label, next_label);
  std::uint64_t values[2] = {made == GDS_STATUS_OK && options.check && options.check(v) != GDS_STATUS_OK,
                             made == GDS_STATUS_OK ? store.drop_wish() : 0};
  const GDS_status_t agreed = core::agree(func, comm, made, values);
  if (agreed != GDS_STATUS_OK || values[0] != 0) store.abandon();
  GDS_TRY(agreed);
  if (refused != nullptr) *refused = values[0] != 0;
  if (values[0] != 0) return GDS_STATUS_OK;
  s.current = number;
  s.restarted = true;
  s.label = std::move(label);
  Array *const one[1] = {&a};
  commit_versions(func, one, next - number, next_label, {values[1]});
  // Filled from elsewhere, the version is not what the memory holds: the
  // next version copies every block.
  if (options.fill) store.mark_dirty(written);
  return GDS_STATUS_OK;
}

}  // namespace gds::versions

using namespace gds::core;
using namespace gds::versions;

extern "C" {

GDS_API GDS_status_t GDS_version_restore(GDS_gds_t gds, GDS_size_t version) try {
  GDS_ENTER();
  const Timed timed(Work::restore);
  Cursor *cursor = nullptr;
  GDS_status_t s = GDS_STATUS_OK;
  GDS_TRY(resolve_collective(__func__, gds, &cursor, &s));
  return restore_version(__func__, *cursor->array, version, s);
} GDS_API_CATCH

}  // extern "C"
