#include "rma/mpi_checks.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/mpi_library.hpp"
#include "core/mpi_optional.hpp"
#include "rma/window.hpp"

namespace gds::rma {
namespace {

constexpr const char *kYaksaReduction = "MPIR_CVAR_ENABLE_YAKSA_REDUCTION";

UnsignedMinMax g_unsigned = UnsignedMinMax::correct;
bool g_complex32_broken = false;  // MPICH: MPI_SUM and MPI_PROD of MPI_COMPLEX32 hang or are wrong
bool g_logical_broken = false;  // Open MPI 4.1's osc/rdma: MPI_LAND, MPI_LOR, MPI_LXOR change nothing
bool g_pairs_broken = false;    // Open MPI 4.1's osc/rdma: pair types with a gap, past the first element
bool g_quad_broken = false;     // Open MPI 4.1: MPI_REAL16/MPI_COMPLEX32 arithmetic not in quad precision
bool g_offset_broken = false;   // Open MPI 4.1's osc/pt2pt: MPI_MAX/MPI_MIN of MPI_OFFSET
bool g_tool_initialized = false;
bool g_restore_yaksa = false;
int g_yaksa_before = 1;

// Whether MAX and MIN of unsigned values come out right in accumulates and
// get_accumulates to the next process (itself when alone). Every process
// returns the same answer; an MPI failure counts as wrong.
bool unsigned_min_max_right(MPI_Comm comm) {
  const char *func = "GDS_init";
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nprocs);
  std::vector<const core::ElementType *> types;
  for (const core::ElementType &t : core::element_types())
    if (t.mpi != MPI_DATATYPE_NULL && t.is_unsigned) types.push_back(&t);
  // Per type, three 8-byte slots: MAX target, MIN target, get_accumulate MAX target.
  const std::size_t bytes = types.size() * 3 * 8;
  std::vector<unsigned char> memory(bytes);
  Window w;
  if (core::agree(func, comm, w.create(func, comm, memory.data(), static_cast<MPI_Aint>(bytes), 1)) != GDS_STATUS_OK)
    return false;
  unsigned char *mem = memory.data();
  std::vector<unsigned char> fetched(types.size() * 8, 0);
  constexpr bool little = std::endian::native == std::endian::little;
  unsigned char zero[8] = {}, one[8] = {}, top[8] = {};
  // 1 and the top bit of an n-byte unsigned integer.
  const auto set_values = [&](std::size_t n) {
    std::memset(one, 0, sizeof one);
    std::memset(top, 0, sizeof top);
    one[little ? 0 : n - 1] = 1;
    top[little ? n - 1 : 0] = 0x80;
  };
  for (std::size_t k = 0; k < types.size(); ++k) {
    set_values(types[k]->extent);
    for (int s = 0; s < 3; ++s) std::memcpy(mem + (3 * k + s) * 8, top, types[k]->extent);
  }
  GDS_status_t s = w.sync(func);
  s = core::agree(func, comm, s);  // everyone's slots are set before anyone accumulates
  const int next = (rank + 1) % nprocs;
  for (std::size_t k = 0; k < types.size() && s == GDS_STATUS_OK; ++k) {
    set_values(types[k]->extent);
    const MPI_Datatype t = types[k]->mpi;
    const auto at = static_cast<MPI_Aint>(3 * k * 8);
    s = w.accumulate(func, zero, 1, t, next, at, 1, t, MPI_MAX);
    if (s == GDS_STATUS_OK) s = w.accumulate(func, one, 1, t, next, at + 8, 1, t, MPI_MIN);
    if (s == GDS_STATUS_OK)
      s = w.get_accumulate(func, zero, 1, t, fetched.data() + k * 8, 1, t, next, at + 16, 1, t, MPI_MAX);
  }
  if (s == GDS_STATUS_OK) s = w.complete_remote(func);
  s = core::agree(func, comm, s);
  if (s == GDS_STATUS_OK) s = w.sync(func);
  bool right = s == GDS_STATUS_OK;
  for (std::size_t k = 0; k < types.size() && right; ++k) {
    const std::size_t n = types[k]->extent;
    set_values(n);
    right = std::memcmp(mem + 3 * k * 8, top, n) == 0 &&          // MAX(x, 0) = x
            std::memcmp(mem + (3 * k + 1) * 8, one, n) == 0 &&    // MIN(x, 1) = 1
            std::memcmp(mem + (3 * k + 2) * 8, top, n) == 0 &&    // get_acc MAX(x, 0) = x
            std::memcmp(fetched.data() + k * 8, top, n) == 0;     // and fetched x
  }
  const GDS_status_t freed = w.free(func);
  const GDS_status_t all = core::agree(func, comm, right && freed == GDS_STATUS_OK ? GDS_STATUS_OK : GDS_STATUS_MPI_BUG);
  return all == GDS_STATUS_OK;
}

// Whether logical ops come out right in accumulates to the next process
// (itself when alone): LAND(2, 3) = 1, LOR(0, 3) = 1, LXOR(2, 0) = 1 on
// MPI_INT. Every process returns the same answer.
bool logical_ops_right(MPI_Comm comm) {
  const char *func = "GDS_init";
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nprocs);
  int memory[4] = {2, 0, 2, 0};
  Window w;
  if (core::agree(func, comm, w.create(func, comm, memory, static_cast<MPI_Aint>(sizeof memory), 1)) != GDS_STATUS_OK)
    return false;
  GDS_status_t s = core::agree(func, comm, w.sync(func));
  const int next = (rank + 1) % nprocs;
  const int three = 3, zero = 0;
  if (s == GDS_STATUS_OK) s = w.accumulate(func, &three, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_LAND);
  if (s == GDS_STATUS_OK) s = w.accumulate(func, &three, 1, MPI_INT, next, 4, 1, MPI_INT, MPI_LOR);
  if (s == GDS_STATUS_OK) s = w.accumulate(func, &zero, 1, MPI_INT, next, 8, 1, MPI_INT, MPI_LXOR);
  if (s == GDS_STATUS_OK) s = w.complete_remote(func);
  s = core::agree(func, comm, s);
  if (s == GDS_STATUS_OK) s = w.sync(func);
  const bool right = s == GDS_STATUS_OK && memory[0] == 1 && memory[1] == 1 && memory[2] == 1;
  const GDS_status_t freed = w.free(func);
  return core::agree(func, comm, right && freed == GDS_STATUS_OK ? GDS_STATUS_OK : GDS_STATUS_MPI_BUG) ==
         GDS_STATUS_OK;
}

// Whether the type's elements hold bytes MPI does not (MPI_DOUBLE_INT: 12 of 16).
bool has_gap(const core::ElementType &type) {
  int size = 0;
  return MPI_Type_size(type.mpi, &size) == MPI_SUCCESS && static_cast<std::size_t>(size) != type.extent;
}

// Sets MPICH's yaksa-reduction control variable to `value`; false if this
// MPI has no such variable or refuses the change.
bool set_yaksa_reduction(int value, int *before) {
  if (!g_tool_initialized) {
    int provided = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return false;
    g_tool_initialized = true;
  }
  int index = -1;
  if (MPI_T_cvar_get_index(kYaksaReduction, &index) != MPI_SUCCESS) return false;
  MPI_T_cvar_handle handle;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) return false;
  bool ok = count == 1;
  if (ok && before != nullptr) ok = MPI_T_cvar_read(handle, before) == MPI_SUCCESS;
  if (ok) ok = MPI_T_cvar_write(handle, &value) == MPI_SUCCESS;
  MPI_T_cvar_handle_free(&handle);
  return ok;
}

}  // namespace

void check_unsigned_min_max(MPI_Comm comm, bool may_change_mpi) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  g_complex32_broken = MPI_COMPLEX32 != MPI_DATATYPE_NULL &&
                       MPI_Get_library_version(version, &length) == MPI_SUCCESS &&
                       std::strstr(version, "MPICH") != nullptr;
  g_logical_broken = !logical_ops_right(comm);
  const core::MpiLibrary lib = core::mpi_library();
  // A probe of pairs could hang (it does in logical_and_pairs.c): by version.
  g_pairs_broken = lib.family == core::MpiLibrary::Family::open_mpi && lib.major == 4;
  // Wrong with no error, at 1 process or all (tests/mpi_bugs/acc_wrong_types.c): by version too.
  g_quad_broken = g_pairs_broken;
  g_offset_broken = g_pairs_broken;
  g_unsigned = UnsignedMinMax::correct;
  if (unsigned_min_max_right(comm)) return;
  g_unsigned = UnsignedMinMax::refused;
  // The control variable is MPICH's (and its derivatives'); Open MPI's MPI_T
  // is left alone: its MPI_T_init_thread (4.1) resets the thread level
  // MPI_Query_thread reports to the one MPI_T was given.
  if (!may_change_mpi || lib.family == core::MpiLibrary::Family::open_mpi) return;
  // Every process changes the variable (MPICH wants it equal everywhere) or none does.
  const bool set = set_yaksa_reduction(0, &g_yaksa_before);
  if (core::agree("GDS_init", comm, set ? GDS_STATUS_OK : GDS_STATUS_MPI_BUG) != GDS_STATUS_OK) {
    if (set) set_yaksa_reduction(g_yaksa_before, nullptr);
    return;
  }
  g_restore_yaksa = true;
  if (unsigned_min_max_right(comm)) g_unsigned = UnsignedMinMax::corrected;
}

bool small_int_sums_saturate(MPI_Comm comm) {
  // 16 one-byte and 8 two-byte sums that wrap (0xf0 + 0x20 = 0x10): vector code that saturates gives 0xff.
  std::uint8_t a[16], b[16];
  std::uint16_t c[8], d[8];
  for (int i = 0; i < 16; ++i) a[i] = 0xf0, b[i] = 0x20;
  for (int i = 0; i < 8; ++i) c[i] = 0xfff0, d[i] = 0x20;
  int wrong = MPI_Reduce_local(a, b, 16, MPI_UINT8_T, MPI_SUM) != MPI_SUCCESS ||
              MPI_Reduce_local(c, d, 8, MPI_UINT16_T, MPI_SUM) != MPI_SUCCESS;
  for (int i = 0; i < 16; ++i) wrong |= b[i] != 0x10;
  for (int i = 0; i < 8; ++i) wrong |= d[i] != 0x10;
  int any = wrong;
  core::allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, comm);
  return any != 0;
}

UnsignedMinMax unsigned_min_max() { return g_unsigned; }

const char *unsigned_min_max_note() {
  switch (g_unsigned) {
    case UnsignedMinMax::correct: return "MPI computes MPI_MAX and MPI_MIN of unsigned integers right";
    case UnsignedMinMax::corrected:
      return "this MPI computed MPI_MAX and MPI_MIN of unsigned integers as signed (MPICH issue 6083); "
             "MPIR_CVAR_ENABLE_YAKSA_REDUCTION=0 set until GDS_finalize corrects it";
    case UnsignedMinMax::refused:
      return "this MPI computes MPI_MAX and MPI_MIN of unsigned integers in RMA as signed (MPICH 4.0: issue "
             "6083; Open MPI 4.1: its osc/rdma) and GDS could not correct it (it can for MPICH only, through "
             "MPIR_CVAR_ENABLE_YAKSA_REDUCTION, unless GDS_MPI_T_WORKAROUNDS=0): GDS_acc and GDS_get_acc "
             "refuse them with GDS_STATUS_MPI_BUG";
  }
  return "";
}

const char *op_computed_wrong(MPI_Op op, const core::ElementType &type) {
  if (g_unsigned == UnsignedMinMax::refused && type.is_unsigned && (op == MPI_MAX || op == MPI_MIN))
    return "this MPI compares unsigned integers as signed in RMA (MPICH 4.0: issue 6083; Open MPI 4.1: its "
           "osc/rdma; tests/mpi_bugs/unsigned_max_min.c) and GDS could not correct it (it can for MPICH only, "
           "unless GDS_MPI_T_WORKAROUNDS=0)";
  if (g_logical_broken && (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR))
    return "this MPI's accumulates ignore MPI_LAND, MPI_LOR and MPI_LXOR (Open MPI 4.1's osc/rdma; "
           "tests/mpi_bugs/logical_and_pairs.c)";
  if (g_pairs_broken && type.cls == core::TypeClass::pair && has_gap(type))
    return "this MPI's accumulates of (value, index) pair types with a gap (MPI_DOUBLE_INT, MPI_SHORT_INT, ...) "
           "change only some elements or never complete (Open MPI 4.1's osc/rdma; tests/mpi_bugs/logical_and_pairs.c)";
  const bool arithmetic = op == MPI_SUM || op == MPI_PROD || op == MPI_MAX || op == MPI_MIN;
  if (g_quad_broken && arithmetic && type.mpi != MPI_DATATYPE_NULL &&
      (type.mpi == MPI_REAL16 || type.mpi == MPI_COMPLEX32))
    return "this MPI's accumulates do not compute MPI_REAL16 and MPI_COMPLEX32 (IEEE quad precision) in quad "
           "precision: sums leave the target unchanged or wrong (Open MPI 4.1; tests/mpi_bugs/acc_wrong_types.c)";
  if (g_offset_broken && type.mpi == MPI_OFFSET && (op == MPI_MAX || op == MPI_MIN))
    return "this MPI's accumulates compute MPI_MAX and MPI_MIN of MPI_OFFSET wrongly over one process (Open MPI "
           "4.1's osc/pt2pt; tests/mpi_bugs/acc_wrong_types.c)";
  if (g_complex32_broken && type.mpi == MPI_COMPLEX32 && (op == MPI_SUM || op == MPI_PROD))
    return "MPICH's accumulates of MPI_COMPLEX32 with MPI_SUM or MPI_PROD never complete or compute wrongly "
           "(tests/mpi_bugs/complex32_sum_prod.c)";
  return nullptr;
}

void restore_mpi_settings() {
  if (g_restore_yaksa) set_yaksa_reduction(g_yaksa_before, nullptr);
  g_restore_yaksa = false;
  if (g_tool_initialized) MPI_T_finalize();
  g_tool_initialized = false;
  g_unsigned = UnsignedMinMax::correct;
}

}  // namespace gds::rma
