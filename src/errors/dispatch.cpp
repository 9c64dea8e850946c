// Raising errors, delivering them to handlers, running checks, and the entry
// points that drive them.
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "core/array.hpp"
#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "errors/dispatch.hpp"
#include "errors/enclosing.hpp"
#include "errors/keys.hpp"
#include "errors/registry.hpp"
#include "rma/stable_point.hpp"
#include "rma/window.hpp"
#include "versions/state.hpp"
#include "versions/store.hpp"

using namespace gds::core;

namespace gds::errors {

namespace {

std::uint64_t g_pending_local = 0;  // queued local errors, every scope
int g_depth = 0;                    // handlers and checks running: nothing is delivered
int g_probe = 0;                    // inside GDS_check_*_error: raises are counted, not queued
std::uint64_t g_raises = 0;         // errors raised so far (did a check raise one?)

void refresh() { core::g_deliverable = g_depth == 0 ? g_pending_local : 0; }

struct Busy {
  Busy() {
    ++g_depth;
    refresh();
  }
  ~Busy() {
    --g_depth;
    refresh();
  }
  Busy(const Busy &) = delete;
  Busy &operator=(const Busy &) = delete;
};

// The error a handler is handling (handlers never nest: nothing is
// delivered while one runs).
struct Active {
  std::uint64_t handle;
  bool local;
  bool resumed;
  bool escalated;
  bool enclosing;  // the handler belongs to an enclosing scope (it may escalate)
  const Scope *raised_in;
};
Active *g_active = nullptr;
const EnclosingScopes *g_enclosing = nullptr;

// Bounds on recovery that keeps raising errors.
constexpr int kMaxLocalPerCall = 1000;
constexpr int kMaxGlobalRounds = 16;

// The keys of a descriptor, for messages.
std::string summary(const Descriptor &d) {
  if (d.attrs.empty()) return "no attributes";
  std::string s;
  for (const Attribute &a : d.attrs) {
    if (!s.empty()) s += ", ";
    const KeyInfo *k = find_key(a.key);
    s += k != nullptr ? k->name : "key " + std::to_string(a.key);
  }
  return s;
}

// The places a handler for an error is looked for, innermost first: for a
// local error, the scopes enclosing this thread (containment domains), then
// the array the error was raised on, then GDS_ROOT.
struct Places {
  const EnclosingScopes *enclosing = nullptr;  // local errors only
  std::size_t outer = 0;                       // how many enclosing levels
  Scope *raised_in = nullptr;
  std::size_t count() const { return outer + (raised_in->array != nullptr ? 2 : 1); }
  const HandlerSet *set(std::size_t i, bool local) const {
    if (i < outer) return enclosing->handlers(i);
    const Scope &s = i == outer ? *raised_in : root_scope();
    return local ? &s.local_handlers : &s.global_handlers;
  }
  std::string name(std::size_t i) const {
    if (i < outer) return enclosing->name(i);
    return (i == outer ? *raised_in : root_scope()).name();
  }
};

// Finds the handler for one error and runs it; a handler of an enclosing
// scope may pass the error outwards (escalate()). `d` is freed on return.
GDS_status_t dispatch(const char *func, Scope &raised_in, std::unique_ptr<Descriptor> d, bool local) {
  const char *kind = local ? "local" : "global";
  Places places;
  places.raised_in = &raised_in;
  if (local && g_enclosing != nullptr) {
    places.enclosing = g_enclosing;
    places.outer = g_enclosing->depth();
  }
  struct Release {  // the chain taken is let go when this dispatch returns
    const EnclosingScopes *scopes;
    ~Release() {
      if (scopes != nullptr) scopes->release();
    }
  } const release{places.enclosing};
  const std::uint64_t handle = g_descriptors.insert(std::move(d));
  Descriptor *desc = nullptr;
  (void)g_descriptors.find(handle, &desc);
  const auto drop = [&] { g_descriptors.erase(handle); };
  for (std::size_t level = 0; level < places.count(); ++level) {
    const Handler *h = nullptr;
    std::string tied;
    const HandlerSet *set = places.set(level, local);
    if (set == nullptr) continue;  // a scope that ended meanwhile
    const HandlerSet::Outcome outcome = set->match(*desc, &h, &tied);
    if (outcome == HandlerSet::Outcome::none) continue;
    const std::string where = places.name(level);
    if (outcome == HandlerSet::Outcome::tie) {
      const std::string what = summary(*desc);
      drop();
      return fail_critical(GDS_STATUS_AMBIGUOUS_HANDLER, func,
                           "the %s error raised on %s (attributes: %s) fits %s handlers %s of %s equally well; none "
                           "was called",
                           kind, raised_in.name().c_str(), what.c_str(), kind, tied.c_str(), where.c_str());
    }
    desc->use = local ? Descriptor::Use::local_handler : Descriptor::Use::global_handler;
    Active active{handle, local, false, false, level < places.outer, &raised_in};
    Active *outer = g_active;
    g_active = &active;
    GDS_status_t r;
    {
      Busy busy;
      r = h->call(raised_in.handle(), to_handle<GDS_error_t>(handle));
    }
    g_active = outer;
    const std::string who = describe(*h);
    if (r != GDS_STATUS_OK) {
      if (!active.resumed) drop();
      return fail(GDS_STATUS_RECOVERY_FAILED, func, "%s error handler %s of %s returned %s", kind, who.c_str(),
                  where.c_str(), GDS_status_string(r));
    }
    if (active.escalated) {
      desc->use = Descriptor::Use::free;
      continue;  // on to the next scope outwards
    }
    if (!active.resumed) {
      drop();
      return fail(GDS_STATUS_RECOVERY_FAILED, func, "%s error handler %s of %s returned without GDS_resume_%s", kind,
                  who.c_str(), where.c_str(), kind);
    }
    return GDS_STATUS_OK;
  }
  const bool system = desc->system;
  const std::string what = summary(*desc);
  drop();
  if (system) return GDS_STATUS_OK;  // the failing call's status reports it
  std::string searched = places.outer > 0 ? "the enclosing containment domains, " : "";
  searched += raised_in.name();
  if (raised_in.array != nullptr) searched += " or GDS_ROOT";
  return fail_critical(GDS_STATUS_UNHANDLED_ERROR, func, "no %s error handler of %s matches the %s error raised on %s (attributes: %s)",
                       kind, searched.c_str(), kind, raised_in.name().c_str(), what.c_str());
}

// Delivers a scope's pending local errors, oldest first, including those
// its handlers raise meanwhile.
GDS_status_t deliver_local(const char *func, Scope &s) {
  if (g_depth > 0) return GDS_STATUS_OK;
  GDS_status_t first = GDS_STATUS_OK;
  for (int n = 0; !s.pending_local.empty(); ++n) {
    if (n == kMaxLocalPerCall)
      return first != GDS_STATUS_OK
                 ? first
                 : fail(GDS_STATUS_RECOVERY_FAILED, func, "local error handlers of %s kept raising errors (%d delivered)",
                        s.name().c_str(), n);
    std::unique_ptr<Descriptor> d = std::move(s.pending_local.front());
    s.pending_local.pop_front();
    --g_pending_local;
    refresh();
    const GDS_status_t r = dispatch(func, s, std::move(d), true);
    if (first == GDS_STATUS_OK) first = r;
  }
  return first;
}

void queue_local(Scope &s, std::unique_ptr<Descriptor> d) {
  s.pending_local.push_back(std::move(d));
  ++g_pending_local;
  refresh();
}


// Outcome of running checks.
struct CheckRun {
  GDS_status_t status = GDS_STATUS_OK;  // CHECK_FAILED if a check returned a failure
  bool raised = false;                  // a check raised an error
};

// Runs the checks of `s` of priority HIGH (only_high) or all, high first;
// local ones, then global ones, at each priority. No error is delivered
// while checks run.
CheckRun run_checks(const char *func, Scope &s, GDS_gds_t handle, bool local, bool global, bool only_high) {
  CheckRun run;
  const std::uint64_t before = g_raises;
  std::size_t ran = 0;
  Busy busy;
  const auto go = [&](const std::vector<Check> &checks, const char *kind, GDS_priority_t p) {
    for (std::size_t i = 0; i < checks.size(); ++i) {  // a check may register another
      if (checks[i].priority != p) continue;
      ++ran;
      const GDS_status_t r = checks[i].call(handle, p);
      if (r != GDS_STATUS_OK && run.status == GDS_STATUS_OK)
        run.status = fail(GDS_STATUS_CHECK_FAILED, func, "%s error check #%zu of %s returned %s", kind,
                          checks[i].number, s.name().c_str(), GDS_status_string(r));
    }
  };
  for (GDS_priority_t p : {GDS_PRIORITY_HIGH, GDS_PRIORITY_MEDIUM, GDS_PRIORITY_LOW}) {
    if (only_high && p != GDS_PRIORITY_HIGH) break;
    if (local) go(s.local_checks, "local", p);
    if (global) go(s.global_checks, "global", p);
  }
  run.raised = g_raises != before;
  // All of the array's checks ran and none found an error: what it held until now is vouched for.
  if (s.array != nullptr && ran > 0 && ran >= s.array->checks && run.status == GDS_STATUS_OK && !run.raised)
    s.array->checks_passed = core::next_event();
  return run;
}

GDS_status_t first_failure(std::initializer_list<GDS_status_t> all) {
  for (GDS_status_t s : all)
    if (s != GDS_STATUS_OK) return s;
  return GDS_STATUS_OK;
}

// Takes a raised descriptor over from the application.
GDS_status_t take_descriptor(const char *func, GDS_error_t error_desc, std::unique_ptr<Descriptor> *out) {
  Descriptor *d = nullptr;
  GDS_TRY(resolve_descriptor(func, error_desc, &d));
  GDS_CHECK(d->use == Descriptor::Use::free, GDS_STATUS_DESCRIPTOR_IN_USE,
            "error_desc is being handled; raise a new descriptor (GDS_resume_%s frees this one)",
            d->use == Descriptor::Use::local_handler ? "local" : "global");
  *out = g_descriptors.erase(handle_value(error_desc));
  ++g_raises;
  return GDS_STATUS_OK;
}

GDS_status_t raise(const char *func, GDS_gds_t gds, GDS_error_t error_desc, bool local) {
  Scope *s = nullptr;
  GDS_TRY(resolve_scope(func, gds, &s));
  std::unique_ptr<Descriptor> d;
  GDS_TRY(take_descriptor(func, error_desc, &d));
  if (g_probe > 0) return GDS_STATUS_OK;  // a question was asked: the answer is that it was raised
  if (local) queue_local(*s, std::move(d));
  else s->pending_global.push_back(std::move(d));
  return GDS_STATUS_OK;
}

GDS_status_t resume(const char *func, GDS_gds_t gds, GDS_error_t error_desc, bool local) {
  Scope *s = nullptr;
  GDS_TRY(resolve_scope(func, gds, &s));
  Descriptor *d = nullptr;
  GDS_TRY(resolve_descriptor(func, error_desc, &d));
  const char *kind = local ? "local" : "global";
  GDS_CHECK(g_active != nullptr && g_active->handle == handle_value(error_desc) && g_active->local == local &&
                !g_active->resumed && !g_active->escalated,
            GDS_STATUS_NOT_IN_HANDLER, "error_desc is not an error a %s handler is handling", kind);
  GDS_CHECK(s == g_active->raised_in, GDS_STATUS_INVALID, "gds is %s, but the error was raised on %s",
            s->name().c_str(), g_active->raised_in->name().c_str());
  g_descriptors.erase(handle_value(error_desc));
  g_active->resumed = true;
  return GDS_STATUS_OK;
}

}  // namespace

void set_enclosing_scopes(const EnclosingScopes *scopes) { g_enclosing = scopes; }

GDS_status_t escalate(const char *func, GDS_error_t error_desc) {
  GDS_CHECK(g_active != nullptr && g_active->handle == handle_value(error_desc) && g_active->enclosing &&
                !g_active->resumed && !g_active->escalated,
            GDS_STATUS_NOT_IN_HANDLER,
            "error_desc is not an error a containment domain's handler is handling (or it was resumed or escalated "
            "already)");
  g_active->escalated = true;
  return GDS_STATUS_OK;
}

Scope::~Scope() {
  g_pending_local -= pending_local.size();
  refresh();
}

GDS_status_t deliver_pending(const char *func, core::Array *a) {
  const GDS_status_t own = a != nullptr ? deliver_local(func, scope_of(a)) : GDS_STATUS_OK;
  const GDS_status_t root = deliver_local(func, root_scope());
  return first_failure({own, root});
}

std::uint64_t global_pending(const core::Array *a) {
  if (g_depth > 0) return 0;
  return scope_of(const_cast<core::Array *>(a)).pending_global.size();
}

GDS_status_t deliver_global(const char *func, core::Array *a) {
  Scope &s = scope_of(a);
  const MPI_Comm comm = s.comm();
  GDS_status_t first = GDS_STATUS_OK;
  for (int round = 1;; ++round) {
    // Every process's pending errors, in rank order, each rank's in the order
    // raised: [count][descriptor]... per process; sizes are 64-bit, so the
    // errors may hold any amount of data memory allows.
    std::vector<std::byte> mine;
    GDS_status_t local = GDS_STATUS_OK;
    try {
      const std::uint64_t count = s.pending_global.size();
      const auto *c = reinterpret_cast<const std::byte *>(&count);
      mine.assign(c, c + sizeof count);
      for (const auto &d : s.pending_global) d->write(mine);
    } catch (const std::bad_alloc &) {
      std::vector<std::byte>().swap(mine);
      local = fail_critical(GDS_STATUS_NOMEM, func, "no memory to send %zu global error(s)", s.pending_global.size());
    }
    s.pending_global.clear();
    std::vector<std::byte> gathered;
    std::vector<std::uint64_t> sizes;
    GDS_TRY(allgather_bytes(func, comm, local, mine, &gathered, &sizes));
    std::vector<std::byte>().swap(mine);
    const std::byte *p = gathered.data();
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      const std::byte *end = p + sizes[r], *at = p;
      std::uint64_t count = 0;
      bool well_formed = static_cast<std::uint64_t>(end - at) >= sizeof count;
      if (well_formed) {
        std::memcpy(&count, at, sizeof count);
        at += sizeof count;
      }
      for (std::uint64_t i = 0; i < count && well_formed; ++i) {
        auto d = std::make_unique<Descriptor>();
        well_formed = Descriptor::read(at, end, d.get());
        const GDS_status_t h = well_formed ? dispatch(func, s, std::move(d), false) : GDS_STATUS_OK;
        if (first == GDS_STATUS_OK) first = h;
      }
      if (!well_formed && first == GDS_STATUS_OK)
        first = fail_critical(GDS_STATUS_INTERNAL, func, "malformed global error from rank %zu", r);
      p = end;
    }
    std::vector<std::byte>().swap(gathered);
    // Did a handler fail anywhere, and did handlers raise more global errors?
    std::uint64_t any[2] = {first != GDS_STATUS_OK ? 1u : 0u, s.pending_global.empty() ? 0u : 1u};
    GDS_TRY(agree(func, comm, GDS_STATUS_OK, any));
    if (any[0] != 0 && first == GDS_STATUS_OK)
      first = fail(GDS_STATUS_RECOVERY_FAILED, func, "a global error handler of %s failed on another process",
                   s.name().c_str());
    if (any[1] == 0) return first;
    if (round == kMaxGlobalRounds)  // the rest wait for the next stable point
      return first != GDS_STATUS_OK
                 ? first
                 : fail(GDS_STATUS_RECOVERY_FAILED, func, "global error handlers of %s kept raising errors (%d rounds)",
                        s.name().c_str(), round);
  }
}

bool has_high_checks(const core::Array &a) {
  const Scope &s = a.state<Scope>();
  for (const auto *checks : {&s.local_checks, &s.global_checks})
    for (const Check &c : *checks)
      if (c.priority == GDS_PRIORITY_HIGH) return true;
  return false;
}

GDS_status_t run_version_checks(const char *func, core::Array &a) {
  Scope &s = scope_of(&a);
  const CheckRun run = run_checks(func, s, s.handle(), true, true, true);
  const GDS_status_t delivered = deliver_local(func, s);
  return first_failure({run.status, delivered});
}

void raise_detected(const char *func, core::Array *a, GDS_status_t status, const core::Detected &what) {
  const std::uint64_t *lo = what.lo, *hi = what.hi;
  const std::int64_t version = what.version;
  const std::uint64_t bytes = what.bytes;
  auto d = std::make_unique<Descriptor>();
  d->system = true;
  d->set(GDS_EATTR_DETECTED_BY, "GDS", 3);
  const std::int64_t code = status;
  d->set(GDS_EATTR_GDS_STATUS, &code, sizeof code);
  d->set(GDS_EATTR_GDS_FUNCTION, func, std::strlen(func));
  if (status == GDS_STATUS_MPI_ERROR) {
    const std::int64_t cls = last_mpi_error_class();
    d->set(GDS_EATTR_MPI_ERROR_CLASS, &cls, sizeof cls);
  }
  if (lo != nullptr && hi != nullptr) {
    const std::size_t n = a->ndims();
    std::vector<std::int64_t> first(n), count(n);
    for (std::size_t i = 0; i < n; ++i) {
      first[i] = static_cast<std::int64_t>(lo[i]);
      count[i] = static_cast<std::int64_t>(hi[i] - lo[i] + 1);
    }
    d->set(GDS_EATTR_GDS_INDEX, first.data(), n * sizeof(std::int64_t));
    d->set(GDS_EATTR_GDS_COUNT, count.data(), n * sizeof(std::int64_t));
  }
  if (version >= 0) d->set(GDS_EATTR_GDS_VERSION, &version, sizeof version);
  if (what.process >= 0) {
    const std::int64_t process = what.process;
    d->set(GDS_EATTR_GDS_PROCESS, &process, sizeof process);
  }
  if (what.what != nullptr) d->set(GDS_EATTR_GDS_FILE, what.what, std::strlen(what.what));
  if (bytes > 0) {
    const auto size = static_cast<std::int64_t>(bytes);
    d->set(GDS_EATTR_MEMORY_SIZE, &size, sizeof size);
  }
  queue_local(scope_of(a), std::move(d));
  (void)deliver_local(func, scope_of(a));  // the call's own status stays the report
}

bool handling(const core::Array &a) { return g_active != nullptr && g_active->raised_in == &a.state<Scope>(); }

void finalize() {
  reset_root_scope();
  reset_keys();
  g_pending_local = 0;
  refresh();
}

}  // namespace gds::errors

using namespace gds::errors;

extern "C" {

GDS_API GDS_status_t GDS_raise_local_error(GDS_gds_t gds, GDS_error_t error_desc) try {
  GDS_ENTER();
  return raise(__func__, gds, error_desc, true);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_raise_global_error(GDS_gds_t gds, GDS_error_t error_desc) try {
  GDS_ENTER();
  return raise(__func__, gds, error_desc, false);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_resume_local(GDS_gds_t gds, GDS_error_t error_desc) try {
  GDS_ENTER();
  return resume(__func__, gds, error_desc, true);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_resume_global(GDS_gds_t gds, GDS_error_t error_desc) try {
  GDS_ENTER();
  return resume(__func__, gds, error_desc, false);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_invoke_local_error_handler(GDS_gds_t gds) try {
  GDS_ENTER();
  Scope *s = nullptr;
  GDS_TRY(resolve_scope(__func__, gds, &s));
  if (s->array != nullptr) return gds::errors::deliver_pending(__func__, s->array);
  GDS_status_t first = gds::errors::deliver_pending(__func__, nullptr);
  for (Array *a : arrays_in_creation_order()) {
    const GDS_status_t r = deliver_local(__func__, scope_of(a));
    if (first == GDS_STATUS_OK) first = r;
  }
  return first;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_invoke_global_error_handler(GDS_gds_t gds) try {
  GDS_ENTER();
  return gds::rma::fence(__func__, gds);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_check_all_errors(GDS_gds_t gds) try {
  GDS_ENTER();
  Scope *s = nullptr;
  GDS_status_t status = GDS_STATUS_OK;
  Array *a = nullptr;
  if (!is_root(gds)) {
    Cursor *c = nullptr;
    GDS_TRY(resolve_collective(__func__, gds, &c, &status));
    a = c->array;
    s = &scope_of(a);
  } else {
    s = &root_scope();
    status = gds::core::deliver_on_entry(__func__, nullptr);
  }
  const MPI_Comm comm = s->comm();
  // A stable point first: every write complete, pending global errors delivered.
  GDS_TRY(gds::rma::stable_point(__func__, a, status));

  const bool in_handler = g_depth > 0;
  const CheckRun run = run_checks(__func__, *s, gds, true, true, false);
  if (in_handler) {  // nothing can be delivered: report what was found
    bool found = run.raised;
    GDS_TRY(agree_and_poll(__func__, comm, run.status, &found));
    return found ? fail(GDS_STATUS_ERROR_FOUND, __func__, "error checks of %s found errors; they stay queued",
                             s->name().c_str())
                      : GDS_STATUS_OK;
  }
  GDS_status_t delivered = deliver_local(__func__, *s);
  if (a != nullptr) delivered = first_failure({delivered, deliver_local(__func__, root_scope())});
  // Handlers may have written and raised global errors: stable again.
  return gds::rma::stable_point(__func__, a, first_failure({run.status, delivered}));
} GDS_API_CATCH

GDS_API GDS_status_t GDS_check_local_error(GDS_gds_t gds) try {
  GDS_ENTER();
  Scope *s = nullptr;
  GDS_TRY(resolve_scope(__func__, gds, &s));
  ++g_probe;
  const CheckRun run = run_checks(__func__, *s, gds, true, false, false);
  --g_probe;
  GDS_TRY(run.status);
  return run.raised ? fail(GDS_STATUS_ERROR_FOUND, __func__, "local error checks of %s found errors",
                           s->name().c_str())
                    : GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_check_global_error(GDS_gds_t gds) try {
  GDS_ENTER();
  Scope *s = nullptr;
  GDS_TRY(resolve_scope(__func__, gds, &s));
  ++g_probe;
  const CheckRun run = run_checks(__func__, *s, gds, false, true, false);
  --g_probe;
  bool found = run.raised;
  GDS_TRY(agree_and_poll(__func__, s->comm(), run.status, &found));
  return found ? fail(GDS_STATUS_ERROR_FOUND, __func__, "global error checks of %s found errors",
                           s->name().c_str())
                    : GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_inject_fault(GDS_fault_t fault, GDS_size_t after) try {
  GDS_ENTER();
  GDS_REQUIRE(fault >= GDS_FAULT_NONE && fault <= GDS_FAULT_LATE_WRITE, GDS_STATUS_INVALID,
              "fault=%d is not a GDS_fault_t", static_cast<int>(fault));
  GDS_REQUIRE(fault == GDS_FAULT_NONE || after >= 1, GDS_STATUS_INVALID,
              "after=0; 1 is the next operation");
  if (fault == GDS_FAULT_NONE || fault == GDS_FAULT_RMA)
    gds::rma::inject_rma_failure(fault == GDS_FAULT_NONE ? 0 : after);
  if (fault == GDS_FAULT_NONE || fault == GDS_FAULT_MEMORY_SYNC)
    gds::rma::inject_sync_failure(fault == GDS_FAULT_NONE ? 0 : after);
  if (fault == GDS_FAULT_NONE || fault == GDS_FAULT_VERSION_CORRUPT)
    gds::versions::inject_corruption(fault == GDS_FAULT_NONE ? 0 : after);
  if (fault == GDS_FAULT_NONE || fault == GDS_FAULT_VERSION_MEMORY)
    gds::versions::inject_memory_failure(fault == GDS_FAULT_NONE ? 0 : after);
  if (fault == GDS_FAULT_NONE || fault == GDS_FAULT_LATE_WRITE)
    gds::versions::inject_late_write(fault == GDS_FAULT_NONE ? 0 : after);
  constexpr std::size_t phases = std::size(gds::versions::kFailablePhases);
  GDS_REQUIRE(fault != GDS_FAULT_VERSION_PHASE || after <= phases, GDS_STATUS_INVALID,
              "after=%llu: GDS_version_inc has phases 1 to %zu that can fail", static_cast<unsigned long long>(after),
              phases);
  if (fault == GDS_FAULT_NONE) gds::core::inject_failure(nullptr);
  if (fault == GDS_FAULT_VERSION_PHASE) gds::core::inject_failure(gds::versions::kFailablePhases[after - 1]->name());
  return GDS_STATUS_OK;
} GDS_API_CATCH

}  // extern "C"
