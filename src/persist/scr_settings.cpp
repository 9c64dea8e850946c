// SCR's settings as job scripts written for SCR set them (SCR 1.1 to 3.1:
// its environment variables and SCR_CONF_FILE's keys). Each either takes
// SCR's meaning in GDS or, where GDS does something else, is said in one
// line at GDS_init naming what GDS does instead; a name SCR never had is
// warned about (a typo). docs/configuration.md#scrs-settings has the table.
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "persist/state.hpp"

extern char **environ;

namespace gds::persist {

namespace {

// What GDS does with an SCR setting.
enum class Meaning {
  taken,     // read with SCR's meaning (config.cpp, halt.cpp, versions' guidance, core's debug level)
  launcher,  // gds-run reads it with SCR's meaning (scr_srun's)
  script,    // set by SCR's own scripts for its library: nothing for a job script to mean
  note,      // GDS does otherwise: said, unless the value is `same` (what GDS does anyway)
};

struct ScrSetting {
  const char *name;  // without SCR_
  Meaning meaning;
  const char *same;     // note: the values GDS behaves as ("a|b"; nullptr: none)
  const char *instead;  // note: what GDS does
};

constexpr const char *kLogs = "GDS writes no SCR log: its messages go to stderr (GDS_DEBUG_LEVEL) and its costs to "
                              "GDS_get_costs (GDS_PRINT_COSTS=1)";
constexpr const char *kCrc = "GDS checksums every block of every version at every level, always";

constexpr ScrSetting kScr[] = {
    {"AXL_MKDIR", Meaning::note, nullptr, "GDS makes its own directories"},
    {"CACHE_BASE", Meaning::taken, nullptr, nullptr},
    {"CACHE_BYPASS", Meaning::note, "0",
     "GDS keeps versions in the node-local cache (GDS_COPY_TYPE); to write every version to the prefix instead, set "
     "GDS_COPY_TYPE=NONE and GDS_FLUSH=1"},
    {"CACHE_PURGE", Meaning::taken, nullptr, nullptr},
    {"CACHE_SIZE", Meaning::taken, nullptr, nullptr},
    {"CHECKPOINT_DIR_PATTERN", Meaning::note, nullptr, "GDS versions arrays, not files"},
    {"CHECKPOINT_INTERVAL", Meaning::taken, nullptr, nullptr},
    {"CHECKPOINT_OVERHEAD", Meaning::taken, nullptr, nullptr},
    {"CHECKPOINT_PATTERN", Meaning::note, nullptr, "GDS versions arrays, not files"},
    {"CHECKPOINT_PATTERN_TOKEN", Meaning::note, nullptr, "GDS versions arrays, not files"},
    {"CHECKPOINT_SECONDS", Meaning::taken, nullptr, nullptr},
    {"CLUSTER_NAME", Meaning::note, nullptr, kLogs},
    {"CNTL_BASE", Meaning::note, nullptr, "GDS keeps its metadata beside the files, in the cache directory"},
    {"CONF_FILE", Meaning::taken, nullptr, nullptr},
    {"CONTAINER_SIZE", Meaning::note, nullptr, "GDS writes one file per process and version, no containers"},
    {"COPY_METADATA", Meaning::note, nullptr, "GDS keeps its metadata in the files it writes"},
    {"COPY_TYPE", Meaning::taken, nullptr, nullptr},
    {"CRC_ON_COPY", Meaning::note, "1", kCrc},
    {"CRC_ON_DELETE", Meaning::note, "1", kCrc},
    {"CRC_ON_FLUSH", Meaning::note, "1", kCrc},
    {"CURRENT", Meaning::note, nullptr,
     "GDS restarts from the newest version every level can restore; GDS_version_restore goes back to another"},
    {"DB_DEBUG", Meaning::note, "0", kLogs},
    {"DB_ENABLE", Meaning::note, "0", kLogs},
    {"DB_HOST", Meaning::note, nullptr, kLogs},
    {"DB_NAME", Meaning::note, nullptr, kLogs},
    {"DB_PASS", Meaning::note, nullptr, kLogs},
    {"DB_USER", Meaning::note, nullptr, kLogs},
    {"DEBUG", Meaning::taken, nullptr, nullptr},
    {"DISTRIBUTE", Meaning::taken, nullptr, nullptr},
    {"DROP_AFTER_CURRENT", Meaning::note, nullptr,
     "GDS restarts from the newest version; versions after another one go when GDS_version_restore goes back to it "
     "and a version is made"},
    {"ENABLE", Meaning::taken, nullptr, nullptr},
    {"END_TIME", Meaning::taken, nullptr, nullptr},
    {"ENV_HELPER", Meaning::script, nullptr, nullptr},
    {"EXCLUDE_NODES", Meaning::launcher, nullptr, nullptr},
    {"FETCH", Meaning::taken, nullptr, nullptr},
    {"FETCH_BYPASS", Meaning::note, "0|1", "GDS reads the prefix's files where they are"},
    {"FETCH_WIDTH", Meaning::note, nullptr, "every process reads its own part of the prefix's files"},
    {"FILE_BUF_SIZE", Meaning::note, nullptr, "GDS copies files in the kernel (copy_file_range) or 8 MiB at a time"},
    {"FINALIZE_CALLED", Meaning::script, nullptr, nullptr},
    {"FLUSH", Meaning::taken, nullptr, nullptr},
    {"FLUSH_ASYNC", Meaning::note, "1",
     "GDS always flushes in the background (GDS_FLUSH_INFLIGHT at once); GDS_flush_wait waits for them"},
    {"FLUSH_ASYNC_BW", Meaning::note, nullptr, "GDS flushes at the speed of the file system (not throttled)"},
    {"FLUSH_ASYNC_PERCENT", Meaning::note, nullptr, "GDS flushes at the speed of the file system (not throttled)"},
    {"FLUSH_ASYNC_USLEEP", Meaning::note, nullptr, "GDS flushes at the speed of the file system (not throttled)"},
    {"FLUSH_ON_RESTART", Meaning::taken, nullptr, nullptr},
    {"FLUSH_POSTSTAGE", Meaning::note, "0", "GDS flushes from the running job only"},
    {"FLUSH_TYPE", Meaning::note, nullptr, "GDS writes the prefix with POSIX I/O from a background thread"},
    {"FLUSH_WIDTH", Meaning::note, nullptr, "every process writes its own part of the prefix's files"},
    {"GLOBAL_RESTART", Meaning::taken, nullptr, nullptr},
    {"GROUP", Meaning::note, "NODE",
     "GDS's failure groups are the nodes (the Slurm node, else the host; GDS_NODE_ID sets them per process)"},
    {"HALT_ENABLED", Meaning::note, "0",
     "GDS never ends the program: GDS_should_exit says when to leave, right after a persisted version"},
    {"HALT_EXIT", Meaning::note, "0",
     "GDS never ends the program: GDS_should_exit says when to leave, right after a persisted version"},
    {"HALT_SECONDS", Meaning::taken, nullptr, nullptr},
    {"HOP_DISTANCE", Meaning::note, "1", "GDS places PARTNER copies and XOR sets on the next failure groups"},
    {"INIT_FAILED", Meaning::script, nullptr, nullptr},
    {"JOB_ID", Meaning::taken, nullptr, nullptr},
    {"JOB_NAME", Meaning::note, nullptr, "GDS names a job by GDS_JOB_ID, else SCR_JOB_ID, else SLURM_JOB_ID"},
    {"LOG_DB_DEBUG", Meaning::note, "0", kLogs},
    {"LOG_DB_ENABLE", Meaning::note, "0", kLogs},
    {"LOG_DB_HOST", Meaning::note, nullptr, kLogs},
    {"LOG_DB_NAME", Meaning::note, nullptr, kLogs},
    {"LOG_DB_PASS", Meaning::note, nullptr, kLogs},
    {"LOG_DB_USER", Meaning::note, nullptr, kLogs},
    {"LOG_ENABLE", Meaning::note, "0", kLogs},
    {"LOG_SYSLOG_ENABLE", Meaning::note, "0", kLogs},
    {"LOG_SYSLOG_FACILITY", Meaning::note, nullptr, kLogs},
    {"LOG_SYSLOG_LEVEL", Meaning::note, nullptr, kLogs},
    {"LOG_SYSLOG_PREFIX", Meaning::note, nullptr, kLogs},
    {"LOG_TXT_ENABLE", Meaning::note, "0", kLogs},
    {"MIN_NODES", Meaning::launcher, nullptr, nullptr},
    {"MPI_BUF_SIZE", Meaning::note, nullptr, "GDS sends the files' pieces from where they are, with no buffer"},
    {"NODELIST", Meaning::script, nullptr, nullptr},
    {"NODE_TESTS", Meaning::note, nullptr, "gds-run checks nodes with scontrol and a one-task step; --node-check CMD "
                                             "gives a test of your own"},
    {"NODE_TESTS_FILE", Meaning::note, nullptr, "gds-run checks nodes with scontrol and a one-task step; "
                                                  "--node-check CMD gives a test of your own"},
    {"PREFIX", Meaning::taken, nullptr, nullptr},
    {"PREFIX_PURGE", Meaning::note, "0",
     "GDS keeps the prefix's flushes: gds-run --clear <job> (or gds-index clear) removes a job's versions"},
    {"PREFIX_SIZE", Meaning::taken, nullptr, nullptr},
    {"PRESERVE_DIRECTORIES", Meaning::note, nullptr, "GDS versions arrays, not files"},
    {"PRESERVE_USER_DIRECTORIES", Meaning::note, nullptr, "GDS versions arrays, not files"},
    {"RESOURCE_MANAGER", Meaning::note, "SLURM|NONE", "gds-run knows Slurm (SLURM_JOB_ID), else runs on this host"},
    {"RUNS", Meaning::launcher, nullptr, nullptr},
    {"SET_FAILURES", Meaning::taken, nullptr, nullptr},
    {"SET_SIZE", Meaning::taken, nullptr, nullptr},
    {"TRANSFER_SECS", Meaning::note, nullptr, "GDS flushes from a background thread of the job, no transfer daemon"},
    {"USER_NAME", Meaning::note, nullptr, kLogs},
    {"USE_CONTAINERS", Meaning::note, "0", "GDS writes one file per process and version, no containers"},
    {"WATCHDOG", Meaning::note, "0",
     "GDS waits for its own writes; a hung file system hangs the call (the launcher's time limit ends the job)"},
    {"WATCHDOG_TIMEOUT", Meaning::note, nullptr,
     "GDS waits for its own writes; a hung file system hangs the call (the launcher's time limit ends the job)"},
    {"WATCHDOG_TIMEOUT_PFS", Meaning::note, nullptr,
     "GDS waits for its own writes; a hung file system hangs the call (the launcher's time limit ends the job)"},
};

const ScrSetting *find(const std::string &name) {
  for (const ScrSetting &s : kScr)
    if (name == s.name) return &s;
  return nullptr;
}

bool same(const ScrSetting &s, const std::string &value) {
  if (s.same == nullptr) return false;
  const std::string alternatives = std::string("|") + s.same + "|";
  std::string v = value;
  for (char &c : v) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return alternatives.find("|" + v + "|") != std::string::npos;
}

// The line said of one setting, or "" for none.
std::string line_of(const std::string &var, const std::string &value, const char *where) {
  if (var.rfind("SCR_", 0) != 0) return "";
  const ScrSetting *s = find(var.substr(4));
  if (s == nullptr)
    return var + where + " is not a setting of SCR 1.1-3.1 (a typo?); ignored";
  if (s->meaning != Meaning::note || same(*s, value)) return "";
  return var + "=" + value + where + ": not applied: " + s->instead;
}

}  // namespace

std::vector<std::string> scr_notes(const std::map<std::string, std::string> &conf) {
  std::vector<std::string> out;
  for (char **e = environ; e != nullptr && *e != nullptr; ++e) {
    const char *eq = std::strchr(*e, '=');
    if (eq == nullptr || std::strncmp(*e, "SCR_", 4) != 0) continue;
    const std::string line = line_of(std::string(*e, static_cast<std::size_t>(eq - *e)), eq + 1, "");
    if (!line.empty()) out.push_back(line);
  }
  for (const auto &[key, value] : conf) {
    if (std::getenv(key.c_str()) != nullptr) continue;  // the environment's wins, and was said
    const std::string line = line_of(key, value, " (SCR_CONF_FILE)");
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

}  // namespace gds::persist
