// Bitmaps of blocks: a vector of 64-bit words, bit b in word b / 64.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gds::core {

inline std::size_t words_for(std::uint64_t bits) { return static_cast<std::size_t>((bits + 63) / 64); }
inline void set_bit(std::vector<std::uint64_t> &bits, std::uint64_t b) { bits[b >> 6] |= std::uint64_t{1} << (b & 63); }
inline bool test_bit(const std::vector<std::uint64_t> &bits, std::uint64_t b) {
  return (bits[b >> 6] >> (b & 63)) & 1u;
}

// Calls fn(first, count) for every maximal run of set bits among the first `n`.
template <class F>
void for_each_run_of_bits(const std::vector<std::uint64_t> &bits, std::uint32_t n, F &&fn) {
  std::uint32_t b = 0;
  while (b < n) {
    const std::uint64_t ones = bits[b >> 6] >> (b & 63);
    if (ones == 0) {
      b = (b | 63) + 1;
      continue;
    }
    b += static_cast<std::uint32_t>(std::countr_zero(ones));
    if (b >= n) return;
    std::uint32_t e = b;  // the run ends at the next clear bit
    while (e < n) {
      const std::uint64_t zeros = ~bits[e >> 6] >> (e & 63);
      if (zeros == 0) {
        e = (e | 63) + 1;
        continue;
      }
      e += static_cast<std::uint32_t>(std::countr_zero(zeros));
      break;
    }
    e = std::min(e, n);
    fn(b, e - b);
    b = e;
  }
}

}  // namespace gds::core
