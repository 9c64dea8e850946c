// main() for the MPI test programs: MPI_Init_thread, then GDS_init (the
// "initialized after MPI" path), then every test; rank 0 prints GoogleTest's
// report, the other ranks only their failures.
#include <gds.h>

#include <cstdio>

#include "mpi_test.hpp"
#include "own_osc_dirs.hpp"

namespace gds::test {
namespace {

class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult &r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                 r.line_number(), r.summary());
  }

 private:
  int rank_;
};

}  // namespace

int run_all_tests(int argc, char **argv, bool init_gds) {
  const OwnOscDirs osc_dirs;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  const int rank = world_rank();
  auto &listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  if (init_gds) {
    GDS_thread_support_t gds_provided;
    if (GDS_init(&argc, &argv, GDS_THREAD_SERIALIZED, &gds_provided) != GDS_STATUS_OK) {
      std::fprintf(stderr, "[rank %d] GDS_init failed: %s\n", rank, GDS_last_error_message());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  int result = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&result, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (init_gds && GDS_finalize() != GDS_STATUS_OK) any = 1;
  MPI_Finalize();
  return any;
}

}  // namespace gds::test

int main(int argc, char **argv) { return gds::test::run_all_tests(argc, argv, true); }
