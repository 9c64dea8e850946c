#include "core/page_tracker.hpp"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

namespace gds::core {

namespace {

// The kernel's ABI (linux/userfaultfd.h and linux/fs.h of 6.7); Debian 12's
// headers predate it, so it is spelt out here.
constexpr std::uint64_t kFeatureWpUnpopulated = std::uint64_t{1} << 13;
constexpr std::uint64_t kFeatureWpAsync = std::uint64_t{1} << 15;
#ifndef UFFD_USER_MODE_ONLY
constexpr int kUserModeOnly = 1;
#else
constexpr int kUserModeOnly = UFFD_USER_MODE_ONLY;
#endif

struct PageRegion {
  std::uint64_t start, end, categories;
};
struct PmScanArg {
  std::uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages, category_inverted, category_mask,
      category_anyof_mask, return_mask;
};
constexpr unsigned long kPagemapScan = _IOWR('f', 16, PmScanArg);
constexpr std::uint64_t kScanWpMatching = 1, kScanCheckWpAsync = 2;
constexpr std::uint64_t kPageIsWritten = 1 << 1, kPageIsPresent = 1 << 3, kPageIsSwapped = 1 << 4;

std::string errno_text(const char *what) { return std::string(what) + ": " + std::strerror(errno); }

bool rdma_devices() {
  std::error_code ec;
  std::filesystem::directory_iterator it("/sys/class/infiniband", ec);
  return !ec && it != std::filesystem::directory_iterator();
}

// A userfaultfd with asynchronous write-protection, or -1 with *why.
int open_uffd(std::string *why) {
  const long fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | kUserModeOnly);
  if (fd < 0) {
    *why = errno_text("userfaultfd") + " (not offered by this kernel, or forbidden here)";
    return -1;
  }
  uffdio_api api{};
  api.api = UFFD_API;
  api.features = kFeatureWpAsync | kFeatureWpUnpopulated;
  if (ioctl(static_cast<int>(fd), UFFDIO_API, &api) != 0) {
    *why = "this kernel's userfaultfd lacks asynchronous write-protection (UFFD_FEATURE_WP_ASYNC, Linux 6.7)";
    close(static_cast<int>(fd));
    return -1;
  }
  return static_cast<int>(fd);
}

bool register_wp(int uffd, std::uintptr_t start, std::uintptr_t end, std::string *why) {
  uffdio_register reg{};
  reg.range.start = start;
  reg.range.len = end - start;
  reg.mode = UFFDIO_REGISTER_MODE_WP;
  if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0) {
    *why = errno_text("UFFDIO_REGISTER") + " (the memory is not anonymous or shared memory, or is tracked already)";
    return false;
  }
  if ((reg.ioctls & (std::uint64_t{1} << _UFFDIO_WRITEPROTECT)) == 0) {
    *why = "the kernel cannot write-protect this memory";
    return false;
  }
  return true;
}

bool write_protect(int uffd, std::uintptr_t start, std::uintptr_t end, bool on, std::string *why) {
  uffdio_writeprotect wp{};
  wp.range.start = start;
  wp.range.len = end - start;
  wp.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0;
  if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) != 0) {
    *why = errno_text("UFFDIO_WRITEPROTECT");
    return false;
  }
  return true;
}

}  // namespace

PageTracker::PageTracker(int uffd, int pagemap, std::byte *base, std::uint64_t bytes, std::uintptr_t start,
                         std::uintptr_t end, std::uint64_t page)
    : uffd_(uffd), pagemap_(pagemap), base_(base), bytes_(bytes), start_(start), end_(end), page_(page) {}

PageTracker::~PageTracker() {
  // Closing the userfaultfd unregisters its ranges (and only its: one
  // per tracker), whether or not the memory is still mapped.
  if (uffd_ >= 0) close(uffd_);
  if (pagemap_ >= 0) close(pagemap_);
}

std::unique_ptr<PageTracker> PageTracker::open(std::byte *base, std::uint64_t bytes, bool force, bool paused,
                                               std::string *why) {
  if (bytes == 0 || base == nullptr) {
    *why = "no memory on this process";
    return nullptr;
  }
  if (!force && rdma_devices()) {
    *why = "this host has RDMA devices (/sys/class/infiniband): a NIC can write the memory unseen";
    return nullptr;
  }
  const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  const auto at = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t start = at & ~(page - 1);
  const std::uintptr_t end = (at + bytes + page - 1) & ~(page - 1);
  const int uffd = open_uffd(why);
  if (uffd < 0) return nullptr;
  const int pagemap = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pagemap < 0) {
    *why = errno_text("/proc/self/pagemap");
    close(uffd);
    return nullptr;
  }
  std::unique_ptr<PageTracker> t(new PageTracker(uffd, pagemap, base, bytes, start, end, page));
  if (!register_wp(uffd, start, end, why) || (!paused && !t->protect(true, why))) return nullptr;
  t->paused_ = paused;
  // A scan that the kernel cannot do (PAGEMAP_SCAN is Linux 6.7 too) is
  // found now rather than at the first version.
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> probe;
  if (!t->scan(false, kPageIsWritten, 0, &probe, why)) return nullptr;
  return t;
}

bool PageTracker::protect(bool on, std::string *why) { return write_protect(uffd_, start_, end_, on, why); }

bool PageTracker::scan(bool protect_again, std::uint64_t mask, std::uint64_t inverted,
                       std::vector<std::pair<std::uintptr_t, std::uintptr_t>> *pages, std::string *why) {
  PageRegion vec[256];
  std::uintptr_t from = start_;
  while (from < end_) {
    PmScanArg arg{};
    arg.size = sizeof arg;
    arg.flags = protect_again ? kScanWpMatching | kScanCheckWpAsync : 0;
    arg.start = from;
    arg.end = end_;
    arg.vec = reinterpret_cast<std::uintptr_t>(vec);
    arg.vec_len = std::size(vec);
    arg.category_inverted = inverted;
    arg.category_mask = inverted != 0 ? mask : 0;
    arg.category_anyof_mask = inverted != 0 ? 0 : mask;
    arg.return_mask = mask;
    const int n = ioctl(pagemap_, kPagemapScan, &arg);
    if (n < 0) {
      *why = errno_text("PAGEMAP_SCAN") + (errno == ENOTTY || errno == EINVAL ? " (Linux 6.7 or later needed)" : "");
      return false;
    }
    for (int i = 0; i < n; ++i) {
      if (!pages->empty() && pages->back().second == vec[i].start) pages->back().second = vec[i].end;
      else pages->emplace_back(vec[i].start, vec[i].end);
    }
    if (arg.walk_end <= from) break;  // no progress: should not happen
    from = arg.walk_end;
  }
  return true;
}

bool PageTracker::take(std::vector<std::pair<std::uint64_t, std::uint64_t>> *written, bool *everything,
                       std::string *why) {
  written->clear();
  const auto at = reinterpret_cast<std::uintptr_t>(base_);
  *everything = first_ || paused_;
  if (first_ || paused_) {
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ignored;
    if (!paused_ && !scan(true, kPageIsWritten, 0, &ignored, why)) return false;  // protects what was written
    first_ = false;
    written->emplace_back(0, bytes_);
    return true;
  }
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> pages, dropped;
  // Written pages, protected again in the same walk; then pages that are
  // neither present nor swapped: dropped since (MADV_DONTNEED; they read
  // as zeros now), protected again too.
  if (!scan(true, kPageIsWritten, 0, &pages, why)) return false;
  if (!drops_read_as_written() &&
      !scan(false, kPageIsPresent | kPageIsSwapped, kPageIsPresent | kPageIsSwapped, &dropped, why))
    return false;
  for (const auto &[s, e] : dropped)
    if (!write_protect(uffd_, s, e, true, why)) return false;
  pages.insert(pages.end(), dropped.begin(), dropped.end());
  std::sort(pages.begin(), pages.end());
  for (const auto &[s, e] : pages) {
    const std::uint64_t from = s > at ? s - at : 0;
    const std::uint64_t to = std::min<std::uint64_t>(e - at, bytes_);
    if (from >= to) continue;
    if (!written->empty() && written->back().second >= from) written->back().second = std::max(written->back().second, to);
    else written->emplace_back(from, to);
  }
  return true;
}

bool PageTracker::pause(std::string *why) {
  if (paused_) return true;
  if (!protect(false, why)) return false;
  paused_ = true;
  return true;
}

bool PageTracker::resume(std::string *why) {
  if (!paused_) return true;
  if (!protect(true, why)) return false;
  paused_ = false;
  first_ = false;
  return true;
}

bool PageTracker::drops_read_as_written() {
  // Recent kernels report a page dropped under protection as written;
  // where this one does, the second scan is left out (0.15 ms per 256 MiB here).
  static const bool reported = [] {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void *m = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return false;
    static_cast<volatile char *>(m)[0] = 1;
    static_cast<volatile char *>(m)[page] = 1;
    std::string why;
    bool seen = false;
    const auto start = reinterpret_cast<std::uintptr_t>(m);
    const int uffd = open_uffd(&why);
    const int pagemap = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (uffd >= 0 && pagemap >= 0 && register_wp(uffd, start, start + 2 * page, &why) &&
        write_protect(uffd, start, start + 2 * page, true, &why) && madvise(m, page, MADV_DONTNEED) == 0) {
      PageRegion vec[4];
      PmScanArg arg{};
      arg.size = sizeof arg;
      arg.start = start;
      arg.end = start + 2 * page;
      arg.vec = reinterpret_cast<std::uintptr_t>(vec);
      arg.vec_len = std::size(vec);
      arg.category_anyof_mask = kPageIsWritten;
      arg.return_mask = kPageIsWritten;
      const int n = ioctl(pagemap, kPagemapScan, &arg);
      seen = n == 1 && vec[0].start == start && vec[0].end == start + page;
    }
    if (uffd >= 0) close(uffd);
    if (pagemap >= 0) close(pagemap);
    munmap(m, 2 * page);
    return seen;
  }();
  return reported;
}

double PageTracker::trap_seconds() {
  static const double measured = [] {
    constexpr std::size_t kPages = 32;
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void *m = mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return 0.0;
    auto *p = static_cast<volatile char *>(m);
    for (std::size_t i = 0; i < kPages; ++i) p[i * page] = 1;
    double seconds = 0;
    std::string why;
    const auto start = reinterpret_cast<std::uintptr_t>(m);
    const int uffd = open_uffd(&why);
    if (uffd >= 0) {
      if (register_wp(uffd, start, start + kPages * page, &why) &&
          write_protect(uffd, start, start + kPages * page, true, &why)) {
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t i = 0; i < kPages; ++i) p[i * page] = 2;
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kPages;
      }
      close(uffd);
    }
    munmap(m, kPages * page);
    return seconds;
  }();
  return measured;
}

}  // namespace gds::core
