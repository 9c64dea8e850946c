// GDS_version_inc: a version of `members` (one array, or a version group's
// members on one communicator, all at the same number) is one protocol
// whatever the number of members, with the same few messages at any process
// count. Its phases end in one agreement, after which a version is made
// everywhere or nowhere:
//
//   settle    every write this process issued on the members is complete
//             at its target
//   exchange  every process learns which of its blocks the others wrote,
//             for every member in one sparse exchange (exchange.hpp: a
//             message to each process written to, one MPI_Ibarrier), and
//             compares the blocks written behind GDS's back. Where no
//             process wrote into another's blocks before the last version,
//             the version guesses that none did since and leaves the
//             messages and the barrier out; the agreement checks the guess
//             (every process says whether it wrote into others' blocks),
//             and a wrong guess costs one more round, with the exchange
//             (and the next version exchanges first)
//   reserve   each process knows whether its stores have room for their
//             changed blocks
//   freeze    the changed blocks are copied, each block's CRC32C taken as
//             it is, and the block tables and directory entries written
//             (GDS_create arrays: compared and copied in one pass, or,
//             where few blocks stayed the same, all copied first)
//   persist   the levels above memory prepare the version (the cache lays
//             out its files and tells its peers their lengths)
//   agree     one allreduce settles them all: every process's status and
//             arguments, and what only some process knows: global errors
//             pending or checks to run (the round is abandoned, they are
//             dealt with and a new round starts), a store short of room
//             (the same, after it grows: only while versions are new), the
//             retention's drops, what the levels asked, the interval
//             guidance's measurements
//   start     the levels above memory make the version durable (the cache:
//             its messages, writes and commit records, in phases of its
//             own); a failure abandons it in memory too
//   commit    the version exists: numbers, label, retention (no message)
// Without checks, errors pending or growth, a memory version costs the one
// allreduce where no process writes one-sidedly into another's blocks (a
// program that writes its own memory: GDS_create arrays, a halo exchange of
// its own), and the one MPI_Ibarrier and the one allreduce where they do;
// no process sends data that grows with the number of processes.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "core/array.hpp"
#include "core/collective.hpp"
#include "core/costs.hpp"
#include "core/log.hpp"
#include "core/phase.hpp"
#include "core/runtime.hpp"
#include "core/util.hpp"
#include "gds_version.h"
#include "rma/state.hpp"
#include "versions/exchange.hpp"
#include "versions/level.hpp"
#include "versions/state.hpp"
#include "versions/tracking.hpp"

using namespace gds::core;
using gds::rma::BlockRange;
using gds::versions::SlotRef;
using gds::versions::Store;

namespace gds::versions {
namespace {

using gds::core::ull;

// How many rounds a version may take (global errors delivered, handlers
// writing and raising more, checks run, stores grown) before it gives up.
constexpr int kMaxRounds = 8;

// GDS_FAULT_LATE_WRITE: versions to go before one overwrites its members'
// memory once agreed (0: none armed).
std::uint64_t g_late_write = 0;

// A write landing in the members' memory between the agreement and the
// levels above memory (GDS_FAULT_LATE_WRITE), if one is due: every byte of
// this process's part becomes 0xA5, a write of its own that the next
// version takes. Whatever lands there, no level may store it with this version.
void late_write_if_due(const char *func, std::span<Array *const> members) {
  if (g_late_write == 0 || --g_late_write != 0) [[likely]]
    return;
  for (Array *a : members) {
    const std::uint64_t bytes = state(*a).store->local_bytes();
    if (bytes == 0) continue;
    (void)rma::write_local_part(func, *a, [&](std::byte *base) {
      std::memset(base, 0xA5, bytes);
      return GDS_STATUS_OK;
    });
    rma::state(*a).writes.record(a->rank, 0, bytes);
  }
}

// The interval in seconds between versions that cost `c` seconds each:
// Daly's optimum with a mean time between failures `m`, else the interval
// that spends the fraction f of the run's time in versions.
double interval_seconds(double c, double m, double f) {
  if (m > 0) {
    if (c >= 2 * m) return m;
    const double r = c / (2 * m);
    return std::sqrt(2 * c * m) * (1 + std::sqrt(r) / 3 + r / 9) - c;
  }
  return c * (1 - f) / f;
}

// What the interval guidance contributes to a version's agreement: this
// process's seconds inside the last version, the seconds since it returned,
// the steps (GDS_need_version calls) since, and its settings. Each becomes
// its maximum over the processes (nonnegative doubles order as their bits),
// so every process computes the same interval, even where their settings differ.
struct GuidanceVote {
  double cost, elapsed;
  std::uint64_t calls;
  double overhead, mtbf;
  std::uint64_t every_calls;
  double every_seconds;
};
GuidanceVote guidance_vote(const Guidance &g) {
  return {g.cost,           g.since > 0 ? core::now() - g.since : 0.0, g.calls, g_settings.overhead, g_settings.mtbf,
          g_settings.every_calls, g_settings.every_seconds};
}

// After the version: the interval in steps, from the most any process
// measured (the same on every process: agreed), and this version's cost.
// The first criterion met makes a version due (SCR_Need_checkpoint's "any"):
// the overhead (Daly's interval with a GDS_MTBF), SCR_CHECKPOINT_SECONDS in
// steps at the measured pace, SCR_CHECKPOINT_INTERVAL; none: never.
void guide(Guidance &g, const GuidanceVote &vote, double cost) {
  const double c = vote.cost, elapsed = vote.elapsed, overhead = vote.overhead, mtbf = vote.mtbf,
               seconds = vote.every_seconds;
  const std::uint64_t calls = vote.calls, every = vote.every_calls;
  const auto steps_of = [](double steps) {
    return steps < 1 ? std::uint64_t{1} : steps > 1e15 ? std::uint64_t{1000000000000000} : static_cast<std::uint64_t>(steps);
  };
  const bool measured = elapsed > 0 && calls > 0 && c > 0;
  const double step = measured ? elapsed / static_cast<double>(calls) : 0;
  std::uint64_t interval = every > 0 ? every : std::uint64_t{1000000000000000};
  if (overhead > 0 || seconds > 0) {
    if (!measured) interval = 1;  // not measured yet: a version at the next step measures it
    if (measured && overhead > 0)
      interval = std::min(interval, steps_of(std::ceil(interval_seconds(c, mtbf, overhead) / step)));
    if (measured && seconds > 0) interval = std::min(interval, steps_of(std::ceil(seconds / step)));
  }
  g.interval = interval;
  g.calls = 0;
  g.cost = cost;
  g.since = core::now();
}

// Whether a level above memory holds the array.
bool levelled(const Array &a) {
  const std::span<Level *const> above = levels();
  return std::any_of(above.begin(), above.end(), [&](const Level *l) { return l->holds(a); });
}

// What one round of a version learns in its agreement, per member (flags,
// set on some process: global errors pending, checks to run, a store short
// of slots, tables or directory room; the retention's drops with a byte
// budget), whether a process wrote into another's blocks, the interval
// guidance's values; then what the levels reserve.
struct MemberVote {
  std::uint64_t pending, checks, data, tables, directory, drop;
};
struct Round {
  core::Ballot ballot;
  core::Ballot::Field<MemberVote> members;
  core::Ballot::Field<std::uint64_t> wrote;
  core::Ballot::Field<GuidanceVote> guidance;
  std::vector<Store::Shortage> need;
  [[nodiscard]] MemberVote member(std::size_t m) const { return ballot.get(members, m); }
  template <class Change>
  void update(std::size_t m, Change &&change) {
    ballot.update(members, m, std::forward<Change>(change));
  }
  [[nodiscard]] bool any(std::uint64_t MemberVote::*what) const { return ballot.any(members, what); }
};

// Phases reserve and freeze for each member: its shortage noted, or its
// version frozen. Returns this process's status.
GDS_status_t freeze_all(const char *func, std::span<Array *const> members, GDS_status_t s, bool checks_left,
                        Round *round) {
  Resilience *r = resilience();
  const std::size_t k = members.size();
  round->need.assign(k, {});
  for (std::size_t m = 0; m < k; ++m) {
    Array &a = *members[m];
    Store &store = *state(a).store;
    round->update(m, [&](MemberVote &v) {
      v.pending = r != nullptr && r->global_pending(&a) != 0;
      v.checks = checks_left && r != nullptr && r->has_version_checks(a);
    });
    round->need[m] = store.shortage();
  }
  s = kReserve.reach(func, s);
  GDS_status_t made = kFreeze.reach(func, s);
  for (std::size_t m = 0; m < k; ++m) {
    Array &a = *members[m];
    Store &store = *state(a).store;
    // GDS_create: the program writes the memory itself; every block is
    // compared unless the kernel said which pages it wrote (the exchange).
    Tracking &tracking = state(a).tracking;
    const bool compare = a.user != nullptr && !tracking.now;
    Store::Shortage &need = round->need[m];
    bool short_of = !compare && (need.data > 0 || need.tables > 0 || need.directory);
    if (made == GDS_STATUS_OK && !short_of) {
      const double start = core::now();
      made = store.freeze(func, rma::state(a).base, nullptr, compare, &short_of);
      tracking.freeze_seconds = core::now() - start;
    }
    if (short_of) need = store.shortage();  // compared: what it lacks is known now
    round->update(m, [&](MemberVote &v) {
      v.data = need.data > 0;
      v.tables = need.tables > 0;
      v.directory = need.directory;
    });
  }
  return made;
}

// Abandons what a round made of the version (frozen copies, the levels' preparations).
void abandon(std::span<Array *const> members) {
  for (Level *l : levels())
    if (l->holds(*members.front())) l->abandon(members);
  for (Array *a : members) state(*a).store->abandon();
}

// After an agreed round that must be made again: global errors delivered,
// checks run (*local: their outcome, for the next round), stores grown.
GDS_status_t prepare_next_round(const char *func, std::span<Array *const> members, Round &round, bool *checks_left,
                                GDS_status_t *local) {
  Resilience *r = resilience();
  const std::size_t k = members.size();
  for (std::size_t m = 0; m < k; ++m)
    if (round.member(m).pending != 0 && r != nullptr) {
      const GDS_status_t d = r->deliver_global(func, members[m]);
      if (*local == GDS_STATUS_OK) *local = d;
    }
  if (round.any(&MemberVote::checks)) {  // checks run once, on consistent data; the next round agrees on them
    *checks_left = false;
    for (Array *a : members)
      if (*local == GDS_STATUS_OK && r != nullptr && r->has_version_checks(*a)) *local = r->run_version_checks(func, *a);
  }
  for (std::size_t m = 0; m < k; ++m) {
    const MemberVote v = round.member(m);
    const bool data = v.data != 0, tables = v.tables != 0, directory = v.directory != 0;
    if (data || tables || directory)  // collective per member: every process knows which grow
      GDS_TRY(agree(func, members[m]->communicator(),
                    state(*members[m]).store->grow(func, data, tables, directory, round.need[m])));
  }
  return GDS_STATUS_OK;
}

// Phases settle to agree, in rounds until one goes through: the members'
// versions frozen and prepared by the levels, every process agreed.
// *drops: per member, the versions retention drops. On failure nothing remains.
GDS_status_t agree_on_version(const char *func, std::span<Array *const> members, GDS_status_t local,
                              std::uint64_t signature, std::uint64_t increment, const std::string &new_label,
                              const std::string *group, Round *round, std::vector<std::uint64_t> *drops) {
  const std::size_t k = members.size();
  const bool above = levelled(*members.front());
  bool checks_left = true;
  bool &exchange_first = state(*members.front()).exchange_first;
  bool exchanged = false;   // the version's rounds from now on exchange
  bool saw_writes = false;  // some process wrote into another's blocks (the agreed flag of a round)
  for (int n = 0;; ++n) {
    GDS_status_t s = kSettle.reach(func, local);
    // The exchange, unless no process is expected to have written into
    // another's blocks (none did before the last version): the agreement
    // then checks that none did, and if one did, the next round exchanges.
    for (Array *a : members) state(*a).tracking.now = false;  // until this round's exchange says
    const bool wrote = wrote_others(members);
    const bool exchange_now = exchange_first || exchanged;
    s = kExchange.reach(func, exchange_now ? exchange(func, members, s) : exchange_local(func, members, wrote, s));
    round->ballot.clear();
    round->members = round->ballot.reserve<MemberVote>(k);
    round->wrote = round->ballot.reserve<std::uint64_t>();
    round->ballot.put(round->wrote, 0, std::uint64_t{wrote});
    round->guidance = round->ballot.reserve<GuidanceVote>();
    round->ballot.put(round->guidance, 0, guidance_vote(state(*members.front()).guidance));
    s = freeze_all(func, members, s, checks_left, round);
    for (std::size_t m = 0; m < k; ++m)
      round->update(m, [&](MemberVote &v) {
        v.drop = state(*members[m]).store->frozen() ? state(*members[m]).store->drop_wish() : 0;
      });
    std::vector<Frozen> v;  // what the levels above memory take of the version
    if (above)
      for (Array *a : members)
        v.push_back(frozen_version(*a, state(*a).current, state(*a).current + increment, state(*a).label, new_label));
    s = kPersist.reach(func, s);
    if (above)
      for (Level *l : levels())
        if (l->holds(*members.front())) {
          const GDS_status_t p = l->prepare(func, members, v, s, group, round->ballot);
          if (s == GDS_STATUS_OK) s = p;
        }
    const GDS_status_t agreed = agree(func, members.front()->communicator(), s, round->ballot.values(), signature);
    const bool someone_wrote = round->ballot.get(round->wrote) != 0;  // agreed: alike everywhere
    const bool guessed_wrong = !exchange_now && someone_wrote;
    const bool again = round->any(&MemberVote::pending) || round->any(&MemberVote::checks) ||
                       round->any(&MemberVote::data) || round->any(&MemberVote::tables) ||
                       round->any(&MemberVote::directory) || guessed_wrong;
    if (agreed != GDS_STATUS_OK || again) abandon(members);
    GDS_TRY(agreed);
    saw_writes = saw_writes || someone_wrote;
    exchanged = exchanged || guessed_wrong;
    if (!again) {
      exchange_first = saw_writes;
      drops->resize(k);
      for (std::size_t m = 0; m < k; ++m) (*drops)[m] = round->member(m).drop;
      return GDS_STATUS_OK;
    }
    if (n + 1 == kMaxRounds)  // every process counts the same rounds
      return agree(func, members.front()->communicator(),
                   fail(GDS_STATUS_RECOVERY_FAILED, func,
                        "errors kept being raised (or checks kept failing) through %d rounds", n + 1));
    local = GDS_STATUS_OK;
    GDS_TRY(prepare_next_round(func, members, *round, &checks_left, &local));
  }
}

// Warnings for drops that cost the program something: a handle moved to a
// dropped version, and the last version the array's checks vouched for (made
// before they last all passed), after which an error a check finds can only
// be rolled back to versions nothing has checked.
void warn_drops(const char *func, Array &a, std::uint64_t count) {
  ArrayState &s = state(a);
  const std::deque<Version> &vs = s.store->versions();
  if (count == 0 || count > vs.size()) return;
  // Why retention drops: said only in a warning (most versions warn of nothing).
  const auto why = [&] {
    const Retention &r = s.store->retention();
    std::string w;
    if (r.max_versions > 0 && vs.size() > r.max_versions) w = std::to_string(r.max_versions) + " versions at most; ";
    if (r.process_bytes > 0)
      w += "default budget: " + std::to_string(r.max_bytes) + " bytes for the array, " +
           std::to_string(r.process_bytes) + " for all of this process's arrays";
    else if (r.max_bytes > 0)
      w += "budget: " + std::to_string(r.max_bytes) + " bytes";
    else
      w += "no byte budget";
    return w;
  };
  const auto warn_handle = [&](std::uint64_t h) {
    Cursor *c = nullptr;
    if (g_arrays.find(h, &c) != GDS_STATUS_OK || c->at_current || c->version < vs.front().number ||
        c->version > vs[count - 1].number)
      return;
    log(core::Level::warning, func,
        "retention (%s) drops version %llu of array #%llu, which a handle points at: reading through it now "
        "fails with GDS_STATUS_VERSION_DROPPED",
        why().c_str(), ull(c->version), ull(a.id));
  };
  for (std::uint64_t h : a.clones) warn_handle(h);
  warn_handle(a.primary);
  if (a.checks == 0 || a.checks_passed == 0 || s.warned_unchecked) return;
  std::size_t vouched = vs.size();  // the newest version made before the checks last passed
  for (std::size_t i = 0; i < vs.size() && vs[i].made <= a.checks_passed; ++i) vouched = i;
  if (vouched == vs.size() || vouched >= count) return;
  s.warned_unchecked = true;
  log(core::Level::warning, func,
      "retention (%s) drops version %llu of array #%llu, the newest one made before its checks last passed: an "
      "error found now can only be rolled back to versions no check has vouched for (keep more versions, or "
      "run the checks more often; warned once per array)",
      why().c_str(), ull(vs[vouched].number), ull(a.id));
}

}  // namespace

Frozen frozen_version(Array &a, std::uint64_t number, std::uint64_t next, const std::string &label,
                      const std::string &next_label) {
  const Store &store = *state(a).store;
  if (!store.frozen()) return Frozen{number, next, &label, &next_label, {}, {}, nullptr, 0, 0, false};
  return Frozen{number,
                next,
                &label,
                &next_label,
                store.dirty_runs(),
                store.pending_crcs(),
                [s = &store](std::uint32_t b) { return s->frozen_block(b); },
                store.local_bytes(),
                store.shift(),
                true};
}

void commit_versions(const char *func, std::span<Array *const> members, std::uint64_t increment,
                     const std::string &label, std::vector<std::uint64_t> drop) {
  for (std::size_t m = 0; m < members.size(); ++m) {
    Array &a = *members[m];
    ArrayState &s = state(a);
    Store &store = *s.store;
    const std::uint64_t changed = std::uint64_t{store.dirty_count()} << store.shift();
    store.commit(s.current, std::move(s.label));
    adapt_tracking(a, changed);
    s.current += increment;
    s.label = label;
    s.newest_holds = label;
    if (!store.has_byte_budget()) drop[m] = store.drop_wish();
    if (!s.pinned.empty()) {  // retention stops at the oldest pinned version
      const std::uint64_t oldest_pinned = *s.pinned.begin();
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
}

namespace {

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

GDS_status_t make_version(const char *func, std::span<Array *const> members, std::span<const GDS_status_t> local,
                          std::uint64_t increment, std::string new_label, const std::string *group) {
  const double started = core::now();
  GDS_status_t mine = GDS_STATUS_OK;
  for (const GDS_status_t l : local)
    if (mine == GDS_STATUS_OK) mine = l;
  Round round;
  std::vector<std::uint64_t> drops;
  core::Signature sig;
  sig.add(increment);
  GDS_TRY(agree_on_version(func, members, mine, sig.value(), increment, new_label, group, &round, &drops));
  late_write_if_due(func, members);
  const bool above = levelled(*members.front());
  if (above)
    for (Level *l : levels()) {
      if (!l->holds(*members.front())) continue;
      if (const GDS_status_t durable = l->start(func, members, round.ballot); durable != GDS_STATUS_OK) {
        abandon(members);
        return durable;
      }
    }
  kCommit.reach();
  const std::uint64_t number = state(*members.front()).current;
  commit_versions(func, members, increment, new_label, std::move(drops));
  if (above)
    for (Array *a : members)
      for (gds::versions::Level *l : levels())
        if (l->holds(*a)) l->committed(func, *a, number);
  guide(state(*members.front()).guidance, round.ballot.get(round.guidance), core::now() - started);
  return GDS_STATUS_OK;
}

void inject_late_write(std::uint64_t after) { g_late_write = after; }

bool need_version(Array &a) {
  Guidance &g = state(a).guidance;
  return ++g.calls >= g.interval;
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

}  // namespace gds::versions

using namespace gds::versions;

extern "C" {

GDS_API GDS_status_t GDS_version_inc(GDS_gds_t gds, GDS_size_t increment, const char *label, size_t label_size) try {
  GDS_ENTER();
  const Timed timed(Work::version);
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

GDS_API GDS_status_t GDS_need_version(GDS_gds_t gds, int *flag) try {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_TRY(resolve(__func__, gds, &cursor));
  GDS_REQUIRE(flag != nullptr, GDS_STATUS_NULL_ARGUMENT, "flag is NULL");
  Array *a = cursor->array;
  if (state(*a).group != nullptr) a = group_first(*state(*a).group);  // the group's guidance
  *flag = need_version(*a) ? 1 : 0;
  return GDS_STATUS_OK;
} GDS_API_CATCH

}  // extern "C"
