#include "versions/slabs.hpp"

#include <algorithm>
#include <atomic>
#include <bit>

#include "core/bits.hpp"
#include "core/log.hpp"

namespace gds::versions {

using core::words_for;

Slabs::~Slabs() { core::Background::stop_and_wait(prepared_); }

GDS_status_t Slabs::add(const char *func, SlabKind kind, std::uint64_t slots, std::uint64_t slot_bytes, bool starve,
                        std::uint64_t *failed_bytes) {
  // Every process has the same slabs (ids match across processes), so all
  // reach this refusal alike, before the collective window.
  if (slabs_.size() >= kMaxSlabs)
    return core::fail_critical(GDS_STATUS_NOMEM, func, "the array's versions use all %u slabs", kMaxSlabs);
  auto slab = std::make_unique<Slab>();
  slab->kind = kind;
  slab->slot_bytes = slot_bytes;
  const std::uint64_t wanted = slots * slot_bytes;
  GDS_status_t s = GDS_STATUS_OK;
  if (starve)
    s = core::fail(GDS_STATUS_NOMEM, func, "no memory for %llu bytes of versions (injected fault)",
                   static_cast<unsigned long long>(wanted));
  if (s == GDS_STATUS_OK) s = slab->memory.map(func, wanted);
  if (s != GDS_STATUS_OK) {
    *failed_bytes += wanted;
    slots = 0;
  }
  // The window is collective: made on every process, empty where memory failed.
  const GDS_status_t w =
      slab->window.create(func, comm_, slab->memory.data(), static_cast<MPI_Aint>(slots * slot_bytes), 1);
  if (s == GDS_STATUS_OK) s = w;
  if (w != GDS_STATUS_OK) slots = 0;
  slab->slots = static_cast<std::uint32_t>(slots);
  slab->free = slab->slots;
  if (kind == SlabKind::data) {
    slab->last.assign(slots, kNoVersion);
    slab->block.assign(slots, 0);
    slab->crc.assign(slots, 0);
  }
  slab->free_bits.assign(words_for(slots), ~std::uint64_t{0});
  if (slots % 64 != 0) slab->free_bits.back() = (std::uint64_t{1} << (slots % 64)) - 1;
  slabs_.push_back(std::move(slab));
  return s;
}

void Slabs::free_slot(SlotRef r) {
  Slab &s = *slabs_[slab_of(r)];
  const std::uint32_t i = slot_of(r);
  core::set_bit(s.free_bits, i);
  ++s.free;
}

bool Slabs::is_free(SlotRef r) const {
  const Slab &s = *slabs_[slab_of(r)];
  const std::uint32_t i = slot_of(r);
  return core::test_bit(s.free_bits, i);
}

std::uint64_t Slabs::free_slots(SlabKind kind) const {
  std::uint64_t n = 0;
  for (const auto &s : slabs_)
    if (s->kind == kind) n += s->free;
  return n;
}

std::uint64_t Slabs::capacity(SlabKind kind) const {
  std::uint64_t n = 0;
  for (const auto &s : slabs_)
    if (s->kind == kind) n += s->slots;
  return n;
}

SlotRun Slabs::take(SlabKind kind, std::uint32_t want, bool reuse_written) {
  // The oldest slab with free slots first: the newest is the one still being
  // faulted in (or not yet) when every version is kept.
  for (std::size_t k = 0; k < slabs_.size(); ++k) {
    Slab &s = *slabs_[k];
    if (s.kind != kind || s.free == 0) continue;
    // Next fit from the cursor, wrapping once. With a retention, from the
    // start once the cursor has left the slots ever written, if some of
    // those are free (else a scan from the start would find none, at every
    // take): freed slots there come before slots never written (geometric growth maps more
    // than a steady state needs), even where those are faulted in already —
    // a page's first store costs a trap on some machines (7 us per 4 KiB on
    // the test VM, faulted in or not), a store into a page written before
    // does not. Keeping every version, the slots ahead are the ones being
    // faulted in.
    std::uint32_t i = s.cursor;
    if (reuse_written && i >= s.touched && s.free > s.slots - s.touched) i = 0;
    for (std::uint32_t scanned = 0; scanned <= s.slots; ) {
      if (i >= s.slots) i = 0;
      const std::uint64_t w = s.free_bits[i >> 6] >> (i & 63);
      if (w == 0) {
        // Only the slots this word holds count: past s.slots the scan wraps.
        const std::uint32_t next = std::min((i | 63) + 1, s.slots);
        scanned += next - i;
        i = next;
        continue;
      }
      const auto skip = static_cast<std::uint32_t>(std::countr_zero(w));
      i += skip;
      scanned += skip;
      if (i >= s.slots) continue;
      std::uint32_t n = 0;
      while (n < want && i + n < s.slots && ((s.free_bits[(i + n) >> 6] >> ((i + n) & 63)) & 1u)) {
        s.free_bits[(i + n) >> 6] &= ~(std::uint64_t{1} << ((i + n) & 63));
        ++n;
      }
      s.free -= n;
      s.cursor = i + n;
      s.touched = std::max(s.touched, i + n);
      return SlotRun{make_ref(static_cast<std::uint32_t>(k), i), n};
    }
  }
  return SlotRun{kZero, 0};  // callers check the shortage first
}

void Slabs::populate(const SlotRun &run) {
  Slab &s = *slabs_[slab_of(run.first)];
  const std::uint64_t end = (std::uint64_t{slot_of(run.first)} + run.count) * s.slot_bytes;
  if (end <= s.populated) return;
  // Whole huge pages where the kernel gives them, else 64 KiB steps.
  const std::uint64_t kStep = core::Memory::populate_step();
  const std::uint64_t upto = std::min<std::uint64_t>((end + kStep - 1) / kStep * kStep, s.memory.size());
  s.memory.populate(s.populated, upto - s.populated);
  s.populated = upto;
}

void Slabs::prepare(std::uint64_t slots) {
  if (!prefault_ || slots == 0) return;
  // The free data slots after the cursors, in the order take() hands them
  // out, up to `slots` of them; only memory not yet faulted in needs a job.
  struct Range {
    const core::Memory *memory;
    std::uint64_t from, to;
  };
  std::vector<Range> ranges;
  std::uint64_t left = slots;
  for (const auto &slab : slabs_) {
    if (slab->kind != SlabKind::data || slab->free == 0 || left == 0) continue;
    const std::uint64_t start = std::uint64_t{slab->cursor} * slab->slot_bytes;
    const std::uint64_t n = std::min<std::uint64_t>(left, slab->slots - slab->cursor);
    const std::uint64_t end = std::min<std::uint64_t>(slab->memory.size(), start + n * slab->slot_bytes);
    left -= n;
    const std::uint64_t from = std::max(start, slab->populated);
    if (end <= from) continue;
    ranges.push_back(Range{&slab->memory, from, end});
    slab->populated = end;
  }
  if (ranges.empty()) return;
  core::Background::wait(prepared_);  // one job per store at a time
  prepared_ = core::Background::submit([ranges = std::move(ranges)](const std::atomic<bool> &stop) {
    constexpr std::uint64_t kStep = std::uint64_t{2} << 20;
    for (const Range &r : ranges)
      for (std::uint64_t at = r.from; at < r.to && !stop.load(std::memory_order_relaxed); at += kStep)
        r.memory->populate(at, std::min(kStep, r.to - at));
  });
}

GDS_status_t Slabs::release(const char *func) {
  core::Background::stop_and_wait(prepared_);
  prepared_ = 0;
  GDS_status_t status = GDS_STATUS_OK;
  for (auto &slab : slabs_) {
    const GDS_status_t s = slab->window.free(func);
    if (status == GDS_STATUS_OK) status = s;
  }
  slabs_.clear();
  return status;
}

}  // namespace gds::versions
