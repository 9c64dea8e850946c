// The on-disk records of the cache level (format version 1). Every integer
// is little-endian; every record starts with a magic number and the format
// version and carries CRC32C checksums; readers check every length, offset
// and checksum before they use what a file says (files are untrusted input).
//
//   v<n>.gdsv  a version of this process's part: header (128 bytes), the
//              list of blocks it holds (block index, CRC32C of the block),
//              the labels, the blocks' bytes. A full version holds every
//              block; an incremental one those changed since the previous
//              cached version.
//   v<n>.done  the commit record (64 bytes), written last, after every
//              process has made version n durable.
//   x<n>.gdsx  XOR parity of this process's set for version n: header,
//              the set members' file lengths, the parity chunk; or (RS)
//              this process's k encoding chunks of its set, one after
//              another (the header's `parts` is k).
//   v<n>.gdsg  in a group's directory (<group>@group/r<rank>/): a version
//              group's version on this process, in one file: a head
//              naming every member with where its segment lies, then the
//              segments, each a member's version file as v<n>.gdsv.
//   v<n>.done  in a group's directory: the group commit record, one per
//              process for every member of a version group: each
//              member's name and commit record. Format 2 says the members'
//              files are the segments of v<n>.gdsg beside it; format 1
//              (before) that they are v<n>.gdsv in the members' directories.
// docs/file-formats.md shows an annotated example of each.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "persist/result.hpp"

namespace gds::persist {

inline constexpr std::uint32_t kFormatVersion = 1;
inline constexpr std::uint64_t kNone = ~std::uint64_t{0};
inline constexpr std::size_t kVersionHeaderBytes = 128;
inline constexpr std::size_t kRecordBytes = 64;
inline constexpr std::size_t kParityHeaderBytes = 64;

// What a version file says (after parse_version: all checked).
struct VersionHeader {
  std::uint32_t rank = 0, nprocs = 0;
  std::uint64_t number = 0, next = 0;
  std::uint64_t base = 0;       // the full version its chain starts at (itself if full)
  std::uint64_t prev = kNone;   // the previous cached version
  std::uint64_t part_bytes = 0;
  std::uint32_t shift = 0;
  bool full = false;
  std::uint64_t signature = 0;  // of the array's shape, type, order and process count
  std::uint64_t held = 0;       // blocks in the file
  std::uint32_t header_crc = 0;
};

struct VersionFile {
  VersionHeader h;
  std::string label, next_label;
  std::vector<std::uint32_t> blocks;  // ascending
  std::vector<std::uint32_t> crcs;    // per block
  std::uint64_t data_offset = 0;      // the first block's bytes; the others follow in list order
};

// Bytes of block b of a part of `part_bytes` bytes in blocks of 2^shift.
inline std::uint64_t block_length(std::uint64_t part_bytes, unsigned shift, std::uint32_t b) {
  const std::uint64_t start = std::uint64_t{b} << shift;
  return std::min(std::uint64_t{1} << shift, part_bytes - start);
}

// The header, list and labels of a version file holding `blocks` (with their
// CRCs); the blocks' bytes follow them in the file.
std::vector<std::byte> encode_version_head(const VersionHeader &h, const std::string &label,
                                           const std::string &next_label, const std::vector<std::uint32_t> &blocks,
                                           const std::vector<std::uint32_t> &crcs);
// Parses a whole version file. With check_data every block's CRC is
// checked too. GDS_STATUS_CORRUPT says what is wrong with it.
Result parse_version(std::span<const std::byte> file, VersionFile *out, bool check_data);

struct Record {
  std::uint32_t rank = 0, nprocs = 0;
  std::uint32_t version_crc = 0;  // header CRC of the version file it commits
  std::uint64_t number = 0, base = 0, prev = kNone;
  std::uint64_t oldest = 0;       // the oldest version the cache kept after this one
};
std::vector<std::byte> encode_record(const Record &r);
Result parse_record(std::span<const std::byte> bytes, Record *out);

// A version group's commit record: version `number` of every member.
struct GroupRecord {
  std::uint64_t number = 0;
  std::vector<std::pair<std::string, Record>> members;  // name, record
  bool in_group_file = true;  // the members' files are segments of v<n>.gdsg (format 2); else v<n>.gdsv (format 1)
};
inline constexpr std::size_t kMaxGroupMembers = 1024;
std::vector<std::byte> encode_group_record(const GroupRecord &g);
Result parse_group_record(std::span<const std::byte> bytes, GroupRecord *out);

// A version group's version on one process (v<n>.gdsg): per member its
// name and its segment, a version file whose header has CRC version_crc.
struct GroupSegment {
  std::string name;
  std::uint64_t at = 0, bytes = 0;
  std::uint32_t version_crc = 0;
};
struct GroupVersion {
  std::uint32_t rank = 0, nprocs = 0;
  std::uint64_t number = 0;
  std::vector<GroupSegment> members;
  std::uint64_t head_bytes = 0;  // the first segment's offset
};
// The head of a group version file; sets each member's `at` (the segments
// follow the head in member order) and g->head_bytes.
std::vector<std::byte> encode_group_version_head(GroupVersion *g);
// Parses a whole group version file: its head, and that the segments tile
// the rest of the file. With check_data every segment is parsed as a
// version file of the same number and process, every block's CRC checked.
Result parse_group_version(std::span<const std::byte> file, GroupVersion *out, bool check_data);

struct ParityHeader {
  std::uint32_t set_size = 0, member = 0, rank = 0;
  std::uint32_t parts = 0;  // 0: an XOR parity chunk; k >= 1: k RS encoding chunks (k < set_size <= 255)
  std::uint64_t number = 0, set_id = 0, chunk = 0;
  std::uint32_t parity_crc = 0;
  std::vector<std::uint64_t> lengths;  // of every member's version file
};
// The parity chunk of a set of `set_size` members whose longest file has
// `longest` bytes: each file is cut into set_size - 1 chunks of this size
// (a multiple of 8, the last one padded with zeros).
inline std::uint64_t parity_chunk(std::uint64_t longest, std::uint32_t set_size) {
  const std::uint64_t c = (longest + set_size - 2) / (set_size - 1);
  return (c + 7) / 8 * 8;
}
// The RS encoding chunk of a set of `set_size` members, k of them encoding
// parts: each file is cut into set_size - k chunks of this size.
inline std::uint64_t rs_chunk(std::uint64_t longest, std::uint32_t set_size, std::uint32_t k) {
  const std::uint64_t d = set_size - k;
  const std::uint64_t c = (longest + d - 1) / d;
  return (c + 7) / 8 * 8;
}
std::vector<std::byte> encode_parity_head(const ParityHeader &h);
// Parses a whole parity file (XOR's or RS's); *parity_offset tells where
// the chunk (the first chunk) starts; parity_crc covers every chunk.
Result parse_parity(std::span<const std::byte> file, ParityHeader *out, std::uint64_t *parity_offset);

}  // namespace gds::persist
