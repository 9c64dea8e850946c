// Capturing what a test's process writes to stderr (GDS's warnings go there).
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace gds::test {

// Redirects this process's stderr to a file while alive; text() stops and returns it.
class CaptureStderr {
 public:
  CaptureStderr() {
    std::fflush(stderr);
    saved_ = dup(2);
    char path[] = "/tmp/gds-stderr-XXXXXX";
    fd_ = mkstemp(path);
    path_ = path;
    dup2(fd_, 2);
  }
  ~CaptureStderr() { text(); }
  std::string text() {
    if (fd_ >= 0) {
      std::fflush(stderr);
      dup2(saved_, 2);
      close(saved_);
      close(fd_);
      fd_ = -1;
      std::ifstream in(path_);
      std::stringstream ss;
      ss << in.rdbuf();
      text_ = ss.str();
      unlink(path_.c_str());
    }
    return text_;
  }

 private:
  int saved_ = -1, fd_ = -1;
  std::string path_, text_;
};

}  // namespace gds::test
