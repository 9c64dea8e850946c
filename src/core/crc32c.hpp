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

// The table version, whatever the processor (tests compare the two).
std::uint32_t crc32c_portable(const void *data, std::size_t n, std::uint32_t crc = 0);

// Whether crc32c() uses the processor's instruction.
bool crc32c_in_hardware();

}  // namespace gds::core
