// gds-index: what GDS persisted, without GDS running (as SCR's scr_index).
//
//   gds-index list   <dir> [array]                 arrays and versions, level, size, label, time, state
//   gds-index groups <dir> [group]                 version groups: members and versions, level, state
//   gds-index verify <dir> [array [version]]       every checksum; exit 1 if anything is damaged
//   gds-index export <dir> <array> <version> <out.h5>   a flushed version as a standalone HDF5 file
//   gds-index remove <dir> <array> <version>       a version's files (cache and prefix; of a version
//                                                  group's member, the group's files of that version)
//   gds-index clear  <dir> <job> [--force]         a finished job's directory (all its versions)
//   gds-index scavenge <cache base> <prefix> --job <id>
//                    this node's cached versions newer than the prefix's flushes, copied to
//                    <prefix>/gds.<id>/scavenged@cache/<node>/ (gds-run runs it on every node
//                    still up when it gives a job up); {node} in the base is this node's name
//
// <dir> is a cache base (GDS_CACHE_BASE), a prefix (GDS_PREFIX), or one job's
// directory in either (gds.<job>); --job <id> picks one job of several.
// Exit status: 0 done, 1 damage found (verify) or the operation failed, 2 bad usage.
#include <ftw.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/crc32c.hpp"
#include "core/mpi_args.hpp"
#include "persist/files.hpp"
#include "persist/format.hpp"
#include "persist/h5.hpp"
#include "persist/names.hpp"
#include "persist/prefix_files.hpp"
#include "persist/query.hpp"

namespace {

using namespace gds::persist;

int usage() {
  std::fprintf(stderr,
               "usage: gds-index list   <dir> [array] [--job ID]\n"
               "       gds-index groups <dir> [group] [--job ID]\n"
               "       gds-index verify <dir> [array [version]] [--job ID]\n"
               "       gds-index export <dir> <array> <version> <out.h5> [--job ID]\n"
               "       gds-index remove <dir> <array> <version> [--job ID]\n"
               "       gds-index clear  <dir> <job> [--force]\n"
               "       gds-index scavenge <cache base> <prefix> --job ID\n"
               "<dir>: a cache base, a prefix, or a gds.<job> directory in one\n");
  return 2;
}

bool is_dir(const std::string &p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string base_name(const std::string &p) {
  const std::size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string when(std::uint64_t t) {
  char text[32];
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string mtime(const std::string &p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? when(static_cast<std::uint64_t>(st.st_mtime)) : "-";
}

std::string quoted(const std::string &label) {
  std::string out = "\"";
  for (const char c : label) {
    if (c >= 32 && c < 127 && c != '"' && c != '\\') {
      out.push_back(c);
    } else {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\x%02x", static_cast<unsigned char>(c));
      out += esc;
    }
  }
  return out + "\"";
}

// The job directories under <dir> (or <dir> itself).
std::vector<std::string> jobs(const std::string &dir, const std::string &job) {
  std::vector<std::string> out;
  if (job_of_dir(base_name(dir))) return {dir};
  for (const std::string &name : list_dir(dir)) {
    const std::optional<std::string> j = job_of_dir(name);
    if (j && is_dir(dir + "/" + name) && (job.empty() || *j == job)) out.push_back(dir + "/" + name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// --- the cache: <job>/node<g>/<array>/r<rank>/ -------------------------------

struct CacheVersion {
  std::uint64_t number = 0, nprocs = 0, bytes = 0;
  bool recorded = false;
  std::string label, holds, record;  // holds: its successor's label; a record's path (for its time)
  std::map<std::uint64_t, std::string> files;  // rank -> its own version file
  std::vector<std::string> all;                // every file of the version (data, copies, parity, records)
};

// Every version of `array` in the job's cache, by number.
std::map<std::uint64_t, CacheVersion> cache_versions(const std::string &job_dir, const std::string &array) {
  std::map<std::uint64_t, CacheVersion> out;
  for (const std::string &node : list_dir(job_dir)) {
    if (!is_node_dir(node)) continue;
    const std::string adir = job_dir + "/" + node + "/" + array;
    if (!is_dir(adir)) continue;
    for (const std::string &rdir : list_dir(adir)) {
      const std::optional<std::uint64_t> rank = rank_of_dir(rdir);
      if (!rank) continue;
      const std::string d = adir + "/" + rdir;
      for (const std::string &name : list_dir(d)) {
        const CacheName c = parse_cache_name(name);
        if (c.kind == CacheName::other || c.tmp) continue;
        const std::string path = d + "/" + name;
        const std::uint64_t n = c.number;
        CacheVersion &v = out[n];
        v.number = n;
        v.all.push_back(path);
        if (c.kind == CacheName::record) {
          std::vector<std::byte> bytes;
          Record r;
          if (read_file(path, &bytes).ok() && parse_record(bytes, &r).ok()) {
            v.recorded = true;
            v.nprocs = r.nprocs;
            v.record = path;
          }
        } else if (c.kind == CacheName::version) {
          v.files[*rank] = path;
          std::vector<std::byte> bytes;
          VersionFile f;
          if (read_file(path, &bytes).ok() && parse_version(bytes, &f, false).ok()) {
            v.label = f.label;
            v.holds = f.next_label;
            std::uint64_t held = 0;
            for (const std::uint32_t b : f.blocks) held += block_length(f.h.part_bytes, f.h.shift, b);
            v.bytes += held;
            if (v.nprocs == 0) v.nprocs = f.h.nprocs;
          }
        }
      }
    }
  }
  // A version group's commit records (<group>@group/r<rank>/v<n>.done) commit its members' versions.
  for (const std::string &node : list_dir(job_dir)) {
    if (!is_node_dir(node)) continue;
    for (const std::string &entry : list_dir(job_dir + "/" + node)) {
      if (!group_of_dir(entry)) continue;
      const std::string gdir = job_dir + "/" + node + "/" + entry;
      for (const std::string &rdir : list_dir(gdir))
        for (const std::string &name : list_dir(gdir + "/" + rdir)) {
          const CacheName c = parse_cache_name(name);
          if (c.kind != CacheName::record || c.tmp) continue;
          const std::string path = gdir + "/" + rdir + "/" + name;
          std::vector<std::byte> bytes;
          GroupRecord g;
          if (!read_file(path, &bytes).ok() || !parse_group_record(bytes, &g).ok()) continue;
          if (!g.in_group_file && out.count(c.number) == 0) continue;  // its members' files are in their directories
          for (const auto &[member, r] : g.members)
            if (member == array) {
              CacheVersion &v = out[c.number];
              v.number = c.number;
              v.recorded = true;
              v.nprocs = r.nprocs;
              v.record = path;
              v.all.push_back(path);
              if (!g.in_group_file) continue;
              // The array's file is a segment of the group's (v<n>.gdsg beside the
              // record); its files are the group's: every member's.
              const std::string rd = gdir + "/" + rdir;
              for (const std::string &other : list_dir(rd)) {
                const CacheName o = parse_cache_name(other);
                if (o.kind != CacheName::other && o.kind != CacheName::record && !o.tmp && o.number == c.number)
                  v.all.push_back(rd + "/" + other);
              }
              const std::string file = group_version_path(rd, c.number);
              std::vector<std::byte> data;
              gds::persist::GroupVersion gv;
              if (!read_file(file, &data).ok() || !parse_group_version(data, &gv, false).ok()) continue;
              for (const GroupSegment &m : gv.members) {
                VersionFile f;
                if (m.name != array ||
                    !parse_version(std::span<const std::byte>(data).subspan(m.at, m.bytes), &f, false).ok())
                  continue;
                v.files[gv.rank] = file;
                v.label = f.label;
                v.holds = f.next_label;
                for (const std::uint32_t b : f.blocks) v.bytes += block_length(f.h.part_bytes, f.h.shift, b);
              }
            }
        }
    }
  }
  return out;
}

std::set<std::string> cache_arrays(const std::string &job_dir) {
  std::set<std::string> out;
  for (const std::string &node : list_dir(job_dir))
    if (is_node_dir(node) && is_dir(job_dir + "/" + node))
      for (const std::string &a : list_dir(job_dir + "/" + node))
        if (!group_of_dir(a) && is_dir(job_dir + "/" + node + "/" + a)) out.insert(a);
  return out;
}

std::string cache_state(const CacheVersion &v) {
  if (!v.recorded) return "incomplete (no commit record)";
  std::uint64_t missing = 0;
  for (std::uint64_t r = 0; r < v.nprocs; ++r) missing += v.files.count(r) == 0;
  if (missing == 0) return "complete (" + std::to_string(v.nprocs) + " processes)";
  return "complete, " + std::to_string(missing) + " of " + std::to_string(v.nprocs) +
         " process files lost (restart rebuilds them if the copy type can)";
}

// --- the prefix: <job>/<array>/v<n>.h5 -----------------------------------------

std::set<std::string> prefix_arrays(const std::string &job_dir) {
  std::set<std::string> out;
  for (const std::string &a : list_dir(job_dir))  // (array names have no '@': scavenged@cache is not one)
    if (!is_node_dir(a) && a.find('@') == std::string::npos && is_dir(job_dir + "/" + a)) out.insert(a);
  return out;
}

int list(const std::string &dir, const std::string &only, const std::string &job) {
  // LABEL is the version's own (GVR's: given when the version before it was
  // made); HOLDS describes its content (its successor's label).
  std::printf("%-12s %-6s %-16s %8s %12s %-20s %-12s %-12s %s\n", "JOB", "LEVEL", "ARRAY", "VERSION", "BYTES",
              "TIME (UTC)", "LABEL", "HOLDS", "STATE");
  for (const std::string &jd : jobs(dir, job)) {
    const std::string jname = job_of_dir(base_name(jd)).value_or(base_name(jd));
    // The cache, and in a prefix the nodes' caches scavenged there.
    std::vector<std::pair<std::string, std::string>> caches{{jd, "cache"}};
    for (const std::string &node : list_dir(scavenged_dir(jd)))
      if (is_dir(scavenged_dir(jd) + "/" + node)) caches.emplace_back(scavenged_dir(jd) + "/" + node, "scav");
    for (const auto &[cd, level] : caches)
      for (const std::string &a : cache_arrays(cd)) {
        if (!only.empty() && a != only) continue;
        for (const auto &[n, v] : cache_versions(cd, a))
          std::printf("%-12s %-6s %-16s %8llu %12llu %-20s %-12s %-12s %s\n", jname.c_str(), level.c_str(), a.c_str(),
                      static_cast<unsigned long long>(n), static_cast<unsigned long long>(v.bytes),
                      v.recorded ? mtime(v.record).c_str() : "-", quoted(v.label).c_str(), quoted(v.holds).c_str(),
                      cache_state(v).c_str());
      }
    for (const std::string &a : prefix_arrays(jd)) {
      if (!only.empty() && a != only) continue;
      const std::string ad = jd + "/" + a;
      for (const std::string &name : list_dir(ad)) {
        const bool tmp = name.size() > 7 && name.compare(name.size() - 7, 7, ".h5.tmp") == 0;
        const std::uint64_t n = flushed_number(tmp ? name.substr(0, name.size() - 4) : name);
        if (n == kNone) continue;
        h5::Meta m;
        const Result why = tmp ? Result() : h5::read_meta(ad + "/" + name, &m);
        const std::string state = tmp ? "incomplete (being written, or cut short)"
                                      : why.ok() ? "complete (flushed by " + std::to_string(m.nprocs) + " processes)"
                                                 : "damaged: " + why.what();
        std::printf("%-12s %-6s %-16s %8llu %12llu %-20s %-12s %-12s %s\n", jname.c_str(), "prefix", a.c_str(),
                    static_cast<unsigned long long>(n), static_cast<unsigned long long>(m.data_bytes),
                    m.time != 0 ? when(m.time).c_str() : "-", quoted(m.label).c_str(), quoted(m.next_label).c_str(),
                    state.c_str());
      }
    }
  }
  return 0;
}

// --- version groups: the cache's <group>@group records, the prefix's member lists ---

// A version of a group in the cache, as its commit records say.
struct GroupVersion {
  std::vector<std::string> members;  // in the group's order
  std::uint64_t nprocs = 0;
  std::string record;  // a record's path (for its time)
};

// Every version group of the job's cache: group -> version -> its records.
std::map<std::string, std::map<std::uint64_t, GroupVersion>> cache_groups(const std::string &job_dir) {
  std::map<std::string, std::map<std::uint64_t, GroupVersion>> out;
  for (const std::string &node : list_dir(job_dir)) {
    if (!is_node_dir(node)) continue;
    for (const std::string &entry : list_dir(job_dir + "/" + node)) {
      const std::optional<std::string> group = group_of_dir(entry);
      if (!group) continue;
      const std::string gdir = job_dir + "/" + node + "/" + entry;
      for (const std::string &rdir : list_dir(gdir))
        for (const std::string &name : list_dir(gdir + "/" + rdir)) {
          const CacheName c = parse_cache_name(name);
          if (c.kind != CacheName::record || c.tmp) continue;
          const std::string path = gdir + "/" + rdir + "/" + name;
          std::vector<std::byte> bytes;
          GroupRecord g;
          if (!read_file(path, &bytes).ok() || !parse_group_record(bytes, &g).ok() || g.members.empty()) continue;
          GroupVersion &v = out[*group][c.number];
          if (!v.members.empty()) continue;
          for (const auto &[member, r] : g.members) v.members.push_back(member);
          v.nprocs = g.members.front().second.nprocs;
          v.record = path;
        }
    }
  }
  return out;
}

std::string joined(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

// The prefix's groups: <job>/<group>@group files naming the members.
std::map<std::string, std::vector<std::string>> prefix_groups(const std::string &job_dir) {
  std::map<std::string, std::vector<std::string>> out;
  for (const std::string &entry : list_dir(job_dir)) {
    const std::optional<std::string> group = group_of_dir(entry);
    if (!group || is_dir(job_dir + "/" + entry)) continue;
    std::vector<std::string> members = read_group_members(job_dir + "/" + entry);
    if (!members.empty()) out[*group] = std::move(members);
  }
  return out;
}

// One line per version of every group: its members, and whether each holds it.
int groups(const std::string &dir, const std::string &only, const std::string &job) {
  std::printf("%-12s %-6s %-16s %8s %-20s %-12s %-12s %-24s %s\n", "JOB", "LEVEL", "GROUP", "VERSION", "TIME (UTC)",
              "LABEL", "HOLDS", "MEMBERS", "STATE");
  const auto line = [](const std::string &jname, const char *level, const std::string &group, std::uint64_t n,
                       const std::string &time, const std::string &label, const std::string &holds,
                       const std::vector<std::string> &members, const std::string &state) {
    std::printf("%-12s %-6s %-16s %8llu %-20s %-12s %-12s %-24s %s\n", jname.c_str(), level, group.c_str(),
                static_cast<unsigned long long>(n), time.c_str(), quoted(label).c_str(), quoted(holds).c_str(),
                joined(members).c_str(), state.c_str());
  };
  for (const std::string &jd : jobs(dir, job)) {
    const std::string jname = job_of_dir(base_name(jd)).value_or(base_name(jd));
    for (const auto &[group, versions] : cache_groups(jd)) {
      if (!only.empty() && group != only) continue;
      std::map<std::string, std::map<std::uint64_t, CacheVersion>> of;  // each member's versions
      for (const auto &[n, v] : versions)
        for (const std::string &m : v.members)
          if (of.count(m) == 0) of[m] = cache_versions(jd, m);
      for (const auto &[n, v] : versions) {
        std::string state, label, holds;
        for (const std::string &m : v.members) {
          const auto it = of[m].find(n);
          const std::string ms = it == of[m].end() ? "no files" : cache_state(it->second);
          if (it != of[m].end() && label.empty() && holds.empty()) {
            label = it->second.label;
            holds = it->second.holds;
          }
          if (ms.rfind("complete (", 0) != 0) state += (state.empty() ? "" : "; ") + m + ": " + ms;
        }
        if (state.empty())
          state = "complete (" + std::to_string(v.members.size()) + " members, " + std::to_string(v.nprocs) +
                  " processes)";
        line(jname, "cache", group, n, mtime(v.record), label, holds, v.members, state);
      }
    }
    for (const auto &[group, members] : prefix_groups(jd)) {
      if (!only.empty() && group != only) continue;
      std::map<std::uint64_t, std::vector<std::string>> flushed_by;  // version -> the members that flushed it
      for (const std::string &m : members)
        for (const std::uint64_t n : flushed_versions(jd + "/" + m)) flushed_by[n].push_back(m);
      for (const auto &[n, by] : flushed_by) {
        h5::Meta meta;
        const bool read = h5::read_meta(flushed_path(jd + "/" + by.front(), n), &meta).ok();
        std::string missing;
        for (const std::string &m : members)
          if (std::find(by.begin(), by.end(), m) == by.end()) missing += (missing.empty() ? "" : ",") + m;
        const std::string state = missing.empty() ? "complete (flushed by every member)"
                                                  : "incomplete (not flushed by " + missing + ")";
        line(jname, "prefix", group, n, read && meta.time != 0 ? when(meta.time) : "-", read ? meta.label : "",
             read ? meta.next_label : "", members, state);
      }
    }
  }
  return 0;
}

int verify(const std::string &dir, const std::string &only, std::uint64_t version, const std::string &job) {
  int bad = 0, checked = 0;
  const auto report = [&](const std::string &path, const Result &why) {
    ++checked;
    if (why.ok()) {
      std::printf("ok   %s\n", path.c_str());
    } else {
      ++bad;
      std::printf("BAD  %s: %s\n", path.c_str(), why.what().c_str());
    }
  };
  for (const std::string &jd : jobs(dir, job)) {
    for (const std::string &a : cache_arrays(jd)) {
      if (!only.empty() && a != only) continue;
      for (const auto &[n, v] : cache_versions(jd, a)) {
        if (version != kNone && n != version) continue;
        for (const std::string &path : v.all) {
          std::vector<std::byte> bytes;
          if (Result read = read_file(path, &bytes); !read.ok()) {
            report(path, read);
            continue;
          }
          const CacheName::Kind kind = parse_cache_name(base_name(path)).kind;
          Result why;
          if (kind == CacheName::record) {
            Record r;
            why = parse_record(bytes, &r);
          } else if (kind == CacheName::parity) {
            ParityHeader h;
            std::uint64_t at = 0;
            why = parse_parity(bytes, &h, &at);
          } else if (path.size() > 5 && path.compare(path.size() - 5, 5, ".gdsg") == 0) {
            gds::persist::GroupVersion g;
            why = parse_group_version(bytes, &g, true);
          } else {
            VersionFile f;
            why = parse_version(bytes, &f, true);
          }
          report(path, why);
        }
      }
    }
    for (const std::string &a : prefix_arrays(jd)) {
      if (!only.empty() && a != only) continue;
      const std::string ad = jd + "/" + a;
      for (const std::uint64_t n : flushed_versions(ad)) {
        if (version != kNone && n != version) continue;
        const std::string path = flushed_path(ad, n);
        h5::Meta m;
        Result why = h5::read_meta(path, &m);
        if (why.ok()) why = verify_flushed_data(path, m);
        report(path, why);
      }
    }
  }
  std::printf("%d file(s) checked, %d damaged\n", checked, bad);
  return bad > 0 ? 1 : 0;
}

int export_version(const std::string &dir, const std::string &array, std::uint64_t version, const std::string &out,
                   const std::string &job) {
  for (const std::string &jd : jobs(dir, job)) {
    const std::string path = flushed_path(jd + "/" + array, version);
    if (::access(path.c_str(), F_OK) != 0) continue;
    h5::Meta m;
    Result why = h5::read_meta(path, &m);
    if (why.ok()) why = verify_flushed_data(path, m);
    if (!why.ok()) {
      std::fprintf(stderr, "gds-index: %s; not exported\n", why.what().c_str());
      return 1;
    }
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const hid_t src = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t dst = H5Fcreate(out.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = src >= 0 && dst >= 0 && H5Ocopy(src, "data", dst, "data", H5P_DEFAULT, H5P_DEFAULT) >= 0;
    if (src >= 0) H5Fclose(src);
    if (dst >= 0) ok = H5Fclose(dst) >= 0 && ok;
    if (!ok) {
      std::fprintf(stderr, "gds-index: cannot write %s (does it exist already?)\n", out.c_str());
      if (dst >= 0) std::remove(out.c_str());
      return 1;
    }
    std::printf("exported version %llu of array %s (%llu bytes, checked) to %s\n",
                static_cast<unsigned long long>(version), array.c_str(), static_cast<unsigned long long>(m.data_bytes),
                out.c_str());
    return 0;
  }
  for (const std::string &jd : jobs(dir, job))
    if (cache_versions(jd, array).count(version) != 0) {
      std::fprintf(stderr,
                   "gds-index: version %llu of array %s is in the cache only, whose files hold each process's part "
                   "without the array's global layout; export reads flushed versions (GDS_PREFIX)\n",
                   static_cast<unsigned long long>(version), array.c_str());
      return 1;
    }
  std::fprintf(stderr, "gds-index: no flushed version %llu of array %s under %s\n",
               static_cast<unsigned long long>(version), array.c_str(), dir.c_str());
  return 1;
}

int remove_version(const std::string &dir, const std::string &array, std::uint64_t version, const std::string &job) {
  std::size_t removed = 0;
  for (const std::string &jd : jobs(dir, job)) {
    const auto cached = cache_versions(jd, array);
    if (auto it = cached.find(version); it != cached.end()) {
      // Records first: a version without its record is not restarted from.
      std::vector<std::string> files = it->second.all;
      std::stable_partition(files.begin(), files.end(),
                            [](const std::string &p) { return p.size() > 5 && p.compare(p.size() - 5, 5, ".done") == 0; });
      for (const std::string &p : files)
        if (std::remove(p.c_str()) == 0) ++removed;
    }
    const std::string path = flushed_path(jd + "/" + array, version);
    if (std::remove(path.c_str()) == 0) {
      ++removed;
      if (Result indexed = update_index("gds-index", jd, array, {}, true); !indexed.ok())
        std::fprintf(stderr, "gds-index: the index is not updated: %s\n", indexed.what().c_str());
    }
  }
  if (removed == 0) {
    std::fprintf(stderr, "gds-index: no files of version %llu of array %s under %s\n",
                 static_cast<unsigned long long>(version), array.c_str(), dir.c_str());
    return 1;
  }
  std::printf("removed %zu file(s) of version %llu of array %s\n", removed, static_cast<unsigned long long>(version),
              array.c_str());
  return 0;
}

// --- clear: a finished job's directory ------------------------------------------

std::size_t g_removed = 0;

int remove_entry(const char *path, const struct stat *, int type, struct FTW *) {
  if (type != FTW_DP && std::string(path).size() > 13 &&
      std::string(path).compare(std::string(path).size() - 13, 13, "/finished@job") == 0)
    return 0;  // the finished record goes last: a clear cut short can be run again
  if (std::remove(path) == 0 && type != FTW_DP) ++g_removed;
  return 0;
}

// The job's directory under <dir> (a cache base or a prefix, or the job's
// directory itself), removed if the job's last run finished (or `force`).
int clear_job(const std::string &dir, const std::string &job, bool force) {
  const bool valid = !job.empty() && job.size() <= 128 && job[0] != '.' &&
                     std::all_of(job.begin(), job.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
                     });
  if (!valid) {
    std::fprintf(stderr, "gds-index: \"%s\" is not a job id (1-128 letters, digits, '-', '_' or '.', not first)\n",
                 job.c_str());
    return 2;
  }
  const std::optional<std::string> own = job_of_dir(base_name(dir));
  if (own && *own != job) {
    std::fprintf(stderr, "gds-index: %s is the directory of job %s, not of job %s\n", dir.c_str(), own->c_str(),
                 job.c_str());
    return 2;
  }
  const std::string jd = own ? dir : job_dir(dir, job);
  if (!is_dir(jd)) {
    std::fprintf(stderr, "gds-index: no job %s under %s (no directory %s)\n", job.c_str(), dir.c_str(), jd.c_str());
    return 1;
  }
  std::vector<std::byte> record;
  const std::string finished = finished_path(jd);
  const bool done = read_file(finished, &record).ok() && record.size() >= std::strlen(kFinishedMagic) &&
                    std::memcmp(record.data(), kFinishedMagic, std::strlen(kFinishedMagic)) == 0;
  if (!done && !force) {
    std::fprintf(stderr,
                 "gds-index: job %s has not finished (no finished record %s: its last run was killed, failed, was "
                 "halted to be resumed, or is running); not clearing it (--force clears it anyway)\n",
                 job.c_str(), finished.c_str());
    return 1;
  }
  g_removed = 0;
  (void)nftw(jd.c_str(), remove_entry, 32, FTW_DEPTH | FTW_PHYS);
  if (std::remove(finished.c_str()) == 0) ++g_removed;
  if (std::remove(jd.c_str()) != 0 && is_dir(jd)) {
    std::fprintf(stderr, "gds-index: %s could not be removed entirely (%s)\n", jd.c_str(), std::strerror(errno));
    return 1;
  }
  std::printf("cleared job %s%s: removed %s (%zu file(s))\n", job.c_str(), done ? "" : " (not finished: --force)",
              jd.c_str(), g_removed);
  return 0;
}

// --- scavenge: this node's cache to the prefix (SCR's scavenge) ------------------

// This node's name as the library names it for {node}: the Slurm node, node<GDS_NODE_ID>, or the host.
std::string node_name() {
  if (const char *n = std::getenv("SLURMD_NODENAME"); n != nullptr && *n != '\0') return n;
  if (const char *id = std::getenv("GDS_NODE_ID"); id != nullptr && *id != '\0') return std::string("node") + id;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return "host";
  const std::string h(host);
  return h.substr(0, h.find('.'));
}

// The newest version of `array` flushed to the prefix's job directory (kNone if none).
std::uint64_t newest_flushed(const std::string &prefix_job, const std::string &array) {
  std::uint64_t newest = kNone;
  for (const std::string &name : list_dir(prefix_job + "/" + array)) {
    const std::uint64_t n = flushed_number(name);
    if (n != kNone && (newest == kNone || n > newest)) newest = n;
  }
  return newest;
}

// Copies the files of a cache directory tree (no temporary or spare files), making directories.
Result copy_cache_tree(const std::string &from, const std::string &to, std::size_t *files, std::uint64_t *bytes) {
  PERSIST_TRY(make_dirs(to));
  for (const std::string &name : list_dir(from)) {
    const std::string src = from + "/" + name, dst = to + "/" + name;
    if (is_dir(src)) {
      PERSIST_TRY(copy_cache_tree(src, dst, files, bytes));
      continue;
    }
    const CacheName c = parse_cache_name(name);
    if (c.kind == CacheName::other || c.tmp) continue;
    std::uint64_t n = 0;
    PERSIST_TRY(copy_file(src, dst, &n));
    ++*files;
    *bytes += n;
  }
  return sync_dir(to);
}

int scavenge(const std::string &base_arg, const std::string &prefix, const std::string &job) {
  if (job.empty()) {
    std::fprintf(stderr, "gds-index: scavenge needs --job <id>\n");
    return 2;
  }
  const std::string node = node_name();
  std::string base = base_arg;
  for (std::size_t at = base.find("{node}"); at != std::string::npos; at = base.find("{node}", at + node.size()))
    base.replace(at, 6, node);
  const std::string jd = job_dir(base, job), pj = job_dir(prefix, job);
  if (!is_dir(jd)) {
    std::printf("scavenge: node %s holds nothing of job %s (no %s)\n", node.c_str(), job.c_str(), jd.c_str());
    return 0;
  }
  // The arrays whose newest recorded cached version is newer than their newest flush.
  std::vector<std::string> arrays;
  std::string told;
  for (const std::string &a : cache_arrays(jd)) {
    std::uint64_t cached = kNone;
    for (const auto &[n, v] : cache_versions(jd, a))
      if (v.recorded) cached = n;
    const std::uint64_t flushed = newest_flushed(pj, a);
    if (cached == kNone) continue;
    if (flushed != kNone && flushed >= cached) {
      told += " " + a + " (version " + std::to_string(cached) + " is flushed)";
      continue;
    }
    arrays.push_back(a);
  }
  if (arrays.empty()) {
    std::printf("scavenge: node %s: nothing newer than the prefix to copy%s\n", node.c_str(), told.c_str());
    return 0;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::string dst = scavenged_dir(pj) + "/" + node, tmp = dst + ".tmp";
  g_removed = 0;
  (void)nftw(tmp.c_str(), remove_entry, 32, FTW_DEPTH | FTW_PHYS);
  std::size_t files = 0;
  std::uint64_t bytes = 0;
  Result r;
  for (const std::string &nd : list_dir(jd)) {
    if (!is_node_dir(nd) || !r.ok()) continue;
    for (const std::string &entry : list_dir(jd + "/" + nd)) {
      const bool wanted = group_of_dir(entry) || std::find(arrays.begin(), arrays.end(), entry) != arrays.end();
      if (wanted && r.ok()) r = copy_cache_tree(jd + "/" + nd + "/" + entry, tmp + "/" + nd + "/" + entry, &files, &bytes);
    }
  }
  if (r.ok()) {  // the new copy replaces the node's older one whole
    (void)nftw(dst.c_str(), remove_entry, 32, FTW_DEPTH | FTW_PHYS);
    std::remove(dst.c_str());
    if (::rename(tmp.c_str(), dst.c_str()) != 0) r = Result::io(dst, "cannot rename the copy to it", errno);
    if (r.ok()) r = sync_dir(scavenged_dir(pj));
  }
  if (!r.ok()) {
    std::fprintf(stderr, "gds-index: scavenge: node %s: %s\n", node.c_str(), r.what().c_str());
    return 1;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string names;
  for (const std::string &a : arrays) names += (names.empty() ? "" : ",") + a;
  std::printf("scavenge: node %s: copied %zu file(s), %llu bytes of array(s) %s to %s in %.2f s%s\n", node.c_str(), files,
              static_cast<unsigned long long>(bytes), names.c_str(), dst.c_str(), s,
              told.empty() ? "" : ("; not copied:" + told).c_str());
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> a;
  std::string job;
  bool force = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--force") == 0) {
      force = true;
    } else if (std::strcmp(argv[i], "--job") == 0 && i + 1 < argc) {
      job = argv[++i];
    } else if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      return usage();
    } else {
      a.emplace_back(argv[i]);
    }
  }
  if (a.size() < 2) return usage();
  const std::string &cmd = a[0], &dir = a[1];
  if (cmd != "scavenge" && !is_dir(dir)) {
    std::fprintf(stderr, "gds-index: %s is not a directory\n", dir.c_str());
    return 2;
  }
  const auto number = [&](std::size_t i, std::uint64_t *out) {
    const std::optional<std::uint64_t> n = gds::core::parse_unsigned(a[i].c_str());
    if (!n) std::fprintf(stderr, "gds-index: \"%s\" is not a version number\n", a[i].c_str());
    *out = n.value_or(kNone);
    return n.has_value();
  };
  std::uint64_t version = kNone;
  if (cmd == "list" && a.size() <= 3) return list(dir, a.size() > 2 ? a[2] : "", job);
  if (cmd == "groups" && a.size() <= 3) return groups(dir, a.size() > 2 ? a[2] : "", job);
  if (cmd == "verify" && a.size() <= 4) {
    if (a.size() == 4 && !number(3, &version)) return 2;
    return verify(dir, a.size() > 2 ? a[2] : "", version, job);
  }
  if (cmd == "export" && a.size() == 5) return number(3, &version) ? export_version(dir, a[2], version, a[4], job) : 2;
  if (cmd == "remove" && a.size() == 4) return number(3, &version) ? remove_version(dir, a[2], version, job) : 2;
  if (cmd == "clear" && !job.empty()) {
    std::fprintf(stderr, "gds-index: clear names its job as an argument (gds-index clear <dir> <job>), not --job\n");
    return 2;
  }
  if (cmd == "clear" && a.size() == 3) return clear_job(dir, a[2], force);
  if (cmd == "scavenge" && a.size() == 3) return scavenge(dir, a[2], job);
  if (force && cmd != "clear") std::fprintf(stderr, "gds-index: --force goes with clear only\n");
  return usage();
}
