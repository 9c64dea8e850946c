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

namespace {

GDS_status_t io_fail(const char *func, const char *what, const std::string &path, int err) {
  return core::fail_critical(GDS_STATUS_IO_ERROR, func, "%s: %s: %s", path.c_str(), what, std::strerror(err));
}

// Up to IOV_MAX pieces per call, and whatever a short write left.
bool write_all(int fd, std::vector<iovec> pieces, int *err) {
  std::size_t i = 0;
  while (i < pieces.size()) {
    if (pieces[i].iov_len == 0) {
      ++i;
      continue;
    }
    const int n = static_cast<int>(std::min<std::size_t>(pieces.size() - i, 1024));
    const ssize_t w = ::writev(fd, &pieces[i], n);
    if (w < 0) {
      if (errno == EINTR) continue;
      *err = errno;
      return false;
    }
    auto left = static_cast<std::size_t>(w);
    while (i < pieces.size() && left >= pieces[i].iov_len) left -= pieces[i++].iov_len;
    if (left > 0) {
      pieces[i].iov_base = static_cast<char *>(pieces[i].iov_base) + left;
      pieces[i].iov_len -= left;
    }
  }
  return true;
}

}  // namespace

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

GDS_status_t make_dirs(const char *func, const std::string &path) {
  std::string partial;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    partial = path.substr(0, pos);
    if (partial.empty()) continue;
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) return io_fail(func, "cannot create", partial, errno);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return io_fail(func, "cannot create", path, errno);
  if (!S_ISDIR(st.st_mode)) return io_fail(func, "is not a directory", path, ENOTDIR);
  return GDS_STATUS_OK;
}

namespace {

// Writes the pieces from offset 0 of the open file and cuts it after
// them; false with the errno in *err.
bool write_cut(int fd, const std::vector<iovec> &pieces, int *err) {
  std::uint64_t total = 0;
  for (const iovec &p : pieces) total += p.iov_len;
  if (!write_all(fd, pieces, err)) return false;
  if (::ftruncate(fd, static_cast<off_t>(total)) == 0) return true;
  *err = errno;
  return false;
}

// Writes the pieces from offset 0 of the open file and cuts it after them.
GDS_status_t fill(const char *func, File f, const std::string &path, const std::vector<iovec> &pieces) {
  int err = 0;
  if (!write_cut(f.get(), pieces, &err)) {
    remove_file(path);  // what a full disk left half-written
    return io_fail(func, "cannot write", path, err);
  }
  if (::fsync(f.get()) != 0) return io_fail(func, "cannot fsync", path, errno);
  return GDS_STATUS_OK;
}

}  // namespace

GDS_status_t write_file(const char *func, const std::string &path, const std::vector<iovec> &pieces) {
  File f(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!f.is_open()) return io_fail(func, "cannot create", path, errno);
  return fill(func, std::move(f), path, pieces);
}

GDS_status_t Writer::open(const char *func, const std::string &path) {
  path_ = path;
  f_ = File(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!f_.is_open()) return io_fail(func, "cannot create", path, errno);
  return GDS_STATUS_OK;
}

GDS_status_t Writer::write_at(const char *func, std::uint64_t offset, const std::byte *data, std::uint64_t n) {
  while (n > 0) {
    const ssize_t w = ::pwrite(f_.get(), data, std::min<std::uint64_t>(n, 1u << 30), static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return io_fail(func, "cannot write", path_, w < 0 ? errno : ENOSPC);
    data += w;
    offset += static_cast<std::uint64_t>(w);
    n -= static_cast<std::uint64_t>(w);
  }
  return GDS_STATUS_OK;
}

GDS_status_t Writer::finish(const char *func) {
  if (::fsync(f_.get()) != 0) return io_fail(func, "cannot fsync", path_, errno);
  f_ = File();
  return GDS_STATUS_OK;
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

GDS_status_t Spares::write(const char *func, const std::string &path, const std::vector<iovec> &pieces) {
  std::uint64_t total = 0;
  for (const iovec &p : pieces) total += p.iov_len;
  const std::size_t best = best_fit(total);
  if (best == pool_.size()) return write_file(func, path, pieces);
  const std::string spare = pool_[best].path;
  pool_.erase(pool_.begin() + static_cast<std::ptrdiff_t>(best));
  if (::rename(spare.c_str(), path.c_str()) != 0) {
    remove_file(spare);
    return write_file(func, path, pieces);
  }
  File f(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!f.is_open()) return io_fail(func, "cannot open", path, errno);
  return fill(func, std::move(f), path, pieces);
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

std::string store_file(const std::string &path, const std::vector<iovec> &pieces) {
  File f(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
  if (!f.is_open()) return path + ": cannot create: " + std::strerror(errno);
  int err = 0;
  bool ok = write_cut(f.get(), pieces, &err);
  if (ok && ::fsync(f.get()) != 0) {
    ok = false;
    err = errno;
  }
  if (ok) return "";
  remove_file(path);
  return path + ": cannot write: " + std::strerror(err);
}

std::string store_file_atomically(const std::string &dir, const std::string &path, const std::vector<iovec> &pieces) {
  const std::string tmp = path + ".tmp";
  if (std::string why = store_file(tmp, pieces); !why.empty()) return why;
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    remove_file(tmp);
    return path + ": cannot rename to it: " + std::strerror(err);
  }
  if (!fsync_dir(dir)) return dir + ": cannot fsync: " + std::strerror(errno);
  return "";
}

void Spares::clear() {
  for (const Spare &s : pool_) remove_file(s.path);
  pool_.clear();
}

GDS_status_t write_file_atomically(const char *func, const std::string &path, const std::vector<iovec> &pieces) {
  const std::string tmp = path + ".tmp";
  GDS_TRY(write_file(func, tmp, pieces));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    remove_file(tmp);
    return io_fail(func, "cannot rename to", path, err);
  }
  return GDS_STATUS_OK;
}

bool fsync_dir(const std::string &path) {
  File d(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  return d.is_open() && ::fsync(d.get()) == 0;
}

GDS_status_t sync_dir(const char *func, const std::string &path) {
  return fsync_dir(path) ? GDS_STATUS_OK : io_fail(func, "cannot fsync", path, errno);
}

namespace {

// Opens a regular file for reading and gives its size; false (and *missing
// if it does not exist) when it cannot.
bool open_regular(const std::string &path, File *f, std::size_t *size, bool *missing) {
  if (missing != nullptr) *missing = false;
  *f = File(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!f->is_open()) {
    if (missing != nullptr) *missing = errno == ENOENT;
    return false;
  }
  struct stat st {};
  if (::fstat(f->get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  *size = static_cast<std::size_t>(st.st_size);
  return true;
}

}  // namespace

bool read_file(const std::string &path, std::vector<std::byte> *out, bool *missing) {
  File f;
  std::size_t size = 0;
  if (!open_regular(path, &f, &size, missing)) return false;
  out->resize(size);
  std::size_t done = 0;
  while (done < out->size()) {
    const ssize_t r = ::read(f.get(), out->data() + done, std::min<std::size_t>(out->size() - done, 1u << 30));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<std::size_t>(r);
  }
  return true;
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

bool Mapped::open(const std::string &path, bool *missing) {
  *this = Mapped();
  File f;
  std::size_t size = 0;
  if (!open_regular(path, &f, &size, missing)) return false;
  if (size == 0) return true;  // empty: nothing to map
  // Populated at once: one call maps every page (rather than a fault per page).
  void *p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f.get(), 0);
  if (p == MAP_FAILED) return false;
  data_ = static_cast<const std::byte *>(p);
  size_ = size;
  return true;
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

bool pread_all(int fd, std::byte *p, std::uint64_t n, std::uint64_t at) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, std::min<std::uint64_t>(n, core::kMaxPiece), static_cast<off_t>(at));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::uint64_t>(r);
    at += static_cast<std::uint64_t>(r);
  }
  return true;
}

bool pwritev_all(int fd, std::vector<iovec> &iov, std::uint64_t at) {
  std::size_t i = 0;
  while (i < iov.size()) {
    const int count = static_cast<int>(std::min<std::size_t>(iov.size() - i, IOV_MAX));
    const ssize_t w = ::pwritev(fd, iov.data() + i, count, static_cast<off_t>(at));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    at += static_cast<std::uint64_t>(w);
    std::uint64_t left = static_cast<std::uint64_t>(w);
    while (i < iov.size() && left >= iov[i].iov_len) left -= iov[i++].iov_len;
    if (left > 0) {
      iov[i].iov_base = static_cast<char *>(iov[i].iov_base) + left;
      iov[i].iov_len -= left;
    }
  }
  return true;
}

}  // namespace gds::persist
