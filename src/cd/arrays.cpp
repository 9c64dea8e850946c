// Boxes of GDS arrays preserved in containment domains.
//
// A CD whose processes are the array's preserves a box via copy by taking a
// version of the array (what changed since the last version is what is
// copied) and pinning it, so retention keeps it while the CD needs it. Any
// other CD (per-process, or over a sub-communicator) preserves the part of
// the box each of its processes owns, by copying that part only: no other
// process takes part. Restore writes each process's own part back: from the
// pinned version (read one-sidedly), from the snapshot, from the ancestor's
// entry (via parent) or through the regeneration function.
#include <mpi.h>

#include <algorithm>
#include <cstring>

#include "cd/domain.hpp"
#include "core/check.hpp"
#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/mpi_handles.hpp"
#include "rma/state.hpp"
#include "versions/read.hpp"
#include "versions/state.hpp"
#include "gds_version.h"

namespace gds::cd {

using core::Dims;
using core::Index;

namespace {

bool alive(const BoxEntry &b) {
  core::Cursor *c = nullptr;
  return core::g_arrays.find(b.primary, &c) == GDS_STATUS_OK && c->array == b.array;
}

bool contains(const BoxEntry &outer, const Dims &lo, const Dims &hi) {
  for (std::size_t d = 0; d < lo.size(); ++d)
    if (lo[d] < outer.lo[d] || hi[d] > outer.hi[d]) return false;
  return true;
}

// Calls f(byte offset, bytes) for each run of the part [plo, phi] of a
// box stored densely in storage order from `origin` with extents `ext` (this
// process's block, or a packed snapshot), in storage order: the fastest
// storage dimension is contiguous.
template <class F>
void runs(const core::Array &a, const Dims &origin, const Dims &ext, const Dims &plo, const Dims &phi, F f) {
  const core::Layout &l = *a.layout;
  const std::size_t n = l.ndims();
  const Index esize = a.type->extent;
  Dims stride(n);
  Index s = 1;
  for (std::size_t k = n; k-- > 0;) {
    const std::size_t d = l.storage_dim(k);
    stride[d] = s;
    s *= ext[d];
  }
  const std::size_t fast = l.storage_dim(n - 1);
  const Index run = (phi[fast] - plo[fast] + 1) * esize;
  Dims g = plo;
  for (;;) {
    Index offset = 0;
    for (std::size_t d = 0; d < n; ++d) offset += (g[d] - origin[d]) * stride[d];
    f(offset * esize, run);
    std::size_t k = n - 1;
    for (; k-- > 0;) {
      const std::size_t d = l.storage_dim(k);
      if (g[d] < phi[d]) {
        ++g[d];
        break;
      }
      g[d] = plo[d];
    }
    if (k == static_cast<std::size_t>(-1)) return;
  }
}

// The runs of [plo, phi] in this process's block.
template <class F>
void local_runs(const core::Array &a, const Dims &plo, const Dims &phi, F f) {
  runs(a, a.local_lo, a.local_ext, plo, phi, f);
}

Index part_bytes(const core::Array &a, const Dims &plo, const Dims &phi) {
  Index v = a.type->extent;
  for (std::size_t d = 0; d < plo.size(); ++d) v *= phi[d] - plo[d] + 1;
  return v;
}

// This process's part of the box, if it owns one (GDS_alloc arrays).
bool own_part(const core::Array &a, const Dims &lo, const Dims &hi, Dims *plo, Dims *phi) {
  if (a.blocks == nullptr || a.local_count == 0) return false;
  const std::size_t n = lo.size();
  plo->resize(n);
  phi->resize(n);
  for (std::size_t d = 0; d < n; ++d) {
    const Index first = a.local_lo[d], last = a.local_lo[d] + a.local_ext[d] - 1;
    (*plo)[d] = std::max(lo[d], first);
    (*phi)[d] = std::min(hi[d], last);
    if ((*plo)[d] > (*phi)[d]) return false;
  }
  return true;
}

void snapshot(const core::Array &a, const Dims &plo, const Dims &phi, std::vector<std::byte> *out) {
  out->resize(part_bytes(a, plo, phi));
  const std::byte *base = rma::state(const_cast<core::Array &>(a)).base;
  std::size_t at = 0;
  local_runs(a, plo, phi, [&](Index offset, Index bytes) {
    std::memcpy(out->data() + at, base + offset, bytes);
    at += bytes;
  });
}

// Writes a packed part back into this process's block, recording the
// writes so that the next version sees them.
GDS_status_t write_part(const char *func, core::Array &a, const Dims &plo, const Dims &phi, const std::byte *packed) {
  rma::ArrayState &st = rma::state(a);
  return rma::write_local_part(func, a, [&](std::byte *base) {
    std::size_t at = 0;
    local_runs(a, plo, phi, [&](Index offset, Index bytes) {
      std::memcpy(base + offset, packed + at, bytes);
      st.writes.record(a.rank, offset, bytes);
      at += bytes;
    });
    return GDS_STATUS_OK;
  });
}

// Reads the part [plo, phi] as entry `b` of domain `d` preserves it.
GDS_status_t read_part(const char *func, const Domain &d, const BoxEntry &b, const Dims &plo, const Dims &phi,
                       std::vector<std::byte> *out);

// The entry of `d` for this array holding box [lo, hi], other than by regeneration.
const BoxEntry *find_holder(const Domain &d, const core::Array *a, const Dims &lo, const Dims &hi) {
  for (const auto &b : d.boxes)
    if (b->array == a && b->via != GDS_CD_VIA_REGEN && contains(*b, lo, hi)) return b.get();
  return nullptr;
}

GDS_status_t read_part(const char *func, const Domain &d, const BoxEntry &b, const Dims &plo, const Dims &phi,
                       std::vector<std::byte> *out) {
  core::Array &a = *b.array;
  if (b.via == GDS_CD_VIA_PARENT) {
    const BoxEntry *h = d.parent != nullptr ? find_holder(*d.parent, &a, b.lo, b.hi) : nullptr;
    GDS_CHECK(h != nullptr, GDS_STATUS_NOT_PRESERVED, "the parent of %s no longer preserves the box of array #%llu",
              d.describe().c_str(), static_cast<unsigned long long>(a.id));
    return read_part(func, *d.parent, *h, plo, phi, out);
  }
  if (b.versioned) {
    out->resize(part_bytes(a, plo, phi));
    Dims ld(plo.size());
    GDS_TRY(core::check_ld(func, *a.layout, nullptr, plo.data(), phi.data(), "ld", ld.data()));
    return versions::read(func, a, b.version, out->data(), ld.data(), plo.data(), phi.data());
  }
  GDS_CHECK(b.has_part, GDS_STATUS_NOT_PRESERVED, "%s holds no part of array #%llu on this process",
            d.describe().c_str(), static_cast<unsigned long long>(a.id));
  if (plo == b.part_lo && phi == b.part_hi) {
    *out = b.data;
    return GDS_STATUS_OK;
  }
  // A sub-part of a larger snapshot: pick its runs out of the packed data.
  out->clear();
  Dims ext(plo.size());
  for (std::size_t d2 = 0; d2 < plo.size(); ++d2) ext[d2] = b.part_hi[d2] - b.part_lo[d2] + 1;
  runs(a, b.part_lo, ext, plo, phi, [&](Index offset, Index bytes) {
    out->insert(out->end(), b.data.data() + offset, b.data.data() + offset + bytes);
  });
  return GDS_STATUS_OK;
}

// Takes a version of the array and returns the frozen number (collective).
GDS_status_t take_version(const char *func, core::Array &a, std::uint64_t *number) {
  *number = versions::state(a).current;
  const GDS_status_t s = GDS_version_inc(core::to_handle<GDS_gds_t>(a.primary), 1, "containment domain", 18);
  GDS_CHECK(s == GDS_STATUS_OK, s, "the version of array #%llu that the CD's point in time is failed: %s",
            static_cast<unsigned long long>(a.id), GDS_status_string(s));
  return GDS_STATUS_OK;
}

// Whether the CD's processes are the array's.
bool spans(const Domain &d, const core::Array &a) {
  if (d.comm_size != a.nprocs) return false;
  int result = MPI_UNEQUAL;
  if (d.comm_size == 1) return true;
  MPI_Comm_compare(d.comm, a.communicator(), &result);
  return result == MPI_IDENT || result == MPI_CONGRUENT;
}

std::unique_ptr<BoxEntry> clone(const BoxEntry &b) {
  auto c = std::make_unique<BoxEntry>(b);
  if (c->versioned && c->via == GDS_CD_VIA_COPY) versions::pin(*c->array, c->version);
  return c;
}

void release(BoxEntry &b) {
  if (b.versioned && b.via == GDS_CD_VIA_COPY && alive(b)) versions::unpin(*b.array, b.version);
  b.versioned = false;
}

}  // namespace

GDS_status_t add_box(const char *func, Domain &d, GDS_cd_via_t via, core::Array &a, const GDS_size_t *lo,
                     const GDS_size_t *hi, GDS_cd_access_t access, GDS_cd_box_regen_func_t regen, void *context) {
  GDS_status_t local = GDS_STATUS_OK;
  const auto check = [&]() -> GDS_status_t {
    GDS_CHECK(via == GDS_CD_VIA_COPY || via == GDS_CD_VIA_PARENT || via == GDS_CD_VIA_REGEN, GDS_STATUS_INVALID,
              "via is %d, not GDS_CD_VIA_COPY, _PARENT or _REGEN", static_cast<int>(via));
    GDS_CHECK(access == GDS_CD_READ_ONLY || access == GDS_CD_READ_WRITE, GDS_STATUS_INVALID,
              "access is %d, not GDS_CD_READ_ONLY or GDS_CD_READ_WRITE", static_cast<int>(access));
    GDS_CHECK(!(via == GDS_CD_VIA_REGEN && access == GDS_CD_READ_WRITE), GDS_STATUS_INVALID,
              "a box via regen is READ_ONLY");
    GDS_CHECK((via == GDS_CD_VIA_REGEN) == (regen != nullptr), GDS_STATUS_INVALID, "regen is %s %s",
              regen == nullptr ? "NULL" : "given", via == GDS_CD_VIA_REGEN ? "via regen" : "but via is not regen");
    GDS_TRY(core::check_box(func, *a.layout, lo, hi, "lo", "hi"));
    GDS_CHECK(via != GDS_CD_VIA_PARENT || d.parent != nullptr, GDS_STATUS_CD_STATE,
              "%s is a root: it has no parent to preserve via", d.describe().c_str());
    GDS_CHECK(spans(d, a) || a.blocks != nullptr, GDS_STATUS_INVALID,
              "array #%llu was made by GDS_create and %s does not span its processes: its buffer is the "
              "application's memory, preserve it with GDS_cd_preserve()",
              static_cast<unsigned long long>(a.id), d.describe().c_str());
    GDS_CHECK(versions::state(a).group == nullptr || a.blocks != nullptr, GDS_STATUS_INVALID,
              "array #%llu was made by GDS_create and is in a version group, which versions it: its buffer is the "
              "application's memory, preserve it with GDS_cd_preserve()",
              static_cast<unsigned long long>(a.id));
    if (via == GDS_CD_VIA_PARENT) {
      const Dims blo(lo, lo + a.ndims()), bhi(hi, hi + a.ndims());
      GDS_CHECK(find_holder(*d.parent, &a, blo, bhi) != nullptr, GDS_STATUS_NOT_PRESERVED,
                "the parent %s preserves no box of array #%llu that holds this one (other than by regeneration)",
                d.parent->describe().c_str(), static_cast<unsigned long long>(a.id));
    }
    return GDS_STATUS_OK;
  };
  local = check();
  if (local == GDS_STATUS_OK && d.durable != nullptr && a.blocks == nullptr)
    local = core::fail(GDS_STATUS_INVALID, func,
                       "array #%llu was made by GDS_create: its buffer is the application's memory, which %s "
                       "persists through GDS_cd_preserve()",
                       static_cast<unsigned long long>(a.id), d.describe().c_str());
  // A restarted persisted root: the box's next saved part, checked before the agreement.
  const BoxImage *saved = nullptr;
  if (local == GDS_STATUS_OK && d.durable != nullptr && d.durable->restarting &&
      d.durable->next_box < d.durable->restart_boxes.size()) {
    saved = &d.durable->restart_boxes[d.durable->next_box];
    local = check_restarted_box(func, d, a, via, Dims(lo, lo + a.ndims()), Dims(hi, hi + a.ndims()), *saved);
  }
  auto b = std::make_unique<BoxEntry>();
  if (local == GDS_STATUS_OK) {
    b->primary = a.primary;
    b->array = &a;
    b->lo.assign(lo, lo + a.ndims());
    b->hi.assign(hi, hi + a.ndims());
    b->via = via;
    b->rw = access == GDS_CD_READ_WRITE;
    b->regen = regen;
    b->context = context;
    // A member of a version group is versioned through its group only: a snapshot of each part.
    b->versioned = spans(d, a) && !d.per_process() && versions::state(a).group == nullptr;
    b->has_part = own_part(a, b->lo, b->hi, &b->part_lo, &b->part_hi);
    b->writes_at = rma::writes_to(a);
  }
  if (!d.per_process()) GDS_TRY(core::agree(func, d.comm, local));
  else GDS_TRY(local);
  if (saved != nullptr) {  // its persisted part back into the array first (then preserved as usual)
    ++d.durable->next_box;
    local = saved->copy && saved->has_part ? write_part(func, a, saved->plo, saved->phi, saved->data.data()) : GDS_STATUS_OK;
    if (!d.per_process()) GDS_TRY(core::agree(func, d.comm, local));
    else GDS_TRY(local);
  }
  // The same box added again the same way is relabelled, not copied again
  // (READ_WRITE promotes it: the next advance refreshes it).
  for (auto &e : d.boxes)
    if (e->array == &a && e->via == via && e->lo == b->lo && e->hi == b->hi) {
      e->rw = b->rw;
      return GDS_STATUS_OK;
    }
  if (via == GDS_CD_VIA_COPY) {
    if (b->versioned) {
      GDS_TRY(take_version(func, a, &b->version));
      versions::pin(a, b->version);
    } else if (b->has_part) {
      snapshot(a, b->part_lo, b->part_hi, &b->data);
    }
  }
  d.boxes.push_back(std::move(b));
  return GDS_STATUS_OK;
}

GDS_status_t box_images(const char *func, const Domain &d, std::vector<BoxImage> *out) {
  out->clear();
  for (const auto &b : d.boxes) {
    BoxImage im;
    im.lo = b->lo;
    im.hi = b->hi;
    im.copy = b->via == GDS_CD_VIA_COPY && alive(*b);
    im.esize = alive(*b) ? b->array->type->extent : 0;
    if (im.copy && b->has_part) {
      im.has_part = true;
      im.plo = b->part_lo;
      im.phi = b->part_hi;
      GDS_TRY(read_part(func, d, *b, b->part_lo, b->part_hi, &im.data));
    }
    out->push_back(std::move(im));
  }
  return GDS_STATUS_OK;
}

GDS_status_t check_restarted_box(const char *func, const Domain &d, const core::Array &a, GDS_cd_via_t via,
                                 const Dims &lo, const Dims &hi, const BoxImage &saved) {
  Dims plo, phi;
  const bool part = own_part(a, lo, hi, &plo, &phi) && via == GDS_CD_VIA_COPY;
  const bool same = saved.copy == (via == GDS_CD_VIA_COPY) && saved.lo == lo && saved.hi == hi && saved.esize == a.type->extent &&
                    saved.has_part == part && (!part || (saved.plo == plo && saved.phi == phi &&
                                                         saved.data.size() == part_bytes(a, plo, phi)));
  GDS_CHECK(same, GDS_STATUS_INVALID,
            "%s restarted from a point whose box %zu differs from this one (its bounds, element size, or this "
            "process's part of it): a restarted program adds the boxes of its root CD in the order of the run that "
            "persisted them, of arrays of the same shape over the same processes",
            d.describe().c_str(), d.durable->next_box);
  return GDS_STATUS_OK;
}

GDS_status_t check_contained(const char *func, Domain &d) {
  // Every process of the array this domain's work wrote to must be one of its processes.
  const auto own = [&](const Domain &x) -> GDS_status_t {
    for (const auto &b : x.boxes) {
      if (!alive(*b)) continue;
      const std::vector<std::uint64_t> &now = rma::writes_to(*b->array);
      core::MpiGroup cd_group, array_group;
      for (std::size_t r = 0; r < now.size(); ++r) {
        const std::uint64_t before = r < b->writes_at.size() ? b->writes_at[r] : 0;
        if (now[r] == before) continue;
        int in_cd = MPI_UNDEFINED;
        if (d.per_process()) {
          in_cd = static_cast<int>(r) == b->array->rank ? 0 : MPI_UNDEFINED;
        } else {
          if (cd_group.get() == MPI_GROUP_NULL) {
            cd_group = core::MpiGroup(d.comm);
            array_group = core::MpiGroup(b->array->communicator());
          }
          const int rr = static_cast<int>(r);
          MPI_Group_translate_ranks(array_group.get(), 1, &rr, cd_group.get(), &in_cd);
        }
        if (in_cd == MPI_UNDEFINED)
          return core::fail(GDS_STATUS_NOT_CONTAINED, func,
                            "%s cannot be restored: its work wrote one-sidedly to process %zu's part of array #%llu, "
                            "outside the CD (restore an enclosing CD whose processes include it)",
                            d.describe().c_str(), r, static_cast<unsigned long long>(b->array->id));
      }
    }
    return GDS_STATUS_OK;
  };
  if (d.children.empty()) return own(d);  // the common case, without a list
  std::vector<const Domain *> todo{&d};
  while (!todo.empty()) {
    const Domain *x = todo.back();
    todo.pop_back();
    GDS_TRY(own(*x));
    for (const Domain *c : x->children) todo.push_back(c);
  }
  return GDS_STATUS_OK;
}

GDS_status_t restore_boxes(const char *func, Domain &d) {
  // Newest entry first, so that where entries overlap the oldest wins.
  for (auto it = d.boxes.rbegin(); it != d.boxes.rend(); ++it) {
    BoxEntry &b = **it;
    GDS_CHECK(alive(b), GDS_STATUS_FREED_HANDLE, "%s preserves a box of an array that was freed",
              d.describe().c_str());
    if (b.via == GDS_CD_VIA_REGEN) {
      const GDS_status_t r = b.regen(core::to_handle<GDS_gds_t>(b.primary), b.lo.data(), b.hi.data(), b.context);
      GDS_CHECK(r == GDS_STATUS_OK, GDS_STATUS_RECOVERY_FAILED,
                "the regeneration function of a box of array #%llu in %s returned %s",
                static_cast<unsigned long long>(b.array->id), d.describe().c_str(), GDS_status_string(r));
      continue;
    }
    if (!b.has_part) continue;
    std::vector<std::byte> bytes;
    GDS_TRY(read_part(func, d, b, b.part_lo, b.part_hi, &bytes));
    GDS_TRY(write_part(func, *b.array, b.part_lo, b.part_hi, bytes.data()));
  }
  return GDS_STATUS_OK;
}

void commit_boxes_into_parent(Domain &d) {
  Domain &p = *d.parent;
  for (const auto &b : d.boxes) {
    bool held = false;
    for (auto &pb : p.boxes)
      if (pb->array == b->array && contains(*pb, b->lo, b->hi)) {
        held = true;
        if (b->rw) pb->rw = true;
      }
    if (held || b->via == GDS_CD_VIA_PARENT) continue;
    auto c = clone(*b);
    p.boxes.push_back(std::move(c));
  }
}

GDS_status_t advance_boxes(const char *func, Domain &d) {
  std::vector<std::pair<core::Array *, std::uint64_t>> taken;  // one new version per array
  for (auto &b : d.boxes) {
    GDS_CHECK(alive(*b), GDS_STATUS_FREED_HANDLE, "%s preserves a box of an array that was freed",
              d.describe().c_str());
    if (b->via == GDS_CD_VIA_COPY && b->rw) {
      if (b->versioned) {
        auto it = std::find_if(taken.begin(), taken.end(), [&](const auto &t) { return t.first == b->array; });
        if (it == taken.end()) {
          std::uint64_t v = 0;
          GDS_TRY(take_version(func, *b->array, &v));
          taken.emplace_back(b->array, v);
          it = taken.end() - 1;
        }
        versions::unpin(*b->array, b->version);
        b->version = it->second;
        versions::pin(*b->array, b->version);
      } else if (b->has_part) {
        snapshot(*b->array, b->part_lo, b->part_hi, &b->data);
      }
      b->rw = false;
    }
    b->writes_at = rma::writes_to(*b->array);
  }
  return GDS_STATUS_OK;
}

bool preserves(const core::Array &a) {
  for (const auto &d : all_domains())
    for (const auto &b : d->boxes)
      if (b->array == &a && b->primary == a.primary) return true;
  return false;
}

void end_boxes(Domain &d) {
  for (auto &b : d.boxes) release(*b);
  d.boxes.clear();
}

}  // namespace gds::cd
