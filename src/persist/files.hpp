// Files of the persistent levels: an owner for a file descriptor, and the
// few operations the levels need, each returning a Result (the path and
// errno's text when the system refuses). None records anything, so every
// one of them runs on the background threads too.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gds_types.h"
#include "persist/result.hpp"

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
Result make_dirs(const std::string &path);
// Writes the pieces to `path` from its start (created if need be; an
// existing file, such as a claimed spare, is written over, which on tmpfs
// needs no new pages) and cuts it after them, then fsyncs it. A file a
// failed write left is removed.
Result write_file(const std::string &path, const std::vector<iovec> &pieces);
// As write_file, under `path`.tmp renamed to `path` once durable (readers
// see the old file or the whole new one); the caller syncs the directory.
Result write_file_atomically(const std::string &path, const std::vector<iovec> &pieces);
// fsyncs a directory (its entries: files created, renamed or removed in it).
Result sync_dir(const std::string &path);
// Writes the pieces at `at` of the open file `path` (retrying short writes; the iovecs are used up).
Result pwritev_all(int fd, const std::string &path, std::vector<iovec> &iov, std::uint64_t at);
// Reads n bytes at `at` of the open file `path` (retrying short reads; its end is a failure).
Result pread_all(int fd, const std::string &path, std::byte *p, std::uint64_t n, std::uint64_t at);
// Reads a whole file (missing() if it does not exist).
Result read_file(const std::string &path, std::vector<std::byte> *out);
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
  // Maps the file (missing() if it does not exist).
  Result open(const std::string &path);
  [[nodiscard]] std::span<const std::byte> bytes() const { return {data_, size_}; }

 private:
  const std::byte *data_ = nullptr;
  std::size_t size_ = 0;
};

// Copies the file `from` to `to` (created or written over, its mode 0600),
// in the kernel where it can (copy_file_range), then fsyncs it; *bytes: how
// many. A copy cut short is removed.
Result copy_file(const std::string &from, const std::string &to, std::uint64_t *bytes = nullptr);
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
  Result open(const std::string &path);
  Result write_at(std::uint64_t offset, const std::byte *data, std::uint64_t n);
  Result finish();

 private:
  File f_;
  std::string path_;
};

// The files of dropped versions, kept in a directory under spare names
// ("spare<k>") and written over by the next files instead of new ones: a
// file written over its own pages needs no page or block allocation, which
// on tmpfs is most of the cost of writing a new file (3x on the test
// machine). At most `limit` spares; restart and GDS_free remove them.
class Spares {
 public:
  Spares(std::string dir, std::size_t limit) : dir_(std::move(dir)), limit_(limit) {}
  ~Spares() = default;
  Spares(const Spares &) = delete;
  Spares &operator=(const Spares &) = delete;
  // Moves the file at `path` into the pool, or removes it when the pool is full.
  void keep(const std::string &path);
  // Renames the spare that best fits a file of `bytes` to `path` (nothing
  // if there is none), for write_file to write over, on any thread.
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
