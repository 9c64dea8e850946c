#include "persist/names.hpp"

#include "core/mpi_args.hpp"

namespace gds::persist {

namespace {

bool ends_with(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The number between `at` and the next '.', which must end it.
std::uint64_t number_at(const std::string &name, std::size_t at) {
  const std::size_t end = name.find('.', at);
  if (end == std::string::npos || end == at) return kNone;
  return core::parse_unsigned(name.substr(at, end - at).c_str()).value_or(kNone);
}

}  // namespace

std::optional<std::string> job_of_dir(const std::string &name) {
  if (name.size() <= 4 || name.rfind("gds.", 0) != 0) return std::nullopt;
  return name.substr(4);
}

bool is_node_dir(const std::string &name) { return name.rfind("node", 0) == 0; }

std::optional<std::uint64_t> rank_of_dir(const std::string &name) {
  if (name.size() < 2 || name[0] != 'r') return std::nullopt;
  return core::parse_unsigned(name.c_str() + 1);
}

CacheName parse_cache_name(const std::string &name) {
  CacheName c;
  c.tmp = ends_with(name, ".tmp");
  const std::string base = c.tmp ? name.substr(0, name.size() - 4) : name;
  CacheName::Kind kind = CacheName::other;
  std::uint64_t n = kNone;
  if (base.rfind("p", 0) == 0) {
    const std::size_t at = base.find(".v");
    if (at != std::string::npos && (ends_with(base, ".gdsv") || ends_with(base, ".gdsg"))) {
      kind = CacheName::partner;
      n = number_at(base, at + 2);
    }
  } else if (base.rfind("v", 0) == 0 &&
             (ends_with(base, ".gdsv") || ends_with(base, ".gdsg") || ends_with(base, ".done"))) {
    kind = ends_with(base, ".done") ? CacheName::record : CacheName::version;
    n = number_at(base, 1);
  } else if (base.rfind("x", 0) == 0 && ends_with(base, ".gdsx")) {
    kind = CacheName::parity;
    n = number_at(base, 1);
  }
  if (n != kNone) {
    c.kind = kind;
    c.number = n;
  }
  return c;
}

}  // namespace gds::persist
