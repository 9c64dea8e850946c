// The persistent levels' directories and the cache level's file names, which
// the library writes and gds-index reads (the prefix's files:
// prefix_files.hpp):
//
//   <base or prefix>/gds.<job>/           a job's directory, on either level
//   <base>/gds.<job>/node<group>/<array>/r<rank>/
//     v<n>.gdsv        process <rank>'s file of version n (format.hpp)
//     v<n>.done        its commit record
//     p<r>.v<n>.gdsv   process r's file of version n, kept as its partner (PARTNER)
//     x<n>.gdsx        the XOR parity of version n this process holds (XOR)
//     spare<k>         a dropped version's file, written over by a later one
//     <name>.tmp       a file being written
//   <base>/gds.<job>/node<group>/<group name>@group/r<rank>/
//     v<n>.gdsg        process <rank>'s file of the group's version n: every
//                      member's version file in one (format.hpp)
//     v<n>.done        the version group's commit record of version n (format.hpp)
//     p<r>.v<n>.gdsg   process r's group file of version n, kept as its partner (PARTNER)
//     x<n>.gdsx        the XOR parity of the group files of version n (XOR)
//     spare<k>, <name>.tmp  as in an array's directory
//   <prefix>/gds.<job>/scavenged@cache/<node>/node<group>/...
//                    a node's cache as gds-index scavenge copied it (gds-run, when a
//                    job is given up); a restart whose cache is empty fetches from it
//   <base or prefix>/gds.<job>/finished@job
//                    the job's last run ended in GDS_finalize without a halt
//                    (GDS_should_exit); removed when a run opens the directory:
//                      gds-finished 1
//                      time 2026-11-28T09:40:12Z
//                      processes 4
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "persist/format.hpp"

namespace gds::persist {

inline std::string job_dir(const std::string &base, const std::string &job) { return base + "/gds." + job; }
inline std::string finished_path(const std::string &job_dir) { return job_dir + "/finished@job"; }
// Where scavenged caches are, in a prefix's job directory (one directory per node).
inline std::string scavenged_dir(const std::string &prefix_job_dir) { return prefix_job_dir + "/scavenged@cache"; }
inline constexpr const char *kFinishedMagic = "gds-finished 1\n";
inline std::string node_dir(const std::string &job_dir, int group) {
  return job_dir + "/node" + std::to_string(group);
}
inline std::string rank_dir(const std::string &array_dir, int rank) { return array_dir + "/r" + std::to_string(rank); }
inline std::string version_path(const std::string &dir, std::uint64_t n) {
  return dir + "/v" + std::to_string(n) + ".gdsv";
}
inline std::string record_path(const std::string &dir, std::uint64_t n) {
  return dir + "/v" + std::to_string(n) + ".done";
}
// A version group's file of version n on this process.
inline std::string group_version_path(const std::string &dir, std::uint64_t n) {
  return dir + "/v" + std::to_string(n) + ".gdsg";
}
// Process `of`'s file of version n kept as its partner: a version file, or (`group`) a group's.
inline std::string partner_path(const std::string &dir, int of, std::uint64_t n, bool group = false) {
  return dir + "/p" + std::to_string(of) + ".v" + std::to_string(n) + (group ? ".gdsg" : ".gdsv");
}
inline std::string parity_path(const std::string &dir, std::uint64_t n) {
  return dir + "/x" + std::to_string(n) + ".gdsx";
}

// A version group's directory in a failure group's directory; array names
// have no '@', so it never is an array's.
inline std::string group_dir_name(const std::string &group) { return group + "@group"; }
// The group a failure group's directory entry is the directory of, if any.
inline std::optional<std::string> group_of_dir(const std::string &name) {
  constexpr std::size_t kSuffix = 6;  // "@group"
  if (name.size() <= kSuffix || name.compare(name.size() - kSuffix, kSuffix, "@group") != 0) return std::nullopt;
  return name.substr(0, name.size() - kSuffix);
}

// The job whose directory this entry of a base or prefix is (gds.<job>), if any.
std::optional<std::string> job_of_dir(const std::string &name);

// Whether a job directory's entry is a failure group's directory (node<group>).
bool is_node_dir(const std::string &name);

// The rank an array directory's entry names (r<rank>), if it is one.
std::optional<std::uint64_t> rank_of_dir(const std::string &name);

// What a file name in a process's directory is.
struct CacheName {
  enum Kind { other, version, record, partner, parity } kind = other;
  std::uint64_t number = kNone;  // the version (kind != other)
  bool tmp = false;              // being written (<name>.tmp)
};
CacheName parse_cache_name(const std::string &name);

}  // namespace gds::persist
