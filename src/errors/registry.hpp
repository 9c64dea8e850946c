// Where handlers and checks are registered (an array, or GDS_ROOT), the
// matcher that picks a handler for an error, and the queues of errors
// waiting for delivery.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/array.hpp"
#include "errors/descriptor.hpp"
#include "errors/predicate.hpp"
#include "gds_error.h"

namespace gds::errors {

// A user function (handler or check), plain or with a context; the context
// is freed with the registration.
template <class Plain, class WithContext>
struct Callback {
  Plain plain = nullptr;
  WithContext with_context = nullptr;
  void *context = nullptr;
  GDS_context_free_func_t free_context = nullptr;

  Callback() = default;
  Callback(Plain p, WithContext w, void *c, GDS_context_free_func_t f)
      : plain(p), with_context(w), context(c), free_context(f) {}
  Callback(Callback &&o) noexcept { *this = std::move(o); }
  Callback &operator=(Callback &&o) noexcept {
    std::swap(plain, o.plain);
    std::swap(with_context, o.with_context);
    std::swap(context, o.context);
    std::swap(free_context, o.free_context);
    return *this;
  }
  ~Callback() {
    if (free_context != nullptr) free_context(context);
  }
  [[nodiscard]] const void *address() const {
    return plain != nullptr ? reinterpret_cast<const void *>(plain) : reinterpret_cast<const void *>(with_context);
  }
};

using HandlerFn = Callback<GDS_recovery_func_t, GDS_recovery_context_func_t>;
using CheckFn = Callback<GDS_check_func_t, GDS_check_context_func_t>;

struct Handler {
  std::size_t number = 0;  // 1-based registration order in its set
  Predicate pred;
  Rank rank;
  HandlerFn fn;

  GDS_status_t call(GDS_gds_t gds, GDS_error_t error) const {
    return fn.plain != nullptr ? fn.plain(gds, error) : fn.with_context(gds, error, fn.context);
  }
};

// "#3 (my_handler)": how messages name a handler.
std::string describe(const Handler &h);

// The handlers of one kind (local or global) registered in one place.
class HandlerSet {
 public:
  // Refuses a predicate equal to one registered already (an inevitable tie).
  GDS_status_t add(const char *func, const char *where, Predicate pred, HandlerFn fn);

  enum class Outcome { none, one, tie };
  // The best fitting handler; for a tie, *tied names the handlers.
  Outcome match(const Descriptor &d, const Handler **best, std::string *tied) const;
  [[nodiscard]] std::size_t size() const { return handlers_.size(); }

 private:
  std::vector<std::unique_ptr<Handler>> handlers_;
  // A handler with VALUE terms can fit only descriptors holding the value of
  // its first one: index them by that (key, value), so matching looks at
  // those and at the handlers without VALUE terms, not at every handler.
  std::unordered_map<std::string, std::vector<std::size_t>> by_value_;
  std::vector<std::size_t> unindexed_;
};

struct Check {
  std::size_t number = 0;
  GDS_priority_t priority = GDS_PRIORITY_HIGH;
  CheckFn fn;

  GDS_status_t call(GDS_gds_t gds, GDS_priority_t p) const {
    return fn.plain != nullptr ? fn.plain(gds, p) : fn.with_context(gds, p, fn.context);
  }
};

// The error state of an array on this process (the errors module's state of
// the array), or of GDS_ROOT.
struct Scope final : core::ArrayState {
  static constexpr core::Layer kLayer = 3;  // its place above core (core/module.hpp)
  core::Array *array = nullptr;  // nullptr: GDS_ROOT; set when the array is attached
  HandlerSet local_handlers, global_handlers;
  std::vector<Check> local_checks, global_checks;
  std::deque<std::unique_ptr<Descriptor>> pending_local;
  std::vector<std::unique_ptr<Descriptor>> pending_global;  // raised here, in order

  Scope() = default;
  ~Scope() override;
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;

  [[nodiscard]] MPI_Comm comm() const;
  // The handle handlers and GDS-run checks get: the primary, or GDS_ROOT.
  [[nodiscard]] GDS_gds_t handle() const;
  // "array #2" or "GDS_ROOT", for messages.
  [[nodiscard]] std::string name() const;
};

// GDS_ROOT's scope (made on first use; reset at GDS_finalize).
Scope &root_scope();
void reset_root_scope();
// An array's scope, or GDS_ROOT's for nullptr.
inline Scope &scope_of(core::Array *a) { return a != nullptr ? a->state<Scope>() : root_scope(); }

// The scope of an array handle or GDS_ROOT; arrays' *cursor is set.
GDS_status_t resolve_scope(const char *func, GDS_gds_t gds, Scope **scope, const char *argname = "gds");

}  // namespace gds::errors
