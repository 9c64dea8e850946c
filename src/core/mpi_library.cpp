#include "core/mpi_library.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gds::core {

MpiLibrary mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MpiLibrary lib;
  if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) return lib;
  if (const char *v = std::strstr(text, "MPICH Version:"); v != nullptr) {
    lib.family = MpiLibrary::Family::mpich;
    std::sscanf(v + std::strlen("MPICH Version:"), "%d.%d", &lib.major, &lib.minor);
  } else if (const char *o = std::strstr(text, "Open MPI v"); o != nullptr) {
    lib.family = MpiLibrary::Family::open_mpi;
    std::sscanf(o + std::strlen("Open MPI v"), "%d.%d", &lib.major, &lib.minor);
  }
  return lib;
}

namespace {
bool open_mpi_4() {
  const MpiLibrary lib = mpi_library();
  return lib.family == MpiLibrary::Family::open_mpi && lib.major == 4;
}
}  // namespace

void prepare_open_mpi_windows() {
  const char *chosen = std::getenv("OMPI_MCA_osc");
  if ((chosen != nullptr && *chosen != '\0') || !open_mpi_4()) return;
  // osc/rdma keeps every window it can make (its priority is the highest);
  // osc/pt2pt takes the one-process windows it cannot.
  setenv("OMPI_MCA_osc", "sm,rdma,pt2pt", 1);
}

bool open_mpi_one_process_window_bug(int nprocs) { return nprocs == 1 && open_mpi_4(); }

}  // namespace gds::core
