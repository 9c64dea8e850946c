// Memory GDS maps for itself: arrays' parts (GDS_alloc) and version slabs.
//
// Anonymous mappings are zero-filled, page aligned and cost nothing until
// touched; large ones start on a huge page boundary, and ask for transparent
// huge pages only with GDS_HUGE_PAGES=1 (otherwise the pages are what the
// kernel gives the program's own memory); populate() faults pages in by the
// range (on the test VM 0.7 us a 4 KiB page, and the first store into each
// still 6 us; 12-16 us faulted by a store alone; 0.1 ms per MiB in huge
// pages). A mapping the system refuses is GDS_STATUS_NOMEM, reported
// before any MPI call sees the size: MPICH 4.0.2 crashes in MPI_Win_allocate
// when it cannot get the memory, so GDS allocates and exposes with
// MPI_Win_create.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "gds_types.h"

namespace gds::core {

// Whether `bytes` bytes can be allocated from the heap now: checked with a
// non-throwing allocation before sizes that come from the program reach a
// container, so an impossible size is a status everywhere (AddressSanitizer
// ends the process on a throwing allocation it cannot serve).
bool allocatable(std::size_t bytes);

// The memory of this host a process may use: GDS_HOST_MEMORY (bytes) if
// set, else the physical memory, or the memory limit of the process's cgroup
// (v2 memory.max, v1 memory.limit_in_bytes) when that is lower.
std::uint64_t host_memory();

// At least `bytes` bytes that read as zeros and are never written: a
// read-only anonymous mapping, which every page of maps to the kernel's
// zero page, so it costs address space, not memory. Mappings handed out
// stay mapped for the process's life (a larger request maps a larger one);
// nullptr if none can be mapped. Not thread-safe.
const std::byte *zero_bytes(std::size_t bytes);

class Memory {
 public:
  Memory() = default;
  Memory(Memory &&o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), mapped_(std::exchange(o.mapped_, 0)) {}
  Memory &operator=(Memory &&o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(mapped_, o.mapped_);
    return *this;
  }
  Memory(const Memory &) = delete;
  Memory &operator=(const Memory &) = delete;
  ~Memory() { unmap(); }

  // Maps `bytes` bytes (0: nothing); on failure nothing is mapped.
  GDS_status_t map(const char *func, std::size_t bytes);
  void unmap();

  // Faults in [offset, offset + bytes) now, in one system call: cheaper
  // than faulting page by page while writing (no effect on old kernels).
  void populate(std::size_t offset, std::size_t bytes) const;
  // The step a caller populating a mapping as it fills should use: a huge
  // page where mappings get them (GDS_HUGE_PAGES=1, or the kernel's THP
  // "always"), where a step costs what a 4 KiB page would; else 64 KiB, so
  // that a small state does not fault in 2 MiB it never uses (MD's 0.1 MiB
  // in three arrays populated 13 MiB at its first version: 6 of its 8 ms).
  static std::size_t populate_step();

  [[nodiscard]] std::byte *data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }

 private:
  std::byte *data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t mapped_ = 0;
};

}  // namespace gds::core
