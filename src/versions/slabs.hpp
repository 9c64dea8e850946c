// The memory of one array's versions on one process: slabs of slots. A slab
// is memory GDS maps and an MPI window over it (made collectively, so every
// process has the same slabs, with slots of its own size, maybe none), so
// any process reads any slot of another one-sidedly. Data slabs hold
// blocks (with, per slot, the newest version containing it, the block it
// holds and its CRC32C), table slabs the versions' block tables, a
// directory slab where each version's table is. Part of the version store
// (store.hpp), which decides what goes where; this hands out free slots,
// faults their memory in, and frees them.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/background.hpp"
#include "core/memory.hpp"
#include "gds_types.h"
#include "rma/window.hpp"

namespace gds::versions {

// A slot: slab (8 bits) and slot within it (24 bits). Block tables hold one per block.
using SlotRef = std::uint32_t;
inline constexpr SlotRef kZero = ~SlotRef{0};
inline constexpr unsigned kSlotBits = 24;
inline constexpr std::uint32_t kMaxSlabs = 255;                          // slab 255 holds kZero
inline constexpr std::uint32_t kMaxSlotsPerSlab = (1u << kSlotBits) - 1;  // 24-bit slot numbers
inline constexpr SlotRef make_ref(std::uint32_t slab, std::uint32_t slot) { return (slab << kSlotBits) | slot; }
inline constexpr std::uint32_t slab_of(SlotRef r) { return r >> kSlotBits; }
inline constexpr std::uint32_t slot_of(SlotRef r) { return r & kMaxSlotsPerSlab; }
// `last` of a data slot in no version yet.
inline constexpr std::uint64_t kNoVersion = ~std::uint64_t{0};

enum class SlabKind { data, tables, directory };

struct Slab {
  core::Memory memory;
  rma::Window window;
  SlabKind kind = SlabKind::data;
  std::uint64_t slot_bytes = 0;          // this process's slot size in this slab
  std::uint32_t slots = 0;               // this process's slots
  std::uint32_t free = 0;                // of them, free
  std::uint32_t cursor = 0;              // where the next search for free slots starts
  std::uint32_t touched = 0;             // slots ever written (their memory is mapped in)
  std::uint64_t populated = 0;           // bytes from the start faulted in ahead of writing
  std::vector<std::uint64_t> free_bits;  // per slot: 1 = free
  std::vector<std::uint64_t> last;       // per data slot: index of the newest version containing it
  std::vector<std::uint32_t> block;      // per data slot: the block whose content it holds
  std::vector<std::uint32_t> crc;        // per data slot: CRC32C of its content, taken at freeze
};

// A run of consecutive slots of one slab.
struct SlotRun {
  SlotRef first;
  std::uint32_t count;
};

class Slabs {
 public:
  // `prefault`: prepare() faults memory in ahead, in the background.
  Slabs(MPI_Comm comm, bool prefault) : comm_(comm), prefault_(prefault) {}
  ~Slabs();
  Slabs(const Slabs &) = delete;
  Slabs &operator=(const Slabs &) = delete;

  [[nodiscard]] std::size_t size() const { return slabs_.size(); }
  [[nodiscard]] Slab &operator[](std::uint32_t id) { return *slabs_[id]; }
  [[nodiscard]] const Slab &operator[](std::uint32_t id) const { return *slabs_[id]; }
  [[nodiscard]] std::byte *slot_memory(SlotRef r) const {
    const Slab &s = *slabs_[slab_of(r)];
    return s.memory.data() + std::uint64_t{slot_of(r)} * s.slot_bytes;
  }

  // Collective: a slab of `slots` slots of `slot_bytes` (its window made on
  // every process, empty where this process's memory failed: then the bytes
  // wanted are added to *failed_bytes and the status says why). `starve`:
  // an injected failure (GDS_inject_fault).
  GDS_status_t add(const char *func, SlabKind kind, std::uint64_t slots, std::uint64_t slot_bytes, bool starve,
                   std::uint64_t *failed_bytes);
  // Up to `want` consecutive free slots of the kind (fewer if the first free
  // run is shorter; {kZero, 0} if none is free). `reuse_written`: from the
  // start of a slab once the cursor has left the slots ever written, if
  // some of those are free (a store into a page written before costs no trap).
  SlotRun take(SlabKind kind, std::uint32_t want, bool reuse_written);
  void free_slot(SlotRef r);
  [[nodiscard]] bool is_free(SlotRef r) const;
  [[nodiscard]] std::uint64_t free_slots(SlabKind kind) const;
  [[nodiscard]] std::uint64_t capacity(SlabKind kind) const;
  // Faults in the memory of a run about to be written, if it is new.
  void populate(const SlotRun &run);
  // In the background (with prefault): faults in room for `slots` more data
  // slots, where take() will hand them out.
  void prepare(std::uint64_t slots);
  // Waits for the memory being prepared in the background.
  void wait_background() const { core::Background::wait(prepared_); }
  // Collective: frees every slab's window; no slab remains.
  GDS_status_t release(const char *func);

 private:
  MPI_Comm comm_;
  bool prefault_;
  std::vector<std::unique_ptr<Slab>> slabs_;  // slab id = index, the same on every process
  core::Background::Ticket prepared_ = 0;     // the background job faulting in room
};

}  // namespace gds::versions
