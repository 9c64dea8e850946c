#include "versions/read.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "core/log.hpp"
#include "core/util.hpp"
#include "rma/datatype.hpp"
#include "rma/transfer.hpp"
#include "versions/state.hpp"

namespace gds::versions {

using core::Array;
using core::Index;

namespace {

// Bytes of the box on one owner: at byte `target` of its part, `bytes` long,
// going to byte `dest` of the destination buffer.
struct Run {
  int rank;
  std::uint64_t target;
  std::uint64_t bytes;
  std::uint64_t dest;
};

GDS_status_t collect_runs(const char *func, Array &a, const Index *dest_ld, const Index *lo, const Index *hi,
                          std::vector<Run> *runs) {
  const std::uint64_t esize = a.type->extent;
  Index stride[core::kMaxDims];
  rma::buffer_strides(*a.layout, dest_ld, stride);
  if (a.blocks != nullptr) {
    a.blocks->for_each_owner(lo, hi, [&](const core::BlockPiece &p) {
      rma::PieceShape s;
      rma::shape_piece(*a.layout, lo, stride, p, &s);
      rma::for_each_run(s, [&](Index b, Index t, Index len) {
        runs->push_back(Run{p.rank, t * esize, len * esize, b * esize});
      });
    });
    return GDS_STATUS_OK;
  }
  // A GDS_create array: element by element through the mapping, all of it
  // before anything is read, so a faulty mapping reads nothing.
  const std::size_t n = a.ndims();
  Index g[core::kMaxDims];
  std::copy(lo, lo + n, g);
  do {
    int rank = -1;
    Index offset = 0;
    GDS_TRY(a.layout->locate(func, g, &rank, &offset));
    Index dest = 0;
    for (std::size_t d = 0; d < n; ++d) dest += (g[d] - lo[d]) * stride[d];
    if (!runs->empty()) {
      Run &r = runs->back();
      if (r.rank == rank && r.target + r.bytes == offset * esize && r.dest + r.bytes == dest * esize) {
        r.bytes += esize;
        continue;
      }
    }
    runs->push_back(Run{rank, offset * esize, esize, dest * esize});
  } while (a.layout->next_index(lo, hi, g));
  return GDS_STATUS_OK;
}

// Bytes of one owner's part of the array.
std::uint64_t part_bytes(const Array &a, int rank) {
  const Index count = a.blocks != nullptr ? a.blocks->local_volume(rank) : a.user->local_count(rank);
  return count * a.type->extent;
}

// Where process `owner`'s block table of version v is: its directory
// entry, read one-sidedly the first time and remembered with the version.
GDS_status_t table_of(const char *func, Store &store, const Version &v, int owner, SlotRef *where) {
  for (const auto &[rank, slot] : v.tables_read)
    if (rank == owner) {
      *where = slot;
      return GDS_STATUS_OK;
    }
  rma::Window &w = store.slab_window(store.directory_slab());
  GDS_TRY(w.get(func, where, sizeof(SlotRef), MPI_BYTE, owner, static_cast<MPI_Aint>(store.directory_at(v)),
                sizeof(SlotRef), MPI_BYTE));
  GDS_TRY(w.flush(func, owner));
  v.tables_read.emplace_back(owner, *where);
  return GDS_STATUS_OK;
}

// Copies one owner's runs of a version into dest.
GDS_status_t read_owner(const char *func, Array &a, const Version &v, int owner, const Run *runs,
                        std::size_t nruns, std::byte *dest) {
  Store &store = *state(a).store;
  const unsigned shift = store.shift();
  const std::uint64_t block = store.block_bytes();
  const std::uint64_t owner_bytes = part_bytes(a, owner);
  const std::uint64_t slot_bytes = store.data_slot_bytes(owner_bytes);
  std::uint32_t first = UINT32_MAX, last = 0;
  for (std::size_t i = 0; i < nruns; ++i) {
    first = std::min(first, static_cast<std::uint32_t>(runs[i].target >> shift));
    last = std::max(last, static_cast<std::uint32_t>((runs[i].target + runs[i].bytes - 1) >> shift));
  }

  // The table entries for blocks first..last.
  std::vector<SlotRef> fetched;
  const SlotRef *entries = nullptr;
  if (owner == a.rank) {
    entries = store.local_table(v) + first;
  } else {
    SlotRef where = kZero;
    GDS_TRY(table_of(func, store, v, owner, &where));
    if (where == kZero)  // a table where the owner holds blocks: its directory is not what this process thinks
      return core::fail_critical(GDS_STATUS_INTERNAL, func, "process %d has no block table of version %llu", owner,
                                 static_cast<unsigned long long>(v.number));
    const std::uint64_t table_bytes = Store::table_bytes(store.nblocks_of(owner_bytes));
    fetched.resize(std::size_t{last} - first + 1);
    rma::Window &w = store.slab_window(slab_of(where));
    const std::uint64_t at = slot_of(where) * table_bytes + std::uint64_t{first} * sizeof(SlotRef);
    // In gets of at most core::kMaxPiece bytes (an int count).
    const std::uint64_t total = fetched.size() * sizeof(SlotRef);
    for (std::uint64_t done = 0; done < total; done += core::kMaxPiece) {
      const int n = static_cast<int>(std::min(core::kMaxPiece, total - done));
      GDS_TRY(w.get(func, reinterpret_cast<std::byte *>(fetched.data()) + done, n, MPI_BYTE, owner,
                    static_cast<MPI_Aint>(at + done), n, MPI_BYTE));
    }
    GDS_TRY(w.flush(func, owner));
    entries = fetched.data();
  }

  // Split the runs at block boundaries; gather the remote pieces per slab.
  struct Pieces {
    std::vector<int> length;
    std::vector<MPI_Aint> dest, source;
  };
  std::map<std::uint32_t, Pieces> per_slab;
  for (std::size_t i = 0; i < nruns; ++i) {
    std::uint64_t at = runs[i].target, to = runs[i].dest, left = runs[i].bytes;
    while (left > 0) {
      const std::uint64_t within = at & (block - 1);
      const std::uint64_t take = std::min(left, block - within);
      const SlotRef slot = entries[(at >> shift) - first];
      if (slot == kZero) {
        std::memset(dest + to, 0, take);
      } else if (owner == a.rank) {
        std::memcpy(dest + to, store.local_slot(slot) + within, take);
      } else {
        Pieces &p = per_slab[slab_of(slot)];
        const auto source = static_cast<MPI_Aint>(slot_of(slot) * slot_bytes + within);
        const auto d = static_cast<MPI_Aint>(to);
        if (!p.length.empty() && p.dest.back() + p.length.back() == d && p.source.back() + p.length.back() == source &&
            static_cast<std::uint64_t>(p.length.back()) + take <= core::kMaxPiece)
          p.length.back() += static_cast<int>(take);
        else {
          p.length.push_back(static_cast<int>(take));
          p.dest.push_back(d);
          p.source.push_back(source);
        }
      }
      at += take;
      to += take;
      left -= take;
    }
  }
  // A few pieces go as contiguous gets, which MPI serves by RDMA; many as
  // one get with derived datatypes on both sides (packed on the target's
  // side, through MPICH's active messages, which costs more per byte).
  constexpr std::size_t kSeparateGets = 64;
  for (auto &[slab, p] : per_slab) {
    rma::Window &w = store.slab_window(slab);
    if (p.length.size() <= kSeparateGets) {
      for (std::size_t i = 0; i < p.length.size(); ++i)
        GDS_TRY(w.get(func, dest + p.dest[i], p.length[i], MPI_BYTE, owner, p.source[i], p.length[i], MPI_BYTE));
      continue;
    }
    rma::RunTypes types;
    rma::TypeSpec dt{}, st{};
    MPI_Aint dbase = 0, sbase = 0;
    GDS_TRY(types.make(func, p.length, p.dest, MPI_BYTE, 1, &dt, &dbase));
    GDS_TRY(types.make(func, p.length, p.source, MPI_BYTE, 1, &st, &sbase));
    GDS_TRY(w.get(func, dest + dbase, dt.count, dt.type, owner, sbase, st.count, st.type));
  }
  for (auto &[slab, p] : per_slab) GDS_TRY(store.slab_window(slab).flush(func, owner));
  return GDS_STATUS_OK;
}

}  // namespace

GDS_status_t read(const char *func, Array &a, std::uint64_t number, void *dest, const Index *dest_ld,
                  const Index *lo, const Index *hi) {
  const Store &store = *state(a).store;
  const Version *v = store.find(number);
  if (v == nullptr)
    return core::fail(store.dropped(number) ? GDS_STATUS_VERSION_DROPPED : GDS_STATUS_NO_VERSION, func,
                      "version %llu of the array %s", static_cast<unsigned long long>(number),
                      store.dropped(number) ? "was dropped by retention" : "does not exist");
  std::vector<Run> runs;
  GDS_TRY(collect_runs(func, a, dest_ld, lo, hi, &runs));
  std::stable_sort(runs.begin(), runs.end(), [](const Run &x, const Run &y) { return x.rank < y.rank; });
  for (std::size_t i = 0; i < runs.size();) {
    std::size_t j = i;
    while (j < runs.size() && runs[j].rank == runs[i].rank) ++j;
    GDS_TRY(read_owner(func, a, *v, runs[i].rank, runs.data() + i, j - i, static_cast<std::byte *>(dest)));
    i = j;
  }
  return GDS_STATUS_OK;
}

}  // namespace gds::versions
