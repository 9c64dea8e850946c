// Arithmetic in GF(2^8) for the RS copy type's erasure code: the field of
// the AES polynomial x^8 + x^4 + x^3 + x + 1 (0x11B), which GFNI's
// gf2p8mulb multiplies in. Regions of bytes are multiplied and added
// (XORed) with the fastest path the processor has (GFNI on 512-bit
// vectors, AVX-512BW or AVX2 table shuffles, a portable table otherwise),
// chosen once at run time; every path gives the same bytes (tests compare them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gds::core::gf256 {

std::uint8_t mul(std::uint8_t a, std::uint8_t b);
// The inverse of a (not 0).
std::uint8_t inv(std::uint8_t a);

// dst[i] ^= c * src[i] for i < n (c = 1: XOR; c = 0: nothing).
void mul_add(std::byte *dst, const std::byte *src, std::uint8_t c, std::size_t n);

// The ways mul_add can run, slowest first.
enum class Path { portable, avx2, avx512, gfni };
const char *name(Path p);
// Whether this processor runs p.
bool supported(Path p);
// The path mul_add takes (the fastest supported, unless use() chose).
Path path();
// Makes mul_add take p (supported(p)); for tests and benchmarks.
void use(Path p);

// A square matrix over GF(2^8), row after row.
using Matrix = std::vector<std::uint8_t>;
// Inverts the n x n matrix m in place; false where it is singular.
bool invert(Matrix &m, int n);

}  // namespace gds::core::gf256
