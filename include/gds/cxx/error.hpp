/// \file error.hpp
/// \brief gds::error: the exception every GDS C++ call throws on failure.
#ifndef GDS_CXX_ERROR_HPP
#define GDS_CXX_ERROR_HPP

#include <stdexcept>
#include <string>

#include "../gds.h"

namespace gds {

/// A failed GDS call: status() is the GDS_status_t, what() the message.
class error : public std::runtime_error {
 public:
  /// An error with GDS status `status` and the message what() returns.
  error(GDS_status_t status, const std::string &message)
      : std::runtime_error(message.empty() ? std::string(GDS_status_string(status)) : message),
        status_(status) {}
  /// The GDS status the failed call returned.
  [[nodiscard]] GDS_status_t status() const noexcept { return status_; }

 private:
  GDS_status_t status_;
};

namespace detail {

/// Throws gds::error for any status but GDS_STATUS_OK.
inline void check(GDS_status_t status) {
  if (status != GDS_STATUS_OK) [[unlikely]]
    throw error(status, GDS_last_error_message());
}

/// Throws gds::error with a message of the C++ layer's own.
[[noreturn]] inline void raise(GDS_status_t status, const std::string &message) {
  throw error(status, message);
}

}  // namespace detail
}  // namespace gds

#endif  // GDS_CXX_ERROR_HPP
