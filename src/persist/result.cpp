#include "persist/result.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstring>

#include "core/log.hpp"

namespace gds::persist {

Result Result::io(const std::string &path, const char *doing, int err) {
  return Result(GDS_STATUS_IO_ERROR, path + ": " + doing + ": " + std::strerror(err));
}

Result Result::absent(const std::string &path) {
  Result r(GDS_STATUS_IO_ERROR, path + ": does not exist");
  r.missing_ = true;
  return r;
}

Result Result::mpi(const char *call, int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) std::snprintf(text, sizeof text, "code %d", rc);
  Result r(GDS_STATUS_MPI_ERROR, std::string(call) + " failed: " + text);
  r.mpi_rc_ = rc;
  return r;
}

Result Result::recorded(GDS_status_t status) {
  Result r(status, GDS_last_error_message());
  r.recorded_ = true;
  return r;
}

Result Result::within(const std::string &context) const {
  Result r = *this;
  r.what_ = context + ": " + what_;
  return r;
}

GDS_status_t Result::report(const char *func) const {
  if (ok() || recorded_) return status_;
  if (mpi_rc_ != 0) {
    core::note_mpi_error(mpi_rc_);  // the class of the error GDS raises
    return core::fail_critical(status_, func, "%s", what_.c_str());
  }
  switch (status_) {
    case GDS_STATUS_IO_ERROR:
    case GDS_STATUS_NOMEM:
    case GDS_STATUS_INTERNAL:
      return core::fail_critical(status_, func, "%s", what_.c_str());
    default:
      return core::fail(status_, func, "%s", what_.c_str());
  }
}

}  // namespace gds::persist
