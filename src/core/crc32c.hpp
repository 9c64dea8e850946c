// CRC32C (Castagnoli), the checksum of version blocks and of everything GDS
// writes to disk: SSE4.2's crc32 instruction where the processor has it, a
// slicing-by-8 table otherwise; both give the same values (RFC 3720).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gds::core {

// The CRC32C of n bytes, continuing from `crc` (the CRC32C of the bytes
// before them; 0 to start): crc32c(b, nb, crc32c(a, na)) == crc32c(a ++ b).
std::uint32_t crc32c(const void *data, std::size_t n, std::uint32_t crc = 0);

// The CRC32C of each block of n bytes cut into blocks of `block` bytes (the
// last may be shorter) into out[0 .. ceil(n / block)): three blocks at a
// time, as three chains, where the instruction is there.
void crc32c_blocks(const void *data, std::size_t n, std::size_t block, std::uint32_t *out);

// The CRC32C of a ++ b from those of a and of b (len_b bytes), in
// O(log len_b): pieces checksummed apart (by different processes) joined.
std::uint32_t crc32c_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t len_b);

// crc32c_combine for pieces b of one length, fixed once, in four table
// lookups: for joining many block CRCs (crc32c_combine takes microseconds).
class Crc32cJoin {
 public:
  explicit Crc32cJoin(std::uint64_t len_b);
  // The CRC32C of a ++ b from those of a and of b (len_b bytes).
  [[nodiscard]] std::uint32_t join(std::uint32_t crc_a, std::uint32_t crc_b) const { return advance(crc_a) ^ crc_b; }
  // The CRC register (raw or final: the map is linear) advanced over len_b
  // zero bytes without its conditioning.
  [[nodiscard]] std::uint32_t advance(std::uint32_t r) const {
    return table_[0][r & 0xFFu] ^ table_[1][(r >> 8) & 0xFFu] ^ table_[2][(r >> 16) & 0xFFu] ^ table_[3][r >> 24];
  }

 private:
  std::uint32_t table_[4][256];
};

// The table version, whatever the processor (tests compare the two).
std::uint32_t crc32c_portable(const void *data, std::size_t n, std::uint32_t crc = 0);

// Whether crc32c() uses the processor's instruction.
bool crc32c_in_hardware();

}  // namespace gds::core
