// Which MPI library GDS runs on, from MPI_Get_library_version (callable
// before MPI_Init): workarounds for one library's bugs are switched on by
// it, never by what the build found.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "gds_types.h"

namespace gds::core {

struct MpiLibrary {
  enum class Family { mpich, open_mpi, other } family = Family::other;
  int major = 0, minor = 0;  // 0.0 where the version string does not say
};

MpiLibrary mpi_library();

// Open MPI 4 cannot make an RMA window over one process with the components
// Debian's configuration leaves it (tests/mpi_bugs/win_create_one_process.c).
// Open MPI 4's osc/rdma also names the shared-memory file of a window's
// node-local state by the communicator's id, which disjoint communicators
// share: windows made at the same time over them on one node use one file and
// fail, hang or write into each other (tests/mpi_bugs/win_shared_file_collision.c;
// osc/sm's shared windows are not affected).
//
// Before GDS_init initialises MPI itself: lists osc/pt2pt as a fallback
// (OMPI_MCA_osc=sm,rdma,pt2pt) unless the environment chose components, and
// gives the process a backing directory of its own for osc/sm and osc/rdma
// (a new directory under /dev/shm, or TMPDIR) unless the environment chose
// one; and leaves out op/avx (OMPI_MCA_op=^avx) unless the environment chose
// op components: Open MPI 4.1's adds 1- and 2-byte integers with saturation
// (tests/mpi_bugs/small_int_sum.c; the program's own reductions too).
void prepare_open_mpi();
// GDS_init, collectively over MPI_COMM_WORLD once MPI runs: learns how many
// of the job's processes share this node and whether each has a backing
// directory of its own.
void learn_open_mpi_window_files(MPI_Comm world);
// Whether windows need check_open_mpi_window_files: the same on every process.
bool open_mpi_window_files_checked();
// Before every window where checked, on every process of `comm` (a local
// status, to be agreed): GDS_STATUS_MPI_BUG where the file names can collide,
// i.e. for a communicator of more than one process that holds only some of a
// node's processes.
GDS_status_t check_open_mpi_window_files(const char *func, MPI_Comm comm);
// Whether OMPI_MCA_osc leaves osc/sm in ("sm,rdma", "^pt2pt"; unset: yes).
bool open_mpi_osc_sm_allowed();
// Free bytes in the directory Open MPI's osc/sm keeps shared windows in
// (OMPI_MCA_osc_sm_backing_directory, else /dev/shm); 0 if it cannot tell.
std::uint64_t open_mpi_shared_window_room();
// GDS_finalize, after MPI_Finalize: removes the directory prepare made.
void finish_open_mpi_windows();
// Whether a failed MPI_Win_create over `nprocs` processes is that bug.
bool open_mpi_one_process_window_bug(int nprocs);

}  // namespace gds::core
