// Small helpers every module shares.
#pragma once

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gds::core {

// A 64-bit count for printf's %llu.
constexpr unsigned long long ull(std::uint64_t v) { return static_cast<unsigned long long>(v); }

// The most bytes one MPI message, broadcast or read(2)/write(2) call moves:
// MPI counts are ints, and Linux moves at most 0x7ffff000 bytes per call.
inline constexpr std::uint64_t kMaxPiece = std::uint64_t{1} << 30;

// A name of a persisted array or version group (GDS_NAME_KEY): 1-64
// letters, digits, '-', '_' or '.', not starting with '.'. It names a
// directory, so nothing else is allowed.
inline bool valid_name(const std::string &n) {
  if (n.empty() || n.size() > 64 || n[0] == '.') return false;
  for (const char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

// FNV-1a, 64 bits: argument signatures and hash keys (not a checksum: the
// data GDS keeps is checked with CRC32C).
class Fnv1a {
 public:
  Fnv1a &add(const void *data, std::size_t bytes) {
    const auto *p = static_cast<const unsigned char *>(data);
    for (std::size_t i = 0; i < bytes; ++i) hash_ = (hash_ ^ p[i]) * 0x100000001b3ULL;
    return *this;
  }
  template <class T>
  Fnv1a &add(const T &value) {
    return add(&value, sizeof value);
  }
  [[nodiscard]] std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace gds::core
