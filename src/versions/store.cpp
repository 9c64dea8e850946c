#include "versions/store.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "core/log.hpp"
#include "versions/copy.hpp"

namespace gds::versions {

namespace {

bool all_zero(const std::byte *p, std::uint64_t n) {
  static const std::byte zeros[4096] = {};
  while (n > 0) {
    const std::uint64_t k = n < sizeof zeros ? n : sizeof zeros;
    if (std::memcmp(p, zeros, k) != 0) return false;
    p += k;
    n -= k;
  }
  return true;
}

}  // namespace

Store::Store(MPI_Comm comm, int rank, unsigned shift, std::uint64_t local_bytes, Retention retention)
    : comm_(comm),
      rank_(rank),
      shift_(shift),
      local_bytes_(local_bytes),
      nblocks_(static_cast<std::uint32_t>((local_bytes + (std::uint64_t{1} << shift) - 1) >> shift)),
      retention_(retention),
      base_(nblocks_, kZero),
      dirty_(nblocks_, 0),
      suspect_(nblocks_, 0) {}

const Version *Store::find(std::uint64_t number) const {
  auto it = std::lower_bound(versions_.begin(), versions_.end(), number,
                             [](const Version &v, std::uint64_t n) { return v.number < n; });
  return it != versions_.end() && it->number == number ? &*it : nullptr;
}

bool Store::existed(std::uint64_t number) const {
  return std::binary_search(numbers_.begin(), numbers_.end(), number);
}

std::uint64_t Store::bytes_of_block(std::uint32_t b) const {
  const std::uint64_t start = std::uint64_t{b} << shift_;
  return std::min(block_bytes(), local_bytes_ - start);
}

std::byte *Store::slot_memory(SlotRef r) const {
  const Slab &s = *slabs_[slab_of(r)];
  return s.base + std::uint64_t{slot_of(r)} * s.slot_bytes;
}

const std::byte *Store::local_slot(SlotRef r) const { return slot_memory(r); }

const SlotRef *Store::local_table(const Version &v) const {
  const SlotRef t = v.tables[static_cast<std::size_t>(rank_)];
  return t == kZero ? nullptr : reinterpret_cast<const SlotRef *>(slot_memory(t));
}

void Store::acquire(SlotRef r) {
  if (r != kZero) ++slabs_[slab_of(r)]->refs[slot_of(r)];
}

void Store::release_ref(SlotRef r) {
  if (r == kZero) return;
  Slab &s = *slabs_[slab_of(r)];
  if (--s.refs[slot_of(r)] == 0) (s.tables ? free_tables_ : free_data_).push_back(r);
}

SlotRef Store::take(std::vector<SlotRef> &free) {
  const SlotRef r = free.back();
  free.pop_back();
  return r;
}

void Store::mark_dirty(const std::vector<rma::BlockRange> &written) {
  for (const rma::BlockRange &r : written) {
    if (nblocks_ == 0) return;
    const std::uint32_t last = std::min(r.last, nblocks_ - 1);
    for (std::uint32_t b = r.first; b <= last; ++b)
      if (!dirty_[b]) {
        dirty_[b] = 1;
        dirty_list_.push_back(b);
      }
  }
}

void Store::suspect(const std::vector<rma::BlockRange> &exposed) {
  for (const rma::BlockRange &r : exposed) {
    if (nblocks_ == 0) return;
    const std::uint32_t last = std::min(r.last, nblocks_ - 1);
    for (std::uint32_t b = r.first; b <= last; ++b)
      if (!suspect_[b]) {
        suspect_[b] = 1;
        suspect_list_.push_back(b);
      }
  }
}

void Store::compare_block(std::uint32_t b, const std::byte *memory) {
  if (dirty_[b]) return;
  const std::byte *block = memory + (std::uint64_t{b} << shift_);
  const std::uint64_t n = bytes_of_block(b);
  const bool same = base_[b] == kZero ? all_zero(block, n) : std::memcmp(block, slot_memory(base_[b]), n) == 0;
  if (!same) {
    dirty_[b] = 1;
    dirty_list_.push_back(b);
  }
}

void Store::compare_suspects(const std::byte *memory) {
  for (std::uint32_t b : suspect_list_) {
    compare_block(b, memory);
    suspect_[b] = 0;
  }
  suspect_list_.clear();
}

void Store::compare_dirty(const std::byte *memory) {
  for (std::uint32_t b = 0; b < nblocks_; ++b) compare_block(b, memory);
}

void Store::shortage(std::uint64_t *data, std::uint64_t *tables) const {
  const std::uint64_t need_data = dirty_list_.size(), need_tables = nblocks_ > 0 ? 1 : 0;
  *data = need_data > free_data_.size() ? need_data - free_data_.size() : 0;
  *tables = need_tables > free_tables_.size() ? need_tables - free_tables_.size() : 0;
}

namespace {
std::uint64_t g_fail_memory_after = 0;
}

void inject_memory_failure(std::uint64_t after) { g_fail_memory_after = after; }

GDS_status_t Store::grow(const char *func, bool data_slab, std::uint64_t data, bool table_slab, std::uint64_t tables) {
  // GDS_inject_fault: this process gets no memory (the allocation is
  // collective, so it still takes part, with nothing).
  const bool starve = g_fail_memory_after != 0 && --g_fail_memory_after == 0;
  // New slabs grow with what is stored so far (1/16 for data, 1/4 for the
  // small tables), so few slabs are made and little memory sits idle.
  const auto add = [&](bool tables_kind, std::uint64_t short_by) -> GDS_status_t {
    auto slab = std::make_unique<Slab>();
    slab->tables = tables_kind;
    slab->slot_bytes = tables_kind ? table_bytes(nblocks_) : data_slot_bytes(local_bytes_);
    const std::uint64_t total = tables_kind ? table_slots_ : data_slots_;
    std::uint64_t slots = 0;
    if (short_by > 0) slots = std::max({short_by, total / (tables_kind ? 4 : 16), std::uint64_t{tables_kind ? 4u : 8u}});
    slots = std::min<std::uint64_t>(slots, UINT32_MAX);
    const std::uint64_t wanted = slots * slab->slot_bytes;
    if (starve) slots = 0;
    void *base = nullptr;
    GDS_TRY(slab->window.allocate(func, comm_, static_cast<MPI_Aint>(slots * slab->slot_bytes), 1, &base));
    slab->base = static_cast<std::byte *>(base);
    slab->slots = static_cast<std::uint32_t>(slots);
    slab->refs.assign(slots, 0);
    const auto id = static_cast<std::uint32_t>(slabs_.size());
    std::vector<SlotRef> &free = tables_kind ? free_tables_ : free_data_;
    for (std::uint32_t i = slab->slots; i-- > 0;) free.push_back(make_ref(id, i));
    (tables_kind ? table_slots_ : data_slots_) += slots;
    slabs_.push_back(std::move(slab));
    if (starve) failed_bytes_ += wanted;
    return GDS_STATUS_OK;
  };
  // Both allocations are collective: every process makes both, then reports.
  failed_bytes_ = 0;
  GDS_status_t s = GDS_STATUS_OK;
  if (data_slab) s = add(false, data);
  if (table_slab) {
    const GDS_status_t t = add(true, tables);
    if (s == GDS_STATUS_OK) s = t;
  }
  if (s == GDS_STATUS_OK && failed_bytes_ > 0)
    s = core::fail_critical(GDS_STATUS_NOMEM, func, "no memory for %llu bytes of versions (injected fault)",
                            static_cast<unsigned long long>(failed_bytes_));
  return s;
}

GDS_status_t Store::freeze(const char *func, const std::byte *memory, SlotRef *table_location) {
  if (free_data_.size() < dirty_list_.size() || (nblocks_ > 0 && free_tables_.empty()))
    return core::fail_critical(GDS_STATUS_INTERNAL, func, "version store short of slots after growing");
  pending_table_ = base_;
  for (std::uint32_t b : dirty_list_) {
    const SlotRef s = take(free_data_);
    copy_out(slot_memory(s), memory + (std::uint64_t{b} << shift_), bytes_of_block(b));
    pending_table_[b] = s;
    pending_slots_.push_back(s);
  }
  pending_table_slot_ = kZero;
  if (nblocks_ > 0) {
    pending_table_slot_ = take(free_tables_);
    std::memcpy(slot_memory(pending_table_slot_), pending_table_.data(), table_bytes(nblocks_));
  }
  *table_location = pending_table_slot_;
  copy_out_fence();
  // Other processes read the slots one-sidedly once the version is announced.
  for (auto &slab : slabs_) GDS_TRY(slab->window.sync(func));
  return GDS_STATUS_OK;
}

void Store::commit(std::uint64_t number, std::string label, std::vector<SlotRef> tables) {
  for (SlotRef r : pending_table_) acquire(r);  // the version's references
  for (std::uint32_t b : dirty_list_) {         // the current content is clean again
    release_ref(base_[b]);
    base_[b] = pending_table_[b];
    acquire(base_[b]);
    dirty_[b] = 0;
  }
  acquire(pending_table_slot_);
  dirty_list_.clear();
  versions_.push_back(Version{number, std::move(label), std::move(tables)});
  numbers_.push_back(number);
  pending_table_.clear();
  pending_slots_.clear();
  pending_table_slot_ = kZero;
}

void Store::abandon() {
  for (SlotRef s : pending_slots_) free_data_.push_back(s);
  if (pending_table_slot_ != kZero) free_tables_.push_back(pending_table_slot_);
  pending_table_.clear();
  pending_slots_.clear();
  pending_table_slot_ = kZero;
}

std::uint64_t Store::drop_wish() const {
  const std::uint64_t held = versions_.size();
  std::uint64_t wish = 0;
  if (retention_.max_versions > 0 && held > retention_.max_versions) wish = held - retention_.max_versions;
  if (retention_.max_bytes > 0) {
    const auto stored = [&] {
      return (data_slots_ - free_data_.size()) * data_slot_bytes(local_bytes_) +
             (table_slots_ - free_tables_.size()) * table_bytes(nblocks_);
    };
    // Simulate the drops oldest first: a slot frees when its last reference goes.
    std::unordered_map<SlotRef, std::uint32_t> released;
    std::uint64_t freed = 0, k = 0;
    const auto let_go = [&](SlotRef r, std::uint64_t bytes) {
      if (r == kZero) return;
      if (++released[r] == slabs_[slab_of(r)]->refs[slot_of(r)]) freed += bytes;
    };
    while (k + 1 < held && stored() - freed > retention_.max_bytes) {
      const Version &v = versions_[k];
      if (const SlotRef *table = local_table(v))
        for (std::uint32_t b = 0; b < nblocks_; ++b) let_go(table[b], data_slot_bytes(local_bytes_));
      let_go(v.tables[static_cast<std::size_t>(rank_)], table_bytes(nblocks_));
      ++k;
    }
    wish = std::max(wish, k);
  }
  return std::min(wish, held > 0 ? held - 1 : 0);
}

void Store::drop_oldest(std::uint64_t count) {
  count = std::min<std::uint64_t>(count, versions_.empty() ? 0 : versions_.size() - 1);
  for (std::uint64_t i = 0; i < count; ++i) {
    const Version &v = versions_.front();
    if (const SlotRef *table = local_table(v))
      for (std::uint32_t b = 0; b < nblocks_; ++b) release_ref(table[b]);
    release_ref(v.tables[static_cast<std::size_t>(rank_)]);
    versions_.pop_front();
  }
}

void Store::restore(const Version &v, std::byte *memory) {
  const SlotRef *table = local_table(v);
  for (std::uint32_t b = 0; b < nblocks_; ++b) {
    if (!dirty_[b] && base_[b] == table[b]) continue;
    std::byte *block = memory + (std::uint64_t{b} << shift_);
    if (table[b] == kZero)
      std::memset(block, 0, bytes_of_block(b));
    else
      std::memcpy(block, slot_memory(table[b]), bytes_of_block(b));
    release_ref(base_[b]);
    base_[b] = table[b];
    acquire(base_[b]);
    dirty_[b] = 0;
  }
  dirty_list_.clear();
}

GDS_version_stats_t Store::stats(std::uint64_t current) const {
  GDS_version_stats_t s{};
  s.versions = versions_.size();
  s.oldest = versions_.empty() ? current : versions_.front().number;
  s.current = current;
  s.block_bytes = block_bytes();
  s.local_bytes = local_bytes_;
  const std::uint64_t data = (data_slots_ - free_data_.size()) * data_slot_bytes(local_bytes_);
  const std::uint64_t tables = (table_slots_ - free_tables_.size()) * table_bytes(nblocks_);
  s.bytes_stored = data + tables;
  const std::uint64_t logical = s.versions * local_bytes_;
  s.bytes_shared = logical > data ? logical - data : 0;
  s.bytes_allocated = data_slots_ * data_slot_bytes(local_bytes_) + table_slots_ * table_bytes(nblocks_);
  return s;
}

GDS_status_t Store::release(const char *func) {
  GDS_status_t status = GDS_STATUS_OK;
  for (auto &slab : slabs_) {
    const GDS_status_t s = slab->window.free(func);
    if (status == GDS_STATUS_OK) status = s;
  }
  slabs_.clear();
  return status;
}

}  // namespace gds::versions
