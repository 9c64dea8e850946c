#include "core/crc32c.hpp"

#include <array>
#include <cstring>

namespace gds::core {
namespace {

constexpr std::uint32_t kPolynomial = 0x82F63B78u;  // reflected Castagnoli

constexpr std::array<std::array<std::uint32_t, 256>, 8> make_tables() {
  std::array<std::array<std::uint32_t, 256>, 8> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[0][i] = c;
  }
  for (std::size_t s = 1; s < 8; ++s)
    for (std::uint32_t i = 0; i < 256; ++i) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFFu];
  return t;
}

constexpr auto kTables = make_tables();

std::uint32_t portable(const unsigned char *p, std::size_t n, std::uint32_t c) {
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);  // little-endian, as everywhere GDS runs
    w ^= c;
    c = kTables[7][w & 0xFF] ^ kTables[6][(w >> 8) & 0xFF] ^ kTables[5][(w >> 16) & 0xFF] ^
        kTables[4][(w >> 24) & 0xFF] ^ kTables[3][(w >> 32) & 0xFF] ^ kTables[2][(w >> 40) & 0xFF] ^
        kTables[1][(w >> 48) & 0xFF] ^ kTables[0][w >> 56];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xFFu];
  return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t hardware(const unsigned char *p, std::size_t n, std::uint32_t c) {
  std::uint64_t c64 = c;
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    c64 = __builtin_ia32_crc32di(c64, w);
    p += 8;
    n -= 8;
  }
  auto c32 = static_cast<std::uint32_t>(c64);
  while (n-- > 0) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}
const bool kHardware = __builtin_cpu_supports("sse4.2");
#else
const bool kHardware = false;
std::uint32_t hardware(const unsigned char *p, std::size_t n, std::uint32_t c) { return portable(p, n, c); }
#endif

}  // namespace

std::uint32_t crc32c(const void *data, std::size_t n, std::uint32_t crc) {
  const auto *p = static_cast<const unsigned char *>(data);
  return ~(kHardware ? hardware(p, n, ~crc) : portable(p, n, ~crc));
}

std::uint32_t crc32c_portable(const void *data, std::size_t n, std::uint32_t crc) {
  return ~portable(static_cast<const unsigned char *>(data), n, ~crc);
}

bool crc32c_in_hardware() { return kHardware; }

}  // namespace gds::core
