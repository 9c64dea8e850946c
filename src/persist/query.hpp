// A version group's member list in the prefix (<prefix>/gds.<job>/<group>@group),
// which GDS_restart_query reads when the cache is gone: "gds-group 1", then
// one member name per line.
#pragma once

#include <string>
#include <vector>

#include "persist/result.hpp"

namespace gds::persist {

// The members the file names, or none if it is missing or malformed.
std::vector<std::string> read_group_members(const std::string &path);
// Writes it (tmp, fsync, rename).
Result write_group_members(const std::string &path, const std::vector<std::string> &members);

}  // namespace gds::persist
