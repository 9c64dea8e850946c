// ASSERT_ALL and ASSERT_ALL_GDS_OK themselves: a condition false on one
// process only ends the test on every process, in the body and in SetUp,
// with nothing after it run and no process left waiting. The tests fail by
// design: ctest passes them on their output (tests/CMakeLists.txt).
#include "support/gds_test.hpp"

namespace gds::test {
namespace {

class AssertAll : public MpiTest {};

TEST_F(AssertAll, FalseOnTheLastProcessEndsTheTestEverywhere) {
  ASSERT_ALL(rank != nprocs - 1);
  gds::test::barrier();  // the last process is not here: the others would wait forever
  ADD_FAILURE() << "reached after ASSERT_ALL";
}

TEST_F(AssertAll, AFailedGdsCallOnTheLastProcessEndsTheTestEverywhere) {
  ASSERT_ALL_GDS_OK(rank != nprocs - 1 ? GDS_STATUS_OK : GDS_inject_fault(static_cast<GDS_fault_t>(99), 1));
  gds::test::barrier();
  ADD_FAILURE() << "reached after ASSERT_ALL_GDS_OK";
}

class AssertAllInSetUp : public MpiTest {
 protected:
  void SetUp() override { ASSERT_ALL(rank != nprocs - 1); }
};

TEST_F(AssertAllInSetUp, SkipsTheBodyEverywhere) {
  gds::test::barrier();
  ADD_FAILURE() << "reached the body after ASSERT_ALL failed in SetUp";
}

}  // namespace
}  // namespace gds::test
