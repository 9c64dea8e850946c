// MPI library bugs that GDS checks for at GDS_init because no change to how
// it calls MPI avoids them.
//
// MPICH 4.0.2 (pmodels/mpich#6083, fixed in 4.1; its yaksa reductions treat
// unsigned integers as signed): MPI_Accumulate and MPI_Get_accumulate with
// MPI_MAX or MPI_MIN on an unsigned type compare as signed, so MAX(0, x)
// with x's top bit set leaves 0. GDS_init tries it on the processes' own
// windows; if the results are wrong it turns MPICH's yaksa reductions off
// through the MPI tool interface (control variable
// MPIR_CVAR_ENABLE_YAKSA_REDUCTION, restored at GDS_finalize) and tries
// again; if they are still wrong (or GDS_MPI_T_WORKAROUNDS=0 forbids the
// change) MAX and MIN on unsigned types are refused with GDS_STATUS_MPI_BUG.
// Reproducer: tests/mpi_bugs/unsigned_max_min.c.
//
// MPICH 4.0.2 (found by tests/test_grid.cpp): accumulates of MPI_COMPLEX32
// with MPI_SUM or MPI_PROD never complete with yaksa reductions off (what
// the check above sets) and compute wrongly with them on. A probe could
// hang, so on MPICH (by its library version) GDS refuses the two with
// GDS_STATUS_MPI_BUG. Reproducer: tests/mpi_bugs/complex32_sum_prod.c.
//
// Open MPI 4.1.4 (osc/rdma over btl/vader, the windows GDS makes with
// MPI_Win_create): accumulates with MPI_LAND, MPI_LOR and MPI_LXOR change
// nothing, and accumulates of several (value, index) pairs with a gap
// (MPI_DOUBLE_INT: 12 bytes in 16; MPI_SHORT_INT) with any op change only
// some of them, or never complete. GDS_init tries the logical ops on the
// processes' own windows and refuses them if they come out wrong; it refuses
// accumulates of pairs with a gap on Open MPI 4 by its version (a probe
// could hang), with GDS_STATUS_MPI_BUG. Its
// unsigned MAX and MIN are wrong too (the check above; nothing corrects it).
// Reproducers: tests/mpi_bugs/logical_and_pairs.c, unsigned_max_min.c.
#pragma once

#include <mpi.h>

#include "core/datatypes.hpp"

namespace gds::rma {

enum class UnsignedMinMax { correct, corrected, refused };

// Collective over comm (GDS_COMM_WORLD, at GDS_init).
void check_unsigned_min_max(MPI_Comm comm, bool may_change_mpi);
[[nodiscard]] UnsignedMinMax unsigned_min_max();
// One line on the outcome, for GDS_SHOW_INFO and warnings.
[[nodiscard]] const char *unsigned_min_max_note();
// Why MPI does not compute `op` on `type` correctly (refuse it), or nullptr.
[[nodiscard]] const char *op_computed_wrong(MPI_Op op, const core::ElementType &type);
// Whether this MPI adds 1- and 2-byte integers with saturation in runs of 16
// bytes or more (Open MPI 4.1's op/avx; tests/mpi_bugs/small_int_sum.c): asks
// MPI_Reduce_local on every process of comm (collective), the same answer everywhere.
[[nodiscard]] bool small_int_sums_saturate(MPI_Comm comm);
// GDS_finalize: gives MPI back its own settings.
void restore_mpi_settings();

}  // namespace gds::rma
