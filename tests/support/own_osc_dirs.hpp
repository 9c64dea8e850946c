// For the test programs that start MPI themselves, under Open MPI: what
// docs/troubleshooting.md#open-mpi tells such programs to do before MPI_Init,
// so that GDS makes arrays over communicators holding only some of a node's
// processes. Open MPI 4 names a window's shared-memory file by the
// communicator's id (tests/mpi_bugs/win_shared_file_collision.c); a backing
// directory per process keeps the names apart. Made only where Open MPI's
// launcher started the process and the environment chose none; removed after
// MPI_Finalize (Open MPI unlinks each file once every process opened it).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace gds::test {

class OwnOscDirs {
 public:
  OwnOscDirs() {
    if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr) return;
    if (std::getenv("OMPI_MCA_osc_sm_backing_directory") != nullptr ||
        std::getenv("OMPI_MCA_osc_rdma_backing_directory") != nullptr)
      return;
    std::string path = "/dev/shm/gds-test-osc-XXXXXX";
    if (mkdtemp(path.data()) == nullptr) {
      path = "/tmp/gds-test-osc-XXXXXX";
      if (mkdtemp(path.data()) == nullptr) return;
    }
    dir_ = path;
    setenv("OMPI_MCA_osc_sm_backing_directory", dir_.c_str(), 1);
    setenv("OMPI_MCA_osc_rdma_backing_directory", dir_.c_str(), 1);
  }
  ~OwnOscDirs() {
    if (!dir_.empty()) rmdir(dir_.c_str());
  }
  OwnOscDirs(const OwnOscDirs &) = delete;
  OwnOscDirs &operator=(const OwnOscDirs &) = delete;

 private:
  std::string dir_;
};

}  // namespace gds::test
