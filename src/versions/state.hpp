// The versions module's state of an array.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <span>
#include <string>

#include "core/array.hpp"
#include "core/phase.hpp"
#include "versions/level.hpp"
#include "versions/store.hpp"
#include "versions/tracking.hpp"

namespace gds::versions {

struct Group;  // group.cpp: a version group

// The interval guidance of an array or group (GDS_need_version): what this
// process measured, and the interval its last version agreed on.
struct Guidance {
  std::uint64_t calls = 0;     // GDS_need_version calls since the last version
  double since = 0;            // when the last version returned (core::now()); 0: none yet
  double cost = 0;             // this process's seconds inside the last version
  std::uint64_t interval = 1;  // calls between versions, agreed at the last version (1 until measured)
};

struct ArrayState final : core::ArrayState {
  static constexpr core::Layer kLayer = 1;  // its place above core (core/module.hpp)
  unsigned block_shift = 14;     // log2 of the block size
  Retention retention;
  std::unique_ptr<Store> store;  // from attach on
  std::uint64_t current = 0;     // the current version's number
  std::string label;             // and label
  std::string newest_holds;      // the label describing the newest version's content (given when it was made)
  Group *group = nullptr;        // the version group the array is in, if any
  bool restarted = false;        // its versions were replayed from a level above memory
  bool warned_unchecked = false; // retention dropped the last version the checks vouched for (warned once)
  std::multiset<std::uint64_t> pinned;  // versions a containment domain needs: retention keeps them
  Guidance guidance;             // the array's, or (first member) its group's
  // (First member) a process wrote into another's blocks before the last
  // version: the next one exchanges first rather than guess that none did.
  bool exchange_first = false;
  Tracking tracking;             // GDS_create: how its changes are found (versions/tracking.hpp)
};

// Pins a retained version (a containment domain's point in time): retention
// drops no version from the oldest pinned on while it is pinned. Pins count;
// every process of the array pins alike (the CD is collective).
void pin(core::Array &a, std::uint64_t number);
void unpin(core::Array &a, std::uint64_t number);

inline ArrayState &state(core::Array &a) { return a.state<ArrayState>(); }
inline const ArrayState &state(const core::Array &a) { return a.state<ArrayState>(); }

// The version number a handle is at.
inline std::uint64_t number(const core::Cursor &c) { return c.at_current ? state(*c.array).current : c.version; }

// The default byte budget (no GDS_MAX_VERSION_BYTES): each array's versions
// may hold kAutoFactor times its part on this process, at least kAutoFloor
// bytes, and all arrays' versions on a process together at most
// 1 / kAutoHostDivisor of the host's memory divided among the processes sharing it.
inline constexpr std::uint64_t kAutoBudget = UINT64_MAX;
inline constexpr std::uint64_t kAutoFactor = 4;
inline constexpr std::uint64_t kAutoFloor = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kAutoHostDivisor = 2;  // half the host

// Settings of the versions module, read at GDS_init (info keys override them per array).
struct Settings {
  std::uint64_t block_size = 4096;   // GDS_VERSION_BLOCK_SIZE: a page, the unit programs change
  std::uint64_t max_versions = 0;    // GDS_MAX_VERSIONS; 0 = no limit
  std::uint64_t max_bytes = kAutoBudget;  // GDS_MAX_VERSION_BYTES; 0 = no limit, kAutoBudget: the default budget
  WriteTracking write_tracking = WriteTracking::automatic;  // GDS_WRITE_TRACKING: auto, kernel or compare
  bool prefault = false;             // GDS_VERSION_PREFAULT: room for the next version faulted in ahead
  double overhead = 0.05;            // GDS_VERSION_OVERHEAD: the fraction of run time versions may take
  double mtbf = 0;                   // GDS_MTBF: mean seconds between failures (0: none; Daly's interval if set)
  // SCR's criteria of SCR_Need_checkpoint, any of which makes a version due:
  std::uint64_t every_calls = 0;     // SCR_CHECKPOINT_INTERVAL: every n-th call (0: not a criterion)
  double every_seconds = 0;          // SCR_CHECKPOINT_SECONDS: once this long since the last version (0: not)
};
extern Settings g_settings;

// Whether a version block size is acceptable: a power of two, 64 B to 64 MiB.
inline bool valid_block_size(std::uint64_t b) { return b >= 64 && b <= (std::uint64_t{1} << 26) && (b & (b - 1)) == 0; }

// The phases of GDS_version_inc (version_inc.cpp), each ending agreed, and
// the kill point after the last agreement.
inline constexpr core::Phase kSettle{"settle", "every write is complete and global errors are delivered"};
inline constexpr core::Phase kExchange{"exchange", "every process knows which of its blocks changed"};
inline constexpr core::Phase kReserve{"reserve", "every process has room for its changed blocks"};
inline constexpr core::Phase kFreeze{"freeze", "every process copied its changed blocks; no version yet"};
inline constexpr core::Phase kPersist{"persist", "the levels above memory have the version (or it is abandoned)"};
inline constexpr core::Point kCommit{"commit", "every level has the version; memory commits it next"};
// GDS_FAULT_VERSION_PHASE numbers them from 1 (gds_error.h); commit cannot fail.
inline constexpr const core::Phase *kFailablePhases[] = {&kSettle, &kExchange, &kReserve, &kFreeze, &kPersist};

// Fault injection (GDS_inject_fault, GDS_FAULT_LATE_WRITE): the `after`-th
// next version made on this process overwrites the members' memory between
// its agreement and the levels above memory; 0 cancels.
void inject_late_write(std::uint64_t after);

// The phases of GDS_version_inc for `members` (one array, or a version
// group's members, on one communicator and at one number; `local`: each
// one's status so far; `group`: the group's name). All members make the
// version or none does; the caller raises a failure. Collective.
GDS_status_t make_version(const char *func, std::span<core::Array *const> members,
                          std::span<const GDS_status_t> local, std::uint64_t increment, std::string label,
                          const std::string *group);
// The interval guidance's answer for the array or group whose first member
// is `a` (GDS_need_version): counts the call. Local.
bool need_version(core::Array &a);
// GDS_version_inc's argument checks; *new_label gets the label.
GDS_status_t check_inc_args(const char *func, std::uint64_t current, std::uint64_t increment, const char *label,
                            std::size_t label_size, std::string *new_label);
// GDS_version_restore of `members` (one array, or a version group's
// members) to `version` (`local`: this process's status so far), all or
// none. Collective.
GDS_status_t restore_versions(const char *func, std::span<core::Array *const> members, std::uint64_t version,
                              GDS_status_t local);
GDS_status_t restore_version(const char *func, core::Array &a, std::uint64_t version, GDS_status_t local);
// The version the members' stores froze and have not committed, as the
// levels see it (version_inc.cpp).
Frozen frozen_version(core::Array &a, std::uint64_t number, std::uint64_t next, const std::string &label,
                      const std::string &next_label);
// Commits the members' frozen versions (now numbered their current number,
// which advances by `increment`) and drops drop[m] of member m's oldest
// versions (fewer where one is pinned). Local: every process does alike.
void commit_versions(const char *func, std::span<core::Array *const> members, std::uint64_t increment,
                     const std::string &label, std::vector<std::uint64_t> drop);
// The label describing retained version `number`'s content: its successor's
// (the current version's if it is the newest).
const std::string &content_label(const core::Array &a, std::uint64_t number);
// The first member of a version group (whose guidance is the group's).
core::Array *group_first(const Group &g);
// A version group's members are freed with it (group.cpp): the array's
// group, if any, forgets it (GDS_finalize frees arrays before groups).
void leave_group(core::Array &a);
// GDS_finalize: every group goes.
void clear_groups();

// The versions module (src/lib/modules.cpp lists it).
core::Module &module();

}  // namespace gds::versions
