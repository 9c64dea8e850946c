#include "errors/registry.hpp"

#include <dlfcn.h>

#include <algorithm>

#include <cstdio>
#include <cstring>

#include "core/array.hpp"
#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "errors/keys.hpp"

using namespace gds::core;

namespace gds::errors {

std::string describe(const Handler &h) {
  std::string s(1, '#');
  s += std::to_string(h.number);
  Dl_info info{};
  if (dladdr(h.fn.address(), &info) != 0 && info.dli_sname != nullptr && info.dli_saddr == h.fn.address()) {
    s.append(" (").append(info.dli_sname).append(")");
  } else {
    char at[32];
    std::snprintf(at, sizeof at, " (at %p)", h.fn.address());
    s += at;
  }
  return s;
}

namespace {

std::string index_key(GDS_error_attr_key_t key, const std::vector<std::byte> &canonical_value) {
  std::string k(reinterpret_cast<const char *>(&key), sizeof key);
  k.append(reinterpret_cast<const char *>(canonical_value.data()), canonical_value.size());
  return k;
}

}  // namespace

GDS_status_t HandlerSet::add(const char *func, const char *where, Predicate pred, HandlerFn fn) {
  for (const auto &h : handlers_)
    GDS_CHECK(!(h->pred == pred), GDS_STATUS_AMBIGUOUS_HANDLER,
              "pred equals the predicate of handler %s of %s: no error could tell them apart",
              describe(*h).c_str(), where);
  auto h = std::make_unique<Handler>();
  h->number = handlers_.size() + 1;
  h->rank = pred.rank();
  h->pred = std::move(pred);
  h->fn = std::move(fn);
  const std::size_t i = handlers_.size();
  const Term *anchor = nullptr;
  for (const Term &t : h->pred.terms)
    if (t.expr == GDS_EMEXP_VALUE) {
      anchor = &t;
      break;
    }
  if (anchor != nullptr) by_value_[index_key(anchor->key, anchor->values)].push_back(i);
  else unindexed_.push_back(i);
  handlers_.push_back(std::move(h));
  return GDS_STATUS_OK;
}

HandlerSet::Outcome HandlerSet::match(const Descriptor &d, const Handler **best, std::string *tied) const {
  *best = nullptr;
  std::vector<const Handler *> ties;
  const auto consider = [&](std::size_t i) {
    const Handler &h = *handlers_[i];
    if (*best != nullptr && h.rank < (*best)->rank) return;
    if (!h.pred.holds(d)) return;
    if (*best == nullptr || (*best)->rank < h.rank) {
      *best = &h;
      ties.clear();
    } else {
      ties.push_back(&h);
    }
  };
  for (std::size_t i : unindexed_) consider(i);
  if (!by_value_.empty())
    for (const Attribute &a : d.attrs) {
      const KeyInfo *info = find_key(a.key);
      if (info == nullptr) continue;
      const auto it = by_value_.find(index_key(a.key, canonical(info->type, a.value.data(), a.value.size())));
      if (it != by_value_.end())
        for (std::size_t i : it->second) consider(i);
    }
  if (*best == nullptr) return Outcome::none;
  if (ties.empty()) return Outcome::one;
  ties.insert(ties.begin(), *best);
  std::sort(ties.begin(), ties.end(), [](const Handler *a, const Handler *b) { return a->number < b->number; });
  tied->clear();
  for (std::size_t i = 0; i < ties.size(); ++i) {
    if (i > 0) *tied += i + 1 == ties.size() ? " and " : ", ";
    *tied += describe(*ties[i]);
  }
  char counts[96];
  std::snprintf(counts, sizeof counts, " (each %zu term(s), %zu VALUE, %zu RANGE)", (*best)->rank.terms,
                (*best)->rank.value_terms, (*best)->rank.range_terms);
  *tied += counts;
  return Outcome::tie;
}

MPI_Comm Scope::comm() const { return array != nullptr ? array->communicator() : g_rt.world; }

GDS_gds_t Scope::handle() const { return array != nullptr ? to_handle<GDS_gds_t>(array->primary) : GDS_ROOT; }

std::string Scope::name() const {
  return array != nullptr ? "array #" + std::to_string(array->id) : std::string("GDS_ROOT");
}

namespace {
std::unique_ptr<Scope> g_root;
}

Scope &root_scope() {
  if (!g_root) g_root = std::make_unique<Scope>();
  return *g_root;
}

void reset_root_scope() { g_root.reset(); }

GDS_status_t resolve_scope(const char *func, GDS_gds_t gds, Scope **scope, const char *argname) {
  if (is_root(gds)) {
    *scope = &root_scope();
    return GDS_STATUS_OK;
  }
  Cursor *c = nullptr;
  GDS_TRY(resolve_quietly(func, gds, &c, argname));
  *scope = &scope_of(c->array);
  return GDS_STATUS_OK;
}

}  // namespace gds::errors

using namespace gds::errors;

namespace {

GDS_status_t register_handler(const char *func, GDS_gds_t gds, GDS_error_pred_t pred, HandlerFn fn, bool global) {
  Scope *s = nullptr;
  GDS_TRY(resolve_scope(func, gds, &s));
  // Arguments are checked, then (global) agreed on with the predicate.
  Predicate *p = nullptr;
  GDS_status_t status = find_predicate(func, pred, &p);
  if (status == GDS_STATUS_OK && fn.address() == nullptr)
    status = fail(GDS_STATUS_NULL_ARGUMENT, func, "recovery_func is NULL");
  HandlerSet &set = global ? s->global_handlers : s->local_handlers;
  if (global) GDS_TRY(agree(func, s->comm(), status, status == GDS_STATUS_OK ? p->signature() : 0));
  else GDS_TRY(status);
  return set.add(func, s->name().c_str(), *p, std::move(fn));
}

GDS_status_t register_check(const char *func, GDS_gds_t gds, GDS_priority_t priority, CheckFn fn, bool global) {
  Scope *s = nullptr;
  GDS_TRY(resolve_scope(func, gds, &s));
  GDS_status_t status = GDS_STATUS_OK;
  if (fn.address() == nullptr) status = fail(GDS_STATUS_NULL_ARGUMENT, func, "check_func is NULL");
  else if (priority < GDS_PRIORITY_HIGH || priority > GDS_PRIORITY_LOW)
    status = fail(GDS_STATUS_INVALID, func, "check_priority=%d is not a GDS_priority_t", static_cast<int>(priority));
  std::vector<Check> &checks = global ? s->global_checks : s->local_checks;
  if (global) GDS_TRY(agree(func, s->comm(), status, static_cast<std::uint64_t>(priority)));
  else GDS_TRY(status);
  Check c;
  c.number = checks.size() + 1;
  c.priority = priority;
  c.fn = std::move(fn);
  checks.push_back(std::move(c));
  if (s->array != nullptr) ++s->array->checks;
  return GDS_STATUS_OK;
}

}  // namespace

// Registration takes the context over at once: it is freed with the
// registration, or now if the registration fails.
extern "C" {

GDS_API GDS_status_t GDS_register_local_error_handler(GDS_gds_t gds, GDS_error_pred_t pred,
                                                      GDS_recovery_func_t recovery_func) try {
  GDS_ENTER();
  return register_handler(__func__, gds, pred, HandlerFn(recovery_func, nullptr, nullptr, nullptr), false);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_register_global_error_handler(GDS_gds_t gds, GDS_error_pred_t pred,
                                                       GDS_recovery_func_t recovery_func) try {
  GDS_ENTER();
  return register_handler(__func__, gds, pred, HandlerFn(recovery_func, nullptr, nullptr, nullptr), true);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_register_local_error_handler_with_context(GDS_gds_t gds, GDS_error_pred_t pred,
                                                                   GDS_recovery_context_func_t recovery_func,
                                                                   void *context,
                                                                   GDS_context_free_func_t free_context) try {
  HandlerFn fn(nullptr, recovery_func, context, free_context);
  GDS_ENTER();
  return register_handler(__func__, gds, pred, std::move(fn), false);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_register_global_error_handler_with_context(GDS_gds_t gds, GDS_error_pred_t pred,
                                                                    GDS_recovery_context_func_t recovery_func,
                                                                    void *context,
                                                                    GDS_context_free_func_t free_context) try {
  HandlerFn fn(nullptr, recovery_func, context, free_context);
  GDS_ENTER();
  return register_handler(__func__, gds, pred, std::move(fn), true);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_register_local_error_check(GDS_gds_t gds, GDS_check_func_t check_func,
                                                    GDS_priority_t check_priority) try {
  GDS_ENTER();
  return register_check(__func__, gds, check_priority, CheckFn(check_func, nullptr, nullptr, nullptr), false);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_register_global_error_check(GDS_gds_t gds, GDS_check_func_t check_func,
                                                     GDS_priority_t check_priority) try {
  GDS_ENTER();
  return register_check(__func__, gds, check_priority, CheckFn(check_func, nullptr, nullptr, nullptr), true);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_register_local_error_check_with_context(GDS_gds_t gds, GDS_check_context_func_t check_func,
                                                                 GDS_priority_t check_priority, void *context,
                                                                 GDS_context_free_func_t free_context) try {
  CheckFn fn(nullptr, check_func, context, free_context);
  GDS_ENTER();
  return register_check(__func__, gds, check_priority, std::move(fn), false);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_register_global_error_check_with_context(GDS_gds_t gds,
                                                                  GDS_check_context_func_t check_func,
                                                                  GDS_priority_t check_priority, void *context,
                                                                  GDS_context_free_func_t free_context) try {
  CheckFn fn(nullptr, check_func, context, free_context);
  GDS_ENTER();
  return register_check(__func__, gds, check_priority, std::move(fn), true);
} GDS_API_CATCH

}  // extern "C"
