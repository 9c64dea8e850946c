// Fuzzing the readers of the cache's on-disk records (persist/format.hpp):
// parse_version, parse_record, parse_parity and parse_group_version (a
// version group's file: a head, then its members' version files) get valid files mutated at
// random (bit flips, interesting integers in every field, truncation,
// extension, splices), half of them re-sealed (checksums recomputed, so the
// mutations reach the checks behind them). A reader must refuse or return
// something consistent with the bytes it was given, and never read outside
// them (run under ASan in CI). Bounded in time, seeded; the seed is printed.
//
//   fuzz_formats [--seconds S] [--seed N]   (seed 0 or none: from the clock)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/crc32c.hpp"
#include "persist/format.hpp"

using namespace gds::persist;
using Bytes = std::vector<std::byte>;

namespace {

std::uint64_t get(const Bytes &b, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n && at + i < b.size(); ++i) v |= std::uint64_t{std::to_integer<std::uint8_t>(b[at + i])} << (8 * i);
  return v;
}
void put(Bytes &b, std::size_t at, int n, std::uint64_t v) {
  for (int i = 0; i < n && at + i < b.size(); ++i) b[at + i] = static_cast<std::byte>(v >> (8 * i));
}
std::uint32_t crc(const Bytes &b, std::size_t from, std::size_t n) {
  if (from > b.size()) return 0;
  return gds::core::crc32c(b.data() + from, std::min(n, b.size() - from));
}

// Valid files: versions (full and incremental, labels, partial last block), records, parity.
Bytes version_file(std::mt19937_64 &rng, bool full, const VersionHeader *like = nullptr,
                   std::uint32_t *header_crc = nullptr) {
  VersionHeader h;
  h.nprocs = like != nullptr ? like->nprocs : 1 + static_cast<std::uint32_t>(rng() % 4);
  h.rank = like != nullptr ? like->rank : static_cast<std::uint32_t>(rng() % h.nprocs);
  h.number = like != nullptr ? like->number : 5 + rng() % 10;
  h.next = h.number + 1 + rng() % 3;
  h.shift = 6 + static_cast<std::uint32_t>(rng() % 4);
  h.part_bytes = rng() % (40u << h.shift);
  h.full = full;
  h.base = full ? h.number : h.number - 1 - rng() % 3;
  h.prev = full ? (rng() % 2 ? kNone : h.number - 1) : h.number - 1;
  h.signature = rng();
  const std::uint64_t nblocks = (h.part_bytes + (std::uint64_t{1} << h.shift) - 1) >> h.shift;
  std::vector<std::uint32_t> blocks, crcs;
  for (std::uint32_t b = 0; b < nblocks; ++b)
    if (full || rng() % 3 == 0) blocks.push_back(b);
  Bytes data;
  for (std::uint32_t b : blocks) {
    const std::uint64_t n = block_length(h.part_bytes, h.shift, b);
    Bytes block(n);
    for (auto &x : block) x = static_cast<std::byte>(rng());
    crcs.push_back(gds::core::crc32c(block.data(), block.size()));
    data.insert(data.end(), block.begin(), block.end());
  }
  h.held = blocks.size();
  const std::string label(rng() % 20, 'l'), next_label(rng() % 5, 'n');
  Bytes f = encode_version_head(h, label, next_label, blocks, crcs);
  if (header_crc != nullptr) *header_crc = static_cast<std::uint32_t>(get(f, 124, 4));
  f.insert(f.end(), data.begin(), data.end());
  return f;
}

// A version group's file of 1-4 members.
Bytes group_file(std::mt19937_64 &rng) {
  VersionHeader like;
  like.nprocs = 1 + static_cast<std::uint32_t>(rng() % 4);
  like.rank = static_cast<std::uint32_t>(rng() % like.nprocs);
  like.number = 5 + rng() % 10;
  GroupVersion g;
  g.rank = like.rank;
  g.nprocs = like.nprocs;
  g.number = like.number;
  std::vector<Bytes> members;
  const int n = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < n; ++i) {
    std::uint32_t c = 0;
    members.push_back(version_file(rng, rng() % 2 == 0, &like, &c));
    g.members.push_back(GroupSegment{"member" + std::to_string(i), 0, members.back().size(), c});
  }
  Bytes f = encode_group_version_head(&g);
  for (const Bytes &m : members) f.insert(f.end(), m.begin(), m.end());
  return f;
}

Bytes record_file(std::mt19937_64 &rng) {
  Record r;
  r.nprocs = 1 + static_cast<std::uint32_t>(rng() % 8);
  r.rank = static_cast<std::uint32_t>(rng() % r.nprocs);
  r.number = 3 + rng() % 100;
  r.base = r.number - rng() % 3;
  r.prev = r.number - 1;
  r.oldest = r.base;
  r.version_crc = static_cast<std::uint32_t>(rng());
  return encode_record(r);
}

Bytes parity_file(std::mt19937_64 &rng) {
  ParityHeader h;
  h.set_size = 2 + static_cast<std::uint32_t>(rng() % 6);
  h.member = static_cast<std::uint32_t>(rng() % h.set_size);
  h.rank = static_cast<std::uint32_t>(rng() % 16);
  h.number = rng() % 50;
  h.set_id = rng() % 4;
  std::uint64_t longest = 0;
  for (std::uint32_t i = 0; i < h.set_size; ++i) {
    h.lengths.push_back(128 + rng() % 5000);
    longest = std::max(longest, h.lengths.back());
  }
  // XOR's parity (parts 0) or RS's k encoding chunks (parts k < set size).
  h.parts = rng() % 2 == 0 ? 0 : 1 + static_cast<std::uint32_t>(rng() % (h.set_size - 1));
  h.chunk = h.parts == 0 ? parity_chunk(longest, h.set_size) : rs_chunk(longest, h.set_size, h.parts);
  Bytes chunk(h.chunk * std::max<std::uint32_t>(h.parts, 1));
  for (auto &x : chunk) x = static_cast<std::byte>(rng());
  h.parity_crc = gds::core::crc32c(chunk.data(), chunk.size());
  Bytes f = encode_parity_head(h);
  f.insert(f.end(), chunk.begin(), chunk.end());
  return f;
}

const std::uint64_t kInteresting[] = {0, 1, 2, 7, 8, 63, 64, 127, 128, 255, 4096, 65535, 65536,
                                      0x7FFFFFFFull, 0x80000000ull, 0xFFFFFFFFull, 0x100000000ull,
                                      0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull, ~0ull, ~0ull - 1};

void mutate(std::mt19937_64 &rng, Bytes &f, const std::vector<Bytes> &others) {
  const int rounds = 1 + static_cast<int>(rng() % 4);
  for (int r = 0; r < rounds; ++r) {
    const std::size_t at = f.empty() ? 0 : rng() % f.size();
    switch (rng() % 8) {
      case 0:  // flip a bit
        if (!f.empty()) f[at] ^= static_cast<std::byte>(1u << (rng() % 8));
        break;
      case 1: {  // an interesting integer in a field (fields sit at multiples of 4)
        const int n = rng() % 2 ? 4 : 8;
        std::uint64_t v = kInteresting[rng() % std::size(kInteresting)];
        if (rng() % 4 == 0) v = f.size() + (rng() % 17) - 8;
        put(f, at / 4 * 4, n, v);
        break;
      }
      case 2:  // +- small change of a field
        put(f, at / 4 * 4, 4, get(f, at / 4 * 4, 4) + (rng() % 5) - 2);
        break;
      case 3:  // truncate
        f.resize(rng() % (f.size() + 1));
        break;
      case 4: {  // extend with garbage
        const std::size_t n = rng() % 300;
        for (std::size_t i = 0; i < n; ++i) f.push_back(static_cast<std::byte>(rng()));
        break;
      }
      case 5: {  // splice in a piece of another file
        const Bytes &o = others[rng() % others.size()];
        if (o.empty()) break;
        const std::size_t from = rng() % o.size(), n = rng() % (o.size() - from + 1);
        for (std::size_t i = 0; i < n && at + i < f.size(); ++i) f[at + i] = o[from + i];
        break;
      }
      case 6:  // garbage bytes
        for (std::size_t i = 0; i < 16 && at + i < f.size(); ++i) f[at + i] = static_cast<std::byte>(rng());
        break;
      default:  // delete a range
        if (!f.empty()) f.erase(f.begin() + static_cast<std::ptrdiff_t>(at),
                                f.begin() + static_cast<std::ptrdiff_t>(std::min(f.size(), at + rng() % 64)));
        break;
    }
  }
}

// Recomputes the checksums (where the file is long enough to hold them).
void reseal(Bytes &f, int kind) {
  if (kind == 0 && f.size() >= kVersionHeaderBytes) {
    const std::uint64_t held = get(f, 80, 8), labels = get(f, 88, 4) + get(f, 92, 4);
    if (held < (1u << 26) && labels < (1u << 20)) {
      const std::size_t list = kVersionHeaderBytes, text = list + 8 * held;
      put(f, 96, 4, crc(f, list, 8 * held));
      put(f, 100, 4, crc(f, text, labels));
    }
    put(f, 124, 4, crc(f, 0, 124));
  } else if (kind == 1 && f.size() >= kRecordBytes) {
    put(f, 60, 4, crc(f, 0, 60));
  } else if (kind == 3 && f.size() >= 44) {
    const std::uint64_t head = get(f, 32, 8);
    if (head >= 44 && head <= f.size()) put(f, head - 4, 4, crc(f, 0, head - 4));
  } else if (kind == 2 && f.size() >= kParityHeaderBytes + 8) {
    const std::uint64_t n = kParityHeaderBytes + 8 * std::min<std::uint64_t>(get(f, 16, 4), 2048) + 8;
    if (n <= f.size()) {
      put(f, 40, 4, crc(f, n, f.size() - n));
      put(f, n - 8, 4, crc(f, 0, n - 8));
    }
  }
}

// What a reader accepted must agree with the bytes it was given.
bool consistent(const Bytes &f, int kind, std::string *why) {
  if (kind == 0) {
    for (bool check_data : {false, true}) {
      VersionFile v;
      if (!parse_version(std::span<const std::byte>(f), &v, check_data).ok()) continue;
      const std::uint64_t nblocks = (v.h.part_bytes + (std::uint64_t{1} << v.h.shift) - 1) >> v.h.shift;
      std::uint64_t at = v.data_offset, sum = 0;
      for (std::size_t i = 0; i < v.blocks.size(); ++i) {
        if (v.blocks[i] >= nblocks || (i > 0 && v.blocks[i] <= v.blocks[i - 1])) return *why = "block list", false;
        const std::uint64_t n = block_length(v.h.part_bytes, v.h.shift, v.blocks[i]);
        if (at + n > f.size()) return *why = "a block past the end", false;
        if (check_data) sum += gds::core::crc32c(f.data() + at, n);  // reads every accepted byte (ASan)
        at += n;
      }
      if (at != f.size()) return *why = "blocks do not end the file", false;
      if (v.blocks.size() != v.crcs.size() || v.h.held != v.blocks.size()) return *why = "list sizes", false;
      (void)sum;
    }
    return true;
  }
  if (kind == 3) {
    for (bool check_data : {false, true}) {
      GroupVersion g;
      if (!parse_group_version(std::span<const std::byte>(f), &g, check_data).ok()) continue;
      std::uint64_t at = g.head_bytes;
      for (const GroupSegment &m : g.members) {
        if (m.at != at || m.bytes > f.size() - at) return *why = "a segment outside the file", false;
        if (m.name.empty() || m.name.size() > 64) return *why = "member name", false;
        at += m.bytes;
      }
      if (at != f.size() || g.members.empty()) return *why = "segments do not tile the file", false;
      if (check_data) {
        for (const GroupSegment &m : g.members) {
          VersionFile v;
          if (!parse_version(std::span<const std::byte>(f).subspan(m.at, m.bytes), &v, true).ok())
            return *why = "a checked group file with a bad member", false;
        }
      }
    }
    return true;
  }
  if (kind == 1) {
    Record r;
    if (!parse_record(std::span<const std::byte>(f), &r).ok()) return true;
    if (r.rank >= r.nprocs || r.base > r.number) return *why = "record fields", false;
    return true;
  }
  ParityHeader h;
  std::uint64_t offset = 0;
  if (!parse_parity(std::span<const std::byte>(f), &h, &offset).ok()) return true;
  if (h.lengths.size() != h.set_size || h.member >= h.set_size) return *why = "parity fields", false;
  if (h.parts != 0 && (h.parts >= h.set_size || h.set_size > 255)) return *why = "RS parts out of range", false;
  if (offset > f.size() || (f.size() - offset) / std::max<std::uint32_t>(h.parts, 1) != h.chunk ||
      (f.size() - offset) % std::max<std::uint32_t>(h.parts, 1) != 0)
    return *why = "parity chunks outside the file", false;
  std::uint64_t longest = 0;
  for (std::uint64_t l : h.lengths) longest = std::max(longest, l);
  if (h.chunk * (h.set_size - 1) < longest) return *why = "chunk too small for the lengths", false;
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  double seconds = 10;
  std::uint64_t seed = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[i + 1]);
    if (std::strcmp(argv[i], "--seed") == 0) seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  if (seed == 0) seed = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) | 1;
  std::printf("fuzz_formats: seed %llu, %.0f s (rerun with --seed %llu)\n", static_cast<unsigned long long>(seed),
              seconds, static_cast<unsigned long long>(seed));
  std::fflush(stdout);
  std::mt19937_64 rng(seed);
  std::vector<Bytes> seeds[4];
  for (int i = 0; i < 16; ++i) {
    seeds[0].push_back(version_file(rng, i % 2 == 0));
    seeds[1].push_back(record_file(rng));
    seeds[2].push_back(parity_file(rng));
    seeds[3].push_back(group_file(rng));
  }
  std::vector<Bytes> all;
  for (auto &s : seeds) all.insert(all.end(), s.begin(), s.end());
  // The seeds themselves parse.
  for (int kind = 0; kind < 4; ++kind)
    for (const Bytes &f : seeds[kind]) {
      VersionFile v;
      Record r;
      ParityHeader h;
      GroupVersion g;
      std::uint64_t off = 0;
      const Result e = kind == 0   ? parse_version(f, &v, true)
                       : kind == 1 ? parse_record(f, &r)
                       : kind == 2 ? parse_parity(f, &h, &off)
                                   : parse_group_version(f, &g, true);
      if (!e.ok()) {
        std::printf("FAIL: a valid file of kind %d was refused: %s\n", kind, e.what().c_str());
        return 1;
      }
    }
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t runs = 0, accepted = 0;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    for (int k = 0; k < 256; ++k, ++runs) {
      const int kind = static_cast<int>(rng() % 4);
      Bytes f = seeds[kind][rng() % seeds[kind].size()];
      mutate(rng, f, all);
      if (rng() % 2) reseal(f, kind);
      std::string why;
      if (!consistent(f, kind, &why)) {
        std::printf("FAIL after %llu inputs: a reader of kind %d accepted an inconsistent file (%s), %zu bytes:",
                    static_cast<unsigned long long>(runs), kind, why.c_str(), f.size());
        for (std::size_t i = 0; i < f.size() && i < 256; ++i) std::printf(" %02x", std::to_integer<unsigned>(f[i]));
        std::printf("\n");
        return 1;
      }
      VersionFile v;
      Record r;
      ParityHeader h;
      GroupVersion g;
      std::uint64_t off = 0;
      accepted += (kind == 0   ? parse_version(f, &v, false)
                   : kind == 1 ? parse_record(f, &r)
                   : kind == 2 ? parse_parity(f, &h, &off)
                               : parse_group_version(f, &g, false))
                      .ok();
    }
  }
  std::printf("fuzz_formats: %llu inputs, %llu accepted, no reader misbehaved (seed %llu)\n",
              static_cast<unsigned long long>(runs), static_cast<unsigned long long>(accepted),
              static_cast<unsigned long long>(seed));
  return 0;
}
