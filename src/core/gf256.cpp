#include "core/gf256.hpp"

#include <array>
#include <atomic>
#include <cstring>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace gds::core::gf256 {
namespace {

// Logarithms to the base 3 (a generator of the field's multiplicative group).
struct Tables {
  std::array<std::uint8_t, 512> exp{};
  std::array<std::uint8_t, 256> log{};
};

constexpr Tables make_tables() {
  Tables t;
  std::uint32_t x = 1;
  for (int i = 0; i < 255; ++i) {
    t.exp[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(x);
    t.log[x] = static_cast<std::uint8_t>(i);
    std::uint32_t twice = x << 1;  // x * 3 = x * 2 + x
    if (twice & 0x100u) twice ^= 0x11Bu;
    x = twice ^ x;
  }
  for (int i = 255; i < 512; ++i) t.exp[static_cast<std::size_t>(i)] = t.exp[static_cast<std::size_t>(i - 255)];
  return t;
}

constexpr Tables kTables = make_tables();

// c times every low nibble and every high nibble: c * x = lo[x & 15] ^
// hi[x >> 4], each table 4 times over (one per 128-bit lane of a 512-bit vector).
struct Nibbles {
  alignas(64) std::uint8_t lo[64], hi[64];
  explicit Nibbles(std::uint8_t c) {
    for (std::uint8_t x = 0; x < 64; ++x) {
      lo[x] = mul(c, x & 15);
      hi[x] = mul(c, static_cast<std::uint8_t>((x & 15) << 4));
    }
  }
};

void xor_region(std::byte *dst, const std::byte *src, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t a, b;
    std::memcpy(&a, dst + i, 8);
    std::memcpy(&b, src + i, 8);
    a ^= b;
    std::memcpy(dst + i, &a, 8);
  }
  for (; i < n; ++i) dst[i] ^= src[i];
}

void portable(std::byte *dst, const std::byte *src, std::uint8_t c, std::size_t n) {
  std::uint8_t row[256];
  const Nibbles t(c);
  for (int x = 0; x < 256; ++x) row[x] = static_cast<std::uint8_t>(t.lo[x & 15] ^ t.hi[x >> 4]);
  for (std::size_t i = 0; i < n; ++i) dst[i] ^= std::byte{row[static_cast<std::uint8_t>(src[i])]};
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) void avx2(std::byte *dst, const std::byte *src, std::uint8_t c, std::size_t n) {
  const Nibbles t(c);
  const __m256i lo = _mm256_load_si256(reinterpret_cast<const __m256i *>(t.lo));
  const __m256i hi = _mm256_load_si256(reinterpret_cast<const __m256i *>(t.hi));
  const __m256i low4 = _mm256_set1_epi8(0x0f);
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i));
    const __m256i l = _mm256_shuffle_epi8(lo, _mm256_and_si256(x, low4));
    const __m256i h = _mm256_shuffle_epi8(hi, _mm256_and_si256(_mm256_srli_epi64(x, 4), low4));
    const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(dst + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i), _mm256_xor_si256(d, _mm256_xor_si256(l, h)));
  }
  portable(dst + i, src + i, c, n - i);
}

__attribute__((target("avx512f,avx512bw"))) void avx512(std::byte *dst, const std::byte *src, std::uint8_t c,
                                                          std::size_t n) {
  const Nibbles t(c);
  const __m512i lo = _mm512_load_si512(t.lo);
  const __m512i hi = _mm512_load_si512(t.hi);
  alignas(64) static constexpr std::uint8_t kLow4[64] = {
      15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
      15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
      15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15};
  const __m512i low4 = _mm512_load_si512(kLow4);
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i x = _mm512_loadu_si512(src + i);
    const __m512i l = _mm512_shuffle_epi8(lo, _mm512_and_si512(x, low4));
    const __m512i h = _mm512_shuffle_epi8(hi, _mm512_and_si512(_mm512_maskz_srli_epi64(0xFF, x, 4), low4));
    const __m512i d = _mm512_loadu_si512(dst + i);
    _mm512_storeu_si512(dst + i, _mm512_ternarylogic_epi64(d, l, h, 0x96));  // d ^ l ^ h
  }
  portable(dst + i, src + i, c, n - i);
}

__attribute__((target("avx512f,avx512bw,gfni"))) void gfni(std::byte *dst, const std::byte *src, std::uint8_t c,
                                                             std::size_t n) {
  alignas(64) std::uint8_t times[64];
  std::memset(times, c, sizeof times);
  const __m512i k = _mm512_load_si512(times);
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i p = _mm512_gf2p8mul_epi8(_mm512_loadu_si512(src + i), k);
    _mm512_storeu_si512(dst + i, _mm512_xor_si512(_mm512_loadu_si512(dst + i), p));
  }
  portable(dst + i, src + i, c, n - i);
}

bool cpu_has(Path p) {
  switch (p) {
    case Path::portable: return true;
    case Path::avx2: return __builtin_cpu_supports("avx2");
    case Path::avx512: return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    case Path::gfni:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("gfni");
  }
  return false;
}
#else
bool cpu_has(Path p) { return p == Path::portable; }
void avx2(std::byte *d, const std::byte *s, std::uint8_t c, std::size_t n) { portable(d, s, c, n); }
void avx512(std::byte *d, const std::byte *s, std::uint8_t c, std::size_t n) { portable(d, s, c, n); }
void gfni(std::byte *d, const std::byte *s, std::uint8_t c, std::size_t n) { portable(d, s, c, n); }
#endif

Path fastest() {
#if defined(__x86_64__)
  __builtin_cpu_init();  // (a static initializer may run before the library's own)
#endif
  for (const Path p : {Path::gfni, Path::avx512, Path::avx2})
    if (cpu_has(p)) return p;
  return Path::portable;
}

std::atomic<Path> g_path{fastest()};

}  // namespace

std::uint8_t mul(std::uint8_t a, std::uint8_t b) {
  if (a == 0 || b == 0) return 0;
  return kTables.exp[std::size_t{kTables.log[a]} + kTables.log[b]];
}

std::uint8_t inv(std::uint8_t a) { return kTables.exp[255 - std::size_t{kTables.log[a]}]; }

void mul_add(std::byte *dst, const std::byte *src, std::uint8_t c, std::size_t n) {
  if (c == 0) return;
  if (c == 1) return xor_region(dst, src, n);
  switch (g_path.load(std::memory_order_relaxed)) {
    case Path::gfni: return gfni(dst, src, c, n);
    case Path::avx512: return avx512(dst, src, c, n);
    case Path::avx2: return avx2(dst, src, c, n);
    case Path::portable: return portable(dst, src, c, n);
  }
}

const char *name(Path p) {
  switch (p) {
    case Path::portable: return "portable";
    case Path::avx2: return "AVX2";
    case Path::avx512: return "AVX-512BW";
    case Path::gfni: return "GFNI (AVX-512)";
  }
  return "?";
}

bool supported(Path p) { return cpu_has(p); }
Path path() { return g_path.load(std::memory_order_relaxed); }
void use(Path p) {
  if (cpu_has(p)) g_path.store(p, std::memory_order_relaxed);
}

bool invert(Matrix &m, int n) {
  const auto at = [&](int r, int c) -> std::uint8_t & { return m[static_cast<std::size_t>(r * n + c)]; };
  Matrix id(static_cast<std::size_t>(n * n), 0);
  for (int i = 0; i < n; ++i) id[static_cast<std::size_t>(i * n + i)] = 1;
  const auto in = [&](int r, int c) -> std::uint8_t & { return id[static_cast<std::size_t>(r * n + c)]; };
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    while (pivot < n && at(pivot, col) == 0) ++pivot;
    if (pivot == n) return false;
    for (int c = 0; c < n; ++c) {
      std::swap(at(pivot, c), at(col, c));
      std::swap(in(pivot, c), in(col, c));
    }
    const std::uint8_t scale = inv(at(col, col));
    for (int c = 0; c < n; ++c) {
      at(col, c) = mul(at(col, c), scale);
      in(col, c) = mul(in(col, c), scale);
    }
    for (int r = 0; r < n; ++r) {
      const std::uint8_t f = at(r, col);
      if (r == col || f == 0) continue;
      for (int c = 0; c < n; ++c) {
        at(r, c) ^= mul(f, at(col, c));
        in(r, c) ^= mul(f, in(col, c));
      }
    }
  }
  m = std::move(id);
  return true;
}

}  // namespace gds::core::gf256
