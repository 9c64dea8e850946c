// Files of the persistent levels: an owner for a file descriptor, and the
// few operations the levels need, each returning GDS_STATUS_IO_ERROR with
// the path and errno's text (and a message) when the system refuses.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string>
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

// The last I/O failure's description ("<path>: <error>"), for the error GDS raises.
const std::string &last_io_error();

// Creates `path` and its parents (mode 0700) if they do not exist.
GDS_status_t make_dirs(const char *func, const std::string &path);
// Writes the pieces to `path` (created or truncated) and fsyncs it.
GDS_status_t write_file(const char *func, const std::string &path, const std::vector<iovec> &pieces);
// As write_file, under `path`.tmp renamed to `path` once durable (readers see the old file or the whole new one).
GDS_status_t write_file_atomically(const char *func, const std::string &path, const std::vector<iovec> &pieces);
// fsyncs a directory (its entries: files created, renamed or removed in it).
GDS_status_t sync_dir(const char *func, const std::string &path);
// Reads a whole file; false (and *missing if it does not exist) when it cannot be read.
bool read_file(const std::string &path, std::vector<std::byte> *out, bool *missing = nullptr);
// Removes a file if it exists (quietly: what is not there is fine).
void remove_file(const std::string &path);
// Names of the entries of a directory (none if it cannot be read).
std::vector<std::string> list_dir(const std::string &path);
// Whether `path` is a directory this process can create files in.
bool writable_dir(const std::string &path);

}  // namespace gds::persist
