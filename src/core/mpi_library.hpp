// Which MPI library GDS runs on, from MPI_Get_library_version (callable
// before MPI_Init): workarounds for one library's bugs are switched on by
// it, never by what the build found.
#pragma once

namespace gds::core {

struct MpiLibrary {
  enum class Family { mpich, open_mpi, other } family = Family::other;
  int major = 0, minor = 0;  // 0.0 where the version string does not say
};

MpiLibrary mpi_library();

// Open MPI 4 cannot make an RMA window over one process with the components
// Debian's configuration leaves it (tests/mpi_bugs/win_create_one_process.c).
// Before GDS_init initialises MPI itself: lists osc/pt2pt as a fallback
// (OMPI_MCA_osc=sm,rdma,pt2pt) unless the environment chose components.
void prepare_open_mpi_windows();
// Whether a failed MPI_Win_create over `nprocs` processes is that bug.
bool open_mpi_one_process_window_bug(int nprocs);

}  // namespace gds::core
