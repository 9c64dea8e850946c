// The prefix directory's files, shared by the prefix level (prefix.cpp) and
// the gds-index tool: names of flushed versions, the check of a flushed
// file's data against its stripes' checksums, and the job's index.
//
//   <prefix>/gds.<job>/<array>/v<n>.h5   a complete flushed version (h5.hpp)
//   <prefix>/gds.<job>/<array>/v<n>.h5.tmp   one being written (never read)
//   <prefix>/gds.<job>/index             the complete ones of every array
//   <prefix>/gds.<job>/index.lock        held (flock) while the index is rewritten
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "persist/h5.hpp"
#include "persist/result.hpp"

namespace gds::persist {

std::string flushed_path(const std::string &dir, std::uint64_t n);
// The version number of a flushed file's name (v<n>.h5), or kNone.
std::uint64_t flushed_number(const std::string &name);
// Complete flushed versions in an array's directory, newest first.
std::vector<std::uint64_t> flushed_versions(const std::string &dir);
// Reads every stripe of a flushed file's data and checks it.
Result verify_flushed_data(const std::string &path, const h5::Meta &m);
// What a stripe whose bytes [at, at + n) of the data fail their checksum is said to do.
std::string stripe_mismatch(std::uint64_t stripe, std::uint64_t at, std::uint64_t n);
// A line of the index.
struct IndexEntry {
  std::uint64_t version = 0, bytes = 0, time = 0, nprocs = 0;
  std::string label;
};
// Rewrites the job's index lines of `array` (whose directory is
// <job_dir>/<array>), under the index's lock: the entries it had for
// versions whose files are there, and `add`. With `read_files` (HDF5: the
// application's thread only), versions without an entry get one from their
// file. The index: a header line, one line per complete flushed version of
// every array of the job, then the CRC32C of the lines before it:
//   gds-prefix-index 1
//   <array> <version> <data bytes> <time> <processes> <label, hex or ->
//   crc32c <8 hex digits>
// (`func` names the call in the warning about a damaged index.)
Result update_index(const char *func, const std::string &job_dir, const std::string &array,
                    const std::vector<IndexEntry> &add, bool read_files);

}  // namespace gds::persist
