// Root CDs whose point in time survives the job (storage_info level=cache or
// level=prefix).
//
// A durable root keeps, besides its memory entries, an internal GDS array:
// its store, one row of bytes per process, named "cd.<name>.g<k>", persisted
// by the persist module like any array (the cache with its copy type, the
// prefix). Every advance of the root writes the root's point in time into
// this process's row: the ranges the root itself was given via copy, in the
// order the program added them (the order is the key, as FTI's ids are), the
// positions of its files, and its part of each box of an array (read from
// the version the advance pinned). Rows differ in size between processes; the
// store's capacity is the largest, rounded up to a power of two from 64 KiB
// (each version's label records it). A point that outgrows it goes to the
// next generation k (a new array): the old one stays readable until the new
// one holds a durable version.
//
// A restarted job creating the root (same name, same storage_info) finds
// the newest generation with a persisted version (GDS_restart_query),
// restarts its store inside GDS_create, and checks every row. Its add calls
// via copy then take their bytes from the persisted point, in order, before
// preserving them as usual (a box: its part written into the array);
// GDS_cd_restored() says 1 once.
#include <algorithm>
#include <cstring>
#include <unistd.h>

#include "cd/domain.hpp"
#include "core/collective.hpp"
#include "core/crc32c.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"
#include "gds_array.h"
#include "gds_runtime.h"
#include "gds_group.h"
#include "gds_version.h"

namespace gds::cd {

namespace {

constexpr std::uint64_t kMagic = 0x314d494443534447ULL;  // "GDSCDIM1"
constexpr std::size_t kBaseCapacity = std::size_t{64} << 10;
constexpr int kGenerations = 64;

// A row: Header, then the table (per range {u64 length, u64 present}, per
// file {i64 offset}, per box {u64 ndims, esize, copy, has_part, bytes, then
// lo, hi, part lo, part hi: ndims u64 each}), then the present ranges' bytes
// and the boxes' parts, in order.
struct Header {
  std::uint64_t magic;
  std::uint64_t point;   // advances persisted so far, this one included
  std::uint64_t ranges;  // entries
  std::uint64_t files;
  std::uint64_t boxes;
  std::uint64_t bytes;   // the row's total size, header included
  std::uint32_t crc;     // crc32c of the row after the header
  std::uint32_t zero;
};
constexpr std::uint64_t kMaxDims = 64;

// Appends to a row.
struct Writer {
  std::vector<std::byte> &row;
  void u64(std::uint64_t v) { bytes(&v, sizeof v); }
  void dims(const core::Dims &d, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) u64(i < d.size() ? d[i] : 0);
  }
  void bytes(const void *p, std::size_t n) {
    const auto *b = static_cast<const std::byte *>(p);
    row.insert(row.end(), b, b + n);
  }
};

// Reads a row's table, failing (false) past its end.
struct Reader {
  const std::byte *row;
  std::uint64_t at, end;
  bool u64(std::uint64_t *v) {
    if (end - at < sizeof *v) return false;
    std::memcpy(v, row + at, sizeof *v);
    at += sizeof *v;
    return true;
  }
  bool dims(core::Dims *d, std::uint64_t n) {
    d->resize(n);
    for (auto &x : *d)
      if (!u64(&x)) return false;
    return true;
  }
};

std::string store_name(const Domain &d, int generation) {
  return "cd." + d.name + ".g" + std::to_string(generation);
}

bool valid_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.';
}

// Creates generation g's store over the root's processes. fresh: never from
// files a previous job left (a new generation is written, not read).
GDS_status_t create_store(const char *func, Domain &d, int g, std::size_t capacity, bool fresh) {
  Durable &s = *d.durable;
  s.buffer.assign(capacity, std::byte{0});
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  const std::string name = store_name(d, g);
  MPI_Info_set(info, GDS_NAME_KEY, name.c_str());
  if (!s.copy_type.empty()) MPI_Info_set(info, GDS_COPY_TYPE_KEY, s.copy_type.c_str());
  if (!s.prefix.empty()) MPI_Info_set(info, GDS_PREFIX_KEY, s.prefix.c_str());
  if (s.level == GDS_LEVEL_PREFIX) MPI_Info_set(info, GDS_FLUSH_KEY, "1");
  if (fresh) MPI_Info_set(info, GDS_RESTART_KEY, "0");
  MPI_Info_set(info, GDS_MAX_VERSIONS_KEY, "2");  // the store is never navigated: its newest version is the point
  const GDS_size_t count = static_cast<GDS_size_t>(s.buffer.size()) * static_cast<GDS_size_t>(d.comm_size);
  GDS_gds_t store = GDS_NULL;
  const GDS_status_t st = GDS_create(1, &count, GDS_DATA_BYTE, nullptr, nullptr, s.buffer.data(), s.buffer.size(),
                                     GDS_PRIORITY_HIGH, d.comm, info, &store);
  MPI_Info_free(&info);
  GDS_CHECK(st == GDS_STATUS_OK, st, "the store of %s (array '%s') could not be made: %s", d.describe().c_str(),
            name.c_str(), GDS_status_string(st));
  s.store = store;
  s.generation = g;
  return GDS_STATUS_OK;
}

void free_store(Durable &s) {
  if (s.store != GDS_NULL) (void)GDS_free(&s.store);  // at GDS_finalize the arrays are freed already
  s.store = GDS_NULL;
}

// Checks this process's restarted row and keeps it for the add calls.
GDS_status_t read_row(const char *func, Domain &d) {
  Durable &s = *d.durable;
  const std::byte *row = s.buffer.data();
  Header h{};
  std::memcpy(&h, row, sizeof h);
  const auto damaged = [&](const char *why) {
    return core::fail(GDS_STATUS_UNRECOVERABLE, func, "the persisted point of %s is damaged: %s", d.describe().c_str(),
                      why);
  };
  if (h.magic != kMagic) return damaged("its row does not begin with a CD header");
  if (h.bytes < sizeof h || h.bytes > s.buffer.size()) return damaged("its row's size is out of range");
  if (core::crc32c(row + sizeof h, h.bytes - sizeof h) != h.crc) return damaged("its row's checksum does not match");
  Reader in{row, sizeof h, h.bytes};
  if (h.ranges > h.bytes / 16 || h.files > h.bytes / 8 || h.boxes > h.bytes / 40)
    return damaged("its row claims more entries than it holds");
  std::vector<std::pair<std::uint64_t, bool>> ranges(h.ranges);
  for (auto &[length, present] : ranges) {
    std::uint64_t p = 0;
    if (!in.u64(&length) || !in.u64(&p)) return damaged("its table is cut");
    present = p != 0;
  }
  s.restart_files.resize(h.files);
  for (auto &f : s.restart_files) {
    std::uint64_t v = 0;
    if (!in.u64(&v)) return damaged("its table is cut");
    f = static_cast<std::int64_t>(v);
  }
  struct Box {
    BoxImage im;
    std::uint64_t bytes;
  };
  std::vector<Box> boxes(h.boxes);
  for (Box &b : boxes) {
    std::uint64_t n = 0, copy = 0, part = 0;
    if (!in.u64(&n) || !in.u64(&b.im.esize) || !in.u64(&copy) || !in.u64(&part) || !in.u64(&b.bytes) ||
        n == 0 || n > kMaxDims || !in.dims(&b.im.lo, n) || !in.dims(&b.im.hi, n) || !in.dims(&b.im.plo, n) ||
        !in.dims(&b.im.phi, n))
      return damaged("a box's entry is cut or malformed");
    b.im.copy = copy != 0;
    b.im.has_part = part != 0;
  }
  // The payload, in order.
  s.restart.clear();
  for (const auto &[length, present] : ranges) {
    if (present && length > in.end - in.at) return damaged("a range runs past its row");
    s.restart.push_back(Durable::Saved{length, present, in.at});
    if (present) in.at += length;
  }
  s.restart_boxes.clear();
  for (Box &b : boxes) {
    if (b.bytes > in.end - in.at) return damaged("a box runs past its row");
    b.im.data.assign(row + in.at, row + in.at + b.bytes);
    in.at += b.bytes;
    s.restart_boxes.push_back(std::move(b.im));
  }
  s.points = h.point;
  s.next_range = s.next_file = s.next_box = 0;
  s.restarting = true;
  return GDS_STATUS_OK;
}

// This process's row of the root's point in time now.
GDS_status_t make_row(const char *func, const Domain &d, std::vector<std::byte> *out) {
  const Durable &s = *d.durable;
  std::vector<BoxImage> boxes;
  GDS_TRY(box_images(func, d, &boxes));
  std::vector<std::byte> &row = *out;
  row.assign(sizeof(Header), std::byte{0});
  Writer w{row};
  std::vector<bool> present;
  for (const auto &[lo, n] : s.order) {
    present.push_back(preserved_by_copy(d, lo, lo + n));
    w.u64(n);
    w.u64(present.back() ? 1 : 0);
  }
  for (int fd : s.files) {
    auto it = d.files.find(fd);
    w.u64(static_cast<std::uint64_t>(it == d.files.end() ? std::int64_t{-1} : static_cast<std::int64_t>(it->second)));
  }
  for (const BoxImage &b : boxes) {
    const std::size_t n = b.lo.size();
    w.u64(n);
    w.u64(b.esize);
    w.u64(b.copy ? 1 : 0);
    w.u64(b.has_part ? 1 : 0);
    w.u64(b.data.size());
    w.dims(b.lo, n);
    w.dims(b.hi, n);
    w.dims(b.plo, n);
    w.dims(b.phi, n);
  }
  for (std::size_t i = 0; i < s.order.size(); ++i) {
    if (!present[i]) continue;
    const auto [lo, n] = s.order[i];
    const std::size_t at = row.size();
    row.resize(at + n);
    GDS_TRY(copy_preserved(func, d, lo, lo + n, row.data() + at));
  }
  for (const BoxImage &b : boxes) w.bytes(b.data.data(), b.data.size());
  Header h{kMagic, s.points + 1, s.order.size(), s.files.size(), boxes.size(), row.size(), 0, 0};
  h.crc = core::crc32c(row.data() + sizeof h, row.size() - sizeof h);
  std::memcpy(row.data(), &h, sizeof h);
  return GDS_STATUS_OK;
}

}  // namespace

GDS_status_t parse_spec(const char *func, const char *info, StorageSpec *out) {
  *out = StorageSpec{};
  if (info == nullptr) return GDS_STATUS_OK;
  const std::string s(info);
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t end = std::min(s.find(';', at), s.size());
    const std::string item = s.substr(at, end - at);
    at = end + 1;
    if (item.find_first_not_of(" \t") == std::string::npos) continue;
    if (out->first_item.empty()) out->first_item = item;
    const std::size_t eq = item.find('=');
    GDS_CHECK(eq != std::string::npos, GDS_STATUS_INVALID_INFO, "storage_info item '%s' is not key=value",
              item.c_str());
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "level") {
      GDS_CHECK(value == "memory" || value == "cache" || value == "prefix", GDS_STATUS_INVALID_INFO,
                "storage_info level '%s' is unknown (known: memory, cache, prefix)", value.c_str());
      out->level = value == "cache" ? GDS_LEVEL_CACHE : value == "prefix" ? GDS_LEVEL_PREFIX : GDS_LEVEL_NONE;
    } else if (key == "copy_type") {
      out->copy_type = value;  // GDS_create checks it as it checks an array's
    } else if (key == "prefix") {
      out->prefix = value;
    } else {
      return core::fail(GDS_STATUS_INVALID_INFO, func,
                        "storage_info key '%s' is unknown (known: level, copy_type, prefix)", key.c_str());
    }
  }
  GDS_CHECK(out->level != GDS_LEVEL_NONE || (out->copy_type.empty() && out->prefix.empty()), GDS_STATUS_INVALID_INFO,
            "storage_info gives copy_type or prefix without level=cache or level=prefix");
  return GDS_STATUS_OK;
}

GDS_status_t parse_storage(const char *func, const char *info, bool root, const char *name,
                           std::unique_ptr<Durable> *out) {
  out->reset();
  StorageSpec spec;
  GDS_TRY(parse_spec(func, info, &spec));
  GDS_CHECK(root || spec.first_item.empty(), GDS_STATUS_INVALID_INFO,
            "storage_info applies to a root CD only (a child has '%s')", spec.first_item.c_str());
  const int level = spec.level;
  if (level == GDS_LEVEL_NONE) return GDS_STATUS_OK;
  GDS_CHECK(name != nullptr, GDS_STATUS_INVALID_INFO,
            "storage_info level=%s needs the root CD's name: a restarted job finds its root CD by it",
            level == GDS_LEVEL_CACHE ? "cache" : "prefix");
  const std::size_t n = std::strlen(name);
  GDS_CHECK(n >= 1 && n <= 48 && std::all_of(name, name + n, valid_name_char), GDS_STATUS_INVALID,
            "name '%s' of a persisted root CD must be 1-48 letters, digits, '-', '_' or '.'", name);
  GDS_CHECK(level != GDS_LEVEL_PREFIX || !spec.prefix.empty() || std::getenv("GDS_PREFIX") != nullptr ||
                std::getenv("SCR_PREFIX") != nullptr,
            GDS_STATUS_INVALID_INFO, "storage_info level=prefix needs a prefix: GDS_PREFIX or the key prefix=<dir>");
  auto dur = std::make_unique<Durable>();
  dur->level = level;
  dur->copy_type = spec.copy_type;
  dur->prefix = spec.prefix;
  *out = std::move(dur);
  return GDS_STATUS_OK;
}

GDS_status_t entry_storage(const char *func, const Domain &d, const char *info, bool *memory_only) {
  *memory_only = false;
  StorageSpec spec;
  GDS_TRY(parse_spec(func, info, &spec));
  if (spec.first_item.empty()) return GDS_STATUS_OK;  // "" or blanks: the CD's own
  if (spec.level == GDS_LEVEL_NONE) {                  // level=memory
    *memory_only = d.durable != nullptr;
    return GDS_STATUS_OK;
  }
  const char *level = spec.level == GDS_LEVEL_CACHE ? "cache" : "prefix";
  GDS_CHECK(d.durable != nullptr, GDS_STATUS_INVALID_INFO,
            "storage_info '%s': %s keeps its entries in this process's memory (%s), so none of them can be kept "
            "at level=%s; an entry is kept at its CD's level or at level=memory",
            info, d.describe().c_str(),
            d.parent != nullptr ? "a child CD" : "a root CD created without level=cache or level=prefix", level);
  const Durable &own = *d.durable;
  const std::string own_spec = std::string("level=") + (own.level == GDS_LEVEL_CACHE ? "cache" : "prefix") +
                               (own.copy_type.empty() ? "" : ";copy_type=" + own.copy_type) +
                               (own.prefix.empty() ? "" : ";prefix=" + own.prefix);
  GDS_CHECK(spec.level == own.level && (spec.copy_type.empty() || spec.copy_type == own.copy_type) &&
                (spec.prefix.empty() || spec.prefix == own.prefix),
            GDS_STATUS_INVALID_INFO,
            "storage_info '%s' is neither the storage of %s ('%s') nor level=memory: a CD persists its entries "
            "together, at its own level, copy type and prefix",
            info, d.describe().c_str(), own_spec.c_str());
  return GDS_STATUS_OK;
}

GDS_status_t check_entry_level(const char *func, const Domain &d, const GDS_cd_range_t *ranges, int count,
                               bool memory_only) {
  if (d.durable == nullptr) return GDS_STATUS_OK;
  const Durable &s = *d.durable;
  for (int i = 0; i < count; ++i) {
    const std::pair<std::uintptr_t, std::size_t> r(reinterpret_cast<std::uintptr_t>(ranges[i].address),
                                                   ranges[i].length);
    GDS_CHECK(!memory_only || !s.known.contains(r), GDS_STATUS_INVALID_INFO,
              "ranges[%d] (%zu bytes) was added to %s at its own level and keeps its place in its persisted "
              "points: it cannot move to level=memory",
              i, ranges[i].length, d.describe().c_str());
    GDS_CHECK(memory_only || !s.memory_only.contains(r), GDS_STATUS_INVALID_INFO,
              "ranges[%d] (%zu bytes) was added to %s at level=memory: delete_from_cd it first to add it at the "
              "CD's own level",
              i, ranges[i].length, d.describe().c_str());
  }
  return GDS_STATUS_OK;
}

void note_memory_only(Domain &d, const GDS_cd_range_t *ranges, int count, bool add) {
  if (d.durable == nullptr) return;
  for (int i = 0; i < count; ++i) {
    const std::pair<std::uintptr_t, std::size_t> r(reinterpret_cast<std::uintptr_t>(ranges[i].address),
                                                   ranges[i].length);
    if (add)
      d.durable->memory_only.insert(r);
    else
      d.durable->memory_only.erase(r);
  }
}

GDS_status_t open_durable(const char *func, Domain &d) {
  int same = MPI_UNEQUAL;
  MPI_Comm_compare(d.comm, GDS_COMM_WORLD, &same);
  GDS_CHECK(same == MPI_IDENT || same == MPI_CONGRUENT, GDS_STATUS_INVALID_COMM,
            "a persisted root CD (storage_info level=cache or prefix) spans every process of the job, as a "
            "checkpoint does; %s spans %d of them",
            d.describe().c_str(), d.comm_size);
  // The newest generation with a persisted version: generations are made in order.
  int found = -1;
  std::size_t capacity = 0;
  for (int g = 0; g < kGenerations; ++g) {
    GDS_persisted_t p{};
    const std::string name = store_name(d, g);
    GDS_TRY(GDS_restart_query(name.c_str(), &p));
    if (p.found == 0) break;
    found = g;
    const char *c = std::strstr(p.holds, " capacity ");
    capacity = c != nullptr ? std::strtoull(c + 10, nullptr, 10) : 0;
  }
  if (found < 0) return GDS_STATUS_OK;  // a fresh start: the store is made at the first advance
  const GDS_status_t sane =  // agreed: a process's memory limit may differ (GDS_HOST_MEMORY)
      capacity >= sizeof(Header) && capacity <= core::host_memory()
          ? GDS_STATUS_OK
          : core::fail(GDS_STATUS_UNRECOVERABLE, func,
                       "the persisted point of %s is damaged: its store's label gives no capacity this host can "
                       "hold (%zu bytes)",
                       d.describe().c_str(), capacity);
  GDS_TRY(core::agree(func, d.comm, sane));
  GDS_TRY(create_store(func, d, found, capacity, false));
  GDS_restart_info_t ri{};
  GDS_status_t local = GDS_get_restart_info(d.durable->store, &ri);
  if (local == GDS_STATUS_OK && ri.restarted == 0) {
    core::log(core::Level::warning, func, "%s: its persisted point could not be read; it starts afresh",
              d.describe().c_str());
    return GDS_STATUS_OK;
  }
  if (local == GDS_STATUS_OK) local = read_row(func, d);
  GDS_TRY(core::agree(func, d.comm, local));
  d.restored = true;
  return GDS_STATUS_OK;
}

GDS_status_t take_restarted_ranges(const char *func, Domain &d, const GDS_cd_range_t *ranges, int count) {
  if (d.durable == nullptr || !d.durable->restarting) return GDS_STATUS_OK;
  Durable &s = *d.durable;
  for (int i = 0; i < count; ++i) {
    const std::size_t k = s.next_range + static_cast<std::size_t>(i);
    if (k >= s.restart.size()) break;
    GDS_CHECK(s.restart[k].length == ranges[i].length, GDS_STATUS_INVALID,
              "ranges[%d]: %s restarted from a point whose range %zu has %llu bytes, and this range has %zu: a "
              "restarted program adds the ranges of its root CD in the order and with the lengths of the run that "
              "persisted them",
              i, d.describe().c_str(), k, static_cast<unsigned long long>(s.restart[k].length), ranges[i].length);
  }
  for (int i = 0; i < count && s.next_range < s.restart.size(); ++i, ++s.next_range) {
    const Durable::Saved &saved = s.restart[s.next_range];
    if (saved.present) std::memcpy(ranges[i].address, s.buffer.data() + saved.at, saved.length);
  }
  return GDS_STATUS_OK;
}

void note_ranges(Domain &d, const GDS_cd_range_t *ranges, int count) {
  if (d.durable == nullptr) return;
  Durable &s = *d.durable;
  for (int i = 0; i < count; ++i) {  // a range added again (promoted) keeps its place
    const std::pair<std::uintptr_t, std::size_t> r(reinterpret_cast<std::uintptr_t>(ranges[i].address),
                                                   ranges[i].length);
    if (s.known.insert(r).second) s.order.push_back(r);
  }
}

GDS_status_t take_restarted_file(const char *func, Domain &d, int fd) {
  if (d.durable == nullptr) return GDS_STATUS_OK;
  Durable &s = *d.durable;
  if (s.restarting && s.next_file < s.restart_files.size()) {
    const std::int64_t off = s.restart_files[s.next_file];
    GDS_CHECK(off < 0 || ::lseek(fd, static_cast<off_t>(off), SEEK_SET) == static_cast<off_t>(off), GDS_STATUS_INVALID,
              "fd %d: %s restarted with its position %lld, which it cannot take", fd, d.describe().c_str(),
              static_cast<long long>(off));
    ++s.next_file;
  }
  s.files.push_back(fd);
  return GDS_STATUS_OK;
}

GDS_status_t persist_point(const char *func, Domain &d) {
  Durable &s = *d.durable;
  s.restarting = false;
  std::vector<std::byte> row;
  const GDS_status_t local = make_row(func, d, &row);
  std::uint64_t need[1] = {row.size()};
  GDS_TRY(core::agree(func, d.comm, local, need));  // the largest row
  if (s.store == GDS_NULL || need[0] > s.buffer.size()) {   // the first point, or one that outgrew the store
    std::size_t capacity = kBaseCapacity;
    while (capacity < need[0]) capacity *= 2;
    const int next = s.generation + 1;
    GDS_CHECK(next < kGenerations, GDS_STATUS_NOMEM, "%s has outgrown its store %d times", d.describe().c_str(),
              next);
    free_store(s);
    GDS_TRY(create_store(func, d, next, capacity, true));
  }
  std::memcpy(s.buffer.data(), row.data(), row.size());
  std::memset(s.buffer.data() + row.size(), 0, s.buffer.size() - row.size());
  const std::string label = "cd point " + std::to_string(s.points + 1) + " capacity " + std::to_string(s.buffer.size());
  const GDS_status_t st = GDS_version_inc(s.store, 1, label.data(), label.size());
  GDS_CHECK(st == GDS_STATUS_OK, st, "the persisted point of %s was not made: %s", d.describe().c_str(),
            GDS_status_string(st));
  ++s.points;
  return GDS_STATUS_OK;
}

void close_durable(Domain &d) {
  if (d.durable != nullptr) free_store(*d.durable);
}

}  // namespace gds::cd
