// The prefix level's files: one HDF5 file per flushed version of an array,
// whose dataset /data is the array's global content (its global shape in
// storage order, its native element type) and whose attributes say what it
// is. Written in three steps so that processes fill it without HDF5 and
// without MPI: create() lays out the file with the data's space allocated
// (contiguous, not filled) and returns the data's offset; every process then
// writes its elements there with pwrite; finish() adds the checksums of the
// data, per stripe of the data's bytes in global order. read_meta() checks a
// file before any of it is used.
//
// HDF5 is called only from the application's thread (inside GDS calls), with
// HDF5's own error printing silenced meanwhile and restored after.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/datatypes.hpp"
#include "gds_types.h"
#include "persist/result.hpp"

namespace gds::persist::h5 {

inline constexpr std::uint32_t kFormat = 1;  // attribute gds_format

// What a flushed file holds and says of itself.
struct Meta {
  std::string array;         // gds_array
  std::uint64_t version = 0; // gds_version
  std::string label;         // gds_label (bytes)
  std::uint64_t next = 0;    // gds_next: the current version's number after it
  std::string next_label;    // gds_next_label
  std::string element_type;  // gds_element_type: the MPI type's name
  std::uint64_t element_bytes = 0;  // gds_element_bytes
  bool column_major = false;        // gds_order: "row-major" or "column-major"
  std::vector<std::uint64_t> dims;  // gds_dims: the array's extents, in its index order
  std::string flavor;               // gds_flavor: "alloc" or "create"
  std::uint64_t block_bytes = 0;    // gds_block_bytes: the version block size
  std::uint32_t format = kFormat;   // gds_format
  std::string library;              // gds_library: "GDS <version>"
  std::uint64_t nprocs = 0;         // gds_nprocs: processes that wrote it
  std::uint64_t time = 0;           // gds_time: seconds since 1970 at the flush
  std::uint64_t stripe_bytes = 0;   // gds_stripe_bytes
  std::vector<std::uint32_t> crcs;  // gds_crc32c: per stripe of the data, in global order
  // Of the file (read_meta): where the data is.
  std::uint64_t data_offset = 0, data_bytes = 0, file_bytes = 0;
};

// The stripe size for `bytes` of data: 1 MiB, or larger powers of two so
// that there are at most 4096 stripes.
std::uint64_t stripe_bytes_for(std::uint64_t bytes);
inline std::uint64_t stripes(std::uint64_t bytes, std::uint64_t stripe) { return (bytes + stripe - 1) / stripe; }

// Creates `path` (truncating it) with /data and every attribute but the
// checksums; *offset is where the data's bytes go.
Result create(const std::string &path, const Meta &m, const core::ElementType &type, std::uint64_t *offset);
// Adds gds_stripe_bytes and gds_crc32c to the file create() made.
Result finish(const std::string &path, std::uint64_t stripe_bytes, const std::vector<std::uint32_t> &crcs);
// Reads and checks a flushed file's metadata (GDS_STATUS_CORRUPT: why it
// cannot be used). Every length and offset is checked against the file.
Result read_meta(const std::string &path, Meta *m);
// The data's size in bytes (0 if it would overflow).
std::uint64_t data_bytes(const Meta &m);

}  // namespace gds::persist::h5
