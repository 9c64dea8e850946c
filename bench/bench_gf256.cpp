// The RS copy type's arithmetic against its floors, on one core: dst ^= c *
// src over GF(2^8) (core/gf256.cpp) on every path this processor has, beside
// an XOR of the same bytes (XOR's parity work, and RS's for coefficient 1)
// and a memcpy. Regions of 32 KiB (RS encodes a block of that size at a
// time, from the caches) and of 64 MiB (from memory); GB/s of the source's
// bytes, median of 9 repeats.
//
//   gds_bench_gf256
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/gf256.hpp"

namespace gf = gds::core::gf256;

namespace {

template <class F>
double gbs(std::size_t bytes, F op) {
  std::vector<double> t;
  for (int r = 0; r < 9; ++r) {
    const std::size_t reps = std::max<std::size_t>(1, (std::size_t{256} << 20) / bytes);
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < reps; ++i) op();
    const std::chrono::duration<double> s = std::chrono::steady_clock::now() - start;
    t.push_back(static_cast<double>(reps * bytes) / s.count() / 1e9);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main() {
  const gf::Path chosen = gf::path();
  std::printf("GF(2^8) multiply-add (dst ^= c * src) on one core, GB/s of src, median of 9; path chosen: %s\n",
              gf::name(chosen));
  std::printf("  %-28s %12s %12s\n", "", "32 KiB", "64 MiB");
  const auto row = [](const char *what, auto op_of) {
    double v[2];
    int i = 0;
    for (const std::size_t n : {std::size_t{32} << 10, std::size_t{64} << 20}) {
      std::vector<std::byte> src(n, std::byte{7}), dst(n, std::byte{3});
      v[i++] = gbs(n, [&] { op_of(dst.data(), src.data(), n); });
    }
    std::printf("  %-28s %12.2f %12.2f\n", what, v[0], v[1]);
  };
  row("memcpy (floor)", [](std::byte *d, const std::byte *s, std::size_t n) { std::memcpy(d, s, n); });
  row("XOR (c = 1)", [](std::byte *d, const std::byte *s, std::size_t n) { gf::mul_add(d, s, 1, n); });
  for (const gf::Path p : {gf::Path::portable, gf::Path::avx2, gf::Path::avx512, gf::Path::gfni}) {
    if (!gf::supported(p)) continue;
    gf::use(p);
    const std::string what = std::string("c = 0x8e, ") + gf::name(p);
    row(what.c_str(), [](std::byte *d, const std::byte *s, std::size_t n) { gf::mul_add(d, s, 0x8e, n); });
  }
  gf::use(chosen);
  return 0;
}
