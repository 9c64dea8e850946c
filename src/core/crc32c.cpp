#include "core/crc32c.hpp"

#include <algorithm>
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
// One chain of crc32 instructions: each waits for the one before (3 cycles
// for 8 bytes).
__attribute__((target("sse4.2"))) std::uint32_t one_chain(const unsigned char *p, std::size_t n, std::uint32_t c) {
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
// Raw registers r[0..2] advanced over three consecutive runs of `len` bytes
// (a multiple of 8) at p: three independent chains, interleaved so that each
// instruction's latency hides behind the other two.
__attribute__((target("sse4.2"))) void three_chains(const unsigned char *p, std::size_t len, std::uint32_t r[3]) {
  std::uint64_t c0 = r[0], c1 = r[1], c2 = r[2];
  for (std::size_t i = 0; i < len; i += 8) {
    std::uint64_t w0, w1, w2;
    std::memcpy(&w0, p + i, 8);
    std::memcpy(&w1, p + len + i, 8);
    std::memcpy(&w2, p + 2 * len + i, 8);
    c0 = __builtin_ia32_crc32di(c0, w0);
    c1 = __builtin_ia32_crc32di(c1, w1);
    c2 = __builtin_ia32_crc32di(c2, w2);
  }
  r[0] = static_cast<std::uint32_t>(c0);
  r[1] = static_cast<std::uint32_t>(c1);
  r[2] = static_cast<std::uint32_t>(c2);
}

// Three chains over three consecutive lanes of kLane bytes, joined: the raw
// register after lanes A then B is Z(raw after A) ^ (B's register from 0),
// where Z, the register's advance over kLane zero bytes, is linear over
// GF(2) and tabulated bytewise. Three times the single chain's speed.
constexpr std::size_t kLane = 4096;
using ZTable = std::array<std::array<std::uint32_t, 256>, 4>;
ZTable make_z() {
  static const unsigned char zeros[kLane] = {};
  std::uint32_t basis[32];
  for (int i = 0; i < 32; ++i) basis[i] = one_chain(zeros, kLane, std::uint32_t{1} << i) ^ one_chain(zeros, kLane, 0);
  ZTable z{};
  for (std::size_t j = 0; j < 4; ++j)
    for (std::uint32_t b = 0; b < 256; ++b) {
      std::uint32_t v = 0;
      for (std::size_t i = 0; i < 8; ++i)
        if ((b >> i) & 1u) v ^= basis[8 * j + i];
      z[j][b] = v;
    }
  return z;
}

__attribute__((target("sse4.2"))) std::uint32_t hardware(const unsigned char *p, std::size_t n, std::uint32_t c) {
  static const ZTable z = make_z();
  const auto advance = [&](std::uint32_t s) {
    return z[0][s & 0xFF] ^ z[1][(s >> 8) & 0xFF] ^ z[2][(s >> 16) & 0xFF] ^ z[3][s >> 24];
  };
  while (n >= 3 * kLane) {
    std::uint32_t r[3] = {c, 0, 0};
    three_chains(p, kLane, r);
    c = advance(advance(r[0]) ^ r[1]) ^ r[2];
    p += 3 * kLane;
    n -= 3 * kLane;
  }
  return one_chain(p, n, c);
}
const bool kHardware = __builtin_cpu_supports("sse4.2");

// Three whole blocks (a multiple of 8 bytes each) at once, as three chains.
__attribute__((target("sse4.2"))) void three_blocks(const unsigned char *p, std::size_t block, std::uint32_t *out) {
  std::uint32_t r[3] = {~0u, ~0u, ~0u};
  three_chains(p, block, r);
  for (int i = 0; i < 3; ++i) out[i] = ~r[i];
}
#else
void three_blocks(const unsigned char *, std::size_t, std::uint32_t *) {}
const bool kHardware = false;
std::uint32_t hardware(const unsigned char *p, std::size_t n, std::uint32_t c) { return portable(p, n, c); }
#endif

}  // namespace

std::uint32_t crc32c(const void *data, std::size_t n, std::uint32_t crc) {
  const auto *p = static_cast<const unsigned char *>(data);
  return ~(kHardware ? hardware(p, n, ~crc) : portable(p, n, ~crc));
}

void crc32c_blocks(const void *data, std::size_t n, std::size_t block, std::uint32_t *out) {
  const auto *p = static_cast<const unsigned char *>(data);
  if (block == 0) return;
  // (Larger blocks already run as three chains inside crc32c.)
  if (kHardware && block % 8 == 0 && block < 3 * 4096)
    for (; n >= 3 * block; p += 3 * block, n -= 3 * block, out += 3) three_blocks(p, block, out);
  for (; n > 0; p += std::min(n, block), n -= std::min(n, block)) *out++ = crc32c(p, std::min(n, block));
}

std::uint32_t crc32c_portable(const void *data, std::size_t n, std::uint32_t crc) {
  return ~portable(static_cast<const unsigned char *>(data), n, ~crc);
}

bool crc32c_in_hardware() { return kHardware; }

namespace {

// GF(2) 32x32 matrices as 32 columns (zlib's crc32_combine, Castagnoli's polynomial).
std::uint32_t times(const std::uint32_t *mat, std::uint32_t vec) {
  std::uint32_t sum = 0;
  for (; vec != 0; vec >>= 1, ++mat)
    if (vec & 1u) sum ^= *mat;
  return sum;
}

void square(std::uint32_t *out, const std::uint32_t *mat) {
  for (int n = 0; n < 32; ++n) out[n] = times(mat, mat[n]);
}

}  // namespace

std::uint32_t crc32c_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t len_b) {
  if (len_b == 0) return crc_a;
  std::uint32_t even[32], odd[32];
  odd[0] = kPolynomial;  // the register advanced over one zero bit
  for (int n = 1; n < 32; ++n) odd[n] = std::uint32_t{1} << (n - 1);
  square(even, odd);  // two zero bits
  square(odd, even);  // four
  // Apply len_b zero bytes to crc_a, squaring the operator for each bit of the length.
  do {
    square(even, odd);
    if (len_b & 1u) crc_a = times(even, crc_a);
    len_b >>= 1;
    if (len_b == 0) break;
    square(odd, even);
    if (len_b & 1u) crc_a = times(odd, crc_a);
    len_b >>= 1;
  } while (len_b != 0);
  return crc_a ^ crc_b;
}

Crc32cJoin::Crc32cJoin(std::uint64_t len_b) {
  std::uint32_t basis[32];  // the operator's columns
  for (int i = 0; i < 32; ++i) basis[i] = crc32c_combine(std::uint32_t{1} << i, 0, len_b);
  for (int j = 0; j < 4; ++j)
    for (std::uint32_t b = 0; b < 256; ++b) {
      std::uint32_t v = 0;
      for (int i = 0; i < 8; ++i)
        if ((b >> i) & 1u) v ^= basis[8 * j + i];
      table_[j][b] = v;
    }
}

}  // namespace gds::core
