#include "rma/datatype.hpp"

#include <boost/container/small_vector.hpp>

#include <unordered_map>

#include "core/log.hpp"
#include "core/util.hpp"

namespace gds::rma {
namespace {

using Key = boost::container::small_vector<std::uint64_t, 2 * core::kInlineDims + 2>;

struct KeyHash {
  std::size_t operator()(const Key &k) const noexcept {
    const std::uint64_t h = core::Fnv1a{}.add(k.data(), k.size() * sizeof k[0]).value();
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

// Bounded: a program that touches very many shapes starts over rather than
// grow without end (requests in progress keep the types they hold).
constexpr std::size_t kMaxCachedTypes = 4096;
std::unordered_map<Key, SharedType, KeyHash> g_cache;

GDS_status_t build(const char *func, MPI_Datatype elem, std::size_t elem_extent, const Index *ext,
                   const Index *stride, std::size_t n, Datatype *out) {
  // Innermost dimensions first. A contiguous innermost run becomes the block
  // length of the next dimension's vector: one level, as a hand-written
  // MPI_Type_vector would be, which MPICH packs faster than a nested one.
  MPI_Datatype raw = MPI_DATATYPE_NULL;
  std::size_t inner = n - 1;
  int rc;
  if (stride[inner] == 1 && n >= 2) {
    --inner;
    rc = MPI_Type_create_hvector(static_cast<int>(ext[inner]), static_cast<int>(ext[inner + 1]),
                                 static_cast<MPI_Aint>(stride[inner] * elem_extent), elem, &raw);
  } else if (stride[inner] == 1) {
    rc = MPI_Type_contiguous(static_cast<int>(ext[inner]), elem, &raw);
  } else {
    rc = MPI_Type_create_hvector(static_cast<int>(ext[inner]), 1,
                                 static_cast<MPI_Aint>(stride[inner] * elem_extent), elem, &raw);
  }
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Type_create_hvector", rc);
  Datatype t(raw);
  for (std::size_t k = inner; k-- > 0;) {
    rc = MPI_Type_create_hvector(static_cast<int>(ext[k]), 1, static_cast<MPI_Aint>(stride[k] * elem_extent),
                                 t.get(), &raw);
    if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Type_create_hvector", rc);
    t = Datatype(raw);  // the inner level is freed: the outer one keeps what it needs
  }
  raw = t.get();
  rc = MPI_Type_commit(&raw);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Type_commit", rc);
  *out = std::move(t);
  return GDS_STATUS_OK;
}

}  // namespace

GDS_status_t describe(const char *func, MPI_Datatype elem, std::size_t elem_extent, const Index *ext,
                      const Index *stride, std::size_t n, TypeSpec *out) {
  // Canonical form, innermost dimension last.
  Index ce[core::kMaxDims], cs[core::kMaxDims];
  std::size_t m = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (ext[k] == 1) continue;
    ce[m] = ext[k];
    cs[m] = stride[k];
    ++m;
  }
  // Merge a dimension into the next inner one when the two are contiguous.
  std::size_t w = m;
  for (std::size_t k = m; k-- > 1;) {
    const std::size_t inner = k, outer = k - 1;
    if (cs[outer] == ce[inner] * cs[inner] && ce[outer] * ce[inner] <= kMaxMpiCount) {
      ce[outer] *= ce[inner];
      cs[outer] = cs[inner];
      // Shift the dimensions after `inner` down by one.
      for (std::size_t j = inner; j + 1 < w; ++j) {
        ce[j] = ce[j + 1];
        cs[j] = cs[j + 1];
      }
      --w;
    }
  }
  m = w;
  if (m == 0) {
    *out = TypeSpec{1, elem, {}};
    return GDS_STATUS_OK;
  }
  if (m == 1 && cs[0] == 1) {
    *out = TypeSpec{static_cast<int>(ce[0]), elem, {}};
    return GDS_STATUS_OK;
  }
  Key key;
  key.reserve(2 * m + 1);
  key.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(MPI_Type_c2f(elem))));
  for (std::size_t k = 0; k < m; ++k) {
    key.push_back(ce[k]);
    key.push_back(cs[k]);
  }
  auto it = g_cache.find(key);
  if (it != g_cache.end()) {
    *out = TypeSpec{1, it->second->get(), it->second};
    return GDS_STATUS_OK;
  }
  if (g_cache.size() >= kMaxCachedTypes) clear_type_cache();
  Datatype t;
  GDS_TRY(build(func, elem, elem_extent, ce, cs, m, &t));
  const MPI_Datatype handle = t.get();
  SharedType shared = std::make_shared<const Datatype>(std::move(t));
  g_cache.emplace(key, shared);  // a copy of the key: GCC 12 misreads small_vector's move here (-Wstringop-overread)
  *out = TypeSpec{1, handle, std::move(shared)};
  return GDS_STATUS_OK;
}

GDS_status_t RunTypes::make(const char *func, const std::vector<int> &length, const std::vector<MPI_Aint> &offset,
                            MPI_Datatype elem, std::size_t esize, TypeSpec *out, MPI_Aint *base) {
  // Runs that touch are merged, so memory that is contiguous is described
  // as a count of elements, never as a derived type: MPICH 4.0.2 aborts a
  // get_accumulate whose target datatype is derived but contiguous once 768
  // derived types exist (tests/mpi_bugs/get_acc_contiguous_target.c).
  std::vector<int> lengths;
  std::vector<MPI_Aint> bytes;
  lengths.reserve(length.size());
  bytes.reserve(length.size());
  const auto e = static_cast<MPI_Aint>(esize);
  for (std::size_t i = 0; i < length.size(); ++i) {
    const MPI_Aint at = offset[i] * e;
    if (!lengths.empty() && bytes.back() + lengths.back() * e == at &&
        static_cast<Index>(lengths.back()) + static_cast<Index>(length[i]) <= kMaxMpiCount) {
      lengths.back() += length[i];
      continue;
    }
    lengths.push_back(length[i]);
    bytes.push_back(at);
  }
  if (lengths.size() == 1) {
    *out = TypeSpec{lengths[0], elem, {}};
    *base = offset[0];
    return GDS_STATUS_OK;
  }
  MPI_Datatype t = MPI_DATATYPE_NULL;
  int rc = MPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), bytes.data(), elem, &t);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Type_create_hindexed", rc);
  made_.emplace_back(t);
  rc = MPI_Type_commit(&t);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Type_commit", rc);
  *out = TypeSpec{1, t, {}};
  *base = 0;
  return GDS_STATUS_OK;
}

void clear_type_cache() { g_cache.clear(); }

}  // namespace gds::rma
