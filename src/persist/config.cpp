// Settings of the cache level for every array. GVR 1.0 programs configured
// persistence through SCR (manual 1.4.3), so SCR's variables are honoured:
//   GDS_COPY_TYPE  SCR_COPY_TYPE   SINGLE (SCR's LOCAL), PARTNER, XOR; NONE: memory only
//   GDS_CACHE_BASE SCR_CACHE_BASE  the node-local directory
//   GDS_SET_SIZE   SCR_SET_SIZE    XOR set size
//   GDS_CACHE_SIZE SCR_CACHE_SIZE  versions the cache keeps
//   GDS_JOB_ID     SCR_JOB_ID      the job, which restart looks for
//   GDS_CACHE_EVERY FLUSH_to_SCR   every n-th version goes to the cache (GVR's
//                                  "frequency to flush data to SCR")
//   GDS_PREFIX     SCR_PREFIX      the global directory of the HDF5 flushes
//   GDS_FLUSH      SCR_FLUSH       every n-th version is flushed; SCR_FLUSH
//                                  counts cached versions (SCR's checkpoints),
//                                  so it is multiplied by the cache's every
//   GDS_PREFIX_SIZE SCR_PREFIX_SIZE flushed versions kept per array
//   GDS_FLUSH_INFLIGHT, GDS_RESTART, GDS_CACHE_SYNC (GDS only)
// A GDS_* variable wins over its SCR_* twin, which wins over the same
// SCR_* (or GDS_*) key in the KEY=VALUE lines of $SCR_CONF_FILE.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/log.hpp"
#include "core/mpi_args.hpp"
#include "persist/state.hpp"

namespace gds::persist {

Settings g_settings;

namespace {

std::string upper(std::string s) {
  for (char &c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return s;
}

std::string trim(const std::string &s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// The KEY=VALUE lines of $SCR_CONF_FILE ('#' starts a comment; other forms,
// such as SCR's multi-key descriptor lines, are skipped).
std::map<std::string, std::string> conf_file(std::string *error) {
  std::map<std::string, std::string> kv;
  const char *path = std::getenv("SCR_CONF_FILE");
  if (path == nullptr || *path == '\0') return kv;
  std::ifstream in(path);
  if (!in) {
    *error = std::string("SCR_CONF_FILE=") + path + " cannot be read";
    return kv;
  }
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line.substr(0, line.find('#')));
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = upper(trim(line.substr(0, eq))), value = trim(line.substr(eq + 1));
    if (key.empty() || value.empty() || value.find_first_of(" \t") != std::string::npos) continue;
    kv[key] = value;
  }
  return kv;
}

// The value of a setting: GDS_<name>, else SCR_<name> (if SCR has one), from
// the environment, then from the configuration file; and where it came from.
std::optional<std::string> setting(const std::map<std::string, std::string> &conf, const std::string &name,
                                   bool scr_too, std::string *from) {
  std::vector<std::string> vars{"GDS_" + name};
  if (scr_too) vars.push_back("SCR_" + name);
  for (const std::string &var : vars) {
    if (const char *v = std::getenv(var.c_str()); v != nullptr && *v != '\0') {
      *from = var;
      return std::string(v);
    }
  }
  for (const std::string &var : vars) {
    if (auto it = conf.find(var); it != conf.end()) {
      *from = var + " (SCR_CONF_FILE)";
      return it->second;
    }
  }
  return std::nullopt;
}

bool directory(const std::string &path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && ::access(path.c_str(), W_OK | X_OK) == 0;
}

}  // namespace

const char *copy_name(Copy c) {
  switch (c) {
    case Copy::none: return "NONE";
    case Copy::single: return "SINGLE";
    case Copy::partner: return "PARTNER";
    case Copy::xor_: return "XOR";
  }
  return "?";
}

std::optional<Copy> parse_copy(const std::string &text) {
  const std::string t = upper(text);
  if (t == "NONE" || t == "MEMORY") return Copy::none;
  if (t == "SINGLE" || t == "LOCAL") return Copy::single;
  if (t == "PARTNER") return Copy::partner;
  if (t == "XOR") return Copy::xor_;
  return std::nullopt;
}

// (A flat list of the settings, one block each, in the order of Settings.)
void read_settings() {
  Settings s;
  std::string error;
  const std::map<std::string, std::string> conf = conf_file(&error);
  std::string from;
  const auto bad = [&](const std::string &what) {
    if (error.empty()) error = what;
  };
  if (auto v = setting(conf, "COPY_TYPE", true, &from)) {
    if (auto c = parse_copy(*v)) {
      s.copy = *c;
      s.copy_given = true;
    } else {
      bad(from + "=" + *v + " is not SINGLE (or LOCAL), PARTNER, XOR or NONE");
    }
  }
  if (auto v = setting(conf, "CACHE_BASE", true, &from)) {
    s.base = *v;
    if (!s.copy_given) s.copy = Copy::xor_;  // SCR's default copy type; a single group gets SINGLE (open_cache)
  } else {
    const char *tmp = std::getenv("TMPDIR");
    s.base = directory("/dev/shm") ? "/dev/shm" : tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  const auto number = [&](const char *name, bool scr_too, std::uint64_t min, std::uint64_t *out, bool *given) {
    if (auto v = setting(conf, name, scr_too, &from)) {
      const std::optional<std::uint64_t> n = core::parse_unsigned(v->c_str(), 1u << 30);
      if (n && *n >= min) {
        *out = *n;
        if (given != nullptr) *given = true;
      } else {
        bad(from + "=" + *v + " is not a whole number from " + std::to_string(min) + " to 2^30");
      }
    }
  };
  number("SET_SIZE", true, 2, &s.set_size, &s.set_size_given);
  number("CACHE_SIZE", true, 1, &s.cache_size, nullptr);
  number("CACHE_EVERY", false, 1, &s.every, nullptr);
  if (std::getenv("GDS_CACHE_EVERY") == nullptr && conf.count("GDS_CACHE_EVERY") == 0) {
    if (const char *v = std::getenv("FLUSH_to_SCR"); v != nullptr && *v != '\0') {
      const std::optional<std::uint64_t> n = core::parse_unsigned(v, 1u << 30);
      if (n && *n >= 1)
        s.every = *n;
      else
        bad(std::string("FLUSH_to_SCR=") + v + " is not a whole number from 1 to 2^30");
    }
  }
  if (auto v = setting(conf, "PREFIX", true, &from)) {
    s.prefix = *v;
    if (s.prefix[0] != '/') bad(from + "=" + *v + " is not an absolute path");
  }
  {
    std::uint64_t scr_flush = 0;
    number("FLUSH", false, 1, &s.flush, nullptr);
    if (std::getenv("GDS_FLUSH") == nullptr && conf.count("GDS_FLUSH") == 0) {
      std::string ignored;
      if (auto v = setting(conf, "FLUSH", true, &ignored)) {  // SCR_FLUSH (GDS_FLUSH is absent)
        const std::optional<std::uint64_t> n = core::parse_unsigned(v->c_str(), 1u << 30);
        if (n && *n >= 1) scr_flush = *n;
        else bad(ignored + "=" + *v + " is not a whole number from 1 to 2^30");
      }
      if (scr_flush > 0) s.flush = scr_flush * s.every;
    }
  }
  number("PREFIX_SIZE", true, 1, &s.prefix_size, nullptr);
  number("FLUSH_INFLIGHT", false, 1, &s.inflight, nullptr);
  if (auto v = setting(conf, "JOB_ID", true, &from)) {
    s.job = *v;
    s.job_given = true;
  }
  if (auto v = setting(conf, "CACHE_SYNC", false, &from)) {
    if (*v == "0" || *v == "1")
      s.sync = *v == "1";
    else
      bad(from + "=" + *v + " is not 0 or 1");
  }
  if (auto v = setting(conf, "RESTART", false, &from)) {
    if (*v == "0" || *v == "1")
      s.restart = *v == "1";
    else
      bad(from + "=" + *v + " is not 0 or 1");
  }
  for (const char c : s.job)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') || s.job[0] == '.') {
      bad("job id \"" + s.job + "\" may hold only letters, digits, '-', '_' and '.' (not first)");
      break;
    }
  if (s.job.empty() || s.job.size() > 128) bad("the job id must have 1 to 128 characters");
  s.error = error;
  g_settings = std::move(s);
}

}  // namespace gds::persist
