// GDS_version_verify: a retained version's stored blocks against the CRC32C
// each got when GDS_version_inc froze it.
//
// Every process checks its own copy of the blocks that hold elements of the
// box (no communication but the final agreement). A block that no longer
// matches is raised on the process holding it, through Open Resilience, with
// the version, the process and the box of the block's elements inside the
// box asked for; adjacent bad blocks are raised together.
#include <algorithm>
#include <vector>

#include "core/array.hpp"
#include "core/bits.hpp"
#include "core/check.hpp"
#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "core/util.hpp"
#include "gds_version.h"
#include "versions/state.hpp"

using namespace gds::core;

namespace {

using gds::core::ull;

// The global index of element `offset` of this process's block (GDS_alloc), in
// storage order.
void unravel(const Array &a, std::uint64_t offset, Index *g) {
  for (std::size_t k = a.ndims(); k-- > 0;) {
    const std::size_t d = a.layout->storage_dim(k);
    g[d] = a.local_lo[d] + offset % a.local_ext[d];
    offset /= a.local_ext[d];
  }
}

bool inside(std::size_t n, const Index *g, const Index *lo, const Index *hi) {
  for (std::size_t d = 0; d < n; ++d)
    if (g[d] < lo[d] || g[d] > hi[d]) return false;
  return true;
}

// The blocks of this process holding elements of [lo, hi] (a bit per block).
std::vector<std::uint64_t> blocks_in_box(const char *func, const Array &a, unsigned shift, std::uint32_t nblocks,
                                         const Index *lo, const Index *hi, GDS_status_t *status) {
  std::vector<std::uint64_t> wanted((nblocks + 63) / 64 + 1, 0);
  const std::uint64_t extent = a.type->extent;
  const std::size_t n = a.ndims();
  const auto mark = [&](std::uint64_t first_element, std::uint64_t elements) {
    const std::uint64_t from = first_element * extent >> shift, to = ((first_element + elements) * extent - 1) >> shift;
    for (std::uint64_t b = from; b <= to && b < nblocks; ++b) set_bit(wanted, b);
  };
  if (a.blocks != nullptr) {
    if (a.local_count == 0) return wanted;
    Dims ilo(n), ihi(n);
    for (std::size_t d = 0; d < n; ++d) {
      ilo[d] = std::max(lo[d], a.local_lo[d]);
      ihi[d] = std::min(hi[d], a.local_lo[d] + a.local_ext[d] - 1);
      if (ilo[d] > ihi[d]) return wanted;
    }
    // Row by row along the fastest storage dimension.
    const std::size_t fast = a.layout->storage_dim(n - 1);
    Dims row_hi = ihi;
    row_hi[fast] = ilo[fast];
    Dims g = ilo;
    do {
      std::uint64_t offset = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t d = a.layout->storage_dim(k);
        offset = offset * a.local_ext[d] + (g[d] - a.local_lo[d]);
      }
      mark(offset, ihi[fast] - ilo[fast] + 1);
    } while (a.layout->next_index(ilo.data(), row_hi.data(), g.data()));
    return wanted;
  }
  // GDS_create: the application's mapping says which elements are here.
  Dims g(lo, lo + n);
  do {
    int rank = -1;
    Index offset = 0;
    *status = a.layout->locate(func, g.data(), &rank, &offset);
    if (*status != GDS_STATUS_OK) return wanted;
    if (rank == a.rank) mark(offset, 1);
  } while (a.layout->next_index(lo, hi, g.data()));
  return wanted;
}

struct Bad {
  std::uint32_t first, last;  // blocks
  Dims lo, hi;                // bounding box of their elements inside the box asked for
  bool any = false;           // whether some element of the box is in them
};

void widen(Bad &r, std::size_t n, const Index *g) {
  if (!r.any) {
    r.lo.assign(g, g + n);
    r.hi.assign(g, g + n);
    r.any = true;
    return;
  }
  for (std::size_t d = 0; d < n; ++d) {
    r.lo[d] = std::min(r.lo[d], g[d]);
    r.hi[d] = std::max(r.hi[d], g[d]);
  }
}

// Adjacent bad blocks in runs, each with the box of its elements in [lo, hi].
std::vector<Bad> describe(const char *func, const Array &a, unsigned shift, const std::vector<std::uint32_t> &blocks,
                          const Index *lo, const Index *hi) {
  std::vector<Bad> runs;
  for (std::uint32_t b : blocks) {
    if (!runs.empty() && runs.back().last + 1 == b)
      runs.back().last = b;
    else
      runs.push_back(Bad{b, b, {}, {}, false});
  }
  const std::size_t n = a.ndims();
  const std::uint64_t extent = a.type->extent;
  Dims g(n);
  if (a.blocks != nullptr) {
    for (Bad &r : runs) {
      const std::uint64_t from = (std::uint64_t{r.first} << shift) / extent;
      const std::uint64_t end = (std::uint64_t{r.last} + 1) << shift;
      const std::uint64_t to = std::min<std::uint64_t>(a.local_count, (end + extent - 1) / extent);
      for (std::uint64_t e = from; e < to; ++e) {
        unravel(a, e, g.data());
        if (inside(n, g.data(), lo, hi)) widen(r, n, g.data());
      }
    }
    return runs;
  }
  g.assign(lo, lo + n);
  do {
    int rank = -1;
    Index offset = 0;
    if (a.layout->locate(func, g.data(), &rank, &offset) != GDS_STATUS_OK || rank != a.rank) continue;
    const std::uint64_t b0 = offset * extent >> shift, b1 = (offset * extent + extent - 1) >> shift;
    for (Bad &r : runs)
      if (b0 <= r.last && b1 >= r.first) widen(r, n, g.data());
  } while (a.layout->next_index(lo, hi, g.data()));
  return runs;
}

}  // namespace

extern "C" {

GDS_API GDS_status_t GDS_version_verify(GDS_gds_t gds, GDS_size_t version, const GDS_size_t lo_index[],
                                        const GDS_size_t hi_index[]) try {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_status_t s = GDS_STATUS_OK;
  GDS_TRY(resolve_collective(__func__, gds, &cursor, &s));
  Array &a = *cursor->array;
  gds::versions::ArrayState &vs = gds::versions::state(a);
  const gds::versions::Store &store = *vs.store;
  const std::size_t n = a.ndims();
  const bool whole = lo_index == nullptr && hi_index == nullptr;
  Dims lo(n), hi(n);
  if (whole) {
    for (std::size_t d = 0; d < n; ++d) hi[d] = a.layout->count()[d] - 1;
  } else if (s == GDS_STATUS_OK) {
    s = check_box(__func__, *a.layout, lo_index, hi_index);
    if (s == GDS_STATUS_OK) {
      lo.assign(lo_index, lo_index + n);
      hi.assign(hi_index, hi_index + n);
    }
  }
  const gds::versions::Version *v = store.find(version);
  if (s == GDS_STATUS_OK && v == nullptr)
    s = version == vs.current ? fail(GDS_STATUS_NO_VERSION, __func__,
                                     "version=%llu is the current content, "
                                     "which GDS_version_inc has not frozen "
                                     "(and checksummed) yet",
                                     ull(version))
        : store.dropped(version)
            ? fail(GDS_STATUS_VERSION_DROPPED, __func__, "version=%llu was dropped by retention", ull(version))
            : fail(GDS_STATUS_NO_VERSION, __func__, "version=%llu does not exist (current is %llu)", ull(version),
                   ull(vs.current));
  // Every process must ask for the same version and box.
  std::vector<std::uint64_t> args{version};
  args.insert(args.end(), lo.begin(), lo.end());
  args.insert(args.end(), hi.begin(), hi.end());
  std::vector<std::uint64_t> bad;
  if (s == GDS_STATUS_OK) {
    std::vector<std::uint64_t> wanted;
    if (!whole) wanted = blocks_in_box(__func__, a, store.shift(), store.nblocks(), lo.data(), hi.data(), &s);
    if (s == GDS_STATUS_OK) {
      const std::vector<std::uint32_t> blocks = store.verify(*v, wanted);
      bad.assign(blocks.begin(), blocks.end());
    }
  }
  // Agree: a failure, the arguments, and whether some process found bad blocks.
  std::uint64_t any_bad[1] = {!bad.empty()};
  const GDS_status_t agreed = agree(__func__, a.communicator(), s, any_bad,
                                    Signature{}.add(args.data(), args.size() * sizeof args[0]).value(),
                                    "versions or boxes");
  if (s != GDS_STATUS_OK || agreed == GDS_STATUS_MPI_ERROR) return checked(__func__, &a, agreed);
  GDS_TRY(agreed);
  if (!bad.empty()) {
    const std::vector<std::uint32_t> blocks(bad.begin(), bad.end());
    for (const Bad &r : describe(__func__, a, store.shift(), blocks, lo.data(), hi.data())) {
      fail(GDS_STATUS_CORRUPT, __func__,
           "version %llu: %u stored block(s) %u-%u of process %d (block size "
           "%llu) no longer match their checksums",
           ull(version), r.last - r.first + 1, r.first, r.last, a.rank, ull(store.block_bytes()));
      detected(__func__, &a, GDS_STATUS_CORRUPT,
               Detected{r.any ? r.lo.data() : nullptr, r.any ? r.hi.data() : nullptr,
                        static_cast<std::int64_t>(version), 0, a.rank, nullptr});
    }
    return GDS_STATUS_CORRUPT;
  }
  if (any_bad[0] != 0)
    return fail(GDS_STATUS_CORRUPT, __func__, "version %llu failed its checksums on another process", ull(version));
  return GDS_STATUS_OK;
}
GDS_API_CATCH

}  // extern "C"
