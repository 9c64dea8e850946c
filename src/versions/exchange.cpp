// Phase exchange of GDS_version_inc and GDS_version_restore: every process
// learns which blocks of its memory the others wrote one-sidedly since the
// last version, for every member at once, in one sparse exchange: each
// process sends the processes it wrote to (and only those) one message with
// its ranges of every member (core::sparse_exchange: MPI_Issend, then one
// MPI_Ibarrier). Its own writes it marks itself; blocks open to direct
// stores are compared with their last version. Where no process wrote into
// another's blocks (the version guesses so when the last one found none,
// and its agreement checks it) the messages and the barrier are left out.
#include <algorithm>
#include <map>
#include <vector>

#include "core/collective.hpp"
#include "core/log.hpp"
#include "rma/state.hpp"
#include "versions/exchange.hpp"
#include "versions/state.hpp"
#include "versions/tracking.hpp"

using gds::core::Array;
using gds::rma::BlockRange;

namespace gds::versions {

namespace {

constexpr int kTagWrites = 0x6d60;

// What every process does once it knows its blocks written: its ranges
// (`mine`) marked dirty, the blocks exposed to direct stores compared with
// their base, and the log of writes drained (only if `local` is OK: a failed
// version keeps it). `synced`: the window synced first, to see what the
// others wrote.
GDS_status_t mark_written(const char *func, Array &a, const std::vector<BlockRange> &mine, bool synced,
                          GDS_status_t local) {
  if (synced) {
    const GDS_status_t sync = rma::state(a).window.sync(func);  // see what the others wrote
    if (local == GDS_STATUS_OK) local = sync;
  }
  Store &store = *state(a).store;
  store.mark_dirty(mine);
  if (local != GDS_STATUS_OK) return local;
  store.suspect(rma::exposed_since_drain(a));
  rma::drain_writes(a);
  take_tracked(a);  // GDS_create: the pages the program wrote, where the kernel tracks them
  store.compare_suspects(rma::state(a).base);
  return local;
}

}  // namespace

bool wrote_others(std::span<Array *const> members) {
  // Known whatever the member's kind: a GDS_create array logs no ranges,
  // yet a write into another's part must make the guess wrong.
  return std::any_of(members.begin(), members.end(), [](const Array *a) { return rma::wrote_others_since_drain(*a); });
}

GDS_status_t exchange_local(const char *func, std::span<Array *const> members, bool wrote, GDS_status_t local) {
  if (wrote) return local;  // the exchange of the next round sends them
  for (Array *a : members) {
    // Its log holds writes into its own blocks only; marked before it is drained.
    const std::vector<BlockRange> &mine = rma::writes_since_drain(*a);
    if (local == GDS_STATUS_OK) local = rma::state(*a).window.complete_remote(func);  // no call if none is open
    // Its own one-sided writes seen before the blocks are compared or copied
    // (a GDS_create array's log holds no ranges, but knows they were made).
    local = mark_written(func, *a, mine, rma::wrote_self_since_drain(*a), local);
  }
  return local;
}

GDS_status_t exchange(const char *func, std::span<Array *const> members, GDS_status_t local) {
  const std::size_t k = members.size();
  const int me = members.front()->rank;
  // Every write issued is complete at its target before any target hears of it.
  for (Array *a : members)
    if (local == GDS_STATUS_OK) local = rma::state(*a).window.complete_remote(func);
  std::map<int, std::vector<std::uint32_t>> to;  // target -> (member, first, last)...
  std::vector<std::vector<BlockRange>> mine(k);
  if (local == GDS_STATUS_OK)
    for (std::size_t i = 0; i < k; ++i)
      for (const BlockRange &r : rma::writes_since_drain(*members[i])) {
        if (r.rank == me) mine[i].push_back(r);
        else to[r.rank].insert(to[r.rank].end(), {static_cast<std::uint32_t>(i), r.first, r.last});
      }
  std::vector<std::pair<int, std::vector<std::uint32_t>>> out(to.begin(), to.end());
  bool malformed = false;
  // Every process takes part whatever it found (it then sends nothing).
  GDS_TRY(core::sparse_exchange(func, members.front()->communicator(), kTagWrites, out,
                                [&](int, std::span<const std::uint32_t> words) {
                                  for (std::size_t w = 0; w + 3 <= words.size(); w += 3) {
                                    if (words[w] >= k) malformed = true;
                                    else mine[words[w]].push_back(BlockRange{me, words[w + 1], words[w + 2]});
                                  }
                                  malformed = malformed || words.size() % 3 != 0;
                                }));
  if (malformed && local == GDS_STATUS_OK)
    local = core::fail_critical(GDS_STATUS_INTERNAL, func, "a malformed range of written blocks arrived");
  // What the others sent is marked whatever this process found: they
  // drained their logs. Its own log stays unless it was sent.
  for (std::size_t i = 0; i < k; ++i) local = mark_written(func, *members[i], mine[i], true, local);
  return local;
}

}  // namespace gds::versions
