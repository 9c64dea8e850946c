// main() for the MPI test programs whose tests start and end GDS themselves
// (GDS_init/GDS_finalize per test, on MPI the program started): MPI_Init,
// the tests (only rank 0's report in full), every process's outcome reduced.
#include <gtest/gtest.h>
#include <mpi.h>

#include "support/mpi_test.hpp"
#include "support/own_osc_dirs.hpp"

int main(int argc, char **argv) {
  const gds::test::OwnOscDirs osc_dirs;
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (gds::test::world_rank() != 0) ::testing::GTEST_FLAG(brief) = true;
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
