// The rma module's part of the library's and of every array's life: its
// settings, and each array's window.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

#include "core/collective.hpp"

#include "core/log.hpp"
#include "core/mpi_library.hpp"
#include "core/runtime.hpp"
#include "rma/datatype.hpp"
#include "rma/mpi_checks.hpp"
#include "rma/state.hpp"

namespace gds::rma {

core::HandleTable<OpenAccess> g_accesses{core::HandleKind::access};

namespace {

VersionReader g_version_reader = nullptr;

// Collective over comm: whether a GDS_alloc part of `bytes` bytes here gets
// a shared-memory window (Window::allocate, Settings::allocate_on_one_node):
// two or more processes, all on one node (osc/sm then maps a new shared file: zero-filled;
// over one process it takes the heap, which is not), and room in the
// shared-memory directory for the largest part on every process (below that,
// GDS maps the memory and a too large array is GDS_STATUS_NOMEM before MPI
// sees it).
GDS_status_t allocate_here(const char *func, MPI_Comm comm, std::size_t bytes, bool *use) {
  *use = false;
  if (!core::open_mpi_osc_sm_allowed()) return GDS_STATUS_OK;  // the same environment everywhere (the launcher's)
  int nprocs = 0, here = 0;
  MPI_Comm_size(comm, &nprocs);
  if (nprocs == 1) return GDS_STATUS_OK;
  MPI_Comm local = MPI_COMM_NULL;
  GDS_status_t status = GDS_STATUS_OK;
  if (const int rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local); rc != MPI_SUCCESS) {
    status = core::mpi_fail(func, "MPI_Comm_split_type", rc);  // agreed below: no process is left waiting
  } else {
    MPI_Comm_size(local, &here);
    MPI_Comm_free(&local);
  }
  std::uint64_t learned[2] = {here == nprocs ? 0U : 1U, bytes};  // maxima: "not one node", the largest part
  GDS_TRY(core::agree(func, comm, status, learned));
  if (learned[0] != 0) return GDS_STATUS_OK;
  constexpr std::uint64_t kSlack = std::uint64_t{1} << 20;  // per process: Open MPI's state and alignment
  const std::uint64_t room = core::open_mpi_shared_window_room();
  std::uint64_t short_of_room[1] = {room / static_cast<std::uint64_t>(nprocs) < learned[1] + kSlack ? 1U : 0U};
  GDS_TRY(core::agree(func, comm, GDS_STATUS_OK, short_of_room));
  *use = short_of_room[0] == 0;
  return GDS_STATUS_OK;
}

// Collective over comm, after a shared window was made: whether every
// process's part has its pages now. Open MPI sizes the shared file without
// writing it, so the room allocate_here saw may be promised twice (arrays not
// yet written); a store into a page the file system cannot give is SIGBUS.
// MADV_POPULATE_WRITE gives every page now or fails (Linux 5.14; on older
// kernels nothing is vouched for and the array takes GDS's own memory).
bool shared_memory_backed(const char *func, MPI_Comm comm, std::byte *base, std::size_t bytes) {
  bool ok = true;
  if (bytes > 0) {
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto first = reinterpret_cast<std::uintptr_t>(base) & ~(page - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(base) + bytes + page - 1) & ~(page - 1);
    ok = madvise(reinterpret_cast<void *>(first), end - first, MADV_POPULATE_WRITE) == 0;
  }
  std::uint64_t short_of_pages[1] = {ok ? 0U : 1U};
  return core::agree(func, comm, GDS_STATUS_OK, short_of_pages) == GDS_STATUS_OK && short_of_pages[0] == 0;
}

class Rma final : public core::Module {
 public:
  [[nodiscard]] core::Layer layer() const override { return ArrayState::kLayer; }
  [[nodiscard]] const char *name() const override { return "rma"; }

  void configure() override {
    g_settings = Settings{};
    core::env_unsigned("GDS_OUTSTANDING_RMA_OPS_MAX", UINT64_MAX, &g_settings.outstanding_ops_max);
    core::env_unsigned("GDS_ACC_SEGMENT_SIZE", UINT64_MAX, &g_settings.acc_segment_size);
    g_settings.flush_all_completes = flush_all_completes_puts();
    const core::MpiLibrary lib = core::mpi_library();
    const bool open_mpi_4 = lib.family == core::MpiLibrary::Family::open_mpi && lib.major == 4;
    g_settings.self_cas_in_memory = open_mpi_4;
    g_settings.get_acc_runs_only = open_mpi_4;
    g_settings.float_complex_sum_as_floats = open_mpi_4;
    g_settings.small_int_sums_in_pieces = small_int_sums_saturate(core::g_rt.world);
    g_settings.allocate_on_one_node = lib.family == core::MpiLibrary::Family::open_mpi;
    std::uint64_t may_change_mpi = 1;
    core::env_unsigned("GDS_MPI_T_WORKAROUNDS", 1, &may_change_mpi);
    check_unsigned_min_max(core::g_rt.world, may_change_mpi != 0);
    // The same on every process: said once per job.
    if (unsigned_min_max() != UnsignedMinMax::correct && core::debug_level() >= 1 && core::g_rt.world_rank == 0)
      core::log(core::Level::warning, "GDS_init", "%s", unsigned_min_max_note());
  }

  void show_info() const override {
    core::log(core::Level::info, "GDS_init", "GDS_OUTSTANDING_RMA_OPS_MAX=%llu GDS_ACC_SEGMENT_SIZE=%llu",
              static_cast<unsigned long long>(g_settings.outstanding_ops_max),
              static_cast<unsigned long long>(g_settings.acc_segment_size));
    if (unsigned_min_max() != UnsignedMinMax::correct)
      core::log(core::Level::info, "GDS_init", "%s", unsigned_min_max_note());
  }

  void finalize() override {
    clear_type_cache();
    restore_mpi_settings();
  }

  GDS_status_t prepare(const char *, const core::ArraySpec &, MPI_Info, core::Signature &,
                       std::unique_ptr<core::ArrayState> *state) override {
    *state = std::make_unique<ArrayState>();
    return GDS_STATUS_OK;
  }

  // GDS_alloc: GDS maps the memory (zero-filled) and every process agrees
  // that all have it before the window is made; or, with Open MPI over one
  // node, MPI allocates it (allocate_here). GDS_create: the window exposes
  // the application's buffer.
  GDS_status_t attach(const char *func, core::Array &a) override {
    ArrayState &s = state(a);
    const std::size_t bytes = a.local_count * a.type->extent;
    const int disp_unit = static_cast<int>(a.type->extent);
    if (a.blocks == nullptr) {
      s.base = static_cast<std::byte *>(a.user_buffer);
    } else {
      bool by_mpi = false;
      if (g_settings.allocate_on_one_node) GDS_TRY(allocate_here(func, a.communicator(), bytes, &by_mpi));
      if (by_mpi) {
        GDS_TRY(s.window.allocate(func, a.communicator(), static_cast<MPI_Aint>(bytes), disp_unit, &s.base));
        if (shared_memory_backed(func, a.communicator(), s.base, bytes)) return GDS_STATUS_OK;
        GDS_TRY(s.window.free(func));  // no room after all: GDS's own memory, as below
        s.base = nullptr;
      }
      GDS_TRY(core::agree(func, a.communicator(), s.memory.map(func, bytes)));
      s.base = s.memory.data();
    }
    return s.window.create(func, a.communicator(), s.base, static_cast<MPI_Aint>(bytes), disp_unit, a.blocks == nullptr);
  }

  // Every operation completes before the collective MPI_Win_free, so a
  // failure is found (and agreed on) while the array can still be kept.
  GDS_status_t prepare_free(const char *func, core::Array &a) const override {
    ArrayState &s = state(a);
    if (!s.accesses.empty())
      return core::fail(GDS_STATUS_ACCESS_CONFLICT, func,
                        "%zu region(s) of the array are still open by GDS_access; call GDS_release first",
                        s.accesses.size());
    return s.window.complete_remote(func);
  }

  GDS_status_t detach(const char *func, core::Array &a) override {
    ArrayState &s = state(a);
    for (std::uint64_t h : s.accesses) g_accesses.erase(h);  // GDS_finalize frees arrays with regions open
    s.accesses.clear();
    return s.window.free(func);
  }
};

Rma g_module;

}  // namespace

void set_version_reader(VersionReader reader) { g_version_reader = reader; }
VersionReader version_reader() { return g_version_reader; }

core::Module &module() { return g_module; }

}  // namespace gds::rma
