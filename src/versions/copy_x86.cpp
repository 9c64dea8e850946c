// x86-64: non-temporal stores with the widest vectors the processor has
// (AVX-512, AVX2, or SSE2 which every x86-64 has; checked once).
//
// A block is copied as four interleaved streams, one per 4 KiB page, the way
// glibc's large memcpy does: the hardware prefetcher follows four streams at
// once, and a 16 KiB block copied like this runs about as fast per byte as
// one large memcpy (a straight streaming loop per block ran 1.3-1.4x slower,
// bench/bench_versions.cpp).
//
// copy_out_checksummed() takes every block's CRC32C in the same pass: with
// VPCLMULQDQ by folding the vectors the copy loaded anyway, otherwise with
// the crc32 instruction over four pages at once (four independent chains).
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <cstring>

#include "core/crc32c.hpp"
#include "versions/copy.hpp"

namespace gds::versions {
namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kStreams = 4;
constexpr std::size_t kGroup = kStreams * kPage;

// Each function copies `groups` groups of four pages; within a group it
// moves kChunk bytes of each page in turn, in units of the instruction set's
// loads (`at`: the unit's offset in the group). Smaller chunks (128 or 256
// bytes, as glibc's large memcpy interleaves) ran 3x slower than a straight
// loop on AMD Zen 3, whose write-combining buffers they thrash; 512 bytes
// match the straight loop there and keep four streams in flight.
// (Written out per instruction set: a lambda would not inherit the
// function's target attribute.)
constexpr std::size_t kChunk = 512;
#define GDS_FOR_EACH_CHUNK(unit)                                          \
  for (std::size_t g = 0; g < groups; ++g, dst += kGroup, src += kGroup) \
    for (std::size_t off = 0; off < kPage; off += kChunk)                \
      for (std::size_t p = 0; p < kStreams; ++p)                         \
        for (std::size_t at = p * kPage + off; at < p * kPage + off + kChunk; at += (unit))

// One chunk of one page: loaded, then stored around the cache.
__attribute__((target("avx512f"))) inline void copy256_avx512(char *d, const char *s) {
  const __m512i a = _mm512_loadu_si512(s), b = _mm512_loadu_si512(s + 64);
  const __m512i c = _mm512_loadu_si512(s + 128), e = _mm512_loadu_si512(s + 192);
  _mm512_stream_si512(reinterpret_cast<__m512i *>(d), a);
  _mm512_stream_si512(reinterpret_cast<__m512i *>(d + 64), b);
  _mm512_stream_si512(reinterpret_cast<__m512i *>(d + 128), c);
  _mm512_stream_si512(reinterpret_cast<__m512i *>(d + 192), e);
}

__attribute__((target("avx2"))) inline void copy128_avx2(char *d, const char *s) {
  const auto *v = reinterpret_cast<const __m256i *>(s);
  auto *o = reinterpret_cast<__m256i *>(d);
  const __m256i a = _mm256_loadu_si256(v), b = _mm256_loadu_si256(v + 1);
  const __m256i c = _mm256_loadu_si256(v + 2), e = _mm256_loadu_si256(v + 3);
  _mm256_stream_si256(o, a);
  _mm256_stream_si256(o + 1, b);
  _mm256_stream_si256(o + 2, c);
  _mm256_stream_si256(o + 3, e);
}

inline void copy64_sse(char *d, const char *s) {
  const auto *v = reinterpret_cast<const __m128i *>(s);
  auto *o = reinterpret_cast<__m128i *>(d);
  const __m128i a = _mm_loadu_si128(v), b = _mm_loadu_si128(v + 1);
  const __m128i c = _mm_loadu_si128(v + 2), e = _mm_loadu_si128(v + 3);
  _mm_stream_si128(o, a);
  _mm_stream_si128(o + 1, b);
  _mm_stream_si128(o + 2, c);
  _mm_stream_si128(o + 3, e);
}

__attribute__((target("avx512f"))) void stream_avx512(char *dst, const char *src, std::size_t groups) {
  GDS_FOR_EACH_CHUNK(256) copy256_avx512(dst + at, src + at);
}

__attribute__((target("avx2"))) void stream_avx2(char *dst, const char *src, std::size_t groups) {
  GDS_FOR_EACH_CHUNK(128) copy128_avx2(dst + at, src + at);
}

void stream_sse2(char *dst, const char *src, std::size_t groups) {
  GDS_FOR_EACH_CHUNK(64) copy64_sse(dst + at, src + at);
}

#undef GDS_FOR_EACH_CHUNK

// What is left after whole groups (less than 16 KiB, such as a single 4 KiB
// block): one stream of 64-byte non-temporal stores, still no reads of the
// destination.
__attribute__((target("avx512f"))) void tail_avx512(char *dst, const char *src, std::size_t lines) {
  for (std::size_t i = 0; i < lines; ++i)
    _mm512_stream_si512(reinterpret_cast<__m512i *>(dst + 64 * i), _mm512_loadu_si512(src + 64 * i));
}

__attribute__((target("avx2"))) void tail_avx2(char *dst, const char *src, std::size_t lines) {
  for (std::size_t i = 0; i < lines; ++i) {
    const auto *v = reinterpret_cast<const __m256i *>(src + 64 * i);
    auto *o = reinterpret_cast<__m256i *>(dst + 64 * i);
    const __m256i a = _mm256_loadu_si256(v), b = _mm256_loadu_si256(v + 1);
    _mm256_stream_si256(o, a);
    _mm256_stream_si256(o + 1, b);
  }
}

void tail_sse2(char *dst, const char *src, std::size_t lines) {
  for (std::size_t i = 0; i < lines; ++i) {
    const auto *v = reinterpret_cast<const __m128i *>(src + 64 * i);
    auto *o = reinterpret_cast<__m128i *>(dst + 64 * i);
    const __m128i a = _mm_loadu_si128(v), b = _mm_loadu_si128(v + 1);
    const __m128i c = _mm_loadu_si128(v + 2), e = _mm_loadu_si128(v + 3);
    _mm_stream_si128(o, a);
    _mm_stream_si128(o + 1, b);
    _mm_stream_si128(o + 2, c);
    _mm_stream_si128(o + 3, e);
  }
}

// Copy and checksum fused: the same four-page groups, and while a chunk of
// each page is in L1 the CRC32C of the page advances over it. The four pages
// are four independent CRC chains, interleaved word by word, so the crc32
// instruction's latency (3 cycles) hides behind the others and the loop stays
// bound by memory, as the plain copy is. Each page's CRC register starts from
// 0 (raw, unconditioned); copy_out_checksummed() joins them into blocks.
#define GDS_CRC_CHUNK(bytes)                        \
  for (std::size_t w = 0; w < (bytes); w += 8) {    \
    std::uint64_t x0, x1, x2, x3;                   \
    std::memcpy(&x0, src + 0 * kPage + off + w, 8); \
    std::memcpy(&x1, src + 1 * kPage + off + w, 8); \
    std::memcpy(&x2, src + 2 * kPage + off + w, 8); \
    std::memcpy(&x3, src + 3 * kPage + off + w, 8); \
    c0 = _mm_crc32_u64(c0, x0);                     \
    c1 = _mm_crc32_u64(c1, x1);                     \
    c2 = _mm_crc32_u64(c2, x2);                     \
    c3 = _mm_crc32_u64(c3, x3);                     \
  }
#define GDS_FOR_EACH_GROUP_CRC(unit, copy_one)                                                 \
  for (std::size_t g = 0; g < groups; ++g, dst += kGroup, src += kGroup) {                     \
    std::uint64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;                                              \
    for (std::size_t off = 0; off < kPage; off += kChunk) {                                    \
      for (std::size_t p = 0; p < kStreams; ++p)                                               \
        for (std::size_t at = p * kPage + off; at < p * kPage + off + kChunk; at += (unit))    \
          copy_one(dst + at, src + at);                                                        \
      GDS_CRC_CHUNK(kChunk)                                                                    \
    }                                                                                          \
    raw[4 * g] = static_cast<std::uint32_t>(c0);                                                         \
    raw[4 * g + 1] = static_cast<std::uint32_t>(c1);                                                     \
    raw[4 * g + 2] = static_cast<std::uint32_t>(c2);                                                     \
    raw[4 * g + 3] = static_cast<std::uint32_t>(c3);                                                     \
  }

__attribute__((target("avx512f,sse4.2"))) void stream_crc_avx512(char *dst, const char *src, std::size_t groups,
                                                                 std::uint32_t *raw) {
  GDS_FOR_EACH_GROUP_CRC(256, copy256_avx512)
}

__attribute__((target("avx2,sse4.2"))) void stream_crc_avx2(char *dst, const char *src, std::size_t groups,
                                                            std::uint32_t *raw) {
  GDS_FOR_EACH_GROUP_CRC(128, copy128_avx2)
}

__attribute__((target("sse4.2"))) void stream_crc_sse(char *dst, const char *src, std::size_t groups,
                                                      std::uint32_t *raw){GDS_FOR_EACH_GROUP_CRC(64, copy64_sse)}

// With VPCLMULQDQ the checksum needs no second read at all: each page's
// 64-byte vectors, already in registers for the copy, are folded into a
// 512-bit accumulator with carry-less multiplies (fold by 512 bits: each
// 128-bit lane L becomes L.first * (x^575 mod P) ^ L.second * (x^511 mod P),
// congruent to L * x^512), and the accumulator's 64 bytes then go through the
// crc32 instruction: the same raw CRC as the page's 4096 bytes.
std::uint64_t reflected_x_pow_mod(unsigned n) {
  std::uint64_t r = 1;  // x^n mod P, bit d = coefficient of x^d
  for (unsigned i = 0; i < n; ++i) {
    r <<= 1;
    if (r >> 32) r ^= 0x11EDC6F41ull;
  }
  std::uint64_t out = 0;  // reflected in 64 bits: x^d at bit 63 - d
  for (unsigned d = 0; d < 32; ++d)
    if ((r >> d) & 1u) out |= std::uint64_t{1} << (63 - d);
  return out;
}
const std::uint64_t kFoldFirst = reflected_x_pow_mod(512 + 64 - 1), kFoldSecond = reflected_x_pow_mod(512 - 1);

__attribute__((target("avx512f,vpclmulqdq,sse4.2"))) inline __m512i fold(__m512i acc, __m512i k, __m512i data) {
  const __m512i a = _mm512_clmulepi64_epi128(acc, k, 0x00), b = _mm512_clmulepi64_epi128(acc, k, 0x11);
  return _mm512_ternarylogic_epi64(a, b, data, 0x96);  // a ^ b ^ data
}

// Every 128-bit lane: the first (low) qword's constant, then the second's.
__attribute__((target("avx512f,vpclmulqdq,sse4.2"))) inline __m512i fold_constants() {
  const auto first = static_cast<long long>(kFoldFirst), second = static_cast<long long>(kFoldSecond);
  return _mm512_set_epi64(second, first, second, first, second, first, second, first);
}

__attribute__((target("avx512f,vpclmulqdq,sse4.2"))) inline std::uint32_t finish(__m512i acc) {
  alignas(64) std::uint64_t w[8];
  _mm512_store_si512(reinterpret_cast<__m512i *>(w), acc);
  std::uint64_t c = 0;
  for (std::uint64_t x : w) c = _mm_crc32_u64(c, x);
  return static_cast<std::uint32_t>(c);
}

__attribute__((target("avx512f,vpclmulqdq,sse4.2"))) void stream_crc_vpclmul(char *dst, const char *src,
                                                                             std::size_t groups, std::uint32_t *raw) {
  const __m512i k = fold_constants();
  for (std::size_t g = 0; g < groups; ++g, dst += kGroup, src += kGroup) {
    __m512i acc[kStreams] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                             _mm512_setzero_si512()};
    for (std::size_t off = 0; off < kPage; off += kChunk)
      for (std::size_t p = 0; p < kStreams; ++p)
        for (std::size_t at = p * kPage + off; at < p * kPage + off + kChunk; at += 256) {
          const char *s = src + at;
          char *d = dst + at;
          const __m512i a = _mm512_loadu_si512(s), b = _mm512_loadu_si512(s + 64);
          const __m512i c = _mm512_loadu_si512(s + 128), e = _mm512_loadu_si512(s + 192);
          _mm512_stream_si512(reinterpret_cast<__m512i *>(d), a);
          _mm512_stream_si512(reinterpret_cast<__m512i *>(d + 64), b);
          _mm512_stream_si512(reinterpret_cast<__m512i *>(d + 128), c);
          _mm512_stream_si512(reinterpret_cast<__m512i *>(d + 192), e);
          acc[p] = fold(fold(fold(fold(acc[p], k, a), k, b), k, c), k, e);
        }
    for (std::size_t p = 0; p < kStreams; ++p) raw[4 * g + p] = finish(acc[p]);
  }
}

// One page alone (a block of 4 KiB or 8 KiB changed on its own).
// One page copied and summed; kCached: stored through the cache.
template <bool kCached>
__attribute__((target("avx512f,vpclmulqdq,sse4.2"))) std::uint32_t page_crc_vpclmul_t(char *dst, const char *src) {
  const __m512i k = fold_constants();
  __m512i acc = _mm512_setzero_si512();
  for (std::size_t off = 0; off < kPage; off += 64) {
    const __m512i a = _mm512_loadu_si512(src + off);
    if constexpr (kCached)
      _mm512_storeu_si512(dst + off, a);
    else
      _mm512_stream_si512(reinterpret_cast<__m512i *>(dst + off), a);
    acc = fold(acc, k, a);
  }
  return finish(acc);
}
std::uint32_t page_crc_vpclmul(char *dst, const char *src) { return page_crc_vpclmul_t<false>(dst, src); }
std::uint32_t page_crc_vpclmul_cached(char *dst, const char *src) { return page_crc_vpclmul_t<true>(dst, src); }

__attribute__((target("avx2,vpclmulqdq,sse4.2"))) inline __m256i fold256(__m256i acc, __m256i k, __m256i data) {
  const __m256i a = _mm256_clmulepi64_epi128(acc, k, 0x00), b = _mm256_clmulepi64_epi128(acc, k, 0x11);
  return _mm256_xor_si256(_mm256_xor_si256(a, b), data);
}

__attribute__((target("avx2,vpclmulqdq,sse4.2"))) inline __m256i fold_constants256() {
  const auto first = static_cast<long long>(kFoldFirst), second = static_cast<long long>(kFoldSecond);
  return _mm256_set_epi64x(second, first, second, first);
}

__attribute__((target("avx2,vpclmulqdq,sse4.2"))) inline std::uint32_t finish256(__m256i lo, __m256i hi) {
  alignas(32) std::uint64_t w[8];
  _mm256_store_si256(reinterpret_cast<__m256i *>(w), lo);
  _mm256_store_si256(reinterpret_cast<__m256i *>(w + 4), hi);
  std::uint64_t c = 0;
  for (std::uint64_t x : w) c = _mm_crc32_u64(c, x);
  return static_cast<std::uint32_t>(c);
}

template <bool kCached>
__attribute__((target("avx2,vpclmulqdq,sse4.2"))) std::uint32_t page_crc_vpclmul256_t(char *dst, const char *src) {
  const __m256i k = fold_constants256();
  __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
  for (std::size_t off = 0; off < kPage; off += 64) {
    const auto *s = reinterpret_cast<const __m256i *>(src + off);
    auto *d = reinterpret_cast<__m256i *>(dst + off);
    const __m256i a = _mm256_loadu_si256(s), b = _mm256_loadu_si256(s + 1);
    if constexpr (kCached) {
      _mm256_storeu_si256(d, a);
      _mm256_storeu_si256(d + 1, b);
    } else {
      _mm256_stream_si256(d, a);
      _mm256_stream_si256(d + 1, b);
    }
    lo = fold256(lo, k, a);
    hi = fold256(hi, k, b);
  }
  return finish256(lo, hi);
}
std::uint32_t page_crc_vpclmul256(char *dst, const char *src) { return page_crc_vpclmul256_t<false>(dst, src); }
std::uint32_t page_crc_vpclmul256_cached(char *dst, const char *src) {
  return page_crc_vpclmul256_t<true>(dst, src);
}

__attribute__((target("avx2,vpclmulqdq,sse4.2"))) void stream_crc_vpclmul256(char *dst, const char *src,
                                                                             std::size_t groups, std::uint32_t *raw) {
  for (std::size_t i = 0; i < groups * kStreams; ++i) raw[i] = page_crc_vpclmul256(dst + i * kPage, src + i * kPage);
}

#undef GDS_FOR_EACH_GROUP_CRC
#undef GDS_CRC_CHUNK

using Stream = void (*)(char *, const char *, std::size_t);
const Stream g_stream = __builtin_cpu_supports("avx512f") ? stream_avx512
                        : __builtin_cpu_supports("avx2")  ? stream_avx2
                                                          : stream_sse2;
const Stream g_tail = __builtin_cpu_supports("avx512f") ? tail_avx512
                      : __builtin_cpu_supports("avx2")  ? tail_avx2
                                                        : tail_sse2;

using StreamCrc = void (*)(char *, const char *, std::size_t, std::uint32_t *);
using PageCrc = std::uint32_t (*)(char *, const char *);
// Without SSE4.2 (no crc32 instruction) blocks are copied, then checksummed.
const bool kSse42 = __builtin_cpu_supports("sse4.2");
const bool kHasVpclmul512 = kSse42 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq");
const bool kHasVpclmul256 = kSse42 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vpclmulqdq");
// Whole pages left after the groups, with folding (nullptr: copied, then summed).
PageCrc g_page_crc = kHasVpclmul512 ? page_crc_vpclmul : kHasVpclmul256 ? page_crc_vpclmul256 : nullptr;
PageCrc g_page_crc_cached = kHasVpclmul512   ? page_crc_vpclmul_cached
                            : kHasVpclmul256 ? page_crc_vpclmul256_cached
                                             : nullptr;
StreamCrc g_stream_crc = !kSse42                             ? nullptr
                         : kHasVpclmul512                    ? stream_crc_vpclmul
                         : kHasVpclmul256                    ? stream_crc_vpclmul256
                         : __builtin_cpu_supports("avx512f") ? stream_crc_avx512
                         : __builtin_cpu_supports("avx2")    ? stream_crc_avx2
                                                             : stream_crc_sse;

// Joining page CRCs: the raw CRC register after a page P, starting from
// state s, is raw(P, 0) ^ Z(s), where Z is the register's advance over 4096
// zero bytes (linear over GF(2)).
const core::Crc32cJoin kZ(kPage);

std::uint32_t advance_page(std::uint32_t s) { return kZ.advance(s); }

}  // namespace

void copy_out(void *dst, const void *src, std::size_t n) {
  auto *d = static_cast<char *>(dst);
  const auto *s = static_cast<const char *>(src);
  // Streaming stores want 64-byte aligned destinations: a misaligned head
  // and what is left after whole groups copy normally.
  std::size_t head = (64 - reinterpret_cast<std::uintptr_t>(d) % 64) % 64;
  if (head > n) head = n;
  std::memcpy(d, s, head);
  d += head;
  s += head;
  n -= head;
  const std::size_t groups = n / kGroup;
  g_stream(d, s, groups);
  d += groups * kGroup;
  s += groups * kGroup;
  n -= groups * kGroup;
  const std::size_t lines = n / 64;
  g_tail(d, s, lines);
  std::memcpy(d + lines * 64, s + lines * 64, n - lines * 64);
}

// Through the cache: page by page, each copied and summed in one pass with
// VPCLMULQDQ; otherwise block by block, copied and then summed from the cache.
void copy_cached_checksummed(char *d, const char *s, std::size_t n, std::size_t block, std::uint32_t *crcs) {
  if (g_page_crc_cached == nullptr || block < kPage) {
    for (std::size_t at = 0; at < n; at += block) {
      const std::size_t len = n - at < block ? n - at : block;
      std::memcpy(d + at, s + at, len);
      *crcs++ = core::crc32c(d + at, len);
    }
    return;
  }
  while (n > 0) {
    const std::size_t len = n < block ? n : block;
    std::uint32_t state = ~0u;  // the block's raw register
    std::size_t at = 0;
    for (; at + kPage <= len; at += kPage) state = advance_page(state) ^ g_page_crc_cached(d + at, s + at);
    std::memcpy(d + at, s + at, len - at);
    *crcs++ = at < len ? core::crc32c(s + at, len - at, ~state) : ~state;
    d += len;
    s += len;
    n -= len;
  }
}

void copy_out_checksummed(void *dst, const void *src, std::size_t n, unsigned shift, std::uint32_t *crcs,
                          bool cached) {
  auto *d = static_cast<char *>(dst);
  const auto *s = static_cast<const char *>(src);
  const std::size_t block = std::size_t{1} << shift;
  if (cached) {
    copy_cached_checksummed(d, s, n, block, crcs);
    return;
  }
  if (g_stream_crc == nullptr || block < kPage || reinterpret_cast<std::uintptr_t>(d) % 64 != 0) {
    // Block by block: each is checksummed while it is still in cache.
    for (std::size_t at = 0; at < n; at += block) {
      const std::size_t len = n - at < block ? n - at : block;
      copy_out(d + at, s + at, len);
      *crcs++ = core::crc32c(s + at, len);
    }
    return;
  }
  // Whole four-page groups fused; the raw page CRCs are joined into blocks.
  std::uint32_t state = ~0u;  // raw register of the block being summed
  std::size_t in_block = 0;   // its bytes so far
  const auto close_block = [&] {
    *crcs++ = ~state;
    state = ~0u;
    in_block = 0;
  };
  constexpr std::size_t kBatch = 64;  // groups per call: 256 page CRCs on the stack
  std::uint32_t raw[4 * kBatch];
  std::size_t groups = n / kGroup;
  while (groups > 0) {
    const std::size_t now = groups < kBatch ? groups : kBatch;
    g_stream_crc(d, s, now, raw);
    for (std::size_t i = 0; i < 4 * now; ++i) {
      state = advance_page(state) ^ raw[i];
      in_block += kPage;
      if (in_block == block) close_block();
    }
    d += now * kGroup;
    s += now * kGroup;
    n -= now * kGroup;
    groups -= now;
  }
  // Whole pages left (under one group), then the rest: copied, then summed
  // block by block from cache.
  while (g_page_crc != nullptr && n >= kPage) {
    state = advance_page(state) ^ g_page_crc(d, s);
    in_block += kPage;
    if (in_block == block) close_block();
    d += kPage;
    s += kPage;
    n -= kPage;
  }
  copy_out(d, s, n);
  while (n > 0) {
    const std::size_t len = n < block - in_block ? n : block - in_block;
    state = ~core::crc32c(s, len, ~state);
    s += len;
    n -= len;
    in_block += len;
    if (in_block == block) close_block();
  }
  if (in_block > 0) close_block();
}

void copy_out_fence() { _mm_sfence(); }

int checksum_variants() { return 6; }

bool use_checksum_variant(int variant) {
  static const StreamCrc best = g_stream_crc;
  static const PageCrc best_page = g_page_crc, best_cached = g_page_crc_cached;
  StreamCrc stream = nullptr;
  PageCrc page = nullptr, cached = nullptr;
  switch (variant) {
    case 0:
      stream = best;
      page = best_page;
      cached = best_cached;
      break;
    case 1:
      if (!kHasVpclmul512) return false;
      stream = stream_crc_vpclmul;
      page = page_crc_vpclmul;
      cached = page_crc_vpclmul_cached;
      break;
    case 2:
      if (!kSse42 || !__builtin_cpu_supports("avx512f")) return false;
      stream = stream_crc_avx512;
      break;
    case 3:
      if (!kSse42 || !__builtin_cpu_supports("avx2")) return false;
      stream = stream_crc_avx2;
      break;
    case 4:
      if (!kSse42) return false;
      stream = stream_crc_sse;
      break;
    case 5:
      if (!kHasVpclmul256) return false;
      stream = stream_crc_vpclmul256;
      page = page_crc_vpclmul256;
      cached = page_crc_vpclmul256_cached;
      break;
    default:
      return false;
  }
  g_stream_crc = stream;
  g_page_crc = page;
  g_page_crc_cached = cached;
  return true;
}

}  // namespace gds::versions
