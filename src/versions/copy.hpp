// Copying blocks into version storage.
//
// A large version copies blocks it will not read back soon; storing them
// around the cache (non-temporal stores) saves the reads a normal store
// makes of each destination line, which for block-sized copies halves the
// memory traffic. A small one (a state that stays in the caches between
// versions) is stored through the cache: a non-temporal store goes all the
// way to memory, and the next version reads the copy back (a GDS_create
// array compares its memory with it). One implementation per architecture
// (copy_*.cpp, chosen by CMake).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gds::versions {

// Copies n bytes to dst (which need not be read again soon).
void copy_out(void *dst, const void *src, std::size_t n);
// As copy_out, and the CRC32C of every block of 2^shift bytes (the last may
// be shorter) into crcs[0 .. ceil(n / 2^shift)), computed as the bytes pass:
// a version's checksums cost little more than its copy. `cached`: stored
// through the cache (a small version), not around it.
void copy_out_checksummed(void *dst, const void *src, std::size_t n, unsigned shift, std::uint32_t *crcs,
                          bool cached = false);
// For tests: how many implementations of copy_out_checksummed there are, and
// choosing one (0: the best for this processor); false if it cannot run here.
int checksum_variants();
bool use_checksum_variant(int variant);
// Orders all copy_out stores before what follows (call once after a batch).
void copy_out_fence();

}  // namespace gds::versions
