// GDS_cd_*: the C entry points of containment domains (gds_cd.h).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cd/domain.hpp"
#include "core/array.hpp"
#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/mpi_args.hpp"
#include "core/runtime.hpp"
#include "errors/enclosing.hpp"
#include "errors/predicate.hpp"

using namespace gds::cd;
using gds::core::fail;

namespace {

// What every process of a collective CD calls, for the agreement's signature.
enum class Op : std::uint64_t { create = 1, commit, restore, advance, box };

// A collective CD agrees on the local outcome of a step; a per-process CD
// has nothing to agree with.
GDS_status_t agree(const char *func, const Domain &d, GDS_status_t local, Op op) {
  if (d.per_process()) return local;
  gds::core::Signature sig;
  sig.add(static_cast<std::uint64_t>(op));
  return gds::core::agree(func, d.comm, local, sig.value());
}

// Whether every process of `comm` is one of `parent`'s.
bool within(MPI_Comm comm, const Domain &parent) {
  if (parent.comm_size == 1) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    return size == 1;
  }
  const gds::core::MpiGroup mine(comm), theirs(parent.comm);
  int n = 0;
  MPI_Group_size(mine.get(), &n);
  std::vector<int> ranks(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
  MPI_Group_translate_ranks(mine.get(), n, ranks.data(), theirs.get(), out.data());
  return std::none_of(out.begin(), out.end(), [](int r) { return r == MPI_UNDEFINED; });
}

// A CD's handler as Open Resilience calls it.
struct Binding {
  std::uint64_t cd;
  GDS_cd_handler_func_t fn;
  void *context;
  GDS_context_free_func_t free_context;
};
GDS_status_t call_binding(GDS_gds_t gds, GDS_error_t error, void *b) {
  const auto *x = static_cast<const Binding *>(b);
  return x->fn(gds::core::to_handle<GDS_cd_t>(x->cd), gds, error, x->context);
}
void free_binding(void *b) {
  auto *x = static_cast<Binding *>(b);
  if (x->free_context != nullptr) x->free_context(x->context);
  delete x;
}

// The descendants of d, deepest first.
std::vector<std::shared_ptr<Domain>> descendants(Domain &d) {
  std::vector<Domain *> all;
  std::vector<Domain *> todo(d.children.begin(), d.children.end());
  while (!todo.empty()) {
    Domain *x = todo.back();
    todo.pop_back();
    all.push_back(x);
    todo.insert(todo.end(), x->children.begin(), x->children.end());
  }
  std::stable_sort(all.begin(), all.end(), [](const Domain *x, const Domain *y) { return x->depth > y->depth; });
  std::vector<std::shared_ptr<Domain>> out;
  for (Domain *x : all) {
    std::shared_ptr<Domain> s;
    if (resolve("restore", gds::core::to_handle<GDS_cd_t>(x->handle), &s) == GDS_STATUS_OK) out.push_back(s);
  }
  return out;
}

void discard_log(Domain &d) {
  for (LogEntry &e : d.log) std::free(e.data);
  d.log.clear();
  d.log_cursor = 0;
  d.replaying = false;
}

// A child's entries into its parent (commit, and advance of a child).
void commit_into_parent(Domain &d) {
  commit_memory_into_parent(d);
  commit_boxes_into_parent(d);
  Domain &p = *d.parent;
  if (p.children_ever == 1 && p.logging) {  // a strictly hierarchical log is kept by the parent
    p.log.insert(p.log.end(), d.log.begin(), d.log.end());
    d.log.clear();
  }
}

}  // namespace

namespace gds::cd {

GDS_status_t preserve(const char *func, GDS_cd_t cd, GDS_cd_via_t via, const GDS_cd_range_t *ranges, int count,
                      GDS_cd_regen_func_t regen, void *context, const char *storage_info) {
  if (!gds::core::g_rt.initialized || gds::core::g_rt.config.sanity_check) [[unlikely]]
    GDS_TRY(gds::core::entry_refused(func));
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve(func, cd, &d));
  bool memory_only = false;
  GDS_TRY(entry_storage(func, *d, storage_info, &memory_only));
  const bool durable = d->durable != nullptr && via == GDS_CD_VIA_COPY;
  if (durable) {
    GDS_TRY(check_ranges(func, ranges, count, true));
    GDS_TRY(check_entry_level(func, *d, ranges, count, memory_only));
    // a restarted root: the bytes it persisted come back first
    if (!memory_only) GDS_TRY(take_restarted_ranges(func, *d, ranges, count));
  }
  GDS_TRY(add_ranges(func, *d, via, ranges, count, regen, context));
  if (durable && memory_only) note_memory_only(*d, ranges, count, true);
  if (durable && !memory_only) note_ranges(*d, ranges, count);
  return GDS_STATUS_OK;
}

}  // namespace gds::cd

extern "C" {

GDS_API GDS_status_t GDS_cd_create(GDS_cd_t parent, MPI_Comm comm, const char *name, const char *storage_info,
                                   GDS_cd_logging_t logging, GDS_cd_t *cd) try {
  GDS_ENTER();
  GDS_REQUIRE(cd != nullptr, GDS_STATUS_NULL_ARGUMENT, "cd is NULL");
  *cd = GDS_CD_NULL;
  GDS_TRY(gds::core::check_comm(__func__, comm, "comm"));
  std::lock_guard lock(g_mutex);
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::shared_ptr<Domain> p;
  std::unique_ptr<Durable> durable;
  const char *func = __func__;
  const auto check = [&]() -> GDS_status_t {
    if (parent != GDS_CD_NULL) GDS_TRY(resolve(func, parent, &p, "parent"));
    GDS_CHECK(logging == GDS_CD_LOGGING_DISABLED || logging == GDS_CD_LOGGING_ENABLED ||
                  logging == GDS_CD_LOGGING_INHERIT,
              GDS_STATUS_INVALID, "logging is %d, not DISABLED, ENABLED or INHERIT", static_cast<int>(logging));
    if (p == nullptr) {
      GDS_CHECK(logging != GDS_CD_LOGGING_INHERIT, GDS_STATUS_INVALID,
                "logging is INHERIT, but a root CD has no parent to inherit from: say ENABLED or DISABLED");
      GDS_CHECK(name == nullptr || !root_name_taken(name), GDS_STATUS_INVALID, "a root CD named '%s' is live already",
                name);
    } else {
      GDS_CHECK(name == nullptr, GDS_STATUS_INVALID, "name is '%s': only a root CD has a name (pass NULL)", name);
      GDS_CHECK(logging == GDS_CD_LOGGING_INHERIT || (logging == GDS_CD_LOGGING_ENABLED) == p->logging,
                GDS_STATUS_INVALID, "logging is %s, but the parent %s has it %s: a chain of CDs logs alike (INHERIT)",
                logging == GDS_CD_LOGGING_ENABLED ? "ENABLED" : "DISABLED", p->describe().c_str(),
                p->logging ? "ENABLED" : "DISABLED");
      GDS_CHECK(!p->replaying, GDS_STATUS_CD_STATE, "the parent %s is replaying its message log",
                p->describe().c_str());
      GDS_CHECK(within(comm, *p), GDS_STATUS_INVALID_COMM,
                "comm has processes that the parent %s does not span", p->describe().c_str());
    }
    GDS_TRY(parse_storage(func, storage_info, p == nullptr, name, &durable));
    return GDS_STATUS_OK;
  };
  GDS_status_t local = check();
  MPI_Comm inner = MPI_COMM_SELF;
  if (size > 1) {
    GDS_TRY(inner_comm(__func__, comm, &inner));  // every process: comm is valid (checked above)
    gds::core::Signature sig;
    sig.add(static_cast<std::uint64_t>(Op::create));
    sig.add(static_cast<std::uint64_t>(logging));
    const std::string_view n(name != nullptr ? name : "");
    sig.add(n.data(), n.size());
    sig.add(static_cast<std::uint64_t>(p != nullptr ? p->depth + 1 : 0));
    GDS_TRY(gds::core::agree(__func__, inner, local, sig.value()));
  } else {
    GDS_TRY(local);
  }
  auto d = std::make_unique<Domain>();
  d->comm = inner;
  d->comm_size = size;
  d->parent = p.get();
  d->depth = p != nullptr ? p->depth + 1 : 0;
  d->logging = logging == GDS_CD_LOGGING_INHERIT ? p->logging : logging == GDS_CD_LOGGING_ENABLED;
  if (p == nullptr && name != nullptr) d->name = name;
  if (durable != nullptr) {  // a persisted root: a restarted job's point, if any
    d->durable = std::move(durable);
    const GDS_status_t s = open_durable(__func__, *d);
    if (s != GDS_STATUS_OK) {
      close_durable(*d);
      return s;
    }
  }
  std::shared_ptr<Domain> made = insert(std::move(d));
  *cd = gds::core::to_handle<GDS_cd_t>(made->handle);
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_commit(GDS_cd_t *cd) try {
  GDS_ENTER();
  GDS_REQUIRE(cd != nullptr, GDS_STATUS_NULL_ARGUMENT, "cd is NULL");
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve_own(__func__, *cd, &d));
  GDS_status_t local = GDS_STATUS_OK;
  if (!d->children.empty())
    local = fail(GDS_STATUS_CD_STATE, __func__, "%s has %zu uncommitted child CD(s): commit them first",
                 d->describe().c_str(), d->children.size());
  GDS_TRY(agree(__func__, *d, local, Op::commit));
  if (d->parent != nullptr) commit_into_parent(*d);
  end(*d);
  *cd = GDS_CD_NULL;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_restore(GDS_cd_t cd) try {
  GDS_ENTER();
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve_own(__func__, cd, &d));
  GDS_status_t local = check_contained(__func__, *d);
  GDS_TRY(agree(__func__, *d, local, Op::restore));
  const std::vector<std::shared_ptr<Domain>> below = descendants(*d);
  for (const auto &x : below) {
    if (local == GDS_STATUS_OK) local = restore_memory(__func__, *x);
    if (local == GDS_STATUS_OK) local = restore_boxes(__func__, *x);
  }
  if (local == GDS_STATUS_OK) local = restore_memory(__func__, *d);
  if (local == GDS_STATUS_OK) local = restore_boxes(__func__, *d);
  for (const auto &x : below) {  // deepest first: a strictly hierarchical log reaches the restored CD
    if (x->parent != nullptr && x->parent->children_ever == 1 && x->parent->logging) {
      x->parent->log.insert(x->parent->log.end(), x->log.begin(), x->log.end());
      x->log.clear();
    }
    end(*x);
  }
  d->log_cursor = 0;
  d->replaying = !d->log.empty();
  d->restored = true;
  make_current(*d);
  return agree(__func__, *d, local, Op::restore);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_advance(GDS_cd_t cd) try {
  GDS_ENTER();
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve_own(__func__, cd, &d));
  GDS_status_t local = GDS_STATUS_OK;
  if (!d->children.empty())
    local = fail(GDS_STATUS_CD_STATE, __func__,
                 "%s has %zu uncommitted child CD(s): its point in time cannot move past their work",
                 d->describe().c_str(), d->children.size());
  if (local == GDS_STATUS_OK) local = check_advance(__func__, *d);  // what can fail, before anything changes
  GDS_TRY(agree(__func__, *d, local, Op::advance));
  // The parent gets the child's entries as they were (its point in time),
  // then they move to now. Only a failing version of an array box can fail
  // after this (the parent keeps what it was given).
  if (d->parent != nullptr) commit_into_parent(*d);
  local = advance_boxes(__func__, *d);
  if (local == GDS_STATUS_OK) local = advance_memory(__func__, *d);
  if (local == GDS_STATUS_OK) discard_log(*d);
  GDS_TRY(agree(__func__, *d, local, Op::advance));
  return d->durable != nullptr ? persist_point(__func__, *d) : GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_preserve(GDS_cd_t cd, GDS_cd_via_t via, const GDS_cd_range_t ranges[], int count,
                                     GDS_cd_regen_func_t regen, void *context) try {
  return preserve(__func__, cd, via, ranges, count, regen, context, nullptr);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_delete(GDS_cd_t cd, const GDS_cd_range_t ranges[], int count) try {
  GDS_ENTER();
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve(__func__, cd, &d));
  GDS_TRY(delete_ranges(__func__, *d, ranges, count));
  note_memory_only(*d, ranges, count, false);  // such a range may come back at the CD's own level
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_preserve_file(GDS_cd_t cd, int fd) try {
  GDS_ENTER();
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve(__func__, cd, &d));
  GDS_REQUIRE(fd >= 0 && ::fcntl(fd, F_GETFD) != -1, GDS_STATUS_INVALID, "fd %d is not an open file descriptor", fd);
  GDS_REQUIRE(!d->files.contains(fd), GDS_STATUS_INVALID, "fd %d is preserved in %s already", fd,
              d->describe().c_str());
  GDS_TRY(take_restarted_file(__func__, *d, fd));
  const off_t at = ::lseek(fd, 0, SEEK_CUR);
  GDS_REQUIRE(at >= 0, GDS_STATUS_INVALID, "fd %d has no position (%s)", fd, std::strerror(errno));
  d->files[fd] = at;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_delete_file(GDS_cd_t cd, int fd) try {
  GDS_ENTER();
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve(__func__, cd, &d));
  GDS_REQUIRE(d->files.erase(fd) == 1, GDS_STATUS_NOT_PRESERVED, "fd %d is not preserved in %s", fd,
              d->describe().c_str());
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_preserve_box(GDS_cd_t cd, GDS_cd_via_t via, GDS_gds_t gds, const GDS_size_t lo[],
                                         const GDS_size_t hi[], GDS_cd_access_t access,
                                         GDS_cd_box_regen_func_t regen, void *context) try {
  GDS_ENTER();
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve_own(__func__, cd, &d));
  gds::core::Cursor *cursor = nullptr;
  GDS_TRY(gds::core::resolve(__func__, gds, &cursor));
  GDS_REQUIRE(cursor->at_current, GDS_STATUS_NOT_CURRENT, "gds is at an old version: a CD preserves the current one");
  return add_box(__func__, *d, via, *cursor->array, lo, hi, access, regen, context);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_register_handler(GDS_cd_t cd, GDS_error_pred_t pred, GDS_cd_handler_func_t handler,
                                             void *context, GDS_context_free_func_t free_context) try {
  auto *b = new Binding{0, handler, context, free_context};
  gds::errors::HandlerFn fn(nullptr, call_binding, b, free_binding);  // frees the context on every path
  GDS_ENTER();
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve(__func__, cd, &d));
  GDS_REQUIRE(handler != nullptr, GDS_STATUS_NULL_ARGUMENT, "handler is NULL");
  gds::errors::Predicate *p = nullptr;
  GDS_TRY(gds::errors::find_predicate(__func__, pred, &p));
  b->cd = d->handle;
  return d->handlers.add(__func__, d->describe().c_str(), *p, std::move(fn));
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_escalate(GDS_error_t error_desc) try {
  GDS_ENTER();
  return gds::errors::escalate(__func__, error_desc);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_restored(GDS_cd_t cd, int *restored) try {
  GDS_ENTER();
  GDS_REQUIRE(restored != nullptr, GDS_STATUS_NULL_ARGUMENT, "restored is NULL");
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve(__func__, cd, &d));
  *restored = d->restored ? 1 : 0;
  d->restored = false;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_inject_fault(GDS_cd_t cd) try {
  GDS_ENTER();
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve(__func__, cd, &d));
  for (auto &[lo, e] : d->memory)
    if (e.via == GDS_CD_VIA_COPY && !e.data.empty()) {
      e.data.data()[0] ^= std::byte{1};
      return GDS_STATUS_OK;
    }
  for (auto &b : d->boxes)
    if (!b->data.empty()) {
      b->data[0] ^= std::byte{1};
      return GDS_STATUS_OK;
    }
  return fail(GDS_STATUS_NOT_PRESERVED, __func__, "%s holds no preserved copy to corrupt", d->describe().c_str());
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_current(GDS_cd_t *cd) try {
  GDS_ENTER();
  GDS_REQUIRE(cd != nullptr, GDS_STATUS_NULL_ARGUMENT, "cd is NULL");
  std::lock_guard lock(g_mutex);
  const Domain *c = current();
  *cd = c != nullptr ? gds::core::to_handle<GDS_cd_t>(c->handle) : GDS_CD_NULL;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_get_parent(GDS_cd_t cd, GDS_cd_t *parent) try {
  GDS_ENTER();
  GDS_REQUIRE(parent != nullptr, GDS_STATUS_NULL_ARGUMENT, "parent is NULL");
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve(__func__, cd, &d));
  *parent = d->parent != nullptr ? gds::core::to_handle<GDS_cd_t>(d->parent->handle) : GDS_CD_NULL;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_get_comm(GDS_cd_t cd, MPI_Comm *comm) try {
  GDS_ENTER();
  GDS_REQUIRE(comm != nullptr, GDS_STATUS_NULL_ARGUMENT, "comm is NULL");
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve(__func__, cd, &d));
  *comm = d->comm;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_get_preserved_bytes(GDS_cd_t cd, GDS_size_t *bytes) try {
  GDS_ENTER();
  GDS_REQUIRE(bytes != nullptr, GDS_STATUS_NULL_ARGUMENT, "bytes is NULL");
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve(__func__, cd, &d));
  *bytes = preserved_bytes(*d);
  return GDS_STATUS_OK;
} GDS_API_CATCH

}  // extern "C"
