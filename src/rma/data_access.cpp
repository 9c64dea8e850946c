// C entry points of one-sided data access and synchronization.
#include <algorithm>
#include <cstring>

#include "core/array.hpp"
#include "core/check.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "gds_access.h"
#include "rma/local_access.hpp"
#include "rma/mpi_checks.hpp"
#include "rma/stable_point.hpp"
#include "rma/state.hpp"
#include "rma/transfer.hpp"

using namespace gds::core;
using gds::rma::Kind;
using gds::rma::Request;
using gds::rma::state;

namespace {

// Checks shared by the data calls; writes need the current version.
inline GDS_status_t check_request(const char *func, GDS_gds_t gds, bool write, const void *buffer,
                                  const char *buffer_name, const GDS_size_t *ld_arg, const char *ld_name,
                                  const GDS_size_t *lo, const GDS_size_t *hi, Cursor **out, Index *ld) {
  Cursor *cursor = nullptr;
  GDS_TRY(resolve(func, gds, &cursor));
  if (write) GDS_TRY(require_current(func, *cursor));
  Array &a = *cursor->array;
  GDS_TRY(check_box(func, *a.layout, lo, hi));
  GDS_CHECK(buffer != nullptr, GDS_STATUS_NULL_ARGUMENT, "%s is NULL", buffer_name);
  GDS_TRY(check_ld(func, *a.layout, ld_arg, lo, hi, ld_name, ld));
  GDS_TRY(check_buffer_span(func, *a.layout, ld, lo, hi, a.type->extent, buffer, ld_name));
  if (!state(a).accesses.empty()) [[unlikely]] GDS_TRY(gds::rma::check_no_open_access(func, a, lo, hi));
  *out = cursor;
  return GDS_STATUS_OK;
}

GDS_status_t check_op(const char *func, const Array &a, MPI_Op op) {
  const char *name = op_name(op);
  GDS_CHECK(name != nullptr, GDS_STATUS_INVALID_OP,
              "accumulate_op is not a predefined MPI reduction op, MPI_REPLACE or MPI_NO_OP");
  GDS_CHECK(op_applies(op, *a.type), GDS_STATUS_TYPE_MISMATCH, "%s is not defined for %s elements",
              name, a.type->name);
  const char *wrong = gds::rma::op_computed_wrong(op, *a.type);
  GDS_CHECK(wrong == nullptr, GDS_STATUS_MPI_BUG, "%s on %s elements: %s", name, a.type->name, wrong);
  return GDS_STATUS_OK;
}

// Bytes spanned by a buffer holding box [lo, hi] with leading dimensions ld.
std::size_t span_bytes(const Array &a, const Index *lo, const Index *hi, const Index *ld) {
  Index stride[kMaxDims], last = 0;
  gds::rma::buffer_strides(*a.layout, ld, stride);
  for (std::size_t d = 0; d < a.ndims(); ++d) last += (hi[d] - lo[d]) * stride[d];
  return static_cast<std::size_t>((last + 1) * a.type->extent);
}

bool overlap(const void *a, std::size_t an, const void *b, std::size_t bn) {
  const auto *pa = static_cast<const std::byte *>(a);
  const auto *pb = static_cast<const std::byte *>(b);
  return pa < pb + bn && pb < pa + an;
}

// Applies fn to one array, or to every array for GDS_ROOT (delivering each
// one's pending local errors first, as for any call on it). With GDS_ROOT a
// failure does not stop the others. Returns the first failure.
template <class F>
GDS_status_t for_target(const char *func, GDS_gds_t gds, F &&fn) {
  if (is_root(gds)) {
    GDS_status_t first = deliver_on_entry(func, nullptr);
    for (Array *a : arrays_in_creation_order()) {
      GDS_status_t s = deliver_on_entry(func, a);
      if (s == GDS_STATUS_OK) s = fn(*a);
      if (first == GDS_STATUS_OK) first = s;
    }
    return first;
  }
  Cursor *cursor = nullptr;
  GDS_TRY(resolve(func, gds, &cursor));
  return fn(*cursor->array);
}

}  // namespace


extern "C" {

GDS_API GDS_status_t GDS_put(const void *origin_addr, const GDS_size_t origin_ld[],
                             const GDS_size_t lo_index[], const GDS_size_t hi_index[], GDS_gds_t gds) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  Index ld[kMaxDims];
  GDS_TRY(check_request(__func__, gds, true, origin_addr, "origin_addr", origin_ld, "origin_ld", lo_index,
                        hi_index, &c, ld));
  return checked(__func__, c->array,
                         gds::rma::transfer(__func__, *c->array,
                                            Request{Kind::put, const_cast<void *>(origin_addr), ld, nullptr,
                                                    nullptr, lo_index, hi_index}),
                         lo_index, hi_index);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_get(void *origin_addr, const GDS_size_t origin_ld[], const GDS_size_t lo_index[],
                             const GDS_size_t hi_index[], GDS_gds_t gds) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  Index ld[kMaxDims];
  GDS_TRY(check_request(__func__, gds, false, origin_addr, "origin_addr", origin_ld, "origin_ld", lo_index,
                        hi_index, &c, ld));
  if (!c->at_current) [[unlikely]] {
    const gds::rma::VersionReader read = gds::rma::version_reader();
    GDS_REQUIRE(read != nullptr, GDS_STATUS_INTERNAL, "no module serves old versions");
    return checked(__func__, c->array, read(__func__, *c->array, c->version, origin_addr, ld, lo_index, hi_index),
                   lo_index, hi_index);
  }
  return checked(
      __func__, c->array,
      gds::rma::transfer(__func__, *c->array, Request{Kind::get, origin_addr, ld, nullptr, nullptr, lo_index, hi_index}),
      lo_index, hi_index);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_acc(const void *origin_addr, const GDS_size_t origin_ld[],
                             const GDS_size_t lo_index[], const GDS_size_t hi_index[],
                             GDS_op_t accumulate_op, GDS_gds_t gds) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  Index ld[kMaxDims];
  GDS_TRY(check_request(__func__, gds, true, origin_addr, "origin_addr", origin_ld, "origin_ld", lo_index,
                        hi_index, &c, ld));
  Array *a = c->array;
  GDS_TRY(check_op(__func__, *a, accumulate_op));
  // MPI allows MPI_NO_OP only in get-accumulates; here it means "change nothing".
  if (accumulate_op == MPI_NO_OP) return GDS_STATUS_OK;
  return checked(__func__, a,
                         gds::rma::transfer(__func__, *a,
                                            Request{Kind::acc, const_cast<void *>(origin_addr), ld, nullptr,
                                                    nullptr, lo_index, hi_index, accumulate_op}),
                         lo_index, hi_index);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_get_acc(const void *origin_addr, const GDS_size_t origin_ld[], void *result_addr,
                                 const GDS_size_t result_ld[], const GDS_size_t lo_index[],
                                 const GDS_size_t hi_index[], GDS_op_t accumulate_op, GDS_gds_t gds) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  Index rld[kMaxDims], old[kMaxDims];
  GDS_TRY(check_request(__func__, gds, true, result_addr, "result_addr", result_ld, "result_ld", lo_index,
                        hi_index, &c, rld));
  Array *a = c->array;
  GDS_TRY(check_op(__func__, *a, accumulate_op));
  GDS_REQUIRE(origin_addr != nullptr || accumulate_op == MPI_NO_OP, GDS_STATUS_NULL_ARGUMENT,
              "origin_addr is NULL (allowed only with MPI_NO_OP)");
  GDS_TRY(check_ld(__func__, *a->layout, origin_ld, lo_index, hi_index, "origin_ld", old));
  if (origin_addr != nullptr)
    GDS_TRY(check_buffer_span(__func__, *a->layout, old, lo_index, hi_index, a->type->extent, origin_addr, "origin_ld"));
  if (origin_addr != nullptr)
    GDS_REQUIRE(!overlap(origin_addr, span_bytes(*a, lo_index, hi_index, old), result_addr,
                         span_bytes(*a, lo_index, hi_index, rld)),
                GDS_STATUS_BUFFER_OVERLAP, "origin_addr and result_addr overlap");
  // MPI ignores the origin of MPI_NO_OP but still wants an address.
  void *origin = origin_addr != nullptr ? const_cast<void *>(origin_addr) : result_addr;
  return checked(
      __func__, a,
      gds::rma::transfer(__func__, *a,
                         Request{Kind::get_acc, origin, old, result_addr, rld, lo_index, hi_index, accumulate_op}),
      lo_index, hi_index);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_compare_and_swap(const void *compare_addr, const void *swap_source_addr,
                                          void *swap_result_addr, const GDS_size_t gds_offset[],
                                          GDS_gds_t gds) try {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_TRY(resolve(__func__, gds, &cursor));
  GDS_TRY(require_current(__func__, *cursor));
  Array &a = *cursor->array;
  GDS_TRY(check_index(__func__, *a.layout, gds_offset, "gds_offset"));
  GDS_REQUIRE(compare_addr != nullptr, GDS_STATUS_NULL_ARGUMENT, "compare_addr is NULL");
  GDS_REQUIRE(swap_source_addr != nullptr, GDS_STATUS_NULL_ARGUMENT, "swap_source_addr is NULL");
  GDS_REQUIRE(swap_result_addr != nullptr, GDS_STATUS_NULL_ARGUMENT, "swap_result_addr is NULL");
  GDS_REQUIRE(cas_applies(*a.type), GDS_STATUS_TYPE_MISMATCH,
              "compare-and-swap needs an integer, logical or byte element type, not %s", a.type->name);
  const std::size_t e = a.type->extent;
  GDS_REQUIRE(!overlap(compare_addr, e, swap_result_addr, e) && !overlap(swap_source_addr, e, swap_result_addr, e),
              GDS_STATUS_BUFFER_OVERLAP, "swap_result_addr overlaps compare_addr or swap_source_addr");
  GDS_REQUIRE(!overlap(compare_addr, e, swap_source_addr, e), GDS_STATUS_BUFFER_OVERLAP,
              "compare_addr and swap_source_addr overlap");
  if (!state(a).accesses.empty()) GDS_TRY(gds::rma::check_no_open_access(__func__, a, gds_offset, gds_offset));
  return checked(
      __func__, &a,
      gds::rma::compare_and_swap(__func__, a, compare_addr, swap_source_addr, swap_result_addr, gds_offset),
      gds_offset, gds_offset);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_wait(GDS_gds_t gds) try {
  GDS_ENTER();
  if (!is_root(gds)) [[likely]] {
    Cursor *cursor = nullptr;
    GDS_TRY(resolve(__func__, gds, &cursor));
    return checked(__func__, cursor->array, state(*cursor->array).window.complete_local(__func__));
  }
  return for_target(__func__, gds, [](Array &a) {
    return checked("GDS_wait", &a, state(a).window.complete_local("GDS_wait"));
  });
} GDS_API_CATCH

GDS_API GDS_status_t GDS_wait_local(GDS_gds_t gds) try {
  GDS_ENTER();
  return for_target(__func__, gds, [](Array &a) {
    gds::rma::Window &w = state(a).window;
    GDS_TRY(checked("GDS_wait_local", &a, w.flush("GDS_wait_local", a.rank)));
    return w.sync("GDS_wait_local");
  });
} GDS_API_CATCH

GDS_API GDS_status_t GDS_fence(GDS_gds_t gds) try {
  GDS_ENTER();
  return gds::rma::fence(__func__, gds);
} GDS_API_CATCH

}  // extern "C"
