// Which pages of a program's memory were written, as the kernel saw it:
// userfaultfd write-protection in asynchronous mode (Linux 6.7+,
// UFFD_FEATURE_WP_ASYNC) read back and protected again in one PAGEMAP_SCAN
// ioctl. A protected page's first store costs the writer one trap (the
// kernel resolves it itself, no handler thread); every later store until
// the next scan runs at full speed. What the kernel does to the page on
// the program's behalf is seen too: read() into it, process_vm_writev (an
// MPI's CMA copy), and pages dropped (MADV_DONTNEED reads as zeros).
//
// Not seen: stores by a device into pinned memory (an RDMA NIC writing a
// registered buffer), and stores through another address space's mapping
// of the pages (XPMEM). open() refuses where the host has RDMA devices
// unless forced, so that a caller compares instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gds::core {

class PageTracker {
 public:
  // Tracks stores into the pages that hold [base, base + bytes). nullptr,
  // with *why saying why, where the kernel cannot (no userfaultfd or no
  // asynchronous write-protect, a mapping it cannot protect: a file, a
  // range already registered) or, unless `force`, where an RDMA device
  // could write the memory behind the page tables.
  // `paused`: registered but not protected yet (resume() starts tracking).
  static std::unique_ptr<PageTracker> open(std::byte *base, std::uint64_t bytes, bool force, bool paused,
                                           std::string *why);
  ~PageTracker();
  PageTracker(const PageTracker &) = delete;
  PageTracker &operator=(const PageTracker &) = delete;

  // The byte ranges of [0, bytes) (offsets from base, ascending, each
  // clipped to the range) in pages written or dropped since the last
  // take(), or since open() for the first; the pages protected again in
  // the same ioctl. While paused, or on the first take, every page, and
  // *everything true (nothing is known of which were written).
  // False, with *why, if the kernel failed: the caller then knows nothing
  // and must treat every byte as written.
  bool take(std::vector<std::pair<std::uint64_t, std::uint64_t>> *written, bool *everything, std::string *why);

  // Stops protecting (stores run untrapped) until resume(); take() then
  // reports everything. Resuming protects every page again.
  bool pause(std::string *why);
  bool resume(std::string *why);
  [[nodiscard]] bool paused() const { return paused_; }

  [[nodiscard]] std::uint64_t pages() const { return (end_ - start_) / page_; }
  // What one trapped first store costs on this host, in seconds (measured
  // once per process on a scratch mapping; 0 if it could not be).
  static double trap_seconds();
  // Whether this kernel reports a page dropped under protection
  // (MADV_DONTNEED: it reads as zeros now) as written (measured once).
  static bool drops_read_as_written();

 private:
  PageTracker(int uffd, int pagemap, std::byte *base, std::uint64_t bytes, std::uintptr_t start, std::uintptr_t end,
              std::uint64_t page);
  bool protect(bool on, std::string *why);
  bool scan(bool protect_again, std::uint64_t mask, std::uint64_t inverted, std::vector<std::pair<std::uintptr_t, std::uintptr_t>> *pages,
            std::string *why);

  int uffd_ = -1, pagemap_ = -1;
  std::byte *base_ = nullptr;
  std::uint64_t bytes_ = 0;
  std::uintptr_t start_ = 0, end_ = 0;  // the whole pages holding [base, base + bytes)
  std::uint64_t page_ = 4096;
  bool first_ = true;
  bool paused_ = false;
};

}  // namespace gds::core
