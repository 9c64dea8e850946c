// Files of the persistent levels: an owner for a file descriptor, and the
// few operations the levels need, each returning GDS_STATUS_IO_ERROR with
// the path and errno's text (and a message) when the system refuses.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gds_types.h"

namespace gds::persist {

class File {
 public:
  File() = default;
  explicit File(int fd) : fd_(fd) {}
  ~File();
  File(File &&o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  File &operator=(File &&o) noexcept;
  File(const File &) = delete;
  File &operator=(const File &) = delete;
  [[nodiscard]] int get() const { return fd_; }
  [[nodiscard]] bool is_open() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Creates `path` and its parents (mode 0700) if they do not exist.
GDS_status_t make_dirs(const char *func, const std::string &path);
// Writes the pieces to `path` (created or truncated) and fsyncs it.
GDS_status_t write_file(const char *func, const std::string &path, const std::vector<iovec> &pieces);
// As write_file, under `path`.tmp renamed to `path` once durable (readers see the old file or the whole new one).
GDS_status_t write_file_atomically(const char *func, const std::string &path, const std::vector<iovec> &pieces);
// fsyncs a directory, recording nothing (for the flush thread): false on failure, errno set.
bool fsync_dir(const std::string &path);
// fsyncs a directory (its entries: files created, renamed or removed in it).
GDS_status_t sync_dir(const char *func, const std::string &path);
// Writes the pieces at `at` (retrying short writes; the iovecs are used up); false on an error.
bool pwritev_all(int fd, std::vector<iovec> &iov, std::uint64_t at);
// Reads n bytes at `at` (retrying short reads); false on an error or end of file.
bool pread_all(int fd, std::byte *p, std::uint64_t n, std::uint64_t at);
// Reads a whole file; false (and *missing if it does not exist) when it cannot be read.
bool read_file(const std::string &path, std::vector<std::byte> *out, bool *missing = nullptr);
// A whole file mapped read-only (private): on a page-cache file system such
// as tmpfs its bytes are read where they are, with no copy and no new
// memory. (A file truncated by someone else while mapped would fault: the
// cache directories are GDS's own.)
class Mapped {
 public:
  Mapped() = default;
  ~Mapped();
  Mapped(Mapped &&o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr, o.size_ = 0; }
  Mapped &operator=(Mapped &&o) noexcept;
  Mapped(const Mapped &) = delete;
  Mapped &operator=(const Mapped &) = delete;
  // Maps the file; false (and *missing if it does not exist) when it cannot be.
  bool open(const std::string &path, bool *missing = nullptr);
  [[nodiscard]] std::span<const std::byte> bytes() const { return {data_, size_}; }

 private:
  const std::byte *data_ = nullptr;
  std::size_t size_ = 0;
};

// Removes a file if it exists (quietly: what is not there is fine).
void remove_file(const std::string &path);
// Names of the entries of a directory (none if it cannot be read).
std::vector<std::string> list_dir(const std::string &path);
// Whether `path` is a directory this process can create files in.
bool writable_dir(const std::string &path);

// A file written at offsets, piece by piece as its bytes arrive (created
// or truncated by open), then fsynced by finish.
class Writer {
 public:
  GDS_status_t open(const char *func, const std::string &path);
  GDS_status_t write_at(const char *func, std::uint64_t offset, const std::byte *data, std::uint64_t n);
  GDS_status_t finish(const char *func);

 private:
  File f_;
  std::string path_;
};

// The files of dropped versions, kept in a directory under spare names
// ("spare<k>") and written over by the next files instead of new ones: a
// file written over its own pages needs no page or block allocation, which
// on tmpfs is most of the cost of writing a new file (3x on the test
// machine). At most `limit` spares; restart and GDS_free remove them.
// write_file for threads other than the application's (it reports through
// its result, never core::fail): writes the pieces over whatever is at
// `path` (a claimed spare, or a new file), cuts it after them and fsyncs.
// "" or what failed (the file is removed then).
std::string store_file(const std::string &path, const std::vector<iovec> &pieces);
// The same, to path.tmp renamed to `path`; then the directory is fsynced.
std::string store_file_atomically(const std::string &dir, const std::string &path, const std::vector<iovec> &pieces);

class Spares {
 public:
  Spares(std::string dir, std::size_t limit) : dir_(std::move(dir)), limit_(limit) {}
  ~Spares() = default;
  Spares(const Spares &) = delete;
  Spares &operator=(const Spares &) = delete;
  // Moves the file at `path` into the pool, or removes it when the pool is full.
  void keep(const std::string &path);
  // As write_file, over a spare when there is one (the best fit).
  GDS_status_t write(const char *func, const std::string &path, const std::vector<iovec> &pieces);
  // Renames the spare that best fits a file of `bytes` to `path` (nothing
  // if there is none), for store_file to write over from another thread.
  void claim(const std::string &path, std::uint64_t bytes);
  // Removes every spare.
  void clear();

 private:
  [[nodiscard]] std::size_t best_fit(std::uint64_t total) const;
  struct Spare {
    std::string path;
    std::uint64_t bytes;
  };
  std::string dir_;
  std::size_t limit_;
  std::vector<Spare> pool_;
  std::uint64_t next_ = 0;
};

}  // namespace gds::persist
