#include "core/memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <new>

#include "core/log.hpp"
#include "core/runtime.hpp"

namespace gds::core {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}

bool allocatable(std::size_t bytes) {
  void *p = ::operator new(bytes, std::nothrow);
  if (p == nullptr) return false;
  ::operator delete(p);
  return true;
}

std::uint64_t host_memory() {
  if (const char *given = std::getenv("GDS_HOST_MEMORY"); given != nullptr && *given != '\0') {
    char *end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(given, &end, 10);
    if (errno == 0 && *end == '\0' && v > 0 && given[0] != '-') return v;
    log(Level::warning, "GDS_alloc", "GDS_HOST_MEMORY=\"%s\" is not a positive number of bytes; ignored", given);
  }
  // Read once per process: every containment domain's preserve asks, and
  // opening the two cgroup files took 12-18 us of a 4 KiB preserve's 12-18 us.
  static const std::uint64_t system = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    std::uint64_t bytes = pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
    for (const char *limit : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
      std::ifstream in(limit);
      std::string text;
      if (!(in >> text) || text.empty() || text.find_first_not_of("0123456789") != std::string::npos) continue;
      const std::uint64_t v = std::strtoull(text.c_str(), nullptr, 10);  // "max": no limit (skipped above)
      if (v > 0 && (bytes == 0 || v < bytes)) bytes = v;
    }
    return bytes;
  }();
  return system;
}

GDS_status_t Memory::map(const char *func, std::size_t bytes) {
  unmap();
  if (bytes == 0) return GDS_STATUS_OK;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  if (bytes > SIZE_MAX - page - kHugePage)
    return fail_critical(GDS_STATUS_NOMEM, func, "cannot map %zu bytes of memory: more than the address space", bytes);
  const std::size_t mapped = (bytes + page - 1) / page * page;
  // Large mappings start on a huge page boundary, so that the kernel can
  // back them with transparent huge pages from the first byte where it does
  // (THP "always", or asked: a mapping where it lands would lose up to a huge
  // page at each end): mapped with a huge page to spare, the parts before and
  // after the aligned range given back.
  const bool huge = mapped >= kHugePage;
  const std::size_t reserve = huge ? mapped + kHugePage : mapped;
  void *p = mmap(nullptr, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return fail_critical(GDS_STATUS_NOMEM, func, "cannot map %zu bytes of memory: %s", bytes, std::strerror(errno));
  auto *start = static_cast<std::byte *>(p);
  if (huge) {
    const auto at = reinterpret_cast<std::uintptr_t>(start);
    const std::size_t head = (kHugePage - at % kHugePage) % kHugePage;
    if (head > 0) munmap(start, head);
    munmap(start + head + mapped, kHugePage - head);
    start += head;
    // Asked for only with GDS_HUGE_PAGES=1: huge pages in a process can slow
    // the program's own 4 KiB-page memory (docs/versions.md, "Memory at copy
    // speed"); otherwise the kernel's policy decides, as for the program's
    // own memory. Where the kernel offers none on request, the call fails harmlessly.
    if (g_rt.config.huge_pages) (void)madvise(start, mapped, MADV_HUGEPAGE);
  }
  data_ = start;
  size_ = bytes;
  mapped_ = mapped;
  return GDS_STATUS_OK;
}

const std::byte *zero_bytes(std::size_t bytes) {
  static const std::byte *zeros = nullptr;
  static std::size_t size = 0;
  if (bytes <= size) return zeros;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t want = std::max(bytes, 2 * size);
  if (want > SIZE_MAX - page) return nullptr;
  const std::size_t mapped = (want + page - 1) / page * page;
  void *p = mmap(nullptr, mapped, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  zeros = static_cast<const std::byte *>(p);  // the smaller one stays: pieces may point into it
  size = mapped;
  return zeros;
}

void Memory::populate(std::size_t offset, std::size_t bytes) const {
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14
#endif
  if (data_ == nullptr || offset >= mapped_) return;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t first = offset / page * page, end = std::min(mapped_, offset + bytes);
  if (end > first) (void)madvise(data_ + first, end - first, MADV_POPULATE_WRITE);
}

std::size_t Memory::populate_step() {
  static const bool always = [] {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    return std::getline(in, line) && line.find("[always]") != std::string::npos;
  }();
  constexpr std::size_t kSmallStep = std::size_t{64} << 10;
  return always || g_rt.config.huge_pages ? kHugePage : kSmallStep;
}

void Memory::unmap() {
  if (data_ != nullptr) munmap(data_, mapped_);
  data_ = nullptr;
  size_ = mapped_ = 0;
}

}  // namespace gds::core
