// A version group's members named after it (GDS_group_create): a member the
// program did not name (GDS_NAME_KEY) becomes <group>.<i>, i its place in
// the group, in the cache, the prefix, GDS_restart_query and gds-index,
// instead of array<k> (its creation order), which says nothing of whose
// state it is.
//
// The member was opened and restarted as array<k> inside GDS_alloc or
// GDS_create, before it knew its group. If that found nothing and the
// member has no version yet, it is closed here, the empty directories it
// made go, and it is opened and restarted again as <group>.<i> (a restart of
// the job finds it there, and fills its memory here rather than at its
// creation). A member that did restart as array<k> (files of a GDS that did
// not name members so), made versions alone, or whose new name would be
// longer than a name may be or is another live array's keeps array<k>.
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/util.hpp"
#include "persist/cache.hpp"
#include "persist/levels.hpp"
#include "persist/prefix_level.hpp"
#include "persist/state.hpp"
#include "versions/state.hpp"

namespace gds::persist {

namespace {

using core::Array;

// Whether this process lets member `a` take `name`.
bool may_take(Array &a, const std::string &name) {
  const ArrayState &s = state(a);
  const versions::ArrayState &vs = versions::state(a);
  if (!s.default_name || s.info.restarted || vs.current != 0 || !vs.store->versions().empty()) return false;
  if (!core::valid_name(name)) return false;
  for (Array *other : core::arrays_in_creation_order())
    if (other != &a && state(*other).name == name) return false;
  return true;
}

std::string parent_of(const std::string &path) { return path.substr(0, path.find_last_of('/')); }

// Collective: the member's levels closed (nothing is in flight: it has no
// version), the directories opened under its old name removed if empty,
// then opened and restarted under `name`.
GDS_status_t rename_member(const char *func, Array &a, const std::string &name) {
  ArrayState &s = state(a);
  if (s.cacher) {
    if (s.cacher->scheme) s.cacher->scheme->release();
    ::rmdir(s.cacher->dir.c_str());  // r<rank>, then the array's (by the last process of the node to leave it)
    ::rmdir(parent_of(s.cacher->dir).c_str());
    s.cacher.reset();
  }
  if (s.flusher) {
    prune_wait(a);
    // Every process made it before open_prefix's agreement; only rank 0 removes.
    if (a.rank == 0) ::rmdir(s.flusher->dir.c_str());
    s.flusher.reset();
  }
  if (a.rank == 0 && core::debug_level() >= 2)
    core::log(core::Level::info, func, "array %s is named %s after its group", s.name.c_str(), name.c_str());
  s.name = name;
  s.default_name = false;
  if (s.persistent()) GDS_TRY(open_cache(func, a));
  if (s.flushing()) GDS_TRY(open_prefix(func, a));
  return s.restart ? restart(func, a) : GDS_STATUS_OK;
}

GDS_status_t name_members(const char *func, const std::string &group, std::span<Array *const> members) {
  // Whether a member was named at creation is the same on every process
  // (its info was agreed on): a group of named members costs no message.
  if (std::none_of(members.begin(), members.end(), [](Array *a) { return state(*a).default_name; }))
    return GDS_STATUS_OK;
  // Which members keep their names: agreed, since each process judges its
  // own live arrays (sub-communicators differ) and all must rename alike.
  std::vector<std::uint64_t> keep(members.size());
  for (std::size_t i = 0; i < members.size(); ++i)
    keep[i] = may_take(*members[i], group + "." + std::to_string(i)) ? 0 : 1;
  GDS_TRY(core::agree(func, members.front()->communicator(), GDS_STATUS_OK, keep));
  for (std::size_t i = 0; i < members.size(); ++i)
    if (keep[i] == 0) GDS_TRY(rename_member(func, *members[i], group + "." + std::to_string(i)));
  return GDS_STATUS_OK;
}

}  // namespace

void register_member_naming() { versions::set_member_naming(&name_members); }

}  // namespace gds::persist
