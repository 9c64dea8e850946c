// The persist module's levels above memory, in the order versions calls
// them and restart asks them: the cache (cache.cpp), then the prefix
// (prefix.cpp); and the one restart driver over them (restart.cpp).
#pragma once

#include <memory>
#include <optional>

#include "core/array.hpp"
#include "persist/result.hpp"
#include "versions/level.hpp"

namespace gds::persist {

// What a level found of an array at restart: its catalogue (the versions
// restart can take, oldest first, ending with the newest complete one),
// and what the level opened or mapped to read them, owned here and
// released with it.
class Recovery {
 public:
  virtual ~Recovery() = default;
  versions::Catalogue catalogue;
  // Bytes [at, at + bytes) of entry i's storage (never more than a run of
  // its own blocks) to dst. Local; never throws. With `check_later`, the
  // checks the level can make from the blocks' checksums wait for check().
  virtual Result read(std::size_t i, std::uint64_t at, std::uint64_t bytes, std::byte *dst, bool check_later) = 0;
  // The checks read() left for later, against the frozen version replay
  // made of entry i (local; the driver agrees). Called once per entry read
  // with check_later.
  virtual Result check(std::size_t /*i*/, const versions::Frozen & /*v*/) { return {}; }
  // Restart took entry `taken` (collective, agreed; `navigable`: how many
  // entries became memory versions): the level records it and reports it
  // (restart info).
  virtual GDS_status_t recovered(const char *func, core::Array &a, std::size_t taken, std::uint64_t navigable) = 0;
};

// A level above memory: what versions asks of it (versions::Level), and
// its part in restart.
class PersistentLevel : public versions::Level {
 public:
  // Recover (collective, agreed): the level's catalogue of the array,
  // rebuilt from its own metadata with what its redundancy repairs; *out
  // stays empty if the level has nothing. GDS_STATUS_UNRECOVERABLE: it has
  // versions, but none can be restored.
  virtual GDS_status_t recover(const char *func, core::Array &a, std::unique_ptr<Recovery> *out) = 0;
  // Restart took version `number` from another level (`from`), or nothing
  // (nullopt: a fresh start). Collective: the level forgets what it holds
  // that is not on that timeline.
  virtual void restarted_elsewhere(const char *func, core::Array &a, int from, std::optional<std::uint64_t> number) = 0;
};

PersistentLevel &cache_level();
PersistentLevel &prefix_level();

// Restart (collective, at GDS_alloc/GDS_create with restart asked for):
// asks the levels that hold the array, in order, for their catalogue
// (recover), replays the first one that has a version into memory
// versions, and tells the other levels which version was taken.
// GDS_STATUS_UNRECOVERABLE if some level had versions and none could be
// restored; GDS_STATUS_OK with nothing restarted if no level had any.
GDS_status_t restart(const char *func, core::Array &a);

// Lets GDS_group_create name the members the program did not name after
// their group (naming.cpp; at GDS_init).
void register_member_naming();

// Says, in one line (on the arrays' rank 0), the restarts not yet said: a
// group's members as the group, the job's other arrays with them. Called
// where the restarts are known to be over for now: a group created, a
// version made, an array freed. The job's first such line is a notice (at
// every debug level), later ones information. Local.
void say_restarts(const std::string *group = nullptr, std::span<core::Array *const> members = {});
// A new job (GDS_init): nothing said yet.
void restarts_unsaid();

}  // namespace gds::persist
