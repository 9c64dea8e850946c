// White-box: the datatype cache of rma (rma/datatype.hpp) may forget every
// type when it is full, but never frees one a request still holds: here the
// cache fills up between the lookups of one piece's origin and target types.
#include <gtest/gtest.h>
#include <mpi.h>

#include "rma/datatype.hpp"

namespace {

using gds::rma::Index;
using gds::rma::TypeSpec;

// A 2-D strided shape of `rows` runs of 3 ints, `stride` ints apart.
TypeSpec shape(Index rows, Index stride) {
  const Index ext[2] = {rows, 3}, str[2] = {stride, 1};
  TypeSpec t;
  EXPECT_EQ(gds::rma::describe("test", MPI_INT, sizeof(int), ext, str, 2, &t), GDS_STATUS_OK);
  return t;
}

TEST(TypeCache, ForgettingTypesNeverFreesOneInUse) {
  constexpr Index kCapacity = 4096;
  for (Index s = 0; s + 1 < kCapacity; ++s) (void)shape(2, 4 + s);  // 4095 shapes, held by the cache only
  const TypeSpec origin = shape(5, 100000);                          // the 4096th: the cache is full
  std::vector<TypeSpec> targets;
  for (Index s = 0; s < 3; ++s) targets.push_back(shape(7, 200000 + s));  // starts the cache over
  int size = 0;
  ASSERT_EQ(MPI_Type_size(origin.type, &size), MPI_SUCCESS);
  EXPECT_EQ(size, 5 * 3 * static_cast<int>(sizeof(int)));
  int ints = 0, addresses = 0, types = 0, combiner = 0;
  ASSERT_EQ(MPI_Type_get_envelope(origin.type, &ints, &addresses, &types, &combiner), MPI_SUCCESS);
  EXPECT_EQ(combiner, MPI_COMBINER_HVECTOR);
  int count_and_block[2] = {};
  MPI_Aint stride = 0;
  MPI_Datatype inner = MPI_DATATYPE_NULL;
  ASSERT_EQ(MPI_Type_get_contents(origin.type, 2, 1, 1, count_and_block, &stride, &inner), MPI_SUCCESS);
  EXPECT_EQ(count_and_block[0], 5);
  EXPECT_EQ(count_and_block[1], 3);
  EXPECT_EQ(stride, static_cast<MPI_Aint>(100000 * sizeof(int)));
  gds::rma::clear_type_cache();
}

}  // namespace
