#include "persist/prefix_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>

#include "core/crc32c.hpp"
#include "core/log.hpp"
#include "core/mpi_args.hpp"
#include "persist/files.hpp"
#include "persist/format.hpp"

namespace gds::persist {

namespace {

std::string hex(const std::string &bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    out.push_back(digits[(static_cast<unsigned char>(c) >> 4) & 15]);
    out.push_back(digits[static_cast<unsigned char>(c) & 15]);
  }
  return out.empty() ? "-" : out;
}

}  // namespace

namespace {

// The lines of a sound index of the job (lock held): other arrays' in
// *kept, `array`'s by version in *mine. A damaged index is warned about.
void read_index(const char *func, const std::string &path, const std::string &array, std::vector<std::string> *kept,
                std::map<std::uint64_t, std::string> *mine) {
  std::vector<std::byte> old;
  if (!read_file(path, &old).ok() || old.size() > (std::size_t{64} << 20)) return;
  const std::string text(reinterpret_cast<const char *>(old.data()), old.size());
  const std::size_t tail = text.rfind("crc32c ");
  if (tail == std::string::npos || tail == 0) return;
  char want[16] = {};
  std::snprintf(want, sizeof want, "%08x", core::crc32c(text.data(), tail));
  if (text.compare(tail + 7, 8, want) != 0) {
    core::log(core::Level::warning, func, "%s fails its checksum; rebuilding array %s's lines only", path.c_str(),
              array.c_str());
    return;
  }
  std::size_t at = 0;
  while (at < tail) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string::npos || end >= tail) break;
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    if (line.rfind("gds-prefix-index", 0) == 0 || line.empty()) continue;
    const std::size_t sp = line.find(' ');
    if (line.substr(0, sp) != array) {
      kept->push_back(line);
    } else if (sp != std::string::npos) {
      const std::size_t sp2 = line.find(' ', sp + 1);
      const std::optional<std::uint64_t> n = core::parse_unsigned(line.substr(sp + 1, sp2 - sp - 1).c_str());
      if (n) (*mine)[*n] = line;
    }
  }
}

// Writes the index's lines, sorted, with their checksum (tmp, fsync, rename, directory fsync).
Result write_index(const std::string &job_dir, const std::string &path, std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  std::string text = "gds-prefix-index 1\n";
  for (const std::string &line : lines) text += line + "\n";
  char tail[32];
  std::snprintf(tail, sizeof tail, "crc32c %08x\n", core::crc32c(text.data(), text.size()));
  text += tail;
  PERSIST_TRY(write_file_atomically(path, {{text.data(), text.size()}}));
  return sync_dir(job_dir);
}

}  // namespace

Result update_index(const char *func, const std::string &job_dir, const std::string &array,
                    const std::vector<IndexEntry> &add, bool read_files) {
  const std::string path = job_dir + "/index", lock = job_dir + "/index.lock", dir = job_dir + "/" + array;
  File lock_file(::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock_file.is_open() || ::flock(lock_file.get(), LOCK_EX) != 0) return Result::io(lock, "cannot be locked", errno);
  std::vector<std::string> kept;
  std::map<std::uint64_t, std::string> mine;  // this array's lines by version
  read_index(func, path, array, &kept, &mine);
  const auto line_of = [&](const IndexEntry &e) {
    return array + " " + std::to_string(e.version) + " " + std::to_string(e.bytes) + " " + std::to_string(e.time) +
           " " + std::to_string(e.nprocs) + " " + hex(e.label);
  };
  for (const IndexEntry &e : add) mine[e.version] = line_of(e);
  for (const std::uint64_t n : flushed_versions(dir)) {
    if (auto it = mine.find(n); it != mine.end()) {
      kept.push_back(it->second);
      continue;
    }
    h5::Meta m;
    if (!read_files || !h5::read_meta(flushed_path(dir, n), &m).ok()) continue;
    kept.push_back(line_of(IndexEntry{n, m.data_bytes, m.time, m.nprocs, m.label}));
  }
  return write_index(job_dir, path, std::move(kept));
}

std::string flushed_path(const std::string &dir, std::uint64_t n) { return dir + "/v" + std::to_string(n) + ".h5"; }

std::uint64_t flushed_number(const std::string &name) {
  if (name.size() < 5 || name[0] != 'v' || name.compare(name.size() - 3, 3, ".h5") != 0) return kNone;
  return core::parse_unsigned(name.substr(1, name.size() - 4).c_str()).value_or(kNone);
}

std::vector<std::uint64_t> flushed_versions(const std::string &dir) {
  std::vector<std::uint64_t> v;
  for (const std::string &name : list_dir(dir))
    if (const std::uint64_t n = flushed_number(name); n != kNone) v.push_back(n);
  std::sort(v.rbegin(), v.rend());
  return v;
}


Result verify_flushed_data(const std::string &path, const h5::Meta &m) {
  File file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file.is_open()) return Result::io(path, "cannot be opened", errno);
  std::vector<std::byte> buffer(static_cast<std::size_t>(std::min(m.stripe_bytes, std::max<std::uint64_t>(m.data_bytes, 1))));
  for (std::size_t s = 0; s < m.crcs.size(); ++s) {
    const std::uint64_t at = s * m.stripe_bytes, n = std::min(m.stripe_bytes, m.data_bytes - std::min(m.data_bytes, at));
    PERSIST_TRY(pread_all(file.get(), path, buffer.data(), n, m.data_offset + at));
    if (core::crc32c(buffer.data(), n) != m.crcs[s]) return Result::corrupt(path + ": " + stripe_mismatch(s, at, n));
  }
  return {};
}

std::string stripe_mismatch(std::uint64_t stripe, std::uint64_t at, std::uint64_t n) {
  return "stripe " + std::to_string(stripe) + " (data bytes " + std::to_string(at) + "-" + std::to_string(at + n - 1) +
         ") does not match its checksum";
}

}  // namespace gds::persist
