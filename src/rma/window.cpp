// The only file that calls MPI_Win_* and the MPI RMA operations.
#include "rma/window.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/mpi_handles.hpp"
#include "core/mpi_library.hpp"

namespace gds::rma {

Settings g_settings;

namespace {

// Hints every GDS window gets. Accumulate ordering stays MPI's default (one
// origin's accumulates to one location apply in order), so a get_acc after an
// acc from the same process sees it.
void set_window_hints(core::InfoObject &info) {
  info.set("same_disp_unit", "true");
  info.set("accumulate_ops", "same_op_no_op");
}

GDS_status_t checked(const char *func, const char *call, int rc) {
  return rc == MPI_SUCCESS ? GDS_STATUS_OK : core::mpi_fail(func, call, rc);
}

std::uint64_t g_fail_rma_after = 0;

// Whether this RMA operation is the one GDS_inject_fault asked to fail.
inline bool injected() { return g_fail_rma_after != 0 && --g_fail_rma_after == 0; }
std::uint64_t g_fail_sync_after = 0;

// The largest named MPI type is 32 bytes (MPI_C_LONG_DOUBLE_COMPLEX): runs of
// at most acc_segment_size / 32 elements are never split, without asking MPI.
constexpr int kMaxNamedSize = 32;

const void *advance(const void *p, MPI_Aint bytes) {
  return p == nullptr ? nullptr : static_cast<const std::byte *>(p) + bytes;
}

}  // namespace

Window::Segments Window::segments(int count, MPI_Datatype type) const {
  const std::uint64_t seg = g_settings.acc_segment_size;
  if (seg == 0 || static_cast<std::uint64_t>(count) <= seg / kMaxNamedSize) return {};  // the usual case
  // `count` repetitions of `type` lie one extent apart, so any split at
  // repetition boundaries describes the same elements.
  int size = 0;
  MPI_Aint lb = 0, extent = 0;
  if (MPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0 ||
      static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size) <= seg ||
      MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS || extent % mpi_unit() != 0)
    return {};
  // seg / size < count, so it fits an int.
  return {static_cast<int>(std::max<std::uint64_t>(1, seg / static_cast<std::uint64_t>(size))), extent,
          extent / mpi_unit()};
}

void inject_rma_failure(std::uint64_t after) { g_fail_rma_after = after; }
void inject_sync_failure(std::uint64_t after) { g_fail_sync_after = after; }

Window::~Window() {
  if (win_ != MPI_WIN_NULL)
    core::log(core::Level::error, "GDS", "an MPI window was left unfreed (its collective free never ran)");
}

GDS_status_t Window::create(const char *func, MPI_Comm comm, void *base, MPI_Aint bytes,
                            int disp_unit, bool anywhere) {
  return make(func, comm, bytes, disp_unit, base, nullptr, anywhere);
}

GDS_status_t Window::allocate(const char *func, MPI_Comm comm, MPI_Aint bytes, int disp_unit, std::byte **base) {
  *base = nullptr;
  return make(func, comm, bytes, disp_unit, nullptr, base);
}

GDS_status_t Window::make(const char *func, MPI_Comm comm, MPI_Aint bytes, int disp_unit, void *base,
                          std::byte **allocated, bool anywhere) {
  disp_unit_ = disp_unit;
  base_ = static_cast<unsigned char *>(base);
  shared_ = allocated != nullptr;
  GDS_TRY(checked(func, "MPI_Comm_rank", MPI_Comm_rank(comm, &rank_)));
  core::InfoObject info;
  set_window_hints(info);
  int nprocs = 0;
  GDS_TRY(checked(func, "MPI_Comm_size", MPI_Comm_size(comm, &nprocs)));
  local_.resize(nprocs);
  remote_.resize(nprocs);
  if (allocated == nullptr && core::open_mpi_window_files_checked())  // osc/rdma's; osc/sm names its files apart
    GDS_TRY(core::agree(func, comm, core::check_open_mpi_window_files(func, comm)));
  const char *call = allocated != nullptr ? "MPI_Win_allocate_shared" : "MPI_Win_create";
  int rc = MPI_SUCCESS;
  if (allocated != nullptr) {
    void *memory = nullptr;
    // Shared, not MPI_Win_allocate: Open MPI 4.1's osc/rdma takes those and
    // crashes on an 8-byte compare-and-swap to another process
    // (tests/mpi_bugs/cas_allocate_8byte.c); osc/sm serves shared windows.
    MPI_Info_set(info.get(), "alloc_shared_noncontig", "true");
    rc = MPI_Win_allocate_shared(bytes, disp_unit, info.get(), comm, &memory, &win_);
    if (rc == MPI_SUCCESS) {
      *allocated = static_cast<std::byte *>(memory);
      base_ = static_cast<unsigned char *>(memory);
    }
  } else {
    // A program's buffer (GDS_create) may start anywhere: see skew_.
    constexpr std::uintptr_t kAlign = 16;
    const auto mine = static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(base) % kAlign);
    MPI_Aint most = 0;
    skew_.clear();
    if (anywhere) GDS_TRY(checked(func, "MPI_Allreduce", MPI_Allreduce(&mine, &most, 1, MPI_AINT, MPI_MAX, comm)));
    if (most != 0) {
      skew_.resize(static_cast<std::size_t>(nprocs));
      GDS_TRY(checked(func, "MPI_Allgather", MPI_Allgather(&mine, 1, MPI_AINT, skew_.data(), 1, MPI_AINT, comm)));
    }
    rc = skew_.empty() ? MPI_Win_create(base, bytes, disp_unit, info.get(), comm, &win_)
                       : MPI_Win_create(static_cast<unsigned char *>(base) - mine, bytes + mine, 1, info.get(), comm, &win_);
  }
  if (rc != MPI_SUCCESS && allocated == nullptr && core::open_mpi_one_process_window_bug(nprocs)) {
    core::mpi_fail(func, call, rc);
    return core::fail(GDS_STATUS_MPI_ERROR, func,
                      "Open MPI 4 could not make an RMA window over one process: its osc/rdma cannot and no other "
                      "component is allowed (Debian's openmpi-mca-params.conf; open-mpi/ompi#10726). Run with "
                      "OMPI_MCA_osc=sm,rdma,pt2pt (or let GDS_init initialise MPI: it sets that)");
  }
  GDS_TRY(checked(func, call, rc));
  MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN);
  return checked(func, "MPI_Win_lock_all", MPI_Win_lock_all(MPI_MODE_NOCHECK, win_));
}

GDS_status_t Window::free(const char *func) {
  if (win_ == MPI_WIN_NULL) return GDS_STATUS_OK;
  // Flushed per target first: MPICH 4.0.2's MPI_Win_unlock_all can miss small puts (window.hpp).
  GDS_status_t s = complete_remote(func);
  const GDS_status_t u = checked(func, "MPI_Win_unlock_all", MPI_Win_unlock_all(win_));
  if (s == GDS_STATUS_OK) s = u;
  const GDS_status_t f = checked(func, "MPI_Win_free", MPI_Win_free(&win_));
  win_ = MPI_WIN_NULL;
  return s != GDS_STATUS_OK ? s : f;
}

GDS_status_t Window::put(const char *func, const void *origin, int ocount, MPI_Datatype otype,
                         int target, MPI_Aint disp, int tcount, MPI_Datatype ttype) {
  put_after_get_ = put_after_get_ || got_;
  disp = at(target, disp);
  GDS_TRY(checked(func, "MPI_Put",
                  injected() ? MPI_ERR_OTHER : MPI_Put(origin, ocount, otype, target, disp, tcount, ttype, win_)));
  return noted(func, target);
}

GDS_status_t Window::get(const char *func, void *origin, int ocount, MPI_Datatype otype, int target,
                         MPI_Aint disp, int tcount, MPI_Datatype ttype) {
  got_ = true;
  disp = at(target, disp);
  GDS_TRY(checked(func, "MPI_Get",
                  injected() ? MPI_ERR_OTHER : MPI_Get(origin, ocount, otype, target, disp, tcount, ttype, win_)));
  return noted(func, target);
}

GDS_status_t Window::accumulate(const char *func, const void *origin, int ocount,
                                MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
                                MPI_Datatype ttype, MPI_Op op) {
  if (injected()) return checked(func, "MPI_Accumulate", MPI_ERR_OTHER);
  disp = at(target, disp);
  const Segments seg = ocount == tcount && otype == ttype ? segments(ocount, otype) : Segments{};
  const int rc = seg.elements == 0
                     ? MPI_Accumulate(origin, ocount, otype, target, disp, tcount, ttype, op, win_)
                     : each_segment(ocount, seg, [&](int n, MPI_Aint bytes, MPI_Aint elements) {
                         return MPI_Accumulate(advance(origin, bytes), n, otype, target, disp + elements, n, ttype,
                                               op, win_);
                       });
  // Segments issued before one failed are completed like any operation.
  const GDS_status_t issued = rc == MPI_SUCCESS || seg.elements > 0 ? noted(func, target) : GDS_STATUS_OK;
  return rc != MPI_SUCCESS ? checked(func, "MPI_Accumulate", rc) : issued;
}

GDS_status_t Window::get_accumulate(const char *func, const void *origin, int ocount,
                                    MPI_Datatype otype, void *result, int rcount,
                                    MPI_Datatype rtype, int target, MPI_Aint disp, int tcount,
                                    MPI_Datatype ttype, MPI_Op op) {
  if (injected()) return checked(func, "MPI_Get_accumulate", MPI_ERR_OTHER);
  disp = at(target, disp);
  const Segments seg = ocount == tcount && ocount == rcount && otype == ttype && otype == rtype
                           ? segments(ocount, otype)
                           : Segments{};
  const int rc = seg.elements == 0
                     ? MPI_Get_accumulate(origin, ocount, otype, result, rcount, rtype, target, disp, tcount, ttype,
                                          op, win_)
                     : each_segment(ocount, seg, [&](int n, MPI_Aint bytes, MPI_Aint elements) {
                         return MPI_Get_accumulate(advance(origin, bytes), n, otype,
                                                   static_cast<std::byte *>(result) + bytes, n, rtype, target,
                                                   disp + elements, n, ttype, op, win_);
                       });
  // Segments issued before one failed are completed like any operation.
  const GDS_status_t issued = rc == MPI_SUCCESS || seg.elements > 0 ? noted(func, target) : GDS_STATUS_OK;
  return rc != MPI_SUCCESS ? checked(func, "MPI_Get_accumulate", rc) : issued;
}

GDS_status_t Window::compare_and_swap(const char *func, const void *origin, const void *compare,
                                      void *result, MPI_Datatype type, int target, MPI_Aint disp) {
  int size = 0;
  // Not on a shared window: osc/sm swaps under its own lock, which a CPU atomic here would not take.
  if (g_settings.self_cas_in_memory && !shared_ && target == rank_ && MPI_Type_size(type, &size) == MPI_SUCCESS &&
      size == 8)
    return compare_and_swap_in_memory(func, origin, compare, result, disp);
  GDS_TRY(checked(func, "MPI_Compare_and_swap",
                  injected() ? MPI_ERR_OTHER
                             : MPI_Compare_and_swap(origin, compare, result, type, target, at(target, disp), win_)));
  return noted(func, target);
}

// Open MPI 4.1's osc/rdma over btl/vader emulates 8-byte atomics by a
// message to the target, and has no vader endpoint for the process itself:
// MPI_Compare_and_swap on one's own memory crashes (4-byte ones take another
// path). Done here instead, after the process's earlier operations to itself
// completed: the other processes' emulated atomics on this memory are
// executed with the CPU's atomics too (by this process, on receipt), so the
// swap stays atomic with respect to them.
GDS_status_t Window::compare_and_swap_in_memory(const char *func, const void *origin, const void *compare,
                                                void *result, MPI_Aint disp) {
  GDS_TRY(flush(func, rank_));
  GDS_TRY(sync(func));
  auto *word = reinterpret_cast<std::uint64_t *>(base_ + disp * disp_unit_);
  std::uint64_t expected = 0, desired = 0;
  std::memcpy(&expected, compare, sizeof expected);
  std::memcpy(&desired, origin, sizeof desired);
  __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  std::memcpy(result, &expected, sizeof expected);  // the old value, swapped or not
  return sync(func);
}

GDS_status_t Window::noted_slow(const char *func, int target) {
  local_.add(target);
  remote_.add(target);
  last_ = target;
  const std::uint64_t max = g_settings.outstanding_ops_max;
  if (max == 0 || ++ops_ < max) return GDS_STATUS_OK;
  if (core::debug_level() >= 2)
    core::log(core::Level::debug, func, "%llu operations outstanding (GDS_OUTSTANDING_RMA_OPS_MAX); completing them",
              static_cast<unsigned long long>(max));
  return complete_local(func);
}

void Window::forget_local() {
  local_.clear();
  last_ = -1;
  ops_ = 0;
  got_ = put_after_get_ = false;
}

GDS_status_t Window::flush_local_one(const char *func, int target) {
  last_ = -1;  // the next operation is noted again
  return checked(func, "MPI_Win_flush_local", MPI_Win_flush_local(target, win_));
}

GDS_status_t Window::complete_local_slow(const char *func) {
  // The remote flushes of the MPICH workaround (put_after_get_) complete locally as well.
  GDS_status_t s = GDS_STATUS_OK;
  if (local_.size() > kMaxTargets && g_settings.flush_all_completes)
    s = put_after_get_ ? checked(func, "MPI_Win_flush_all", MPI_Win_flush_all(win_))
                       : checked(func, "MPI_Win_flush_local_all", MPI_Win_flush_local_all(win_));
  else
    for (const int t : local_.list())
      if (s == GDS_STATUS_OK) s = put_after_get_ ? flush(func, t) : flush_local_one(func, t);
  forget_local();
  return s;
}

GDS_status_t Window::complete_remote(const char *func) {
  GDS_status_t s = GDS_STATUS_OK;
  if (remote_.size() > kMaxTargets && g_settings.flush_all_completes)
    s = checked(func, "MPI_Win_flush_all", MPI_Win_flush_all(win_));
  else
    for (const int t : remote_.list())
      if (s == GDS_STATUS_OK) s = flush(func, t);
  remote_.clear();
  forget_local();
  return s;
}

bool flush_all_completes_puts() {
  const core::MpiLibrary lib = core::mpi_library();
  if (lib.family != core::MpiLibrary::Family::mpich) return true;
  return lib.major > 4 || (lib.major == 4 && lib.minor >= 1);
}

GDS_status_t Window::flush(const char *func, int target) {
  return checked(func, "MPI_Win_flush", MPI_Win_flush(target, win_));
}

GDS_status_t Window::sync(const char *func) {
  const bool fail = g_fail_sync_after != 0 && --g_fail_sync_after == 0;
  return checked(func, "MPI_Win_sync", fail ? MPI_ERR_OTHER : MPI_Win_sync(win_));
}

}  // namespace gds::rma
