// Preserved memory ranges: an interval map per CD (non-overlapping entries
// keyed by their first byte), and the document's rules for adding,
// deleting, restoring, committing and advancing them.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "cd/domain.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"

namespace gds::cd {

namespace {

const char *via_name(GDS_cd_via_t v) {
  switch (v) {
    case GDS_CD_VIA_COPY: return "via copy";
    case GDS_CD_VIA_PARENT: return "via parent";
    default: return "via regen";
  }
}

// Splits the entry that straddles `at`, if any, so that an entry begins there.
void split(MemMap &m, std::uintptr_t at) {
  auto it = m.upper_bound(at);
  if (it == m.begin()) return;
  --it;
  const std::uintptr_t lo = it->first;
  MemEntry &e = it->second;
  if (lo >= at || e.hi <= at) return;
  MemEntry tail;
  tail.hi = e.hi;
  tail.via = e.via;
  tail.rw = e.rw;
  tail.global = e.global;
  tail.regen = e.regen;
  if (!e.data.empty()) {
    const std::size_t cut = at - lo;
    tail.data = Bytes(e.data.data() + cut, e.data.size() - cut);
    e.data = Bytes(e.data.data(), cut);
  }
  e.hi = at;
  m.emplace(at, std::move(tail));
}

// Calls f(lo, hi, entry*) for each piece of [a, b): entries that overlap
// it (clipped), and gaps (entry nullptr), in address order.
template <class F>
void pieces(const MemMap &m, std::uintptr_t a, std::uintptr_t b, F f) {
  std::uintptr_t at = a;
  auto it = m.upper_bound(a);
  if (it != m.begin() && std::prev(it)->second.hi > a) --it;
  for (; it != m.end() && it->first < b; ++it) {
    const std::uintptr_t lo = std::max(it->first, a), hi = std::min(it->second.hi, b);
    if (lo > at) f(at, lo, static_cast<const MemEntry *>(nullptr), std::uintptr_t{0});
    f(lo, hi, &it->second, it->first);
    at = hi;
  }
  if (at < b) f(at, b, static_cast<const MemEntry *>(nullptr), std::uintptr_t{0});
}

// Reads bytes [a, b) as `d` preserves them (following via-parent entries up):
// NOT_PRESERVED if some byte is not, or only via regen.
GDS_status_t read_preserved(const char *func, const Domain &d, std::uintptr_t a, std::uintptr_t b, std::byte *out) {
  GDS_status_t status = GDS_STATUS_OK;
  pieces(d.memory, a, b, [&](std::uintptr_t lo, std::uintptr_t hi, const MemEntry *e, std::uintptr_t key) {
    if (status != GDS_STATUS_OK) return;
    std::byte *dst = out + (lo - a);
    if (e == nullptr || e->via == GDS_CD_VIA_REGEN) {
      status = core::fail(GDS_STATUS_NOT_PRESERVED, func, "%s does not preserve bytes [%p, %p) %s", d.describe().c_str(),
                          reinterpret_cast<void *>(lo), reinterpret_cast<void *>(hi),
                          e == nullptr ? "at all" : "except by regeneration");
    } else if (e->via == GDS_CD_VIA_COPY) {
      std::memcpy(dst, e->data.data() + (lo - key), hi - lo);
    } else if (d.parent == nullptr) {
      status = core::fail(GDS_STATUS_NOT_PRESERVED, func, "%s preserves bytes via a parent it no longer has",
                          d.describe().c_str());
    } else {
      status = read_preserved(func, *d.parent, lo, hi, dst);
    }
  });
  return status;
}

// Whether read_preserved(d, a, b) succeeds: every byte held by copy here or
// up the via-parent chain; *regen (if given) says a regeneration entry was met.
bool readable(const Domain &d, std::uintptr_t a, std::uintptr_t b, bool *regen = nullptr) {
  bool all = true;
  pieces(d.memory, a, b, [&](std::uintptr_t lo, std::uintptr_t hi, const MemEntry *e, std::uintptr_t) {
    if (!all) return;
    if (e != nullptr && e->via == GDS_CD_VIA_REGEN && regen != nullptr) *regen = true;
    if (e == nullptr || e->via == GDS_CD_VIA_REGEN) all = false;
    else if (e->via == GDS_CD_VIA_PARENT) all = d.parent != nullptr && readable(*d.parent, lo, hi, regen);
  });
  return all;
}

}  // namespace

GDS_status_t check_ranges(const char *func, const GDS_cd_range_t *ranges, int count, bool labels) {
  GDS_CHECK(count >= 0, GDS_STATUS_INVALID, "count (ascount) is %d", count);
  GDS_CHECK(count == 0 || ranges != nullptr, GDS_STATUS_NULL_ARGUMENT, "ranges (addrlist) is NULL and count is %d",
            count);
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> sorted;
  for (int i = 0; i < count; ++i) {
    const GDS_cd_range_t &r = ranges[i];
    GDS_CHECK(r.address != nullptr, GDS_STATUS_NULL_ARGUMENT, "ranges[%d].address is NULL", i);
    GDS_CHECK(r.length > 0, GDS_STATUS_INVALID, "ranges[%d].length is 0", i);
    const auto a = reinterpret_cast<std::uintptr_t>(r.address);
    GDS_CHECK(a + r.length > a, GDS_STATUS_INVALID, "ranges[%d] (%zu bytes at %p) wraps around the address space", i,
              r.length, r.address);
    if (labels) {
      GDS_CHECK(r.access == GDS_CD_READ_ONLY || r.access == GDS_CD_READ_WRITE, GDS_STATUS_INVALID,
                "ranges[%d].access (addr_tp) is %d, not READ_ONLY or READ_WRITE", i, static_cast<int>(r.access));
      GDS_CHECK(r.scope == GDS_CD_GLOBAL || r.scope == GDS_CD_CONSTRAINED, GDS_STATUS_INVALID,
                "ranges[%d].scope (addr_scope) is %d, not GLOBAL or CONSTRAINED", i, static_cast<int>(r.scope));
    }
    sorted.emplace_back(a, a + r.length);
  }
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < sorted.size(); ++i)
    GDS_CHECK(sorted[i].first >= sorted[i - 1].second, GDS_STATUS_BUFFER_OVERLAP,
              "ranges overlap each other (bytes at %p are in two of them)", reinterpret_cast<void *>(sorted[i].first));
  return GDS_STATUS_OK;
}

namespace {

// Freed preserved storage kept for reuse: at most kPoolBuffers buffers and
// kPoolBytes bytes per process, the most recently freed first.
constexpr std::size_t kPoolBuffers = 16;
constexpr std::size_t kPoolBytes = std::size_t{256} << 20;
struct Pool {
  std::vector<std::pair<std::byte *, std::size_t>> free;  // pointer, capacity
  std::size_t bytes = 0;
  std::mutex mutex;
  ~Pool() {
    for (auto &[p, c] : free) ::operator delete(p);
  }
};
Pool g_pool;

}  // namespace

Bytes::Bytes(std::size_t n) : n_(n) {
  if (n == 0) return;
  {
    std::lock_guard lock(g_pool.mutex);
    // The smallest pooled buffer that holds n without wasting more than half of it.
    std::size_t best = g_pool.free.size();
    for (std::size_t i = 0; i < g_pool.free.size(); ++i) {
      const std::size_t c = g_pool.free[i].second;
      if (c >= n && c / 2 <= n && (best == g_pool.free.size() || c < g_pool.free[best].second)) best = i;
    }
    if (best < g_pool.free.size()) {
      p_ = g_pool.free[best].first;
      cap_ = g_pool.free[best].second;
      g_pool.bytes -= cap_;
      g_pool.free.erase(g_pool.free.begin() + static_cast<std::ptrdiff_t>(best));
      return;
    }
  }
  p_ = static_cast<std::byte *>(::operator new(n));
  cap_ = n;
}

void Bytes::release() noexcept {
  if (p_ == nullptr) return;
  {
    std::lock_guard lock(g_pool.mutex);
    if (cap_ <= kPoolBytes) {
      while (!g_pool.free.empty() && (g_pool.free.size() >= kPoolBuffers || g_pool.bytes + cap_ > kPoolBytes)) {
        ::operator delete(g_pool.free.front().first);
        g_pool.bytes -= g_pool.free.front().second;
        g_pool.free.erase(g_pool.free.begin());
      }
      g_pool.free.emplace_back(p_, cap_);
      g_pool.bytes += cap_;
      p_ = nullptr;
      return;
    }
  }
  ::operator delete(p_);
  p_ = nullptr;
}

GDS_status_t add_ranges(const char *func, Domain &d, GDS_cd_via_t via, const GDS_cd_range_t *ranges, int count,
                        GDS_cd_regen_func_t regen, void *context) {
  GDS_CHECK(via == GDS_CD_VIA_COPY || via == GDS_CD_VIA_PARENT || via == GDS_CD_VIA_REGEN, GDS_STATUS_INVALID,
            "via is %d, not GDS_CD_VIA_COPY, _PARENT or _REGEN", static_cast<int>(via));
  GDS_CHECK((via == GDS_CD_VIA_REGEN) == (regen != nullptr), via == GDS_CD_VIA_REGEN ? GDS_STATUS_NULL_ARGUMENT : GDS_STATUS_INVALID,
            "regen is %s %s", regen == nullptr ? "NULL" : "given", via == GDS_CD_VIA_REGEN ? "via regen" : "but via is not regen");
  GDS_TRY(check_ranges(func, ranges, count, true));
  GDS_CHECK(via != GDS_CD_VIA_PARENT || d.parent != nullptr, GDS_STATUS_CD_STATE,
            "%s is a root: it has no parent to preserve via", d.describe().c_str());
  // Check everything first: the call adds all its ranges or none.
  for (int i = 0; i < count; ++i) {
    const GDS_cd_range_t &r = ranges[i];
    const auto a = reinterpret_cast<std::uintptr_t>(r.address), b = a + r.length;
    GDS_CHECK(!(via == GDS_CD_VIA_REGEN && r.access == GDS_CD_READ_WRITE), GDS_STATUS_INVALID,
              "ranges[%d] is READ_WRITE via regen: a regenerated entry is READ_ONLY (the document flags it as an error)",
              i);
    GDS_status_t s = GDS_STATUS_OK;
    pieces(d.memory, a, b, [&](std::uintptr_t lo, std::uintptr_t hi, const MemEntry *e, std::uintptr_t) {
      if (s != GDS_STATUS_OK) return;
      if (e != nullptr) {
        if (e->via != via)
          s = core::fail(GDS_STATUS_INVALID, func,
                         "ranges[%d]: bytes at %p are preserved %s in %s, not %s (delete them from the CD first)", i,
                         reinterpret_cast<void *>(lo), via_name(e->via), d.describe().c_str(), via_name(via));
        else if (e->global != (r.scope == GDS_CD_GLOBAL))
          s = core::fail(GDS_STATUS_INVALID, func,
                         "ranges[%d]: bytes at %p are preserved %s in %s (delete them from the CD to change the scope)",
                         i, reinterpret_cast<void *>(lo), e->global ? "GLOBAL" : "CONSTRAINED", d.describe().c_str());
      } else if (via == GDS_CD_VIA_PARENT) {
        bool by_regen = false;
        if (!readable(*d.parent, lo, hi, &by_regen))
          s = core::fail(GDS_STATUS_NOT_PRESERVED, func, "ranges[%d]: the parent %s does not preserve bytes [%p, %p)%s", i,
                         d.parent->describe().c_str(), reinterpret_cast<void *>(lo), reinterpret_cast<void *>(hi),
                         by_regen ? " other than by regeneration (an entry via parent may not refer to one via regen)"
                                  : "");
      }
    });
    GDS_TRY(s);
  }
  if (via == GDS_CD_VIA_COPY) {  // more than the host has is refused before anything is allocated
    std::uint64_t wanted = 0;
    for (int i = 0; i < count; ++i) {
      const auto a = reinterpret_cast<std::uintptr_t>(ranges[i].address), b = a + ranges[i].length;
      pieces(d.memory, a, b, [&](std::uintptr_t lo, std::uintptr_t hi, const MemEntry *e, std::uintptr_t) {
        if (e == nullptr) wanted += hi - lo;
      });
    }
    const std::uint64_t host = core::host_memory();
    GDS_CHECK(wanted <= host, GDS_STATUS_NOMEM,
              "copies of %llu bytes would not fit in this host's memory (%llu bytes; GDS_HOST_MEMORY)",
              static_cast<unsigned long long>(wanted), static_cast<unsigned long long>(host));
  }
  // Copies first, so that running out of memory changes nothing.
  struct New {
    std::uintptr_t lo;
    MemEntry e;
  };
  std::vector<New> added;
  std::shared_ptr<Regen> shared;
  if (via == GDS_CD_VIA_REGEN) {
    shared = std::make_shared<Regen>();
    shared->fn = regen;
    shared->context = context;
    shared->ranges.assign(ranges, ranges + count);
  }
  for (int i = 0; i < count; ++i) {
    const GDS_cd_range_t &r = ranges[i];
    const auto a = reinterpret_cast<std::uintptr_t>(r.address), b = a + r.length;
    pieces(d.memory, a, b, [&](std::uintptr_t lo, std::uintptr_t hi, const MemEntry *e, std::uintptr_t) {
      if (e != nullptr) return;
      New n{lo, {}};
      n.e.hi = hi;
      n.e.via = via;
      n.e.rw = r.access == GDS_CD_READ_WRITE;
      n.e.global = r.scope == GDS_CD_GLOBAL;
      n.e.regen = shared;
      if (via == GDS_CD_VIA_COPY) {
        n.e.data = Bytes(reinterpret_cast<const std::byte *>(lo), hi - lo);
      }
      added.push_back(std::move(n));
    });
  }
  // Relabel what was preserved already (promotion to READ_WRITE, demotion to READ_ONLY).
  for (int i = 0; i < count; ++i) {
    const GDS_cd_range_t &r = ranges[i];
    const auto a = reinterpret_cast<std::uintptr_t>(r.address), b = a + r.length;
    split(d.memory, a);
    split(d.memory, b);
    for (auto it = d.memory.lower_bound(a); it != d.memory.end() && it->first < b; ++it)
      it->second.rw = r.access == GDS_CD_READ_WRITE;
  }
  for (New &n : added) d.memory.emplace(n.lo, std::move(n.e));
  return GDS_STATUS_OK;
}

GDS_status_t delete_ranges(const char *func, Domain &d, const GDS_cd_range_t *ranges, int count) {
  GDS_TRY(check_ranges(func, ranges, count, false));
  for (int i = 0; i < count; ++i) {
    const auto a = reinterpret_cast<std::uintptr_t>(ranges[i].address), b = a + ranges[i].length;
    bool whole = true;
    pieces(d.memory, a, b, [&](std::uintptr_t, std::uintptr_t, const MemEntry *e, std::uintptr_t) {
      if (e == nullptr) whole = false;
    });
    GDS_CHECK(whole, GDS_STATUS_NOT_PRESERVED, "ranges[%d] (%zu bytes at %p) is not wholly preserved in %s", i,
              ranges[i].length, ranges[i].address, d.describe().c_str());
  }
  for (int i = 0; i < count; ++i) {
    const auto a = reinterpret_cast<std::uintptr_t>(ranges[i].address), b = a + ranges[i].length;
    split(d.memory, a);
    split(d.memory, b);
    d.memory.erase(d.memory.lower_bound(a), d.memory.lower_bound(b));
  }
  return GDS_STATUS_OK;
}

GDS_status_t restore_memory(const char *func, Domain &d) {
  // Every via-parent entry must be readable before anything is written: a
  // missing parent entry changes nothing. Then copies, then parents' bytes
  // straight into place (entries of one CD do not overlap).
  for (const auto &[lo, e] : d.memory) {
    if (e.via != GDS_CD_VIA_PARENT) continue;
    GDS_CHECK(d.parent != nullptr, GDS_STATUS_NOT_PRESERVED, "%s preserves bytes via a parent it no longer has",
              d.describe().c_str());
    GDS_CHECK(readable(*d.parent, lo, e.hi), GDS_STATUS_NOT_PRESERVED,
              "%s preserves bytes [%p, %p) via its parent %s, which (or whose ancestors) no longer preserves them "
              "other than by regeneration",
              d.describe().c_str(), reinterpret_cast<void *>(lo), reinterpret_cast<void *>(e.hi),
              d.parent->describe().c_str());
  }
  for (const auto &[lo, e] : d.memory)
    if (e.via == GDS_CD_VIA_COPY) std::memcpy(reinterpret_cast<void *>(lo), e.data.data(), e.data.size());
  for (const auto &[lo, e] : d.memory)
    if (e.via == GDS_CD_VIA_PARENT) GDS_TRY(read_preserved(func, *d.parent, lo, e.hi, reinterpret_cast<std::byte *>(lo)));
  std::vector<const Regen *> called;
  for (const auto &[lo, e] : d.memory) {
    if (e.via != GDS_CD_VIA_REGEN || std::find(called.begin(), called.end(), e.regen.get()) != called.end()) continue;
    called.push_back(e.regen.get());
    const int r = e.regen->fn(e.regen->ranges.data(), static_cast<int>(e.regen->ranges.size()), e.regen->context);
    GDS_CHECK(r == 0, GDS_STATUS_RECOVERY_FAILED, "the regeneration function of %s returned %d", d.describe().c_str(), r);
  }
  for (const auto &[fd, position] : d.files) {
    const off_t at = ::lseek(fd, position, SEEK_SET);
    GDS_CHECK(at == position, GDS_STATUS_IO_ERROR, "%s: lseek(%d, %lld) failed: %s", d.describe().c_str(), fd,
              static_cast<long long>(position), std::strerror(errno));
  }
  return GDS_STATUS_OK;
}

void commit_memory_into_parent(Domain &d) {
  Domain &p = *d.parent;
  struct New {
    std::uintptr_t lo;
    MemEntry e;
  };
  std::vector<New> added;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> promote;
  for (const auto &[key, e] : d.memory) {
    if (!e.global) continue;
    pieces(p.memory, key, e.hi, [&](std::uintptr_t lo, std::uintptr_t hi, const MemEntry *pe, std::uintptr_t) {
      if (pe != nullptr) {  // the parent's entry is older: it wins, but learns the bytes are written
        if (e.rw && !pe->rw) promote.emplace_back(lo, hi);
        return;
      }
      if (e.via == GDS_CD_VIA_PARENT) return;  // the parent dropped what this referred to
      New n{lo, {}};
      n.e.hi = hi;
      n.e.via = e.via;
      n.e.rw = e.rw;
      n.e.global = true;
      n.e.regen = e.regen;
      if (e.via == GDS_CD_VIA_COPY)
        n.e.data = Bytes(e.data.data() + (lo - key), hi - lo);
      added.push_back(std::move(n));
    });
  }
  for (const auto &[lo, hi] : promote) {
    split(p.memory, lo);
    split(p.memory, hi);
    for (auto it = p.memory.lower_bound(lo); it != p.memory.end() && it->first < hi; ++it) it->second.rw = true;
  }
  for (New &n : added) p.memory.emplace(n.lo, std::move(n.e));
  for (const auto &[fd, position] : d.files) p.files.emplace(fd, position);  // the parent's own position wins
}

GDS_status_t check_advance(const char *func, const Domain &d) {
  for (const auto &[fd, old] : d.files)
    GDS_CHECK(::lseek(fd, 0, SEEK_CUR) >= 0, GDS_STATUS_IO_ERROR, "%s: the position of file descriptor %d: %s",
              d.describe().c_str(), fd, std::strerror(errno));
  return GDS_STATUS_OK;
}

GDS_status_t advance_memory(const char *func, Domain &d) {
  std::vector<std::pair<MemEntry *, Bytes>> fresh;
  for (auto &[lo, e] : d.memory) {
    if (e.via != GDS_CD_VIA_COPY || !e.rw) continue;
    fresh.emplace_back(&e, Bytes(reinterpret_cast<const std::byte *>(lo), e.hi - lo));
  }
  std::map<int, off_t> positions;
  for (const auto &[fd, old] : d.files) {
    const off_t at = ::lseek(fd, 0, SEEK_CUR);
    GDS_CHECK(at >= 0, GDS_STATUS_IO_ERROR, "%s: the position of file descriptor %d: %s", d.describe().c_str(), fd,
              std::strerror(errno));
    positions[fd] = at;
  }
  for (auto &[e, bytes] : fresh) {
    e->data = std::move(bytes);
    e->rw = false;
  }
  d.files = std::move(positions);
  return GDS_STATUS_OK;
}

bool preserved_by_copy(const Domain &d, std::uintptr_t a, std::uintptr_t b) {
  bool all = true;
  pieces(d.memory, a, b, [&](std::uintptr_t, std::uintptr_t, const MemEntry *e, std::uintptr_t) {
    if (e == nullptr || e->via != GDS_CD_VIA_COPY) all = false;
  });
  return all;
}

GDS_status_t copy_preserved(const char *func, const Domain &d, std::uintptr_t a, std::uintptr_t b, std::byte *out) {
  return read_preserved(func, d, a, b, out);
}

std::uint64_t preserved_bytes(const Domain &d) {
  std::uint64_t n = 0;
  for (const auto &[lo, e] : d.memory) n += e.data.size();
  return n + d.files.size() * sizeof(off_t);
}

}  // namespace gds::cd
