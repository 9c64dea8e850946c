// x86-64: non-temporal stores with the widest vectors the processor has
// (AVX-512, AVX2, or SSE2 which every x86-64 has; checked once).
//
// A block is copied as four interleaved streams, one per 4 KiB page, the way
// glibc's large memcpy does: the hardware prefetcher follows four streams at
// once, and a 16 KiB block copied like this runs about as fast per byte as
// one large memcpy (a straight streaming loop per block ran 1.3-1.4x slower,
// bench/bench_versions.cpp).
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "versions/copy.hpp"

namespace gds::versions {
namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kStreams = 4;
constexpr std::size_t kGroup = kStreams * kPage;

// Each function copies `groups` groups of four pages; within a group it
// moves one chunk from each page in turn. (Written out per instruction set:
// a lambda would not inherit the function's target attribute.)
#define GDS_FOR_EACH_CHUNK(chunk)                                         \
  for (std::size_t g = 0; g < groups; ++g, dst += kGroup, src += kGroup) \
    for (std::size_t off = 0; off < kPage; off += (chunk))               \
      for (std::size_t p = 0; p < kStreams; ++p)

__attribute__((target("avx512f"))) void stream_avx512(char *dst, const char *src, std::size_t groups) {
  GDS_FOR_EACH_CHUNK(256) {
    const char *s = src + p * kPage + off;
    char *d = dst + p * kPage + off;
    const __m512i a = _mm512_loadu_si512(s), b = _mm512_loadu_si512(s + 64);
    const __m512i c = _mm512_loadu_si512(s + 128), e = _mm512_loadu_si512(s + 192);
    _mm512_stream_si512(reinterpret_cast<__m512i *>(d), a);
    _mm512_stream_si512(reinterpret_cast<__m512i *>(d + 64), b);
    _mm512_stream_si512(reinterpret_cast<__m512i *>(d + 128), c);
    _mm512_stream_si512(reinterpret_cast<__m512i *>(d + 192), e);
  }
}

__attribute__((target("avx2"))) void stream_avx2(char *dst, const char *src, std::size_t groups) {
  GDS_FOR_EACH_CHUNK(128) {
    const auto *v = reinterpret_cast<const __m256i *>(src + p * kPage + off);
    auto *o = reinterpret_cast<__m256i *>(dst + p * kPage + off);
    const __m256i a = _mm256_loadu_si256(v), b = _mm256_loadu_si256(v + 1);
    const __m256i c = _mm256_loadu_si256(v + 2), e = _mm256_loadu_si256(v + 3);
    _mm256_stream_si256(o, a);
    _mm256_stream_si256(o + 1, b);
    _mm256_stream_si256(o + 2, c);
    _mm256_stream_si256(o + 3, e);
  }
}

void stream_sse2(char *dst, const char *src, std::size_t groups) {
  GDS_FOR_EACH_CHUNK(64) {
    const auto *v = reinterpret_cast<const __m128i *>(src + p * kPage + off);
    auto *o = reinterpret_cast<__m128i *>(dst + p * kPage + off);
    const __m128i a = _mm_loadu_si128(v), b = _mm_loadu_si128(v + 1);
    const __m128i c = _mm_loadu_si128(v + 2), e = _mm_loadu_si128(v + 3);
    _mm_stream_si128(o, a);
    _mm_stream_si128(o + 1, b);
    _mm_stream_si128(o + 2, c);
    _mm_stream_si128(o + 3, e);
  }
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

using Stream = void (*)(char *, const char *, std::size_t);
const Stream g_stream = __builtin_cpu_supports("avx512f") ? stream_avx512
                        : __builtin_cpu_supports("avx2")  ? stream_avx2
                                                          : stream_sse2;
const Stream g_tail = __builtin_cpu_supports("avx512f") ? tail_avx512
                      : __builtin_cpu_supports("avx2")  ? tail_avx2
                                                        : tail_sse2;

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

void copy_out_fence() { _mm_sfence(); }

}  // namespace gds::versions
