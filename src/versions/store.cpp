#include "versions/store.hpp"

#include <algorithm>
#include <mutex>
#include <bit>
#include <cstring>
#include <unordered_map>

#include "core/bits.hpp"
#include "core/costs.hpp"
#include "core/array.hpp"
#include "core/crc32c.hpp"
#include "core/log.hpp"
#include "versions/copy.hpp"
#include "versions/state.hpp"

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

using core::for_each_run_of_bits;
using core::words_for;

// The largest slab: growth past it makes more slabs rather than one huge mapping.
constexpr std::uint64_t kSlabCap = std::uint64_t{1} << 30;

std::uint64_t g_fail_memory_after = 0;
std::uint64_t g_corrupt_block = 0;

std::uint32_t crc_of_zeros(std::uint64_t n) {
  static const std::byte zeros[4096] = {};
  std::uint32_t c = 0;
  for (; n > 0; n -= std::min<std::uint64_t>(n, sizeof zeros))
    c = core::crc32c(zeros, static_cast<std::size_t>(std::min<std::uint64_t>(n, sizeof zeros)), c);
  return c;
}

}  // namespace

// Every live store of this process, for the process-wide budget.
static std::mutex g_stores_mutex;
static std::vector<const Store *> g_stores;

void inject_memory_failure(std::uint64_t after) { g_fail_memory_after = after; }
void inject_corruption(std::uint64_t k) { g_corrupt_block = k; }

Store::Store(MPI_Comm comm, unsigned shift, std::uint64_t local_bytes, Retention retention, bool prefault)
    : shift_(shift),
      local_bytes_(local_bytes),
      nblocks_(static_cast<std::uint32_t>((local_bytes + (std::uint64_t{1} << shift) - 1) >> shift)),
      retention_(retention),
      prefault_(prefault),
      slabs_(comm, prefault),
      changes_(nblocks_),
      base_(nblocks_, kZero),
      base_since_(nblocks_, 0) {
  const std::lock_guard<std::mutex> lock(g_stores_mutex);
  g_stores.push_back(this);
}

Store::~Store() {
  const std::lock_guard<std::mutex> lock(g_stores_mutex);
  g_stores.erase(std::find(g_stores.begin(), g_stores.end(), this));
}

GDS_status_t Store::release(const char *func) { return slabs_.release(func); }

void Store::publish() { published_.store(stats(0).bytes_stored, std::memory_order_relaxed); }

std::uint64_t Store::others_stored() const {
  const std::lock_guard<std::mutex> lock(g_stores_mutex);
  std::uint64_t sum = 0;
  for (const Store *s : g_stores)
    if (s != this) sum += s->published_.load(std::memory_order_relaxed);
  return sum;
}

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

const SlotRef *Store::local_table(const Version &v) const {
  return v.table == kZero ? nullptr : reinterpret_cast<const SlotRef *>(slot_memory(v.table));
}

std::uint64_t Store::directory_slots() const { return directory_ == kMaxSlabs ? 0 : slabs_[directory_].slots; }

std::uint64_t Store::directory_at(const Version &v) const {
  return v.index % directory_slots() * sizeof(SlotRef);
}

void Store::leave_base(std::uint32_t b) {
  const SlotRef r = base_[b];
  base_[b] = kZero;
  if (r == kZero) return;
  Slab &s = slabs_[slab_of(r)];
  std::uint64_t &last = s.last[slot_of(r)];
  // No version was made while r was base (it came back by a restore): r
  // belongs to a held version and is filed under it already.
  if (next_index_ == base_since_[b] && last != kNoVersion && !versions_.empty() && last >= oldest_index()) return;
  // The versions made while r was base contain it.
  if (next_index_ > base_since_[b]) last = std::max(last, next_index_ - 1);
  if (versions_.empty() || last < oldest_index() || last == kNoVersion)
    slabs_.free_slot(r);
  else
    retired_[static_cast<std::size_t>(last - oldest_index())].push_back(r);
}

void Store::set_base(std::uint32_t b, SlotRef r, std::uint64_t since) {
  base_[b] = r;
  base_since_[b] = since;
  if (r != kZero) slabs_[slab_of(r)].block[slot_of(r)] = b;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> Store::dirty_runs() const { return changes_.runs(); }

void Store::mark_dirty(const std::vector<rma::BlockRange> &written) { changes_.mark(written); }

void Store::suspect(const std::vector<rma::BlockRange> &exposed) { changes_.suspect(exposed); }

void Store::compare_block(std::uint32_t b, const std::byte *memory) {
  if (is_dirty(b)) return;
  const std::byte *block = memory + (std::uint64_t{b} << shift_);
  const std::uint64_t n = bytes_of_block(b);
  const bool same = base_[b] == kZero ? all_zero(block, n) : std::memcmp(block, slot_memory(base_[b]), n) == 0;
  if (!same) changes_.set_dirty(b);
}

void Store::compare_suspects(const std::byte *memory) {
  changes_.take_suspects([&](std::uint32_t b) { compare_block(b, memory); });
}

void Store::compare_dirty(const std::byte *memory) {
  for (std::uint32_t b = 0; b < nblocks_; ++b) compare_block(b, memory);
}

Store::Shortage Store::shortage() const {
  Shortage need;
  const std::uint64_t need_tables = nblocks_ > 0 ? 1 : 0, free_data = free_slots(Kind::data),
                      free_tables = free_slots(Kind::tables);
  // Until retention first drops a version (while every version is kept, or
  // the budget is not yet reached), a slab grows before the room runs out:
  // the next version's room is then there to be faulted in ahead (prepare).
  // (Not where that room would pass one slab's most slots: then only what
  // this version needs.) In steady state the dropped versions' slots are
  // the room.
  std::uint64_t need_data = changes_.count();
  if (prefault_ && numbers_.size() == versions_.size()) {
    const std::uint64_t ahead = 2 * std::uint64_t{changes_.count()};
    if (ahead <= free_data || ahead - free_data <= kMaxSlotsPerSlab) need_data = ahead;
  }
  need.data = need_data > free_data ? need_data - free_data : 0;
  need.tables = need_tables > free_tables ? need_tables - free_tables : 0;
  need.directory = versions_.size() + 1 > directory_slots();
  return need;
}

GDS_status_t Store::grow(const char *func, bool data_slab, bool table_slab, bool directory_slab, const Shortage &need) {
  // GDS_inject_fault: this process gets no memory (the window is collective,
  // so it still takes part, with nothing).
  const bool starve = g_fail_memory_after != 0 && --g_fail_memory_after == 0;
  failed_bytes_ = 0;
  GDS_status_t status = GDS_STATUS_OK;
  const auto add = [&](Kind kind, std::uint64_t short_by) {
    const std::uint64_t slot_bytes = kind == Kind::tables ? table_bytes(nblocks_) : data_slot_bytes(local_bytes_);
    // At least what is short and as much as all slabs of the kind so far
    // (geometric growth: few windows), up to kSlabCap; nothing for a process
    // that is not short and still has half its room free.
    const std::uint64_t have = slabs_.capacity(kind), free = free_slots(kind);
    std::uint64_t slots = 0;
    if (short_by > 0 || free * 2 < have) {
      const std::uint64_t cap = std::max<std::uint64_t>(1, kSlabCap / slot_bytes);
      // At least 2 MiB of slots (64 tables): each slab is a window, whose
      // creation is a collective that costs tens of milliseconds on an
      // oversubscribed node; untouched slots cost no memory.
      const std::uint64_t minimum = std::max<std::uint64_t>(kind == Kind::tables ? 64 : 8, (2u << 20) / slot_bytes);
      // The first data slab of an array with a byte budget: room for what the
      // budget holds and the version past it (with the default budget, 4 x
      // the part and one more), so that the first versions make no windows
      // while a dense steady state fills up (growing 1, 2, 4 x made one at
      // each of the first three versions); untouched, it costs address space.
      // (Never more than the default budget's 4 x the part and one version:
      // a larger budget grows as before.)
      const std::uint64_t part_slots = std::uint64_t{nblocks_} * (kAutoFactor + 1);
      const std::uint64_t budget =
          kind == Kind::data && have == 0 && retention_.max_bytes > 0
              ? std::min({retention_.max_bytes / slot_bytes + nblocks_, part_slots, cap})
              : 0;
      slots = std::min<std::uint64_t>(std::max({short_by, std::min(have, cap), minimum, budget}), kMaxSlotsPerSlab);
    }
    GDS_status_t s = GDS_STATUS_OK;
    if (short_by > slots)
      s = core::fail_critical(GDS_STATUS_NOMEM, func, "%llu version blocks do not fit one slab of %u slots",
                              static_cast<unsigned long long>(short_by), kMaxSlotsPerSlab);
    const GDS_status_t added = slabs_.add(func, kind, s == GDS_STATUS_OK ? slots : 0, slot_bytes, starve, &failed_bytes_);
    if (status == GDS_STATUS_OK) status = s != GDS_STATUS_OK ? s : added;
  };
  if (data_slab) add(Kind::data, need.data);
  if (table_slab) add(Kind::tables, need.tables);
  if (directory_slab) {
    // Twice the versions retained (the same everywhere); the entries of the retained ones move over.
    const std::uint64_t slots = std::max<std::uint64_t>(64, 2 * (versions_.size() + 1));
    std::vector<SlotRef> tables;
    for (const Version &v : versions_) tables.push_back(v.table);
    const GDS_status_t added = slabs_.add(func, Kind::directory, slots, sizeof(SlotRef), false, &failed_bytes_);
    if (status == GDS_STATUS_OK) status = added;
    if (added == GDS_STATUS_OK) {
      directory_ = static_cast<std::uint32_t>(slabs_.size() - 1);
      for (std::size_t k = 0; k < versions_.size(); ++k)
        std::memcpy(slabs_[directory_].memory.data() + directory_at(versions_[k]), &tables[k], sizeof(SlotRef));
    }
  }
  return status;
}

bool Store::copy_run(std::uint32_t first, std::uint32_t count, const std::byte *memory, const Fill &fill) {
  // Runs of consecutive changed blocks go to runs of consecutive slots: one copy each.
  while (count > 0) {
    const Run run = slabs_.take(Kind::data, count, !keeps_every_version());
    if (run.count == 0) return false;  // the count of free slots disagrees with the bitmaps
    slabs_.populate(run);
    const std::uint64_t at = std::uint64_t{first} << shift_;
    const std::uint64_t bytes = std::min(std::uint64_t{run.count} << shift_, local_bytes_ - at);
    std::uint32_t *crcs = slabs_[slab_of(run.first)].crc.data() + slot_of(run.first);
    if (fill) {  // a restart's: the levels' read accounts for it
      fill(at, bytes, slot_memory(run.first));
      core::crc32c_blocks(slot_memory(run.first), bytes, block_bytes(), crcs);
    } else {  // each block's CRC32C taken as it is copied
      copy_out_checksummed(slot_memory(run.first), memory + at, bytes, shift_, crcs, cached_copy_);
      core::add_bytes(core::Work::version, bytes);
    }
    for (std::uint32_t i = 0; i < run.count; ++i) pending_table_[first + i] = run.first + i;
    pending_runs_.push_back(run);
    first += run.count;
    count -= run.count;
  }
  return true;
}

void Store::compare_and_copy(const std::byte *memory, bool *short_of) {
  std::uint64_t room = free_slots(Kind::data);
  std::uint32_t same = 0;  // blocks found equal to their base
  if (copy_all_) {
    // Fewer than a quarter of the blocks were the same last time: a compare
    // would end at a block's first bytes and still cost its base's miss (a
    // slot out of the cache), about half a block's copy. Every block is
    // copied instead, in runs; a block whose checksum, taken in the copy,
    // matches its base's is compared then (rarely: it is one that stayed
    // the same), and if equal its copy goes and its base stays.
    for (std::uint32_t b = 0; b < nblocks_; ++b)
      if (!is_dirty(b)) changes_.set_dirty(b);
    if (changes_.count() > room) {
      *short_of = true;
      return;
    }
    if (nblocks_ > 0 && !copy_run(0, nblocks_, memory, nullptr)) {
      *short_of = true;
      return;
    }
    for (std::uint32_t b = 0; b < nblocks_; ++b) {
      const SlotRef copy = pending_table_[b];
      if (stored_crc(copy, b) != stored_crc(base_[b], b)) continue;
      const std::uint64_t n = bytes_of_block(b);
      const bool equal = base_[b] == kZero ? all_zero(slot_memory(copy), n)
                                           : std::memcmp(slot_memory(copy), slot_memory(base_[b]), n) == 0;
      if (!equal) continue;
      ++same;
      slabs_.free_slot(copy);
      pending_table_[b] = base_[b];
      changes_.set_clean(b);
    }
    if (same > 0) {  // the runs taken, less the slots given back
      std::vector<Run> taken;
      for (const Run &run : pending_runs_)
        for (std::uint32_t i = 0; i < run.count;) {
          while (i < run.count && slabs_.is_free(run.first + i)) ++i;
          std::uint32_t j = i;
          while (j < run.count && !slabs_.is_free(run.first + j)) ++j;
          if (j > i) taken.push_back(Run{run.first + i, j - i});
          i = j;
        }
      pending_runs_ = std::move(taken);
    }
  } else {
    // One pass: a block that differs from its base is copied at once, while
    // it is in the cache, as long as a slot is free; past that, the rest is
    // only compared (the caller grows and freezes again).
    for (std::uint32_t b = 0; b < nblocks_; ++b) {
      const bool known = is_dirty(b);
      if (!known) compare_block(b, memory);
      if (!is_dirty(b)) {
        ++same;
        continue;
      }
      if (room == 0) {
        *short_of = true;
        continue;
      }
      if (!copy_run(b, 1, memory, nullptr)) *short_of = true;
      else --room;
    }
  }
  // Copying all costs a copy of the blocks that were the same; comparing,
  // a miss per changed block (about half a copy): all are copied while
  // fewer than a quarter stay the same. (Not on the first version's word:
  // every block that is not all zeros differs from nothing.) Taken at
  // commit: every round of one version freezes alike.
  if (!*short_of) next_copy_all_ = !versions_.empty() && nblocks_ > 0 && std::uint64_t{same} * 4 < nblocks_;
}

GDS_status_t Store::freeze(const char *func, const std::byte *memory, const Fill &fill, bool compare, bool *short_of) {
  // Room still being faulted in: done here rather than page by page while copying.
  slabs_.wait_background();
  pending_table_ = base_;
  pending_runs_.clear();
  // What it may copy: every block of a compared array, else the changed ones.
  cached_copy_ = (compare ? local_bytes_ : std::uint64_t{changes_.count()} << shift_) <= kCachedCopyBytes;
  if (compare) {
    *short_of = false;
    compare_and_copy(memory, short_of);
    if (*short_of || (nblocks_ > 0 && free_slots(Kind::tables) == 0) || directory_slots() < versions_.size() + 1) {
      *short_of = true;
      abandon();
      return GDS_STATUS_OK;
    }
  } else {
    if (changes_.count() > free_slots(Kind::data) || (nblocks_ > 0 && free_slots(Kind::tables) == 0))
      return core::fail_critical(GDS_STATUS_INTERNAL, func, "version store short of slots after growing");
    bool lost = false;
    changes_.for_each_run([&](std::uint32_t first, std::uint32_t count) {
      if (!lost) lost = !copy_run(first, count, memory, fill);
    });
    if (lost)
      return core::fail_critical(GDS_STATUS_INTERNAL, func, "version store found no free slot where one was counted");
  }
  pending_table_slot_ = kZero;
  if (nblocks_ > 0) {
    const Run table = slabs_.take(Kind::tables, 1, !keeps_every_version());
    if (table.count == 0)
      return core::fail_critical(GDS_STATUS_INTERNAL, func,
                                 "version store found no free table slot where one was counted");
    slabs_.populate(table);
    pending_table_slot_ = table.first;
    std::memcpy(slot_memory(pending_table_slot_), pending_table_.data(), std::size_t{nblocks_} * sizeof(SlotRef));
  }
  // Its directory entry: no retained version's (the directory holds more
  // than the versions retained), so written now whatever becomes of it.
  const Version next{next_index_, 0, {}, kZero, 0, {}};
  std::memcpy(slabs_[directory_].memory.data() + directory_at(next), &pending_table_slot_, sizeof(SlotRef));
  copy_out_fence();
  if (g_corrupt_block != 0 && changes_.count() > 0) {  // GDS_FAULT_VERSION_CORRUPT: a latent error in the copy
    std::uint64_t k = std::min<std::uint64_t>(g_corrupt_block, changes_.count());
    g_corrupt_block = 0;
    changes_.for_each_run([&](std::uint32_t first, std::uint32_t count) {
      if (k == 0) return;
      if (k > count) {
        k -= count;
        return;
      }
      *slot_memory(pending_table_[first + k - 1]) ^= std::byte{1};
      k = 0;
    });
  }
  pending_frozen_ = true;
  // Other processes read the slots one-sidedly once the version is made:
  // the windows written synchronized.
  std::vector<bool> written(slabs_.size(), false);
  for (const Run &run : pending_runs_) written[slab_of(run.first)] = true;
  if (pending_table_slot_ != kZero) written[slab_of(pending_table_slot_)] = true;
  written[directory_] = true;
  for (std::size_t k = 0; k < slabs_.size(); ++k)
    if (written[k]) GDS_TRY(slabs_[static_cast<std::uint32_t>(k)].window.sync(func));
  return GDS_STATUS_OK;
}

void Store::commit(std::uint64_t number, std::string label) {
  const std::uint64_t index = next_index_;
  changes_.for_each_run([&](std::uint32_t first, std::uint32_t count) {
    for (std::uint32_t b = first; b < first + count; ++b) {  // the current content is clean again
      leave_base(b);
      set_base(b, pending_table_[b], index);
      if (pending_table_[b] != kZero) slabs_[slab_of(pending_table_[b])].last[slot_of(pending_table_[b])] = index;
    }
  });
  changes_.clear();
  versions_.push_back(Version{index, number, std::move(label), pending_table_slot_, core::next_event(), {}});
  copy_all_ = next_copy_all_;
  retired_.emplace_back();
  ++next_index_;
  numbers_.push_back(number);
  std::uint64_t taken = 0;
  for (const Run &run : pending_runs_) taken += run.count;
  pending_table_.clear();
  pending_runs_.clear();
  pending_table_slot_ = kZero;
  pending_frozen_ = false;
  publish();
  // Until retention first drops a version, the next version needs new
  // memory: fault it in ahead. After that, dropped versions' slots are its room.
  if (numbers_.size() == versions_.size()) slabs_.prepare(taken);
}

void Store::abandon() {
  for (const Run &run : pending_runs_)
    for (std::uint32_t i = 0; i < run.count; ++i) slabs_.free_slot(run.first + i);
  if (pending_table_slot_ != kZero) slabs_.free_slot(pending_table_slot_);
  pending_table_.clear();
  pending_runs_.clear();
  pending_table_slot_ = kZero;
  pending_frozen_ = false;
}

std::uint64_t Store::drop_wish() const {
  // The version frozen is the newest once committed: every retained one may go then.
  const std::uint64_t held = versions_.size() + (pending_frozen_ ? 1 : 0);
  std::uint64_t wish = 0;
  if (retention_.max_versions > 0 && held > retention_.max_versions) wish = held - retention_.max_versions;
  if (has_byte_budget()) {
    std::uint64_t budget = retention_.max_bytes > 0 ? retention_.max_bytes : UINT64_MAX;
    if (retention_.process_bytes > 0) {
      const std::uint64_t others = others_stored();
      budget = std::min(budget, retention_.process_bytes > others ? retention_.process_bytes - others : 0);
    }
    // Simulate the drops, oldest first: what each frees. The frozen
    // version's commit retires the base slots of its changed blocks under
    // the newest version so far (leave_base), which they then free.
    const std::uint64_t stored = stats(0).bytes_stored;
    std::uint64_t freed = 0, k = 0;
    while (k + 1 < held && stored - freed > budget) {
      const Version &v = versions_[k];
      if (v.table != kZero) freed += table_bytes(nblocks_);
      for (SlotRef r : retired_[k])
        if (would_free(r, v.index)) freed += data_slot_bytes(local_bytes_);
      if (pending_frozen_ && k + 1 == versions_.size()) freed += leaving_base() * data_slot_bytes(local_bytes_);
      ++k;
    }
    wish = std::max(wish, k);
  }
  return std::min(wish, held > 0 ? held - 1 : 0);
}

std::uint64_t Store::leaving_base() const {
  std::uint64_t n = 0;
  changes_.for_each_run([&](std::uint32_t first, std::uint32_t count) {
    for (std::uint32_t b = first; b < first + count; ++b)
      n += base_[b] != kZero && next_index_ > base_since_[b];  // not one a restore brought back
  });
  return n;
}

bool Store::would_free(SlotRef r, std::uint64_t index) const {
  const Slab &s = slabs_[slab_of(r)];
  const std::uint32_t i = slot_of(r);
  return !slabs_.is_free(r) && s.last[i] == index && base_[s.block[i]] != r;
}

void Store::drop_oldest(std::uint64_t count) {
  count = std::min<std::uint64_t>(count, versions_.empty() ? 0 : versions_.size() - 1);
  for (std::uint64_t k = 0; k < count; ++k) {
    const Version &v = versions_.front();
    if (v.table != kZero) slabs_.free_slot(v.table);
    for (SlotRef r : retired_.front())
      if (would_free(r, v.index)) slabs_.free_slot(r);
    retired_.pop_front();
    versions_.pop_front();
  }
  publish();
}

std::uint32_t Store::stored_crc(SlotRef r, std::uint32_t b) const {
  if (r != kZero) return slabs_[slab_of(r)].crc[slot_of(r)];
  if (!zero_crc_known_) {
    zero_crc_[0] = crc_of_zeros(std::min(block_bytes(), local_bytes_));
    zero_crc_[1] = nblocks_ > 0 ? crc_of_zeros(bytes_of_block(nblocks_ - 1)) : 0;
    zero_crc_known_ = true;
  }
  return zero_crc_[b + 1 == nblocks_ ? 1 : 0];
}

std::vector<std::uint32_t> Store::pending_crcs() const {
  std::vector<std::uint32_t> crcs(nblocks_);
  for (std::uint32_t b = 0; b < nblocks_; ++b) crcs[b] = stored_crc(pending_table_[b], b);
  return crcs;
}

std::vector<std::uint32_t> Store::verify(const Version &v, const std::vector<std::uint64_t> &wanted) const {
  std::vector<std::uint32_t> bad;
  const SlotRef *table = local_table(v);
  if (table == nullptr) return bad;
  for (std::uint32_t b = 0; b < nblocks_; ++b) {
    if (!wanted.empty() && !core::test_bit(wanted, b)) continue;
    const SlotRef r = table[b];
    if (r == kZero) continue;  // the zero block takes no memory that could change
    if (core::crc32c(slot_memory(r), bytes_of_block(b)) != slabs_[slab_of(r)].crc[slot_of(r)]) bad.push_back(b);
  }
  return bad;
}

void Store::restore(const Version &v, std::byte *memory) {
  const SlotRef *table = local_table(v);
  for (std::uint32_t b = 0; b < nblocks_; ++b) {
    if (!is_dirty(b) && base_[b] == table[b]) continue;
    std::byte *block = memory + (std::uint64_t{b} << shift_);
    if (table[b] == kZero)
      std::memset(block, 0, bytes_of_block(b));
    else
      std::memcpy(block, slot_memory(table[b]), bytes_of_block(b));
    core::add_bytes(core::Work::restore, bytes_of_block(b));
    if (base_[b] != table[b]) {
      leave_base(b);
      set_base(b, table[b], next_index_);
    }
  }
  changes_.clear();
}

GDS_version_stats_t Store::stats(std::uint64_t current) const {
  GDS_version_stats_t s{};
  s.versions = versions_.size();
  s.oldest = versions_.empty() ? current : versions_.front().number;
  s.current = current;
  s.block_bytes = block_bytes();
  s.local_bytes = local_bytes_;
  std::uint64_t data = 0, tables = 0, touched = 0;
  for (std::uint32_t k = 0; k < slabs_.size(); ++k) {
    const Slab &slab = slabs_[k];
    const std::uint64_t used = std::uint64_t{slab.slots - slab.free} * slab.slot_bytes;
    if (slab.kind == Kind::directory) continue;  // a fixed few bytes per retained version
    (slab.kind == Kind::tables ? tables : data) += used;
    touched += std::uint64_t{slab.touched} * slab.slot_bytes;
  }
  s.bytes_stored = data + tables;
  const std::uint64_t logical = s.versions * local_bytes_;
  s.bytes_shared = logical > data ? logical - data : 0;
  s.bytes_allocated = touched;
  s.table_bytes = nblocks_ > 0 ? table_bytes(nblocks_) : 0;
  return s;
}

}  // namespace gds::versions
