// White-box: the block copy of versions (versions/copy.hpp) copies exactly,
// whatever the size and the alignment of either side.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

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

}  // namespace
