#include "core/log.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>

#include "core/runtime.hpp"

namespace gds::core {
namespace {

constexpr std::size_t kMessageSize = 1024;
char g_last_error[kMessageSize + 128] = "";

const char *level_name(Level level) {
  switch (level) {
    case Level::error: return "ERROR";
    case Level::warning: return "WARNING";
    case Level::notice: return "NOTICE";
    case Level::info: return "INFO";
    case Level::debug: return "DEBUG";
  }
  return "?";
}

void vformat(char *out, std::size_t size, const char *fmt, va_list ap) {
  int n = std::vsnprintf(out, size, fmt, ap);
  if (n < 0) std::snprintf(out, size, "(unprintable message)");
}

void emit(Level level, const char *func, const char *text) {
  char line[kMessageSize + 128];
  int rank = g_rt.world_rank;
  if (rank >= 0)
    std::snprintf(line, sizeof line, "GDS %s %s: rank %d: %s: %s\n", GDS_VERSION_STRING,
                  level_name(level), rank, func, text);
  else
    std::snprintf(line, sizeof line, "GDS %s %s: rank ?: %s: %s\n", GDS_VERSION_STRING,
                  level_name(level), func, text);
  std::fputs(line, stderr);
  std::fflush(stderr);
}

GDS_status_t record(GDS_status_t status, const char *func, bool print, const char *fmt,
                    va_list ap) {
  char text[kMessageSize];
  vformat(text, sizeof text, fmt, ap);
  std::snprintf(g_last_error, sizeof g_last_error, "%s: %s", func, text);
  if (print) emit(Level::error, func, text);
  return status;
}

}  // namespace

int debug_level() { return g_rt.config.debug_level; }

void log(Level level, const char *func, const char *fmt, ...) {
  char text[kMessageSize];
  va_list ap;
  va_start(ap, fmt);
  vformat(text, sizeof text, fmt, ap);
  va_end(ap);
  // What went well (a restart, files cleaned up) is said at GDS_DEBUG_LEVEL >= 1
  // or with GDS_SHOW_INFO; level 0 keeps to failures, warnings and notices.
  if (level == Level::info && g_rt.config.debug_level < 1 && !g_rt.config.show_info) return;
  emit(level, func, text);
}

GDS_status_t fail(GDS_status_t status, const char *func, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(status, func, g_rt.config.debug_level >= 1, fmt, ap);
  va_end(ap);
  return status;
}

GDS_status_t fail_critical(GDS_status_t status, const char *func, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(status, func, true, fmt, ap);
  va_end(ap);
  return status;
}

GDS_status_t exception_status(const char *func) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc &) {
    return fail_critical(GDS_STATUS_NOMEM, func, "out of memory");
  } catch (const std::length_error &e) {
    return fail_critical(GDS_STATUS_NOMEM, func, "a size no allocation can have (%s)", e.what());
  } catch (const std::exception &e) {
    return fail_critical(GDS_STATUS_INTERNAL, func, "unexpected exception: %s", e.what());
  } catch (...) {
    return fail_critical(GDS_STATUS_INTERNAL, func, "unexpected exception");
  }
}

namespace {
int g_last_mpi_error_class = MPI_SUCCESS;
}

int last_mpi_error_class() { return g_last_mpi_error_class; }

void note_mpi_error(int rc) {
  if (MPI_Error_class(rc, &g_last_mpi_error_class) != MPI_SUCCESS) g_last_mpi_error_class = MPI_ERR_OTHER;
}

GDS_status_t mpi_fail(const char *func, const char *mpi_call, int rc) {
  note_mpi_error(rc);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) std::snprintf(text, sizeof text, "code %d", rc);
  // Name only the MPI function, not its arguments.
  char name[64];
  std::size_t n = std::strcspn(mpi_call, "(");
  if (n >= sizeof name) n = sizeof name - 1;
  std::memcpy(name, mpi_call, n);
  name[n] = '\0';
  return fail_critical(GDS_STATUS_MPI_ERROR, func, "%s failed: %s", name, text);
}

}  // namespace gds::core

extern "C" GDS_API const char *GDS_last_error_message(void) { return gds::core::g_last_error; }
