// Version groups (gds_group.h): arrays on one communicator versioned,
// restored, navigated and persisted as one. A group holds its members and
// the handles the application passed (navigation moves those); the members
// know their group, so that GDS_version_inc and GDS_free refuse them.
//
// GDS_group_version_inc runs GDS_version_inc's protocol over all members at
// once (make_version: one exchange, one agreement); the levels above memory
// see the members together (the cache writes one commit record). At
// GDS_group_create, members a restart left at different versions are
// brought back to the newest version every member retains.
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/array.hpp"
#include "core/collective.hpp"
#include "core/costs.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "core/util.hpp"
#include "gds_group.h"
#include "rma/state.hpp"
#include "versions/level.hpp"
#include "versions/state.hpp"

using namespace gds::core;

namespace gds::versions {

struct Group {
  std::string name;
  std::vector<std::uint64_t> handles;  // as the application passed them
  std::vector<Array *> members;        // in the same order
  bool broken = false;                 // a member was freed under it (GDS_finalize)
  GDS_restart_info_t info{};
};

namespace {

HandleTable<Group> g_groups(HandleKind::group);

GDS_status_t find_group(const char *func, GDS_group_t group, Group **out) {
  const GDS_status_t s = g_groups.find(handle_value(group), out);
  if (s != GDS_STATUS_OK) return fail(s, func, "group %s", handle_problem(s));
  if ((*out)->broken) return fail(GDS_STATUS_INVALID, func, "a member of group %s was freed", (*out)->name.c_str());
  return GDS_STATUS_OK;
}

// The cursors of the group's handles; they must all still be there.
GDS_status_t cursors_of(const char *func, const Group &g, std::vector<Cursor *> *out) {
  out->clear();
  for (const std::uint64_t h : g.handles) {
    Cursor *c = nullptr;
    if (g_arrays.find(h, &c) != GDS_STATUS_OK)
      return fail(GDS_STATUS_INVALID, func, "a handle given to GDS_group_create for group %s was freed",
                  g.name.c_str());
    out->push_back(c);
  }
  return GDS_STATUS_OK;
}

// Whether every member retains version n.
bool all_retain(const Group &g, std::uint64_t n) {
  return std::all_of(g.members.begin(), g.members.end(),
                     [&](const Array *a) { return state(*a).store->find(n) != nullptr; });
}

// The newest frozen version every member retains, if any.
std::optional<std::uint64_t> newest_in_common(const Group &g) {
  const std::deque<Version> &vs = state(*g.members.front()).store->versions();
  const auto v = std::find_if(vs.rbegin(), vs.rend(), [&](const Version &x) { return all_retain(g, x.number); });
  if (v == vs.rend()) return std::nullopt;
  return v->number;
}

// Why version n cannot be reached by every member (a status with its message), or OK.
GDS_status_t reachable(const char *func, const Group &g, std::uint64_t n) {
  for (const Array *a : g.members) {
    const Store &st = *state(*a).store;
    if (st.find(n) != nullptr) continue;
    if (st.dropped(n))
      return fail(GDS_STATUS_VERSION_DROPPED, func, "version %llu of a member of group %s was dropped by retention",
                  ull(n), g.name.c_str());
    return fail(GDS_STATUS_NO_VERSION, func, "a member of group %s has no version %llu", g.name.c_str(), ull(n));
  }
  return GDS_STATUS_OK;
}

// The handles' common version number, or GDS_STATUS_INVALID if they moved apart.
GDS_status_t common_number(const char *func, const Group &g, const std::vector<Cursor *> &cs, std::uint64_t *n,
                           bool *current) {
  *n = number(*cs.front());
  *current = cs.front()->at_current;
  for (const Cursor *c : cs)
    if (number(*c) != *n || c->at_current != *current)
      return fail(GDS_STATUS_INVALID, func,
                  "the handles of group %s point at different versions (one was moved alone); move them together, "
                  "for example with GDS_group_move_to_newest",
                  g.name.c_str());
  return GDS_STATUS_OK;
}

// The navigation calls' start: the group, its handles' cursors and the version they share.
struct Handles {
  Group *g = nullptr;
  std::vector<Cursor *> cs;
  std::uint64_t n = 0;
  bool current = false;
};
GDS_status_t handles_of(const char *func, GDS_group_t group, Handles *h) {
  GDS_TRY(find_group(func, group, &h->g));
  GDS_TRY(cursors_of(func, *h->g, &h->cs));
  return common_number(func, *h->g, h->cs, &h->n, &h->current);
}

void point_at(const std::vector<Cursor *> &cs, std::uint64_t n) {
  for (Cursor *c : cs) {
    c->at_current = false;
    c->version = n;
  }
}

// Local checks of GDS_group_create on this process; the members resolved into *members.
GDS_status_t check_create(const char *func, const char *name, int count, const GDS_gds_t arrays[], GDS_group_t *group,
                          std::vector<Array *> *members) {
  GDS_CHECK(group != nullptr, GDS_STATUS_NULL_ARGUMENT, "group is NULL");
  GDS_CHECK(name != nullptr, GDS_STATUS_NULL_ARGUMENT, "name is NULL");
  GDS_CHECK(valid_name(name), GDS_STATUS_INVALID,
            "name=\"%s\" must have 1-64 letters, digits, '-', '_' or '.' (not first)", name);
  for (int i = 0; i < count; ++i) {
    Cursor *c = nullptr;
    GDS_TRY(resolve_quietly(func, arrays[i], &c, "arrays[i]"));
    members->push_back(c->array);
  }
  const Array &first = *members->front();
  for (int i = 0; i < count; ++i) {
    const Array &a = *(*members)[static_cast<std::size_t>(i)];
    for (int j = 0; j < i; ++j)
      GDS_CHECK((*members)[static_cast<std::size_t>(j)] != &a, GDS_STATUS_INVALID,
                "arrays[%d] and arrays[%d] are the same array", j, i);
    GDS_CHECK(state(a).group == nullptr, GDS_STATUS_INVALID, "arrays[%d] is in group %s already", i,
              state(a).group == nullptr ? "" : state(a).group->name.c_str());
    int cmp = MPI_UNEQUAL;
    GDS_MPI(MPI_Comm_compare(first.communicator(), a.communicator(), &cmp));
    GDS_CHECK(cmp == MPI_IDENT || cmp == MPI_CONGRUENT, GDS_STATUS_INVALID,
              "arrays[%d] is on another communicator than arrays[0]; a group's members share their processes", i);
    for (const gds::versions::Level *l : levels()) {
      GDS_CHECK(l->holds(first) == l->holds(a), GDS_STATUS_INVALID,
                "arrays[0] and arrays[%d] differ in persistence: the %s holds one of them", i, l->name());
      const std::string why = l->differs(first, a);
      GDS_CHECK(why.empty(), GDS_STATUS_INVALID, "arrays[0] and arrays[%d] differ at the %s: %s", i, l->name(),
                why.c_str());
    }
  }
  return GDS_STATUS_OK;
}

// Members a restart left at different versions come back to the newest
// version all retain, with the highest current number. Identical on every
// process (versions are), so nothing needs agreeing but the restores.
GDS_status_t reconcile(const char *func, Group &g) {
  std::uint64_t top = 0;
  bool apart = false, restarted = false;
  for (const Array *a : g.members) {
    top = std::max(top, state(*a).current);
    apart = apart || state(*a).current != state(*g.members.front()).current;
    restarted = restarted || state(*a).restarted;
  }
  if (!apart) return GDS_STATUS_OK;
  if (!restarted)
    return fail(GDS_STATUS_INVALID, func,
                "the arrays are at different versions; a group's members start at the same version number");
  const std::optional<std::uint64_t> common = newest_in_common(g);
  if (!common) {
    // A member with nothing persisted started afresh: so does the group (its
    // newest complete version does not exist); numbers go on together.
    const bool fresh = std::any_of(g.members.begin(), g.members.end(),
                                   [](const Array *a) { return state(*a).store->versions().empty(); });
    if (!fresh)
      return fail(GDS_STATUS_UNRECOVERABLE, func,
                  "the members of group %s restarted at different versions and retain none in common", g.name.c_str());
    for (Array *a : g.members) state(*a).current = top;
    g.info.restarted = -1;  // no restart after all (reset by the caller)
    if (g.members.front()->rank == 0)
      log(core::Level::warning, func,
          "group %s: a member has no persisted version; the group starts afresh (at version %llu)", g.name.c_str(),
          ull(top));
    return GDS_STATUS_OK;
  }
  const std::uint64_t target = *common;
  for (Array *a : g.members) {
    ArrayState &s = state(*a);
    if (s.current == top && !s.store->versions().empty() && s.store->versions().back().number == target) continue;
    GDS_TRY(restore_version(func, *a, target, GDS_STATUS_OK));
    s.current = top;  // numbers go on together
  }
  g.info.version = target;
  if (g.members.front()->rank == 0)
    log(core::Level::warning, func,
        "group %s: its members restarted at different versions; all are back at version %llu, the newest they all "
        "retain (current version %llu)",
        g.name.c_str(), ull(target), ull(top));
  return GDS_STATUS_OK;
}

}  // namespace

Array *group_first(const Group &g) { return g.members.front(); }

void leave_group(Array &a) {
  Group *g = state(a).group;
  if (g == nullptr) return;
  for (Array *&m : g->members)
    if (m == &a) m = nullptr;
  g->broken = true;
  state(a).group = nullptr;
}

void clear_groups() { g_groups = HandleTable<Group>(HandleKind::group); }

}  // namespace gds::versions

using namespace gds::versions;

extern "C" {

GDS_API GDS_status_t GDS_group_create(const char *name, int count, const GDS_gds_t arrays[], GDS_group_t *group) try {
  GDS_ENTER();
  // Without a first array there is no communicator to agree over: refused here (as GDS_free of no array).
  GDS_REQUIRE(count >= 1 && count <= GDS_GROUP_MAX_MEMBERS, GDS_STATUS_INVALID, "count=%d is not 1 to %d", count,
              GDS_GROUP_MAX_MEMBERS);
  GDS_REQUIRE(arrays != nullptr, GDS_STATUS_NULL_ARGUMENT, "arrays is NULL");
  Cursor *first = nullptr;
  GDS_status_t s = GDS_STATUS_OK;
  GDS_TRY(resolve_collective(__func__, arrays[0], &first, &s, "arrays[0]"));
  MPI_Comm comm = first->array->communicator();
  std::vector<Array *> members;
  if (s == GDS_STATUS_OK) s = check_create(__func__, name, count, arrays, group, &members);
  Signature sig;
  sig.add(count);
  if (name != nullptr) sig.add(name, std::strlen(name));
  GDS_TRY(agree(__func__, comm, s, sig.value()));
  auto g = std::make_unique<Group>();
  g->name = name;
  g->members = members;
  for (int i = 0; i < count; ++i) g->handles.push_back(handle_value(arrays[i]));
  // Members the program did not name take the group's name (and restart under it).
  if (const MemberNaming naming = member_naming()) GDS_TRY(naming(__func__, g->name, members));
  g->info.version = state(*members.front()).current;
  const std::uint64_t version_before = g->info.version;
  GDS_TRY(reconcile(__func__, *g));
  const bool afresh = g->info.restarted == -1;
  g->info.restarted = 0;
  const bool reconciled = !afresh && g->info.version != version_before;
  for (gds::versions::Level *l : levels())
    if (l->holds(*members.front())) GDS_TRY(l->open_group(__func__, g->name, members));
  // The restart info: the members', added up (their own stay as they were).
  for (Array *a : members)
    for (const gds::versions::Level *l : levels()) {
      GDS_restart_info_t mi{};
      if (!l->holds(*a) || !l->restart_info(*a, &mi)) continue;
      if (mi.restarted) {
        g->info.restarted = 1;
        g->info.level = g->info.level == GDS_LEVEL_NONE ? mi.level : std::max(g->info.level, mi.level);
        if (!reconciled) g->info.version = mi.version;
      }
      g->info.versions += mi.versions;
      g->info.rebuilt_processes += mi.rebuilt_processes;
      g->info.rebuilt_files += mi.rebuilt_files;
      break;
    }
  if (afresh) g->info = GDS_restart_info_t{};
  if (!g->info.restarted) g->info.version = 0;
  Group *raw = g.get();
  *group = to_handle<GDS_group_t>(g_groups.insert(std::move(g)));
  for (Array *a : members) state(*a).group = raw;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_group_free(GDS_group_t *group) try {
  GDS_ENTER();
  GDS_REQUIRE(group != nullptr, GDS_STATUS_NULL_ARGUMENT, "group is NULL");
  Group *g = nullptr;
  const GDS_status_t found = g_groups.find(handle_value(*group), &g);
  GDS_REQUIRE(found == GDS_STATUS_OK, found, "*group %s", handle_problem(found));
  if (!g->broken) {
    GDS_TRY(agree(__func__, g->members.front()->communicator(), GDS_STATUS_OK));
    for (Array *a : g->members) state(*a).group = nullptr;
  }
  g_groups.erase(handle_value(*group));
  *group = GDS_GROUP_NULL;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_group_version_inc(GDS_group_t group, GDS_size_t increment, const char *label,
                                           size_t label_size) try {
  GDS_ENTER();
  const Timed timed(Work::version);
  Group *g = nullptr;
  GDS_TRY(find_group(__func__, group, &g));
  std::vector<GDS_status_t> local(g->members.size(), GDS_STATUS_OK);
  for (std::size_t i = 0; i < g->members.size(); ++i) local[i] = deliver_on_entry(__func__, g->members[i]);
  Array &first = *g->members.front();
  const std::uint64_t current = state(first).current;
  std::string new_label;
  if (local[0] == GDS_STATUS_OK)
    local[0] = check_inc_args(__func__, current, increment, label, label_size, &new_label);
  for (std::size_t i = 0; i < g->members.size(); ++i) {
    const std::size_t open = gds::rma::state(*g->members[i]).accesses.size();
    if (local[i] == GDS_STATUS_OK && open != 0)
      local[i] = fail(GDS_STATUS_ACCESS_CONFLICT, __func__,
                      "%zu region(s) of a member of group %s are open by GDS_access; call GDS_release first", open,
                      g->name.c_str());
  }
  const GDS_status_t made = make_version(__func__, g->members, local, increment, std::move(new_label), &g->name);
  if (made != GDS_STATUS_OK)
    return checked(__func__, &first, made,
                   Detected{nullptr, nullptr, static_cast<std::int64_t>(current),
                            made == GDS_STATUS_NOMEM ? state(first).store->failed_bytes() : 0});
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_group_need_version(GDS_group_t group, int *flag) try {
  GDS_ENTER();
  Group *g = nullptr;
  GDS_TRY(find_group(__func__, group, &g));
  GDS_REQUIRE(flag != nullptr, GDS_STATUS_NULL_ARGUMENT, "flag is NULL");
  *flag = need_version(*g->members.front()) ? 1 : 0;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_group_version_restore(GDS_group_t group, GDS_size_t version) try {
  GDS_ENTER();
  const Timed timed(Work::restore);
  Group *g = nullptr;
  GDS_TRY(find_group(__func__, group, &g));
  GDS_status_t s = GDS_STATUS_OK;
  for (Array *a : g->members)
    if (const GDS_status_t d = deliver_on_entry(__func__, a); s == GDS_STATUS_OK) s = d;
  if (s == GDS_STATUS_OK) s = reachable(__func__, *g, version);
  return restore_versions(__func__, g->members, version, s);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_group_version_restore_newest(GDS_group_t group, GDS_size_t *version) try {
  GDS_ENTER();
  const Timed timed(Work::restore);
  Group *g = nullptr;
  GDS_TRY(find_group(__func__, group, &g));
  GDS_status_t s = GDS_STATUS_OK;
  for (Array *a : g->members)
    if (const GDS_status_t d = deliver_on_entry(__func__, a); s == GDS_STATUS_OK) s = d;
  // Versions are dropped alike on every process: each finds the same one.
  const std::optional<std::uint64_t> newest = newest_in_common(*g);
  if (s == GDS_STATUS_OK && !newest)
    s = fail(GDS_STATUS_NO_VERSION, __func__,
             "group %s has no version every member retains yet (GDS_group_version_inc makes one)", g->name.c_str());
  GDS_TRY(restore_versions(__func__, g->members, newest.value_or(0), s));
  if (version != nullptr) *version = *newest;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_group_get_version_label(GDS_group_t group, char **label, size_t *label_size) try {
  GDS_ENTER();
  Handles h;
  GDS_TRY(handles_of(__func__, group, &h));
  GDS_REQUIRE(label != nullptr, GDS_STATUS_NULL_ARGUMENT, "label is NULL");
  GDS_REQUIRE(label_size != nullptr, GDS_STATUS_NULL_ARGUMENT, "label_size is NULL");
  const std::string *text = nullptr;
  for (const Cursor *c : h.cs) {
    const gds::versions::ArrayState &vs = state(*c->array);
    const Version *v = h.current ? nullptr : vs.store->find(h.n);
    GDS_REQUIRE(h.current || v != nullptr, GDS_STATUS_VERSION_DROPPED,
                "version %llu of a member of group %s was dropped by retention", ull(h.n), h.g->name.c_str());
    const std::string &mine = h.current ? vs.label : v->label;
    if (text == nullptr) text = &mine;
    GDS_REQUIRE(mine == *text, GDS_STATUS_INVALID,
                "the members of group %s have different labels at version %llu (they were versioned apart before "
                "the group was made); ask each member (GDS_get_version_label)",
                h.g->name.c_str(), ull(h.n));
  }
  *label = const_cast<char *>(text->c_str());
  *label_size = text->size();
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_group_version_verify(GDS_group_t group, GDS_size_t version) try {
  GDS_ENTER();
  Group *g = nullptr;
  GDS_TRY(find_group(__func__, group, &g));
  GDS_status_t result = GDS_STATUS_OK;
  for (const std::uint64_t h : g->handles) {  // each call agrees: every process sees the same statuses
    const GDS_status_t s = GDS_version_verify(to_handle<GDS_gds_t>(h), version, nullptr, nullptr);
    if (s == GDS_STATUS_CORRUPT) result = s;  // and the next members are checked too
    else if (s != GDS_STATUS_OK) return s;
  }
  return result;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_group_get_version_number(GDS_group_t group, GDS_size_t *version) try {
  GDS_ENTER();
  Handles h;
  GDS_TRY(handles_of(__func__, group, &h));
  GDS_REQUIRE(version != nullptr, GDS_STATUS_NULL_ARGUMENT, "version is NULL");
  *version = h.n;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_group_move_to_newest(GDS_group_t group) try {
  GDS_ENTER();
  Group *g = nullptr;
  GDS_TRY(find_group(__func__, group, &g));
  std::vector<Cursor *> cs;
  GDS_TRY(cursors_of(__func__, *g, &cs));
  for (Cursor *c : cs) c->at_current = true;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_group_move_to_prev(GDS_group_t group) try {
  GDS_ENTER();
  Handles h;
  GDS_TRY(handles_of(__func__, group, &h));
  const std::deque<Version> &vs = state(*h.g->members.front()).store->versions();
  for (auto v = vs.rbegin(); v != vs.rend(); ++v)
    if (v->number < h.n && all_retain(*h.g, v->number)) {
      point_at(h.cs, v->number);
      return GDS_STATUS_OK;
    }
  return fail(GDS_STATUS_NO_VERSION, __func__, "no version older than %llu is retained by every member of group %s",
              ull(h.n), h.g->name.c_str());
} GDS_API_CATCH

GDS_API GDS_status_t GDS_group_move_to_next(GDS_group_t group) try {
  GDS_ENTER();
  Handles h;
  GDS_TRY(handles_of(__func__, group, &h));
  GDS_REQUIRE(!h.current, GDS_STATUS_NO_VERSION, "the handles of group %s are at the current version already",
              h.g->name.c_str());
  for (const Version &v : state(*h.g->members.front()).store->versions())
    if (v.number > h.n && all_retain(*h.g, v.number)) {
      point_at(h.cs, v.number);
      return GDS_STATUS_OK;
    }
  for (Cursor *c : h.cs) c->at_current = true;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_group_version_dec(GDS_group_t group, GDS_size_t dec) try {
  GDS_ENTER();
  Handles h;
  GDS_TRY(handles_of(__func__, group, &h));
  if (dec == 0) return GDS_STATUS_OK;
  GDS_REQUIRE(dec <= h.n, GDS_STATUS_NO_VERSION, "dec=%llu goes below version 0 (the handles are at %llu)", ull(dec),
              ull(h.n));
  GDS_TRY(reachable(__func__, *h.g, h.n - dec));
  point_at(h.cs, h.n - dec);
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_group_get_restart_info(GDS_group_t group, GDS_restart_info_t *info) try {
  GDS_ENTER();
  Group *g = nullptr;
  GDS_TRY(find_group(__func__, group, &g));
  GDS_REQUIRE(info != nullptr, GDS_STATUS_NULL_ARGUMENT, "info is NULL");
  *info = g->info;
  return GDS_STATUS_OK;
} GDS_API_CATCH

}  // extern "C"
