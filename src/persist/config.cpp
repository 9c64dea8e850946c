// Settings of the cache level for every array. GVR 1.0 programs configured
// persistence through SCR (manual 1.4.3), so SCR's variables are honoured:
//   GDS_COPY_TYPE  SCR_COPY_TYPE   SINGLE (SCR's LOCAL), PARTNER, XOR, RS; NONE: memory only
//   GDS_CACHE_BASE SCR_CACHE_BASE  the node-local directory
//   GDS_SET_SIZE   SCR_SET_SIZE    XOR and RS set size
//   GDS_SET_FAILURES SCR_SET_FAILURES lost nodes an RS set survives
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
#include <sstream>
#include <string>
#include <vector>

#include "core/groups.hpp"
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

// One of SCR's descriptor lines (CKPT=0 TYPE=XOR SET_SIZE=8, STORE=/tmp
// COUNT=1, GROUPS=host1 POWER=psu1): its keys, upper case, in order.
using Descriptor = std::vector<std::pair<std::string, std::string>>;

// The lines of $SCR_CONF_FILE ('#' starts a comment): KEY=VALUE settings
// into *kv, SCR's descriptor lines (several KEY=VALUE words) into *descriptors.
Result conf_file(std::map<std::string, std::string> *kv, std::vector<Descriptor> *descriptors) {
  const char *path = std::getenv("SCR_CONF_FILE");
  if (path == nullptr || *path == '\0') return {};
  std::ifstream in(path);
  if (!in) return Result::failure(GDS_STATUS_INVALID, std::string("SCR_CONF_FILE=") + path + " cannot be read");
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line.substr(0, line.find('#')));
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = upper(trim(line.substr(0, eq))), value = trim(line.substr(eq + 1));
    if (key.empty() || value.empty()) continue;
    if (value.find_first_of(" \t") == std::string::npos) {
      (*kv)[key] = value;
      continue;
    }
    Descriptor d;  // KEY=VALUE words (an '=' with blanks around it is one word's)
    std::istringstream words(line);
    std::string w, pending;
    while (words >> w) {
      if (w == "=" || w.back() == '=' || (!pending.empty() && pending.back() == '=')) {
        pending += w;
        continue;
      }
      if (!pending.empty()) {
        const auto at = pending.find('=');
        if (at != std::string::npos) d.emplace_back(upper(pending.substr(0, at)), pending.substr(at + 1));
      }
      pending = w;
    }
    if (const auto at = pending.find('='); !pending.empty() && at != std::string::npos)
      d.emplace_back(upper(pending.substr(0, at)), pending.substr(at + 1));
    if (!d.empty()) descriptors->push_back(std::move(d));
  }
  return {};
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
    case Copy::rs: return "RS";
  }
  return "?";
}

std::optional<Copy> parse_copy(const std::string &text) {
  const std::string t = upper(text);
  if (t == "NONE" || t == "MEMORY") return Copy::none;
  if (t == "SINGLE" || t == "LOCAL") return Copy::single;
  if (t == "PARTNER") return Copy::partner;
  if (t == "XOR") return Copy::xor_;
  if (t == "RS") return Copy::rs;
  return std::nullopt;
}

namespace {

// Reads the settings from the environment and the configuration file; the
// first bad one is kept (refused at GDS_alloc/GDS_create).
class Reader {
 public:
  explicit Reader(Settings *s) : s_(*s) { error_ = conf_file(&conf_, &descriptors_); }
  Result error() const { return error_; }
  const std::map<std::string, std::string> &conf() const { return conf_; }
  const std::vector<Descriptor> &descriptors() const { return descriptors_; }

  std::optional<std::string> get(const char *name, bool scr_too) { return setting(conf_, name, scr_too, &from_); }
  bool given(const char *variable) const { return std::getenv(variable) != nullptr || conf_.count(variable) != 0; }
  void bad(const std::string &what) {
    if (error_.ok()) error_ = Result::failure(GDS_STATUS_INVALID, what);
  }
  void number(const char *name, bool scr_too, std::uint64_t min, std::uint64_t *out, bool *given = nullptr) {
    if (auto v = get(name, scr_too)) {
      if (const std::optional<std::uint64_t> n = whole(*v, min)) {
        *out = *n;
        if (given != nullptr) *given = true;
      } else {
        bad(from_ + "=" + *v + " is not a whole number from " + std::to_string(min) + " to 2^30");
      }
    }
  }
  void flag(const char *name, bool *out) {
    if (auto v = get(name, false)) {
      if (*v == "0" || *v == "1") *out = *v == "1";
      else bad(from_ + "=" + *v + " is not 0 or 1");
    }
  }
  static std::optional<std::uint64_t> whole(const std::string &v, std::uint64_t min) {
    const std::optional<std::uint64_t> n = core::parse_unsigned(v.c_str(), 1u << 30);
    return n && *n >= min ? n : std::nullopt;
  }
  const std::string &from() const { return from_; }
  Settings &s_;

 private:
  std::map<std::string, std::string> conf_;
  std::vector<Descriptor> descriptors_;
  std::string from_;
  Result error_;
};

// A setting that is 0 or 1, SCR's or GDS's (*out untouched if absent).
void boolean(Reader &r, const char *name, bool *out) {
  if (auto v = r.get(name, true)) {
    if (*v == "0" || *v == "1") *out = *v == "1";
    else r.bad(r.from() + "=" + *v + " is not 0 or 1");
  }
}

// SCR_COPY_TYPE=FILE: the checkpoint descriptor SCR applies at every
// checkpoint (INTERVAL=1, or none given) gives the copy type, set size and
// store; descriptors at other intervals are said (GDS caches every version
// alike), and so are STORE and GROUPS descriptors whatever the copy type.
void descriptors(Reader &r) {
  Settings &s = r.s_;
  bool file = s.copy_file;
  const Descriptor *every = nullptr;
  for (const Descriptor &d : r.descriptors()) {
    const std::string &kind = d.front().first;
    std::string text;
    for (const auto &[k, v] : d) text += (text.empty() ? "" : " ") + k + "=" + v;
    if (kind == "CKPT") {
      std::string interval = "1";
      for (const auto &[k, v] : d)
        if (k == "INTERVAL") interval = v;
      if (file && interval == "1" && every == nullptr) every = &d;
      else if (file) s.notes.push_back(text + " (SCR_CONF_FILE): not applied: GDS caches every version (GDS_CACHE_EVERY) "
                                       "with one copy type, the descriptor of INTERVAL=1's");
    } else if (kind == "STORE") {
      s.notes.push_back(text + " (SCR_CONF_FILE): not applied: GDS's cache is GDS_CACHE_BASE (SCR_CACHE_BASE), "
                        "holding GDS_CACHE_SIZE versions; its prefix is GDS_PREFIX");
    } else if (kind == "GROUPS") {
      s.notes.push_back(text + " (SCR_CONF_FILE): not applied: GDS's failure groups are the nodes (GDS_NODE_ID sets "
                        "them per process)");
    }
  }
  if (!file) return;
  if (every == nullptr) {
    r.bad("SCR_COPY_TYPE=FILE but SCR_CONF_FILE has no checkpoint descriptor of INTERVAL=1 (CKPT=0 TYPE=...)");
    return;
  }
  for (const auto &[k, v] : *every) {
    if (k == "TYPE") {
      if (const std::optional<Copy> c = parse_copy(v)) s.copy = *c;
      else r.bad("SCR_CONF_FILE: CKPT ... TYPE=" + v + " is not SINGLE (or LOCAL), PARTNER, XOR or RS");
    } else if (k == "SET_SIZE") {
      if (const std::optional<std::uint64_t> n = Reader::whole(v, 2)) s.set_size = *n, s.set_size_given = true;
      else r.bad("SCR_CONF_FILE: CKPT ... SET_SIZE=" + v + " is not a whole number from 2 to 2^30");
    } else if (k == "SET_FAILURES") {
      if (const std::optional<std::uint64_t> n = Reader::whole(v, 1)) s.set_failures = *n, s.set_failures_given = true;
      else r.bad("SCR_CONF_FILE: CKPT ... SET_FAILURES=" + v + " is not a whole number from 1 to 2^30");
    } else if (k == "STORE") {
      s.base = v;
    } else if (k != "CKPT" && k != "INTERVAL" && k != "GROUP" && k != "OUTPUT") {
      s.notes.push_back("SCR_CONF_FILE: CKPT ... " + k + "=" + v + ": not applied");
    }
  }
}

// The cache's settings: copy type, base, set and cache sizes, every, writes.
void read_cache(Reader &r) {
  Settings &s = r.s_;
  if (auto v = r.get("COPY_TYPE", true)) {
    if (auto c = parse_copy(*v)) {
      s.copy = *c;
      s.copy_given = true;
    } else if (upper(*v) == "FILE" && r.from().rfind("SCR_", 0) == 0) {
      s.copy_file = s.copy_given = true;  // SCR_CONF_FILE's checkpoint descriptor says (descriptors())
    } else {
      r.bad(r.from() + "=" + *v + " is not SINGLE (or LOCAL), PARTNER, XOR, RS or NONE" +
            (r.from().rfind("SCR_", 0) == 0 ? " (or FILE: SCR_CONF_FILE's checkpoint descriptors)" : ""));
    }
  }
  if (auto v = r.get("CACHE_BASE", true)) {
    s.base = *v;
    if (!s.copy_given) s.copy = Copy::xor_;  // SCR's default copy type; a single group gets SINGLE (open_cache)
  } else {
    const char *tmp = std::getenv("TMPDIR");
    s.base = directory("/dev/shm") ? "/dev/shm" : tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  r.number("SET_SIZE", true, 2, &s.set_size, &s.set_size_given);
  r.number("SET_FAILURES", true, 1, &s.set_failures, &s.set_failures_given);
  if (s.set_failures > 254)
    r.bad(r.from() + "=" + std::to_string(s.set_failures) + ": an RS set survives at most 254 lost nodes");
  else if (s.set_failures_given && s.copy_given && !s.copy_file && s.copy != Copy::rs)
    s.notes.push_back(r.from() + "=" + std::to_string(s.set_failures) + ": not applied: copy type " +
                      copy_name(s.copy) + " rebuilds " + (s.copy == Copy::partner || s.copy == Copy::xor_ ? "one" : "no") +
                      " lost node per set (GDS_COPY_TYPE=RS survives SET_FAILURES)");
  r.number("CACHE_SIZE", true, 1, &s.cache_size);
  r.number("CACHE_EVERY", false, 1, &s.every);
  if (!r.given("GDS_CACHE_EVERY")) {
    if (const char *v = std::getenv("FLUSH_to_SCR"); v != nullptr && *v != '\0') {
      if (const std::optional<std::uint64_t> n = Reader::whole(v, 1)) s.every = *n;
      else r.bad(std::string("FLUSH_to_SCR=") + v + " is not a whole number from 1 to 2^30");
    }
  }
  r.flag("CACHE_SYNC", &s.sync);
}

// The prefix's settings: the directory, every, how many kept and in flight.
void read_prefix(Reader &r) {
  Settings &s = r.s_;
  if (auto v = r.get("PREFIX", true)) {
    s.prefix = *v;
    if (s.prefix[0] != '/') r.bad(r.from() + "=" + *v + " is not an absolute path");
  }
  r.number("FLUSH", false, 0, &s.flush);  // 0: no periodic flush
  if (!r.given("GDS_FLUSH")) {
    if (auto v = r.get("FLUSH", true)) {  // SCR_FLUSH (GDS_FLUSH is absent): in cached versions; 0: none
      if (const std::optional<std::uint64_t> n = Reader::whole(*v, 0)) s.flush = *n * s.every;
      else r.bad(r.from() + "=" + *v + " is not a whole number from 0 to 2^30");
    }
  }
  r.number("PREFIX_SIZE", true, 1, &s.prefix_size);
  r.number("FLUSH_INFLIGHT", false, 1, &s.inflight);
}

// The job: its id and whether it restarts.
void read_job(Reader &r) {
  Settings &s = r.s_;
  if (auto v = r.get("JOB_ID", true)) {
    s.job = *v;
    s.job_given = true;
  }
  // SCR's restart: SCR_FETCH=0 reads nothing from the prefix; SCR_DISTRIBUTE=0
  // and SCR_CACHE_PURGE=1 restart nothing from the cache (it is cleared);
  // SCR_FLUSH_ON_RESTART=1 (and SCR_GLOBAL_RESTART=1) flush the version restarted.
  boolean(r, "FETCH", &s.fetch);
  boolean(r, "DISTRIBUTE", &s.distribute);
  boolean(r, "CACHE_PURGE", &s.purge);
  boolean(r, "FLUSH_ON_RESTART", &s.flush_on_restart);
  bool global = false;
  boolean(r, "GLOBAL_RESTART", &global);
  s.flush_on_restart = s.flush_on_restart || global;
  if (auto v = r.get("RESTART", false)) {
    if (*v == "0" || *v == "1") s.restart = *v == "1";
    else r.bad(r.from() + "=" + *v + " is not 0 or 1");
  }
  for (const char c : s.job)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') || s.job[0] == '.') {
      r.bad("job id \"" + s.job + "\" may hold only letters, digits, '-', '_' and '.' (not first)");
      break;
    }
  if (s.job.empty() || s.job.size() > 128) r.bad("the job id must have 1 to 128 characters");
}

}  // namespace

std::string expand_base(const std::string &base) {
  static const std::string kNode = "{node}";
  std::string out = base;
  for (std::size_t at = out.find(kNode); at != std::string::npos; at = out.find(kNode, at)) {
    out.replace(at, kNode.size(), core::failure_groups().node);
    at += core::failure_groups().node.size();
  }
  return out;
}

// SCR_ENABLE=0 (SCR off: the program writes its own checkpoints): no cache
// and no prefix, unless a GDS variable asks for them.
void read_enable(Reader &r) {
  Settings &s = r.s_;
  bool enabled = true;
  boolean(r, "ENABLE", &enabled);
  if (enabled) return;
  if (!r.given("GDS_COPY_TYPE") && !r.given("GDS_CACHE_BASE")) s.copy = Copy::none, s.copy_given = true;
  if (!r.given("GDS_PREFIX")) s.prefix.clear();
  s.notes.push_back(r.from() + "=0: versions are kept in memory only" +
                    std::string(s.copy != Copy::none || !s.prefix.empty() ? " but where GDS_* variables ask" : ""));
}

void read_settings() {
  Settings s;
  Reader r(&s);
  read_cache(r);
  read_prefix(r);
  read_job(r);
  descriptors(r);
  read_enable(r);
  const std::vector<std::string> notes = scr_notes(r.conf());
  s.notes.insert(s.notes.end(), notes.begin(), notes.end());
  s.error = r.error();
  g_settings = std::move(s);
}

}  // namespace gds::persist
