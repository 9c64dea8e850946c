#include "persist/format.hpp"

#include <boost/endian/conversion.hpp>

#include <cstring>

#include "core/crc32c.hpp"

namespace gds::persist {

namespace {

constexpr char kVersionMagic[8] = {'G', 'D', 'S', 'V', 'E', 'R', 'S', '\n'};
constexpr char kRecordMagic[8] = {'G', 'D', 'S', 'D', 'O', 'N', 'E', '\n'};
constexpr char kGroupMagic[8] = {'G', 'D', 'S', 'G', 'R', 'U', 'P', '\n'};
constexpr char kParityMagic[8] = {'G', 'D', 'S', 'X', 'O', 'R', 'P', '\n'};
constexpr char kGroupVersionMagic[8] = {'G', 'D', 'S', 'G', 'V', 'E', 'R', '\n'};
// Group commit records: format 2 says the members' files are the segments of the group's v<n>.gdsg.
constexpr std::uint32_t kGroupRecordInFile = 2;
constexpr std::uint32_t kFull = 1;
constexpr std::uint64_t kMaxLabel = 65536;
// Longer than any file GDS writes (a part of at most 2^32 blocks of 64 MiB, and its list): lengths
// above it are damage, and the arithmetic on lengths below it cannot overflow.
constexpr std::uint64_t kMaxFileBytes = std::uint64_t{1} << 60;

// The files' fixed byte order: little-endian, whatever the host's.
void put32(std::byte *p, std::uint32_t v) { boost::endian::store_little_u32(reinterpret_cast<unsigned char *>(p), v); }
void put64(std::byte *p, std::uint64_t v) { boost::endian::store_little_u64(reinterpret_cast<unsigned char *>(p), v); }
std::uint32_t get32(const std::byte *p) {
  return boost::endian::load_little_u32(reinterpret_cast<const unsigned char *>(p));
}
std::uint64_t get64(const std::byte *p) {
  return boost::endian::load_little_u64(reinterpret_cast<const unsigned char *>(p));
}
std::uint32_t crc(const std::byte *p, std::size_t n) { return core::crc32c(p, n); }

}  // namespace

std::vector<std::byte> encode_version_head(const VersionHeader &h, const std::string &label,
                                           const std::string &next_label, const std::vector<std::uint32_t> &blocks,
                                           const std::vector<std::uint32_t> &crcs) {
  const std::size_t list = 8 * blocks.size();
  std::vector<std::byte> out(kVersionHeaderBytes + list + label.size() + next_label.size());
  std::byte *p = out.data();
  std::memcpy(p, kVersionMagic, 8);
  put32(p + 8, kFormatVersion);
  put32(p + 12, kVersionHeaderBytes);
  put32(p + 16, h.rank);
  put32(p + 20, h.nprocs);
  put64(p + 24, h.number);
  put64(p + 32, h.next);
  put64(p + 40, h.base);
  put64(p + 48, h.prev);
  put64(p + 56, h.part_bytes);
  put32(p + 64, h.shift);
  put32(p + 68, h.full ? kFull : 0);
  put64(p + 72, h.signature);
  put64(p + 80, blocks.size());
  put32(p + 88, static_cast<std::uint32_t>(label.size()));
  put32(p + 92, static_cast<std::uint32_t>(next_label.size()));
  std::byte *l = p + kVersionHeaderBytes;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    put32(l + 8 * i, blocks[i]);
    put32(l + 8 * i + 4, crcs[i]);
  }
  std::byte *t = l + list;
  std::memcpy(t, label.data(), label.size());
  std::memcpy(t + label.size(), next_label.data(), next_label.size());
  put32(p + 96, crc(l, list));
  put32(p + 100, crc(t, label.size() + next_label.size()));
  std::uint64_t data = 0;
  for (const std::uint32_t b : blocks) data += block_length(h.part_bytes, h.shift, b);
  put64(p + 104, out.size() + data);
  put32(p + 124, crc(p, 124));
  return out;
}

Result parse_version(std::span<const std::byte> file, VersionFile *out, bool check_data) {
  if (file.size() < kVersionHeaderBytes) return Result::corrupt("shorter than a version header");
  const std::byte *p = file.data();
  if (std::memcmp(p, kVersionMagic, 8) != 0) return Result::corrupt("not a GDS version file (bad magic number)");
  if (get32(p + 124) != crc(p, 124)) return Result::corrupt("header checksum mismatch");
  if (get32(p + 8) != kFormatVersion) return Result::corrupt("format version " + std::to_string(get32(p + 8)) + " is not 1");
  if (get32(p + 12) != kVersionHeaderBytes) return Result::corrupt("bad header length");
  VersionHeader &h = out->h;
  h.rank = get32(p + 16);
  h.nprocs = get32(p + 20);
  h.number = get64(p + 24);
  h.next = get64(p + 32);
  h.base = get64(p + 40);
  h.prev = get64(p + 48);
  h.part_bytes = get64(p + 56);
  h.shift = get32(p + 64);
  const std::uint32_t flags = get32(p + 68);
  h.full = (flags & kFull) != 0;
  h.signature = get64(p + 72);
  h.held = get64(p + 80);
  h.header_crc = get32(p + 124);
  const std::uint64_t label = get32(p + 88), next_label = get32(p + 92);
  if (h.rank >= h.nprocs || (flags & ~kFull) != 0 || h.shift < 6 || h.shift > 26 || h.next <= h.number ||
      h.base > h.number || (h.prev != kNone && h.prev >= h.number) || (h.full != (h.base == h.number)) ||
      label > kMaxLabel || next_label > kMaxLabel)
    return Result::corrupt("header fields out of range");
  const std::uint64_t nblocks = (h.part_bytes + (std::uint64_t{1} << h.shift) - 1) >> h.shift;
  if (nblocks >= (std::uint64_t{1} << 32) || h.held > nblocks) return Result::corrupt("block count out of range");
  const std::uint64_t list_end = kVersionHeaderBytes + 8 * h.held;
  const std::uint64_t labels_end = list_end + label + next_label;
  if (labels_end > file.size()) return Result::corrupt("truncated before its block list and labels end");
  if (get32(p + 96) != crc(p + kVersionHeaderBytes, 8 * h.held)) return Result::corrupt("block list checksum mismatch");
  if (get32(p + 100) != crc(p + list_end, label + next_label)) return Result::corrupt("labels checksum mismatch");
  out->blocks.resize(h.held);
  out->crcs.resize(h.held);
  std::uint64_t data = 0;
  for (std::uint64_t i = 0; i < h.held; ++i) {
    const std::uint32_t b = get32(p + kVersionHeaderBytes + 8 * i);
    if (b >= nblocks || (i > 0 && b <= out->blocks[i - 1])) return Result::corrupt("block list not ascending or out of range");
    out->blocks[i] = b;
    out->crcs[i] = get32(p + kVersionHeaderBytes + 8 * i + 4);
    data += block_length(h.part_bytes, h.shift, b);
  }
  if (h.full && h.held != nblocks) return Result::corrupt("a full version without every block");
  if (get64(p + 104) != labels_end + data || file.size() != labels_end + data)
    return Result::corrupt("length " + std::to_string(file.size()) + " is not the " +
                           std::to_string(labels_end + data) + " bytes its header and block list make");
  out->label.assign(reinterpret_cast<const char *>(p + list_end), label);
  out->next_label.assign(reinterpret_cast<const char *>(p + list_end + label), next_label);
  out->data_offset = labels_end;
  if (check_data) {
    // Every block but the part's last (which comes last) is whole: the data
    // are consecutive blocks of 2^shift bytes, summed three at a time.
    std::vector<std::uint32_t> sums(h.held);
    core::crc32c_blocks(p + labels_end, data, std::size_t{1} << h.shift, sums.data());
    for (std::uint64_t i = 0; i < h.held; ++i)
      if (sums[i] != out->crcs[i]) return Result::corrupt("checksum mismatch in block " + std::to_string(out->blocks[i]));
  }
  return {};
}

std::vector<std::byte> encode_record(const Record &r) {
  std::vector<std::byte> out(kRecordBytes);
  std::byte *p = out.data();
  std::memcpy(p, kRecordMagic, 8);
  put32(p + 8, kFormatVersion);
  put32(p + 12, r.rank);
  put32(p + 16, r.nprocs);
  put32(p + 20, r.version_crc);
  put64(p + 24, r.number);
  put64(p + 32, r.base);
  put64(p + 40, r.prev);
  put64(p + 48, r.oldest);
  put32(p + 60, crc(p, 60));
  return out;
}

Result parse_record(std::span<const std::byte> bytes, Record *out) {
  if (bytes.size() != kRecordBytes) return Result::corrupt("a commit record is 64 bytes");
  const std::byte *p = bytes.data();
  if (std::memcmp(p, kRecordMagic, 8) != 0) return Result::corrupt("not a GDS commit record (bad magic number)");
  if (get32(p + 60) != crc(p, 60)) return Result::corrupt("commit record checksum mismatch");
  if (get32(p + 8) != kFormatVersion) return Result::corrupt("format version " + std::to_string(get32(p + 8)) + " is not 1");
  out->rank = get32(p + 12);
  out->nprocs = get32(p + 16);
  out->version_crc = get32(p + 20);
  out->number = get64(p + 24);
  out->base = get64(p + 32);
  out->prev = get64(p + 40);
  out->oldest = get64(p + 48);
  if (out->rank >= out->nprocs || out->base > out->number || out->oldest > out->number ||
      (out->prev != kNone && out->prev >= out->number) || get32(p + 56) != 0)
    return Result::corrupt("commit record fields out of range");
  return {};
}

// Group record: magic (8), format version (4), member count (4), number
// (8), then per member: name length (4), name, its 64-byte record; then
// the CRC32C of everything before (4).
std::vector<std::byte> encode_group_record(const GroupRecord &g) {
  std::size_t n = 24 + 4;
  for (const auto &[name, r] : g.members) n += 4 + name.size() + kRecordBytes;
  std::vector<std::byte> out(n);
  std::byte *p = out.data();
  std::memcpy(p, kGroupMagic, 8);
  put32(p + 8, g.in_group_file ? kGroupRecordInFile : kFormatVersion);
  put32(p + 12, static_cast<std::uint32_t>(g.members.size()));
  put64(p + 16, g.number);
  std::byte *q = p + 24;
  for (const auto &[name, r] : g.members) {
    put32(q, static_cast<std::uint32_t>(name.size()));
    std::memcpy(q + 4, name.data(), name.size());
    const std::vector<std::byte> rec = encode_record(r);
    std::memcpy(q + 4 + name.size(), rec.data(), kRecordBytes);
    q += 4 + name.size() + kRecordBytes;
  }
  put32(q, crc(p, n - 4));
  return out;
}

Result parse_group_record(std::span<const std::byte> bytes, GroupRecord *out) {
  if (bytes.size() < 28) return Result::corrupt("a group commit record is at least 28 bytes");
  const std::byte *p = bytes.data();
  if (std::memcmp(p, kGroupMagic, 8) != 0) return Result::corrupt("not a GDS group commit record (bad magic number)");
  if (get32(p + bytes.size() - 4) != crc(p, bytes.size() - 4)) return Result::corrupt("group commit record checksum mismatch");
  const std::uint32_t format = get32(p + 8);
  if (format != kFormatVersion && format != kGroupRecordInFile)
    return Result::corrupt("format version " + std::to_string(format) + " is not 1 or 2");
  out->in_group_file = format == kGroupRecordInFile;
  const std::uint32_t count = get32(p + 12);
  if (count == 0 || count > kMaxGroupMembers) return Result::corrupt("group commit record member count out of range");
  out->number = get64(p + 16);
  out->members.clear();
  std::size_t at = 24;
  const std::size_t end = bytes.size() - 4;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (end - at < 4) return Result::corrupt("group commit record shorter than its members");
    const std::uint32_t len = get32(p + at);
    if (len == 0 || len > 64 || end - at - 4 < len + kRecordBytes) return Result::corrupt("group commit record member out of range");
    std::string name(reinterpret_cast<const char *>(p + at + 4), len);
    Record r;
    if (Result why = parse_record(bytes.subspan(at + 4 + len, kRecordBytes), &r); !why.ok())
      return why.within("member " + std::to_string(i));
    if (r.number != out->number) return Result::corrupt("group commit record member of another version");
    out->members.emplace_back(std::move(name), r);
    at += 4 + len + kRecordBytes;
  }
  if (at != end) return Result::corrupt("group commit record longer than its members");
  return {};
}

// Group version file: magic (8), format version (4), member count (4),
// rank (4), process count (4), number (8), head length (8), then per
// member: name length (4), name, segment offset (8), segment length (8),
// the segment's version header CRC (4); then the CRC32C of everything
// before (4). The segments follow, in member order, to the file's end.
std::vector<std::byte> encode_group_version_head(GroupVersion *g) {
  std::size_t n = 40 + 4;
  for (const GroupSegment &m : g->members) n += 4 + m.name.size() + 20;
  g->head_bytes = n;
  std::uint64_t at = n;
  for (GroupSegment &m : g->members) {
    m.at = at;
    at += m.bytes;
  }
  std::vector<std::byte> out(n);
  std::byte *p = out.data();
  std::memcpy(p, kGroupVersionMagic, 8);
  put32(p + 8, kFormatVersion);
  put32(p + 12, static_cast<std::uint32_t>(g->members.size()));
  put32(p + 16, g->rank);
  put32(p + 20, g->nprocs);
  put64(p + 24, g->number);
  put64(p + 32, n);
  std::byte *q = p + 40;
  for (const GroupSegment &m : g->members) {
    put32(q, static_cast<std::uint32_t>(m.name.size()));
    std::memcpy(q + 4, m.name.data(), m.name.size());
    q += 4 + m.name.size();
    put64(q, m.at);
    put64(q + 8, m.bytes);
    put32(q + 16, m.version_crc);
    q += 20;
  }
  put32(q, crc(p, n - 4));
  return out;
}

Result parse_group_version(std::span<const std::byte> file, GroupVersion *out, bool check_data) {
  if (file.size() < 44) return Result::corrupt("shorter than a group version head");
  const std::byte *p = file.data();
  if (std::memcmp(p, kGroupVersionMagic, 8) != 0) return Result::corrupt("not a GDS group version file (bad magic number)");
  if (get32(p + 8) != kFormatVersion) return Result::corrupt("format version " + std::to_string(get32(p + 8)) + " is not 1");
  const std::uint64_t head = get64(p + 32);
  if (head < 44 || head > file.size()) return Result::corrupt("group version head length out of range");
  if (get32(p + head - 4) != crc(p, head - 4)) return Result::corrupt("group version head checksum mismatch");
  const std::uint32_t count = get32(p + 12);
  out->rank = get32(p + 16);
  out->nprocs = get32(p + 20);
  out->number = get64(p + 24);
  out->head_bytes = head;
  if (count == 0 || count > kMaxGroupMembers || out->rank >= out->nprocs || out->number == kNone)
    return Result::corrupt("group version head fields out of range");
  out->members.clear();
  std::uint64_t at = 40, next = head;
  const std::uint64_t end = head - 4;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (end - at < 4) return Result::corrupt("group version head shorter than its members");
    const std::uint32_t len = get32(p + at);
    if (len == 0 || len > 64 || end - at - 4 < len + 20) return Result::corrupt("group version member out of range");
    GroupSegment m;
    m.name.assign(reinterpret_cast<const char *>(p + at + 4), len);
    at += 4 + len;
    m.at = get64(p + at);
    m.bytes = get64(p + at + 8);
    m.version_crc = get32(p + at + 16);
    at += 20;
    if (m.at != next || m.bytes > file.size() - m.at) return Result::corrupt("group version segment out of range");
    next = m.at + m.bytes;
    out->members.push_back(std::move(m));
  }
  if (at != end) return Result::corrupt("group version head longer than its members");
  if (next != file.size())
    return Result::corrupt("length " + std::to_string(file.size()) + " is not the " + std::to_string(next) +
                           " bytes its segments make");
  if (!check_data) return {};
  for (const GroupSegment &m : out->members) {
    VersionFile v;
    if (Result why = parse_version(file.subspan(m.at, m.bytes), &v, true); !why.ok())
      return why.within("member " + m.name);
    if (v.h.header_crc != m.version_crc || v.h.number != out->number || v.h.rank != out->rank ||
        v.h.nprocs != out->nprocs)
      return Result::corrupt("member " + m.name + " is not the version file its group version names");
  }
  return {};
}

std::vector<std::byte> encode_parity_head(const ParityHeader &h) {
  const std::size_t n = kParityHeaderBytes + 8 * h.lengths.size() + 8;
  std::vector<std::byte> out(n);
  std::byte *p = out.data();
  std::memcpy(p, kParityMagic, 8);
  put32(p + 8, kFormatVersion);
  put32(p + 12, static_cast<std::uint32_t>(n));
  put32(p + 16, h.set_size);
  put32(p + 20, h.member);
  put64(p + 24, h.number);
  put64(p + 32, h.chunk);
  put32(p + 40, h.parity_crc);
  put32(p + 44, h.rank);
  put64(p + 48, h.set_id);
  put32(p + 56, h.parts);
  for (std::size_t i = 0; i < h.lengths.size(); ++i) put64(p + kParityHeaderBytes + 8 * i, h.lengths[i]);
  put32(p + n - 8, crc(p, n - 8));
  return out;
}

Result parse_parity(std::span<const std::byte> file, ParityHeader *out, std::uint64_t *parity_offset) {
  if (file.size() < kParityHeaderBytes + 8) return Result::corrupt("shorter than a parity header");
  const std::byte *p = file.data();
  if (std::memcmp(p, kParityMagic, 8) != 0) return Result::corrupt("not a GDS parity file (bad magic number)");
  if (get32(p + 8) != kFormatVersion) return Result::corrupt("format version " + std::to_string(get32(p + 8)) + " is not 1");
  out->set_size = get32(p + 16);
  if (out->set_size < 2 || out->set_size > 1024) return Result::corrupt("set size out of range");
  const std::uint64_t n = kParityHeaderBytes + 8 * std::uint64_t{out->set_size} + 8;
  if (get32(p + 12) != n || file.size() < n) return Result::corrupt("bad or truncated parity header");
  if (get32(p + n - 8) != crc(p, n - 8)) return Result::corrupt("parity header checksum mismatch");
  out->member = get32(p + 20);
  out->number = get64(p + 24);
  out->chunk = get64(p + 32);
  out->parity_crc = get32(p + 40);
  out->rank = get32(p + 44);
  out->set_id = get64(p + 48);
  out->parts = get32(p + 56);
  if (out->member >= out->set_size) return Result::corrupt("member out of range");
  if (out->parts != 0 && (out->parts >= out->set_size || out->set_size > 255))
    return Result::corrupt("RS encoding parts out of range");
  out->lengths.resize(out->set_size);
  std::uint64_t longest = 0;
  for (std::uint32_t i = 0; i < out->set_size; ++i) {
    out->lengths[i] = get64(p + kParityHeaderBytes + 8 * i);
    if (out->lengths[i] > kMaxFileBytes) return Result::corrupt("member file length out of range");
    longest = std::max(longest, out->lengths[i]);
  }
  const std::uint64_t chunk =
      out->parts == 0 ? parity_chunk(longest, out->set_size) : rs_chunk(longest, out->set_size, out->parts);
  if (out->chunk != chunk) return Result::corrupt("chunk size does not fit the lengths");
  const std::uint64_t chunks = std::max<std::uint32_t>(out->parts, 1);
  if ((file.size() - n) % chunks != 0 || (file.size() - n) / chunks != out->chunk) return Result::corrupt("parity length is not its chunks' size");
  if (crc(p + n, chunks * out->chunk) != out->parity_crc) return Result::corrupt("parity checksum mismatch");
  *parity_offset = n;
  return {};
}

}  // namespace gds::persist
