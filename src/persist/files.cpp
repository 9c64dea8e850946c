#include "persist/files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <algorithm>
#include <cstring>

#include "core/log.hpp"
#include "core/util.hpp"

namespace gds::persist {

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

File &File::operator=(File &&o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

Result make_dirs(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return {};  // there already (a version's record)
  std::string partial;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    partial = path.substr(0, pos);
    if (partial.empty()) continue;
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) return Result::io(partial, "cannot create", errno);
  }
  if (::stat(path.c_str(), &st) != 0) return Result::io(path, "cannot create", errno);
  if (!S_ISDIR(st.st_mode)) return Result::io(path, "is not a directory", ENOTDIR);
  return {};
}

Result write_file(const std::string &path, const std::vector<iovec> &pieces) {
  File f(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
  if (!f.is_open()) return Result::io(path, "cannot create", errno);
  std::uint64_t total = 0;
  for (const iovec &p : pieces) total += p.iov_len;
  std::vector<iovec> iov = pieces;
  Result r = pwritev_all(f.get(), path, iov, 0);
  if (r.ok() && ::ftruncate(f.get(), static_cast<off_t>(total)) != 0) r = Result::io(path, "cannot cut", errno);
  if (r.ok() && ::fsync(f.get()) != 0) r = Result::io(path, "cannot fsync", errno);
  if (!r.ok()) remove_file(path);  // what a full disk left half-written
  return r;
}

Result copy_file(const std::string &from, const std::string &to, std::uint64_t *bytes) {
  File in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in.is_open()) return Result::io(from, "cannot open", errno);
  File out(::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!out.is_open()) return Result::io(to, "cannot create", errno);
  std::uint64_t done = 0;
  Result r;
  std::vector<std::byte> buffer;  // without copy_file_range
  for (bool kernel = true;;) {
    ssize_t n = kernel ? ::copy_file_range(in.get(), nullptr, out.get(), nullptr, std::size_t{1} << 30, 0) : -1;
    if (n < 0 && kernel && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
      kernel = false;  // across file systems on old kernels, or a file system without it
      continue;
    }
    if (!kernel) {
      buffer.resize(std::size_t{8} << 20);
      n = ::read(in.get(), buffer.data(), buffer.size());
      if (n > 0) {
        std::vector<iovec> iov{{buffer.data(), static_cast<std::size_t>(n)}};
        r = pwritev_all(out.get(), to, iov, done);
        if (!r.ok()) break;
      }
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      r = Result::io(kernel ? to : from, "cannot copy", errno);
      break;
    }
    if (n == 0) break;
    done += static_cast<std::uint64_t>(n);
  }
  if (r.ok() && ::fsync(out.get()) != 0) r = Result::io(to, "cannot fsync", errno);
  if (!r.ok()) remove_file(to);
  if (bytes != nullptr) *bytes = done;
  return r;
}

Result Writer::open(const std::string &path) {
  path_ = path;
  f_ = File(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!f_.is_open()) return Result::io(path, "cannot create", errno);
  return {};
}

Result Writer::write_at(std::uint64_t offset, const std::byte *data, std::uint64_t n) {
  while (n > 0) {
    const ssize_t w = ::pwrite(f_.get(), data, std::min<std::uint64_t>(n, 1u << 30), static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return Result::io(path_, "cannot write", w < 0 ? errno : ENOSPC);
    data += w;
    offset += static_cast<std::uint64_t>(w);
    n -= static_cast<std::uint64_t>(w);
  }
  return {};
}

Result Writer::finish() {
  if (::fsync(f_.get()) != 0) return Result::io(path_, "cannot fsync", errno);
  f_ = File();
  return {};
}

void Spares::keep(const std::string &path) {
  struct stat st {};
  if (pool_.size() < limit_ && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    const std::string spare = dir_ + "/spare" + std::to_string(next_++);
    if (::rename(path.c_str(), spare.c_str()) == 0) {
      pool_.push_back(Spare{spare, static_cast<std::uint64_t>(st.st_size)});
      return;
    }
  }
  remove_file(path);
}

void Spares::claim(const std::string &path, std::uint64_t bytes) {
  const std::size_t best = best_fit(bytes);
  if (best == pool_.size()) return;
  const std::string spare = pool_[best].path;
  pool_.erase(pool_.begin() + static_cast<std::ptrdiff_t>(best));
  if (::rename(spare.c_str(), path.c_str()) != 0) remove_file(spare);
}

// The smallest spare that holds `total` bytes, else the largest; pool_.size() if none.
std::size_t Spares::best_fit(std::uint64_t total) const {
  std::size_t best = pool_.size();
  for (std::size_t i = 0; i < pool_.size(); ++i) {
    if (best == pool_.size()) {
      best = i;
      continue;
    }
    const bool fits = pool_[i].bytes >= total, best_fits = pool_[best].bytes >= total;
    if (fits ? !best_fits || pool_[i].bytes < pool_[best].bytes : !best_fits && pool_[i].bytes > pool_[best].bytes)
      best = i;
  }
  return best;
}

void Spares::clear() {
  for (const Spare &s : pool_) remove_file(s.path);
  pool_.clear();
}

Result write_file_atomically(const std::string &path, const std::vector<iovec> &pieces) {
  const std::string tmp = path + ".tmp";
  PERSIST_TRY(write_file(tmp, pieces));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    remove_file(tmp);
    return Result::io(path, "cannot rename to it", err);
  }
  return {};
}

Result sync_dir(const std::string &path) {
  File d(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!d.is_open() || ::fsync(d.get()) != 0) return Result::io(path, "cannot fsync", errno);
  return {};
}

namespace {

// Opens a regular file for reading and gives its size.
Result open_regular(const std::string &path, File *f, std::size_t *size) {
  *f = File(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!f->is_open()) return errno == ENOENT ? Result::absent(path) : Result::io(path, "cannot open", errno);
  struct stat st {};
  if (::fstat(f->get(), &st) != 0) return Result::io(path, "cannot stat", errno);
  if (!S_ISREG(st.st_mode)) return Result::io(path, "is not a regular file", EINVAL);
  *size = static_cast<std::size_t>(st.st_size);
  return {};
}

}  // namespace

Result read_file(const std::string &path, std::vector<std::byte> *out) {
  File f;
  std::size_t size = 0;
  PERSIST_TRY(open_regular(path, &f, &size));
  out->resize(size);
  return pread_all(f.get(), path, out->data(), size, 0);
}

Mapped::~Mapped() {
  if (size_ > 0) ::munmap(const_cast<std::byte *>(data_), size_);
}

Mapped &Mapped::operator=(Mapped &&o) noexcept {
  if (this != &o) {
    if (size_ > 0) ::munmap(const_cast<std::byte *>(data_), size_);
    data_ = o.data_;
    size_ = o.size_;
    o.data_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

Result Mapped::open(const std::string &path) {
  *this = Mapped();
  File f;
  std::size_t size = 0;
  PERSIST_TRY(open_regular(path, &f, &size));
  if (size == 0) return {};  // empty: nothing to map
  // Populated at once: one call maps every page (rather than a fault per page).
  void *p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f.get(), 0);
  if (p == MAP_FAILED) return Result::io(path, "cannot map", errno);
  data_ = static_cast<const std::byte *>(p);
  size_ = size;
  return {};
}

void remove_file(const std::string &path) { (void)::unlink(path.c_str()); }

std::vector<std::string> list_dir(const std::string &path) {
  std::vector<std::string> names;
  DIR *d = ::opendir(path.c_str());
  if (d == nullptr) return names;
  while (const dirent *e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
  ::closedir(d);
  return names;
}

bool writable_dir(const std::string &path) { return ::access(path.c_str(), W_OK | X_OK) == 0; }

Result pread_all(int fd, const std::string &path, std::byte *p, std::uint64_t n, std::uint64_t at) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, std::min<std::uint64_t>(n, core::kMaxPiece), static_cast<off_t>(at));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Result::io(path, "cannot read", errno);
    if (r == 0) return Result::corrupt(path + ": shorter than it should be (" + std::to_string(at) + " bytes)");
    p += r;
    n -= static_cast<std::uint64_t>(r);
    at += static_cast<std::uint64_t>(r);
  }
  return {};
}

Result pwritev_all(int fd, const std::string &path, std::vector<iovec> &iov, std::uint64_t at) {
  std::size_t i = 0;
  for (;;) {
    while (i < iov.size() && iov[i].iov_len == 0) ++i;  // pwritev would return 0 for them
    if (i == iov.size()) break;
    const int count = static_cast<int>(std::min<std::size_t>(iov.size() - i, IOV_MAX));
    const ssize_t w = ::pwritev(fd, iov.data() + i, count, static_cast<off_t>(at));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return Result::io(path, "cannot write", w < 0 ? errno : ENOSPC);
    at += static_cast<std::uint64_t>(w);
    std::uint64_t left = static_cast<std::uint64_t>(w);
    while (i < iov.size() && left >= iov[i].iov_len) left -= iov[i++].iov_len;
    if (left > 0) {
      iov[i].iov_base = static_cast<char *>(iov[i].iov_base) + left;
      iov[i].iov_len -= left;
    }
  }
  return {};
}

}  // namespace gds::persist
