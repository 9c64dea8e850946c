#include "rma/transfer.hpp"

#include <algorithm>
#include <vector>

#include "core/log.hpp"
#include "core/mpi_optional.hpp"
#include "rma/datatype.hpp"

namespace gds::rma {

using core::Array;
using core::kMaxDims;

namespace {

// A pair of floats (MPI_COMPLEX is 16 bytes where Fortran's real is 8).
bool float_complex(MPI_Datatype t) {
  int size = 0;
  return t != MPI_DATATYPE_NULL &&
         (t == MPI_C_FLOAT_COMPLEX || t == MPI_COMPLEX || t == MPI_CXX_FLOAT_COMPLEX || t == MPI_COMPLEX8) &&
         MPI_Type_size(t, &size) == MPI_SUCCESS && size == static_cast<int>(2 * sizeof(float));
}

// Whether an MPI_SUM accumulate of `elem` elements is sent as floats.
bool sums_floats(const Request &r, MPI_Datatype elem) {
  return g_settings.float_complex_sum_as_floats && (r.kind == Kind::acc || r.kind == Kind::get_acc) &&
         r.op == MPI_SUM && float_complex(elem);
}

// Whether an MPI_SUM accumulate of `elem` elements goes in pieces of at most
// 15 bytes, and how many elements a piece holds (0: not split).
int small_sum_piece(const Request &r, MPI_Datatype elem) {
  if (!g_settings.small_int_sums_in_pieces || (r.kind != Kind::acc && r.kind != Kind::get_acc) || r.op != MPI_SUM)
    return 0;
  int size = 0;
  if (MPI_Type_size(elem, &size) != MPI_SUCCESS || (size != 1 && size != 2)) return 0;
  return 15 / size;
}

// Whether this accumulate of `elem` elements goes to MPI one contiguous run
// at a time (Settings::get_acc_runs_only, float_complex_sum_as_floats,
// small_int_sums_in_pieces).
bool by_runs(const Request &r, MPI_Datatype elem) {
  return (r.kind == Kind::get_acc && g_settings.get_acc_runs_only) || sums_floats(r, elem) ||
         small_sum_piece(r, elem) > 0;
}

GDS_status_t issue_as_is(const char *func, Window &w, const Request &r, int rank, MPI_Aint disp,
                         const std::byte *local, const TypeSpec &lt, const TypeSpec &tt, std::byte *result,
                         const TypeSpec &rt) {
  switch (r.kind) {
    case Kind::put: return w.put(func, local, lt.count, lt.type, rank, disp, tt.count, tt.type);
    case Kind::get:
      return w.get(func, const_cast<std::byte *>(local), lt.count, lt.type, rank, disp, tt.count, tt.type);
    case Kind::acc: return w.accumulate(func, local, lt.count, lt.type, rank, disp, tt.count, tt.type, r.op);
    case Kind::get_acc:
      return w.get_accumulate(func, local, lt.count, lt.type, result, rt.count, rt.type, rank, disp, tt.count,
                              tt.type, r.op);
  }
  return GDS_STATUS_INTERNAL;
}

GDS_status_t issue(const char *func, Window &w, const Request &r, int rank, MPI_Aint disp, const std::byte *local,
                   const TypeSpec &lt, const TypeSpec &tt, std::byte *result, const TypeSpec &rt) {
  const bool one_run = tt.type == lt.type && tt.count == lt.count &&
                       (r.kind != Kind::get_acc || (rt.type == lt.type && rt.count == lt.count));
  const bool floats = one_run && sums_floats(r, lt.type);
  const int piece = one_run ? small_sum_piece(r, lt.type) : 0;
  if (!floats && piece == 0) return issue_as_is(func, w, r, rank, disp, local, lt, tt, result, rt);
  // A run of single complex elements as twice as many floats (pieces whose
  // float count fits an int), or of small integers in pieces of 15 bytes at most.
  const int most = floats ? 1 << 29 : piece;
  int size = 0;
  MPI_Type_size(lt.type, &size);
  const std::size_t elem_bytes = static_cast<std::size_t>(size);
  for (int done = 0; done < lt.count;) {
    const int n = std::min(most, lt.count - done);
    const TypeSpec spec{floats ? 2 * n : n, floats ? MPI_FLOAT : lt.type, {}};
    const std::size_t skip = static_cast<std::size_t>(done) * elem_bytes;
    GDS_TRY(issue_as_is(func, w, r, rank, disp + done, local == nullptr ? nullptr : local + skip, spec, spec,
                        result == nullptr ? nullptr : result + skip, spec));
    done += n;
  }
  return GDS_STATUS_OK;
}

// An accumulate of one piece as one MPI call per innermost run (every run
// is contiguous in the operands, the result and the owner's block): see by_runs.
GDS_status_t piece_by_runs(const char *func, Window &w, const Request &r, int rank, std::size_t esize,
                          MPI_Datatype elem, const PieceShape &s, const PieceShape &rs) {
  GDS_status_t status = GDS_STATUS_OK;
  for_each_run(
      s,
      [&](Index b, Index t, Index len, Index rb) {
        if (status != GDS_STATUS_OK) return;
        const TypeSpec run{static_cast<int>(len), elem, {}};
        const std::byte *local = r.local == nullptr ? nullptr : static_cast<std::byte *>(r.local) + b * esize;
        std::byte *result =
            r.kind != Kind::get_acc || r.result == nullptr ? nullptr : static_cast<std::byte *>(r.result) + rb * esize;
        status = issue(func, w, r, rank, static_cast<MPI_Aint>(t), local, run, run, result, run);
      },
      r.kind == Kind::get_acc ? &rs : nullptr);
  return status;
}

GDS_status_t transfer_blocks(const char *func, Array &a, const Request &r) {
  const core::BlockLayout &layout = *a.blocks;
  const std::size_t n = layout.ndims();
  if (n == 1) return transfer_line(func, a, r);  // slices of a very long line
  ArrayState &st = state(a);
  const std::size_t esize = a.type->extent;
  const MPI_Datatype elem = a.type->mpi;
  Index lstride[kMaxDims], rstride[kMaxDims];
  buffer_strides(layout, r.local_ld, lstride);
  if (r.kind == Kind::get_acc) buffer_strides(layout, r.result_ld, rstride);

  GDS_status_t status = GDS_STATUS_OK;
  layout.for_each_owner(r.lo, r.hi, [&](const core::BlockPiece &p) {
    if (status != GDS_STATUS_OK) return;
    PieceShape s, rs;
    shape_piece(layout, r.lo, lstride, p, &s);
    TypeSpec lt, tt, rt;
    status = describe(func, elem, esize, s.ext, s.buffer_stride, n, &lt);
    if (status == GDS_STATUS_OK) status = describe(func, elem, esize, s.ext, s.block_stride, n, &tt);
    if (status == GDS_STATUS_OK && r.kind == Kind::get_acc) {
      shape_piece(layout, r.lo, rstride, p, &rs);
      status = describe(func, elem, esize, rs.ext, rs.buffer_stride, n, &rt);
    }
    if (status != GDS_STATUS_OK) return;
    if (r.kind != Kind::get)
      for_each_run(s, [&](Index, Index t, Index len) { st.writes.record(p.rank, t * esize, len * esize); });
    const std::byte *local =
        r.local == nullptr ? nullptr : static_cast<std::byte *>(r.local) + s.buffer_offset * esize;
    if (by_runs(r, elem) && !(lt.type == elem && tt.type == elem && (r.kind != Kind::get_acc || rt.type == elem))) {
      status = piece_by_runs(func, st.window, r, p.rank, esize, elem, s, rs);
      return;
    }
    std::byte *result = r.result == nullptr ? nullptr : static_cast<std::byte *>(r.result) + rs.buffer_offset * esize;
    status = issue(func, st.window, r, p.rank, static_cast<MPI_Aint>(s.block_offset), local, lt, tt, result, rt);
  });
  return status;
}

// Runs of elements bound for one process, in element offsets.
struct Runs {
  std::vector<int> length;
  std::vector<MPI_Aint> target, local, result;
};

GDS_status_t transfer_user(const char *func, Array &a, const Request &r) {
  const core::UserLayout &layout = *a.user;
  const std::size_t n = layout.ndims();
  const std::size_t esize = a.type->extent;
  const bool with_result = r.kind == Kind::get_acc;
  Index lstride[kMaxDims], rstride[kMaxDims], g[kMaxDims];
  buffer_strides(layout, r.local_ld, lstride);
  if (with_result) buffer_strides(layout, r.result_ld, rstride);

  // Walk the box in storage order, asking the mapping for every element.
  std::vector<Runs> runs(static_cast<std::size_t>(a.nprocs));
  for (std::size_t d = 0; d < n; ++d) g[d] = r.lo[d];
  do {
    Index loff = 0, roff = 0;
    for (std::size_t d = 0; d < n; ++d) {
      loff += (g[d] - r.lo[d]) * lstride[d];
      if (with_result) roff += (g[d] - r.lo[d]) * rstride[d];
    }
    int rank = -1;
    Index toff = 0;
    GDS_TRY(layout.locate(func, g, &rank, &toff));
    Runs &rr = runs[static_cast<std::size_t>(rank)];
    const auto extends = [&](std::size_t last) {
      const MPI_Aint len = rr.length[last];
      return len < static_cast<MPI_Aint>(kMaxMpiCount) &&
             rr.target[last] + len == static_cast<MPI_Aint>(toff) &&
             rr.local[last] + len == static_cast<MPI_Aint>(loff) &&
             (!with_result || rr.result[last] + len == static_cast<MPI_Aint>(roff));
    };
    if (!rr.length.empty() && extends(rr.length.size() - 1)) {
      ++rr.length.back();
    } else {
      GDS_CHECK(rr.length.size() < static_cast<std::size_t>(kMaxMpiCount), GDS_STATUS_INVALID_COUNT,
                  "the box breaks into more than %llu pieces on rank %d",
                  static_cast<unsigned long long>(kMaxMpiCount), rank);
      rr.length.push_back(1);
      rr.target.push_back(static_cast<MPI_Aint>(toff));
      rr.local.push_back(static_cast<MPI_Aint>(loff));
      if (with_result) rr.result.push_back(static_cast<MPI_Aint>(roff));
    }
  } while (layout.next_index(r.lo, r.hi, g));

  ArrayState &st = state(a);
  for (int rank = 0; rank < a.nprocs; ++rank) {
    const Runs &rr = runs[static_cast<std::size_t>(rank)];
    if (rr.length.empty()) continue;
    // Recorded like every write (a version must know that this process
    // wrote into another's memory, whether or not its log keeps ranges).
    if (r.kind != Kind::get)
      for (std::size_t i = 0; i < rr.length.size(); ++i)
        st.writes.record(rank, static_cast<std::uint64_t>(rr.target[i]) * esize,
                         static_cast<std::uint64_t>(rr.length[i]) * esize);
    if (by_runs(r, a.type->mpi) && rr.length.size() > 1) {
      for (std::size_t i = 0; i < rr.length.size(); ++i) {
        const TypeSpec run{rr.length[i], a.type->mpi, {}};
        const std::byte *local =
            r.local == nullptr ? nullptr : static_cast<std::byte *>(r.local) + rr.local[i] * static_cast<MPI_Aint>(esize);
        std::byte *result = !with_result || r.result == nullptr
                                ? nullptr
                                : static_cast<std::byte *>(r.result) + rr.result[i] * static_cast<MPI_Aint>(esize);
        GDS_TRY(issue(func, state(a).window, r, rank, rr.target[i], local, run, run, result, run));
      }
      continue;
    }
    RunTypes types;
    TypeSpec lt{}, tt{}, rt{};
    MPI_Aint lbase = 0, tbase = 0, rbase = 0;
    GDS_TRY(types.make(func, rr.length, rr.local, a.type->mpi, esize, &lt, &lbase));
    GDS_TRY(types.make(func, rr.length, rr.target, a.type->mpi, esize, &tt, &tbase));
    if (with_result) GDS_TRY(types.make(func, rr.length, rr.result, a.type->mpi, esize, &rt, &rbase));
    const std::byte *local =
        r.local == nullptr ? nullptr : static_cast<std::byte *>(r.local) + lbase * static_cast<MPI_Aint>(esize);
    std::byte *result =
        r.result == nullptr ? nullptr : static_cast<std::byte *>(r.result) + rbase * static_cast<MPI_Aint>(esize);
    GDS_TRY(issue(func, state(a).window, r, rank, tbase, local, lt, tt, result, rt));
  }
  return GDS_STATUS_OK;
}

}  // namespace

void shape_piece(const core::Layout &layout, const Index *box_lo, const Index *buffer_stride,
                 const core::BlockPiece &p, PieceShape *out) {
  const std::size_t n = layout.ndims();
  out->n = n;
  out->buffer_offset = 0;
  out->block_offset = 0;
  Index block_stride = 1;
  for (std::size_t k = n; k-- > 0;) {
    const std::size_t d = layout.storage_dim(k);
    out->ext[k] = p.hi[d] - p.lo[d] + 1;
    out->buffer_stride[k] = buffer_stride[d];
    out->block_stride[k] = block_stride;
    out->buffer_offset += (p.lo[d] - box_lo[d]) * buffer_stride[d];
    out->block_offset += (p.lo[d] - p.block_lo[d]) * block_stride;
    block_stride *= p.block_ext[d];
  }
}

void expose_box(Array &a, const Index *lo, const Index *hi) {
  ArrayState &st = state(a);
  if (!st.writes.enabled()) return;  // GDS_create arrays are compared whole anyway
  PieceShape s;
  Index unused[kMaxDims] = {};
  shape_piece(*a.layout, lo, unused, core::BlockPiece{a.rank, lo, hi, a.local_lo.data(), a.local_ext.data()}, &s);
  const std::size_t esize = a.type->extent;
  for_each_run(s, [&](Index, Index t, Index len) { st.writes.expose(a.rank, t * esize, len * esize); });
}

void buffer_strides(const core::Layout &layout, const Index *ld, Index *stride) {
  const std::size_t n = layout.ndims();
  const bool row = layout.order() == core::Order::row_major;
  Index s = 1;
  for (std::size_t k = n; k-- > 0;) {
    const std::size_t d = layout.storage_dim(k);
    stride[d] = s;
    // The buffer's extent along d: ld covers every dimension but the slowest.
    if (k > 0) s *= row ? ld[d - 1] : ld[d];
  }
}

// One dimension: every part is a contiguous run on both sides.
GDS_status_t transfer_line(const char *func, Array &a, const Request &r) {
  const std::size_t esize = a.type->extent;
  const MPI_Datatype elem = a.type->mpi;
  ArrayState &st = state(a);
  GDS_status_t status = GDS_STATUS_OK;
  a.blocks->for_each_owner_1d(r.lo[0], r.hi[0], [&](int rank, Index first, Index last, Index block_first) {
    if (status != GDS_STATUS_OK) return;
    const TypeSpec run{static_cast<int>(last - first + 1), elem, {}};
    if (r.kind != Kind::get) st.writes.record(rank, (first - block_first) * esize, (last - first + 1) * esize);
    const Index skip = (first - r.lo[0]) * esize;
    const std::byte *local = r.local == nullptr ? nullptr : static_cast<std::byte *>(r.local) + skip;
    std::byte *result = r.result == nullptr ? nullptr : static_cast<std::byte *>(r.result) + skip;
    status = issue(func, st.window, r, rank, static_cast<MPI_Aint>(first - block_first), local, run, run, result, run);
  });
  return status;
}

GDS_status_t transfer_general(const char *func, Array &a, const Request &r) {
  const std::size_t n = a.ndims();
  // A dimension longer than one MPI count is sent in slices along it.
  for (std::size_t d = 0; d < n; ++d) {
    if (r.hi[d] - r.lo[d] < kMaxMpiCount) continue;
    Index stride[kMaxDims], rstride[kMaxDims];
    buffer_strides(*a.layout, r.local_ld, stride);
    if (r.kind == Kind::get_acc) buffer_strides(*a.layout, r.result_ld, rstride);
    Index lo[kMaxDims], hi[kMaxDims];
    std::copy(r.lo, r.lo + n, lo);
    std::copy(r.hi, r.hi + n, hi);
    for (Index start = r.lo[d]; start <= r.hi[d]; start += kMaxMpiCount) {
      lo[d] = start;
      hi[d] = std::min(r.hi[d], start + kMaxMpiCount - 1);
      Request slice = r;
      slice.lo = lo;
      slice.hi = hi;
      const Index skip = start - r.lo[d];
      if (r.local != nullptr) slice.local = static_cast<std::byte *>(r.local) + skip * stride[d] * a.type->extent;
      if (r.result != nullptr) slice.result = static_cast<std::byte *>(r.result) + skip * rstride[d] * a.type->extent;
      GDS_TRY(transfer_general(func, a, slice));
      if (hi[d] == r.hi[d]) break;
    }
    return GDS_STATUS_OK;
  }
  return a.blocks != nullptr ? transfer_blocks(func, a, r) : transfer_user(func, a, r);
}

GDS_status_t compare_and_swap(const char *func, Array &a, const void *compare, const void *source, void *result,
                              const Index *index) {
  int rank = -1;
  Index offset = 0;
  GDS_TRY(a.layout->locate(func, index, &rank, &offset));
  ArrayState &st = state(a);
  st.writes.record(rank, offset * a.type->extent, a.type->extent);
  return st.window.compare_and_swap(func, source, compare, result, a.type->mpi, rank, static_cast<MPI_Aint>(offset));
}

}  // namespace gds::rma
