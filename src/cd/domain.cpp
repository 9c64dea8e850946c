#include "cd/domain.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/handles.hpp"
#include "core/log.hpp"

namespace gds::cd {

std::recursive_mutex g_mutex;

namespace {

struct Ref {
  std::shared_ptr<Domain> domain;
};
core::HandleTable<Ref> g_table(core::HandleKind::cd);
std::map<std::thread::id, std::vector<Domain *>> g_stacks;  // active CDs per thread, oldest first

}  // namespace

Domain::Domain() = default;

Domain::~Domain() {
  for (LogEntry &e : log) std::free(e.data);
}

namespace {
// Collective CDs agree over a duplicate of the program's communicator, made
// once per communicator (its first collective CD) and cached on it as an
// attribute, so a CD costs no MPI_Comm_dup; freed with the communicator, or
// at GDS_finalize. inner -> the program's communicator.
int g_keyval = MPI_KEYVAL_INVALID;
std::map<MPI_Comm, MPI_Comm> g_inner;

int delete_inner(MPI_Comm, int, void *value, void *) {
  std::lock_guard lock(g_mutex);
  auto *inner = static_cast<MPI_Comm *>(value);
  g_inner.erase(*inner);
  MPI_Comm_free(inner);
  delete inner;
  return MPI_SUCCESS;
}
}  // namespace

GDS_status_t inner_comm(const char *func, MPI_Comm comm, MPI_Comm *out) {
  if (g_keyval == MPI_KEYVAL_INVALID)
    GDS_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_inner, &g_keyval, nullptr));
  void *value = nullptr;
  int found = 0;
  GDS_MPI(MPI_Comm_get_attr(comm, g_keyval, &value, &found));
  if (found != 0) {
    *out = *static_cast<MPI_Comm *>(value);
    return GDS_STATUS_OK;
  }
  auto inner = std::make_unique<MPI_Comm>(MPI_COMM_NULL);
  GDS_MPI(MPI_Comm_dup(comm, inner.get()));
  MPI_Comm_set_errhandler(*inner, MPI_ERRORS_RETURN);
  const int rc = MPI_Comm_set_attr(comm, g_keyval, inner.get());
  if (rc != MPI_SUCCESS) {
    MPI_Comm_free(inner.get());
    return core::mpi_fail(func, "MPI_Comm_set_attr", rc);
  }
  *out = *inner;
  g_inner[*inner] = comm;
  (void)inner.release();
  return GDS_STATUS_OK;
}

void free_inner_comms() {
  const std::map<MPI_Comm, MPI_Comm> all = g_inner;
  for (const auto &[inner, comm] : all) MPI_Comm_delete_attr(comm, g_keyval);  // delete_inner frees it
  g_inner.clear();
  if (g_keyval != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&g_keyval);
}

std::string Domain::describe() const {
  if (!name.empty()) return "CD '" + name + "'";
  return "CD #" + std::to_string(static_cast<std::uint32_t>(handle)) + " (depth " + std::to_string(depth) + ")";
}

GDS_status_t resolve(const char *func, GDS_cd_t cd, std::shared_ptr<Domain> *out, const char *argname) {
  if (cd == GDS_CD_CURRENT) {
    Domain *c = current();
    GDS_CHECK(c != nullptr, GDS_STATUS_NULL_HANDLE, "%s is GDS_CD_CURRENT (CURRENT_CD), and this thread has no current CD",
              argname);
    Ref *r = nullptr;
    (void)g_table.find(c->handle, &r);
    *out = r->domain;
    return GDS_STATUS_OK;
  }
  Ref *r = nullptr;
  const GDS_status_t s = g_table.find(reinterpret_cast<std::uintptr_t>(cd), &r);
  GDS_CHECK(s == GDS_STATUS_OK, s, "%s %s", argname,
            s == GDS_STATUS_FREED_HANDLE ? "is a CD that was committed or discarded" : core::handle_problem(s));
  *out = r->domain;
  return GDS_STATUS_OK;
}

GDS_status_t resolve_own(const char *func, GDS_cd_t cd, std::shared_ptr<Domain> *out) {
  GDS_TRY(resolve(func, cd, out));
  GDS_CHECK((*out)->owner == std::this_thread::get_id(), GDS_STATUS_WRONG_THREAD,
            "cd is %s, which belongs to another thread", (*out)->describe().c_str());
  return GDS_STATUS_OK;
}

std::shared_ptr<Domain> insert(std::unique_ptr<Domain> d) {
  auto ref = std::make_unique<Ref>();
  ref->domain = std::shared_ptr<Domain>(std::move(d));
  std::shared_ptr<Domain> shared = ref->domain;
  shared->handle = g_table.insert(std::move(ref));
  shared->owner = std::this_thread::get_id();
  g_stacks[shared->owner].push_back(shared.get());
  if (shared->parent != nullptr) {
    shared->parent->children.push_back(shared.get());
    ++shared->parent->children_ever;
  }
  return shared;
}

void end(Domain &d) {
  d.live = false;
  auto it = g_stacks.find(d.owner);
  if (it != g_stacks.end()) {
    std::erase(it->second, &d);
    if (it->second.empty()) g_stacks.erase(it);
  }
  if (d.parent != nullptr) std::erase(d.parent->children, &d);
  d.parent = nullptr;
  end_boxes(d);
  close_durable(d);
  Ref *r = nullptr;
  if (g_table.find(d.handle, &r) == GDS_STATUS_OK) (void)g_table.erase(d.handle);  // may free d
}

Domain *current() {
  auto it = g_stacks.find(std::this_thread::get_id());
  return it == g_stacks.end() || it->second.empty() ? nullptr : it->second.back();
}

void make_current(Domain &d) {
  std::vector<Domain *> &stack = g_stacks[d.owner];
  std::erase(stack, &d);
  stack.push_back(&d);
}

bool root_name_taken(const std::string &name) {
  for (const auto &[tid, stack] : g_stacks)
    for (const Domain *d : stack)
      if (d->parent == nullptr && d->name == name) return true;
  return false;
}

std::vector<std::shared_ptr<Domain>> all_domains() {
  std::vector<std::shared_ptr<Domain>> all;
  for (const auto &[tid, stack] : g_stacks)
    for (const Domain *d : stack) {
      Ref *r = nullptr;
      if (g_table.find(d->handle, &r) == GDS_STATUS_OK) all.push_back(r->domain);
    }
  return all;
}

}  // namespace gds::cd
