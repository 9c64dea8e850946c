// GDS_access, GDS_release and the queries on access handles.
#include "rma/local_access.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "core/check.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "gds_access.h"
#include "rma/state.hpp"
#include "rma/transfer.hpp"

namespace gds::rma {

using namespace core;

GDS_status_t check_no_open_access(const char *func, const Array &a, const Index *lo, const Index *hi) {
  for (std::uint64_t h : state(a).accesses) {
    OpenAccess *open = nullptr;
    if (g_accesses.find(h, &open) != GDS_STATUS_OK) continue;
    bool disjoint = false;
    for (std::size_t d = 0; d < a.ndims() && !disjoint; ++d)
      disjoint = hi[d] < open->lo[d] || open->hi[d] < lo[d];
    if (!disjoint)
      return fail(GDS_STATUS_ACCESS_CONFLICT, func,
                  "the box overlaps a region open by GDS_access; call GDS_release first");
  }
  return GDS_STATUS_OK;
}

namespace {

bool stored_locally(const Array &a, const Index *lo, const Index *hi) {
  for (std::size_t d = 0; d < a.ndims(); ++d)
    if (a.local_ext[d] == 0 || lo[d] < a.local_lo[d] || hi[d] >= a.local_lo[d] + a.local_ext[d])
      return false;
  return true;
}

// Leading dimensions (origin_ld convention) of a buffer with extents ext.
void leading_dims(const Array &a, const Index *ext, Dims *ld) {
  const std::size_t n = a.ndims();
  const std::size_t shift = a.layout->order() == Order::row_major ? 1 : 0;
  ld->assign(n > 0 ? n - 1 : 0, 0);
  for (std::size_t d = 0; d + 1 < n; ++d) (*ld)[d] = ext[d + shift];
}

// GDS_SANITY_CHECK for DIRECT access to a GDS_create array: every element of the box is ours.
GDS_status_t check_box_is_mine(const char *func, const Array &a, const Index *lo, const Index *hi) {
  const std::size_t n = a.ndims();
  Dims g(lo, lo + n);
  do {
    int rank = -1;
    Index off = 0;
    GDS_TRY(a.layout->locate(func, g.data(), &rank, &off));
    if (rank != a.rank)
      return fail(GDS_STATUS_NOT_LOCAL, func, "part of the box is stored on rank %d", rank);
  } while (a.layout->next_index(lo, hi, g.data()));
  return GDS_STATUS_OK;
}

GDS_status_t resolve_access(const char *func, GDS_access_handle_t handle, OpenAccess **out) {
  const GDS_status_t s = g_accesses.find(handle_value(handle), out);
  if (s != GDS_STATUS_OK) return fail(s, func, "access_handle %s", handle_problem(s));
  // A call on the region's array: its pending local errors come first.
  return deliver_on_entry(func, (*out)->array);
}

}  // namespace

}  // namespace gds::rma

using namespace gds::core;
using gds::rma::Kind;
using gds::rma::OpenAccess;
using gds::rma::Request;
using gds::rma::g_accesses;
using gds::rma::state;

extern "C" {

GDS_API GDS_status_t GDS_access(GDS_gds_t gds, const GDS_size_t lo_index[], const GDS_size_t hi_index[],
                                GDS_access_buffer_t buffer_type, void **access_buffer,
                                GDS_access_handle_t *access_handle) try {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_TRY(resolve(__func__, gds, &cursor));
  GDS_TRY(require_current(__func__, *cursor));
  Array &a = *cursor->array;
  gds::rma::ArrayState &st = state(a);
  GDS_TRY(check_box(__func__, *a.layout, lo_index, hi_index));
  GDS_REQUIRE(buffer_type == GDS_ACCESS_BUFFER_DIRECT || buffer_type == GDS_ACCESS_BUFFER_COPY ||
                  buffer_type == GDS_ACCESS_BUFFER_ANY,
              GDS_STATUS_INVALID, "buffer_type=%d is not a GDS_ACCESS_BUFFER_* value",
              static_cast<int>(buffer_type));
  GDS_REQUIRE(access_buffer != nullptr, GDS_STATUS_NULL_ARGUMENT, "access_buffer is NULL");
  GDS_REQUIRE(access_handle != nullptr, GDS_STATUS_NULL_ARGUMENT, "access_handle is NULL");
  GDS_TRY(gds::rma::check_no_open_access(__func__, a, lo_index, hi_index));

  const std::size_t n = a.ndims();
  const bool is_alloc = a.blocks != nullptr;
  GDS_access_buffer_t kind = buffer_type;
  if (kind == GDS_ACCESS_BUFFER_ANY)
    kind = is_alloc && gds::rma::stored_locally(a, lo_index, hi_index) ? GDS_ACCESS_BUFFER_DIRECT
                                                                      : GDS_ACCESS_BUFFER_COPY;
  auto open = std::make_unique<OpenAccess>();
  open->array = &a;
  open->lo.assign(lo_index, lo_index + n);
  open->hi.assign(hi_index, hi_index + n);
  open->kind = kind;

  if (kind == GDS_ACCESS_BUFFER_DIRECT) {
    if (is_alloc) {
      GDS_REQUIRE(gds::rma::stored_locally(a, lo_index, hi_index), GDS_STATUS_NOT_LOCAL,
                  "GDS_ACCESS_BUFFER_DIRECT needs a box stored on this process (rank %d)", a.rank);
    } else if (g_rt.config.sanity_check) {
      GDS_TRY(gds::rma::check_box_is_mine(__func__, a, lo_index, hi_index));
    }
    // This process's own writes to its part land before the application reads it.
    GDS_TRY(st.window.flush(__func__, a.rank));
    GDS_TRY(st.window.sync(__func__));
    if (is_alloc) {
      int rank = 0;
      Index offset = 0;
      a.layout->locate(__func__, lo_index, &rank, &offset);
      open->buffer = st.base + offset * a.type->extent;
      gds::rma::leading_dims(a, a.local_ext.data(), &open->ld);
    } else {
      open->buffer = st.base;
      open->ld.assign(n - 1, 0);
    }
  } else {
    Dims ext(n);
    Index volume = 1;
    for (std::size_t d = 0; d < n; ++d) {
      ext[d] = hi_index[d] - lo_index[d] + 1;
      volume *= ext[d];
    }
    open->copy.reset(new (std::nothrow) std::byte[volume * a.type->extent]);
    GDS_REQUIRE(open->copy != nullptr, GDS_STATUS_NOMEM, "cannot allocate a %llu-byte copy",
                static_cast<unsigned long long>(volume * a.type->extent));
    open->buffer = open->copy.get();
    gds::rma::leading_dims(a, ext.data(), &open->ld);
    // Earlier writes by this process complete before the copy is read.
    GDS_status_t s = st.window.complete_remote(__func__);
    if (s == GDS_STATUS_OK)
      s = gds::rma::transfer(__func__, a,
                             Request{Kind::get, open->buffer, open->ld.data(), nullptr, nullptr, lo_index, hi_index});
    if (s == GDS_STATUS_OK) s = st.window.complete_local(__func__);
    GDS_TRY(checked(__func__, &a, s, lo_index, hi_index));
  }
  *access_buffer = open->buffer;
  const std::uint64_t h = g_accesses.insert(std::move(open));
  st.accesses.push_back(h);
  *access_handle = to_handle<GDS_access_handle_t>(h);
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_get_access_buffer_type(GDS_access_handle_t access_handle,
                                                GDS_access_buffer_t *buffer_type) try {
  GDS_ENTER();
  OpenAccess *open = nullptr;
  GDS_TRY(gds::rma::resolve_access(__func__, access_handle, &open));
  GDS_REQUIRE(buffer_type != nullptr, GDS_STATUS_NULL_ARGUMENT, "buffer_type is NULL");
  *buffer_type = open->kind;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_get_access_buffer_ld(GDS_access_handle_t access_handle, GDS_size_t ld[]) try {
  GDS_ENTER();
  OpenAccess *open = nullptr;
  GDS_TRY(gds::rma::resolve_access(__func__, access_handle, &open));
  GDS_REQUIRE(ld != nullptr || open->ld.empty(), GDS_STATUS_NULL_ARGUMENT, "ld is NULL");
  std::copy(open->ld.begin(), open->ld.end(), ld);
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_release(GDS_access_handle_t *access_handle) try {
  GDS_ENTER();
  GDS_REQUIRE(access_handle != nullptr, GDS_STATUS_NULL_ARGUMENT, "access_handle is NULL");
  OpenAccess *open = nullptr;
  GDS_TRY(gds::rma::resolve_access(__func__, *access_handle, &open));
  Array &a = *open->array;
  gds::rma::ArrayState &st = state(a);
  const std::uint64_t h = handle_value(*access_handle);
  GDS_status_t s;
  if (open->kind == GDS_ACCESS_BUFFER_DIRECT) {
    s = st.window.sync(__func__);
    // The application may have stored anywhere in the box.
    if (a.blocks != nullptr) gds::rma::expose_box(a, open->lo.data(), open->hi.data());
  } else {
    s = gds::rma::transfer(__func__, a,
                 Request{Kind::put, open->buffer, open->ld.data(), nullptr, nullptr, open->lo.data(),
                         open->hi.data()});
    if (s == GDS_STATUS_OK) s = st.window.complete_local(__func__);
  }
  std::erase(st.accesses, h);
  g_accesses.erase(h);
  *access_handle = GDS_ACCESS_HANDLE_NULL;
  return checked(__func__, &a, s);
} GDS_API_CATCH

}  // extern "C"
