// The transfer planner: turns a checked data-access request on a box into
// one MPI operation per process that owns part of the box.
#pragma once

#include "core/array.hpp"

namespace gds::rma {

using core::Index;

enum class Kind { put, get, acc, get_acc };

// A request whose arguments have been checked.
struct Request {
  Kind kind;
  void *local;             // put/acc/get_acc: the operands; get: the destination
  const Index *local_ld;   // ndims-1 effective leading dimensions of `local`
  void *result = nullptr;  // get_acc: receives the previous content
  const Index *result_ld = nullptr;
  const Index *lo;
  const Index *hi;
  MPI_Op op = MPI_OP_NULL;  // acc, get_acc
};

GDS_status_t transfer(const char *func, core::ArrayObject &a, const Request &r);

// MPI_Compare_and_swap on one element.
GDS_status_t compare_and_swap(const char *func, core::ArrayObject &a, const void *compare,
                              const void *source, void *result, const Index *index);

// Counts an issued operation against GDS_OUTSTANDING_RMA_OPS_MAX, completing
// everything locally when the limit is reached.
GDS_status_t note_operation(const char *func, core::ArrayObject &a);

}  // namespace gds::rma
