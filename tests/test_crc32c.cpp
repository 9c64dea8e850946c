// CRC32C: the RFC 3720 (iSCSI) test vectors, the hardware and table versions
// agreeing at every length and alignment, and continuation across pieces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "core/crc32c.hpp"

using gds::core::crc32c;
using gds::core::crc32c_portable;

TEST(Crc32c, KnownVectors) {
  for (const auto f : {&crc32c, &crc32c_portable}) {
    EXPECT_EQ(f("123456789", 9, 0), 0xE3069283u);
    EXPECT_EQ(f("", 0, 0), 0u);
    std::vector<unsigned char> b(32, 0);
    EXPECT_EQ(f(b.data(), b.size(), 0), 0x8A9136AAu);
    std::fill(b.begin(), b.end(), 0xFF);
    EXPECT_EQ(f(b.data(), b.size(), 0), 0x62A8AB43u);
    std::iota(b.begin(), b.end(), 0);
    EXPECT_EQ(f(b.data(), b.size(), 0), 0x46DD794Eu);
    for (std::size_t i = 0; i < 32; ++i) b[i] = static_cast<unsigned char>(31 - i);
    EXPECT_EQ(f(b.data(), b.size(), 0), 0x113FDB5Cu);
  }
}

TEST(Crc32c, HardwareAndTableAgreeEverywhere) {
  std::mt19937_64 rng(20261123);
  std::vector<unsigned char> data(4096 + 16);
  for (auto &x : data) x = static_cast<unsigned char>(rng());
  for (std::size_t offset = 0; offset < 8; ++offset)
    for (std::size_t n = 0; n <= 1100; n += (n < 80 ? 1 : 37))
      ASSERT_EQ(crc32c(data.data() + offset, n), crc32c_portable(data.data() + offset, n)) << offset << " " << n;
  EXPECT_EQ(crc32c(data.data(), 4096), crc32c_portable(data.data(), 4096));
}

// Long inputs go through three interleaved chains joined at 4 KiB lanes.
TEST(Crc32c, HardwareAndTableAgreeOnLongInputs) {
  std::vector<unsigned char> data(5 * 12288 + 1000);
  std::uint32_t x = 99;
  for (unsigned char &c : data) c = static_cast<unsigned char>((x = x * 1103515245u + 12345u) >> 24);
  for (std::size_t n : {std::size_t{12287}, std::size_t{12288}, std::size_t{12289}, std::size_t{3 * 12288 + 5},
                        data.size() - 3})
    for (std::size_t offset : {0, 1, 3})
      for (std::uint32_t start : {0u, 0xFFFFFFFFu, 0x12345678u})
        EXPECT_EQ(gds::core::crc32c(data.data() + offset, n, start),
                  gds::core::crc32c_portable(data.data() + offset, n, start))
            << "n=" << n << " offset=" << offset;
}

TEST(Crc32c, BlocksThreeAtATime) {
  std::vector<unsigned char> data(10 * 4096 + 100);
  std::uint32_t x = 7;
  for (unsigned char &c : data) c = static_cast<unsigned char>((x = x * 1103515245u + 12345u) >> 24);
  for (std::size_t block : {std::size_t{64}, std::size_t{4096}, std::size_t{4100}, std::size_t{16384}})
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, 3 * block, 3 * block + 9, 7 * block - 1, data.size()}) {
      if (n > data.size()) continue;
      std::vector<std::uint32_t> out((n + block - 1) / block + 1, 0xDEADBEEFu);
      gds::core::crc32c_blocks(data.data(), n, block, out.data());
      for (std::size_t i = 0; i * block < n; ++i)
        EXPECT_EQ(out[i], crc32c_portable(data.data() + i * block, std::min(block, n - i * block)))
            << "block=" << block << " n=" << n << " i=" << i;
      EXPECT_EQ(out[(n + block - 1) / block], 0xDEADBEEFu) << "wrote past the last block";
    }
}

TEST(Crc32c, CombinesPiecesChecksummedApart) {
  std::vector<unsigned char> data(70000);
  std::uint64_t x = 88172645463325252ULL;
  for (auto &c : data) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    c = static_cast<unsigned char>(x);
  }
  const std::uint32_t whole = gds::core::crc32c(data.data(), data.size());
  for (const std::size_t cut : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{4096}, std::size_t{65537},
                                data.size()}) {
    const std::uint32_t a = gds::core::crc32c(data.data(), cut);
    const std::uint32_t b = gds::core::crc32c(data.data() + cut, data.size() - cut);
    EXPECT_EQ(gds::core::crc32c_combine(a, b, data.size() - cut), whole) << cut;
  }
  // Three pieces, joined left to right.
  const std::uint32_t p1 = gds::core::crc32c(data.data(), 100), p2 = gds::core::crc32c(data.data() + 100, 30000),
                      p3 = gds::core::crc32c(data.data() + 30100, data.size() - 30100);
  EXPECT_EQ(gds::core::crc32c_combine(gds::core::crc32c_combine(p1, p2, 30000), p3, data.size() - 30100), whole);
}

TEST(Crc32c, JoinsBlocksOfOneLengthAsCombineDoes) {
  std::mt19937_64 rng(11);
  std::vector<unsigned char> data(5 * 4096 + 123);
  for (auto &c : data) c = static_cast<unsigned char>(rng());
  for (const std::size_t len : {std::size_t{1}, std::size_t{64}, std::size_t{4096}}) {
    const gds::core::Crc32cJoin join(len);
    // Block CRCs joined left to right give the whole's, as crc32c_combine does.
    const std::size_t blocks = std::min<std::size_t>(data.size() / len, 40);
    std::uint32_t joined = gds::core::crc32c(data.data(), len);
    for (std::size_t b = 1; b < blocks; ++b) {
      const std::uint32_t next = gds::core::crc32c(data.data() + b * len, len);
      EXPECT_EQ(join.join(joined, next), gds::core::crc32c_combine(joined, next, len)) << len << " " << b;
      joined = join.join(joined, next);
    }
    EXPECT_EQ(joined, gds::core::crc32c(data.data(), blocks * len)) << len;
    // A flipped bit changes the join, which still equals the whole's.
    const std::uint32_t before = gds::core::crc32c(data.data(), 2 * len);
    data[len / 2] ^= 4;
    const std::uint32_t after = join.join(gds::core::crc32c(data.data(), len), gds::core::crc32c(data.data() + len, len));
    EXPECT_EQ(after, gds::core::crc32c(data.data(), 2 * len)) << len;
    EXPECT_NE(after, before) << len;
    data[len / 2] ^= 4;
  }
  // Larger lengths too (the version store joins blocks of 16 KiB and more).
  const gds::core::Crc32cJoin big(std::uint64_t{1} << 20);
  EXPECT_EQ(big.join(0x12345678u, 0x9abcdef0u), gds::core::crc32c_combine(0x12345678u, 0x9abcdef0u, 1u << 20));
}

TEST(Crc32c, ContinuesAcrossPieces) {
  std::mt19937_64 rng(7);
  std::vector<unsigned char> data(10000);
  for (auto &x : data) x = static_cast<unsigned char>(rng());
  const std::uint32_t whole = crc32c(data.data(), data.size());
  for (std::size_t cut : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{4096}, std::size_t{9999}}) {
    EXPECT_EQ(crc32c(data.data() + cut, data.size() - cut, crc32c(data.data(), cut)), whole) << cut;
    EXPECT_EQ(crc32c_portable(data.data() + cut, data.size() - cut, crc32c_portable(data.data(), cut)), whole);
  }
  data[5000] ^= 0x10;  // one flipped bit changes it
  EXPECT_NE(crc32c(data.data(), data.size()), whole);
}
