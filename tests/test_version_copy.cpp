// White-box: the block copy of versions (versions/copy.hpp) copies exactly,
// whatever the size and the alignment of either side; the checksummed copy
// also gives every block's CRC32C, equal to core::crc32c of the block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/crc32c.hpp"
#include "versions/copy.hpp"

namespace {

TEST(VersionCopy, ExactForEverySizeAndAlignment) {
  const std::size_t sizes[] = {0, 1, 63, 64, 65, 4095, 4096, 16383, 16384, 16385, 3 * 16384 + 77, 65536};
  std::vector<unsigned char> src(65536 + 256), dst(65536 + 256);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 131 + 7);
  for (std::size_t n : sizes)
    for (std::size_t dst_off : {0, 1, 17, 32, 63})
      for (std::size_t src_off : {0, 5, 64}) {
        std::fill(dst.begin(), dst.end(), 0xEE);
        // Offsets from a 64-byte boundary inside the buffer.
        const auto base = reinterpret_cast<std::uintptr_t>(dst.data());
        const std::size_t align = (64 - base % 64) % 64;
        unsigned char *d = dst.data() + align + dst_off;
        const unsigned char *s = src.data() + src_off;
        gds::versions::copy_out(d, s, n);
        gds::versions::copy_out_fence();
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(d[i], s[i]) << "n=" << n << " dst_off=" << dst_off << " src_off=" << src_off << " i=" << i;
        for (unsigned char *p = dst.data(); p < d; ++p) ASSERT_EQ(*p, 0xEE) << "wrote before the destination";
        for (unsigned char *p = d + n; p < dst.data() + dst.size(); ++p)
          ASSERT_EQ(*p, 0xEE) << "wrote past the destination, n=" << n;
      }
}

TEST(VersionCopy, ChecksummedCopyGivesEachBlocksCrc) {
  constexpr std::size_t kMax = 5 * 65536 + 4096;
  std::vector<unsigned char> src(kMax + 256), dst(kMax + 256);
  std::uint32_t x = 12345;
  for (unsigned char &c : src) c = static_cast<unsigned char>((x = x * 1103515245u + 12345u) >> 24);
  const auto base = reinterpret_cast<std::uintptr_t>(dst.data());
  const std::size_t align = (4096 - base % 4096) % 4096;
  std::vector<unsigned char> page_aligned(kMax + 8192);
  unsigned char *aligned =
      page_aligned.data() + (4096 - reinterpret_cast<std::uintptr_t>(page_aligned.data()) % 4096) % 4096;
  for (int variant = gds::versions::checksum_variants(); variant-- > 0;) {
    if (!gds::versions::use_checksum_variant(variant)) continue;
    SCOPED_TRACE("checksum variant " + std::to_string(variant));
    for (unsigned shift : {6u, 11u, 12u, 13u, 14u, 15u, 16u})
      for (std::size_t n :
           {std::size_t{0}, std::size_t{1}, std::size_t{64}, std::size_t{4096}, std::size_t{12288}, std::size_t{16384},
            std::size_t{16384 + 100}, std::size_t{65536 - 8}, std::size_t{3 * 65536 + 4096 * 3 + 17}, kMax})
        for (int where = 0; where < 6; ++where) {
          // Destinations as slots are (page-aligned), and 64- and un-aligned
          // ones; stored around the cache (0-2) and through it (3-5: a small version's).
          const bool cached = where >= 3;
          const int at = where % 3;
          unsigned char *d = at == 0 ? aligned : dst.data() + align % 64 + (at == 1 ? 64 : 3);
          if (at != 0 && d + n > dst.data() + dst.size()) continue;
          const unsigned char *s = src.data() + (at == 2 ? 5 : 0);
          const std::size_t block = std::size_t{1} << shift, nblocks = (n + block - 1) / block;
          std::vector<std::uint32_t> crcs(nblocks + 1, 0xDEADBEEF);
          std::fill(d, d + n, static_cast<unsigned char>(0));
          gds::versions::copy_out_checksummed(d, s, n, shift, crcs.data(), cached);
          gds::versions::copy_out_fence();
          for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(d[i], s[i]) << "shift=" << shift << " n=" << n << " i=" << i;
          for (std::size_t k = 0; k < nblocks; ++k) {
            const std::size_t len = std::min(block, n - k * block);
            ASSERT_EQ(crcs[k], gds::core::crc32c(s + k * block, len))
                << "shift=" << shift << " n=" << n << " where=" << where << " block " << k;
          }
          ASSERT_EQ(crcs[nblocks], 0xDEADBEEFu) << "wrote a checksum past the last block";
        }
  }
  ASSERT_TRUE(gds::versions::use_checksum_variant(0));
}

}  // namespace
