// What a step of the persistent levels did: it succeeded, or it failed
// with a status and what failed (a path and the system's reason, a record
// that does not parse, an MPI call). The one way persist says so: reading
// and writing files, parsing what was read, a redundancy scheme's steps and
// the background threads' jobs all return a Result.
//
// A Result records nothing where it is made (background threads must not
// touch the error state of the application's thread). The application's
// thread reports it once, where the persist module hands a status to the
// rest of GDS: report() records its message for GDS_last_error_message()
// and returns its status.
#pragma once

#include <string>
#include <utility>

#include "gds_types.h"

namespace gds::persist {

class [[nodiscard]] Result {
 public:
  Result() = default;  // success
  // A failure with its status and message ("<path>: <what went wrong>").
  static Result failure(GDS_status_t status, std::string what) { return Result(status, std::move(what)); }
  // GDS_STATUS_IO_ERROR: "<path>: <doing>: <errno's text>".
  static Result io(const std::string &path, const char *doing, int err);
  // GDS_STATUS_IO_ERROR for a file that does not exist (missing() is true).
  static Result absent(const std::string &path);
  // GDS_STATUS_CORRUPT: what a file says cannot be right.
  static Result corrupt(std::string what) { return Result(GDS_STATUS_CORRUPT, std::move(what)); }
  // GDS_STATUS_NOMEM.
  static Result nomem(std::string what) { return Result(GDS_STATUS_NOMEM, std::move(what)); }
  // GDS_STATUS_MPI_ERROR: `call` returned rc (MPI's text for it in the message).
  static Result mpi(const char *call, int rc);
  // The status and message GDS recorded last (for a lower module's failure,
  // whose message is recorded already).
  static Result recorded(GDS_status_t status);

  [[nodiscard]] bool ok() const { return status_ == GDS_STATUS_OK; }
  [[nodiscard]] bool missing() const { return missing_; }
  [[nodiscard]] GDS_status_t status() const { return status_; }
  [[nodiscard]] const std::string &what() const { return what_; }
  // The same failure said of something larger ("<context>: <what>").
  [[nodiscard]] Result within(const std::string &context) const;

  // On the application's thread: records the message (always printed for
  // the system's failures: files, memory, MPI) and returns the status; OK
  // for a success.
  GDS_status_t report(const char *func) const;

 private:
  Result(GDS_status_t status, std::string what) : status_(status), what_(std::move(what)) {}
  GDS_status_t status_ = GDS_STATUS_OK;
  std::string what_;
  bool missing_ = false;
  int mpi_rc_ = 0;  // for report(): the MPI error class GDS raises with
  bool recorded_ = false;
};

// Returns the Result of `expr` from the calling function if it failed.
#define PERSIST_TRY(expr)                          \
  do {                                             \
    ::gds::persist::Result persist_try_ = (expr);  \
    if (!persist_try_.ok()) [[unlikely]]           \
      return persist_try_;                         \
  } while (0)

}  // namespace gds::persist
