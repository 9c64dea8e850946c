// The persist module's part of the library's and of every array's life: its
// settings, each array's cache settings (info keys over the environment),
// and opening and closing an array's cache.
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <set>

#include "core/log.hpp"
#include "core/mpi_args.hpp"
#include "core/runtime.hpp"
#include "core/util.hpp"
#include "persist/cache.hpp"
#include "persist/files.hpp"
#include "persist/levels.hpp"
#include "persist/names.hpp"
#include "persist/prefix_level.hpp"
#include "persist/state.hpp"

namespace gds::persist {

namespace {

constexpr const char *kInfoKeys[] = {GDS_NAME_KEY,        GDS_COPY_TYPE_KEY,   GDS_SET_SIZE_KEY,
                                     GDS_CACHE_BASE_KEY,  GDS_CACHE_SIZE_KEY,  GDS_CACHE_EVERY_KEY,
                                     GDS_RESTART_KEY,     GDS_PREFIX_KEY,      GDS_FLUSH_KEY,
                                     GDS_PREFIX_SIZE_KEY, GDS_FLUSH_INFLIGHT_KEY, GDS_CACHE_SYNC_KEY,
                                     GDS_SET_FAILURES_KEY};

// In protocol order: a cached version's, then a flush's.
constexpr const core::Step *kSteps[] = {
    &kCachePrepare,      &kCacheDurable,   &kCacheRecord,    &kCacheRecorded, &kCacheDrop,
    &kFlushCreate,       &kFlushWritten,   &kFlushChecksum,  &kFlushSummed,   &kFlushFinish,
    &kFlushRename,       &kFlushIndex,     &kFlushPublished, &kRestartDistribute, &kRestartFetch,
    &kRestartRecords,    &kRestartFiles,   &kRestartRebuild, &kRestartFlushes, &kRestartReplay,
    &kRestartSettle,     &kRestartRecorded};

using gds::core::ull;

// The job directories this run opened (cache: on this process's host;
// prefix), for the finished record; and whether GDS_should_exit stopped it.
std::set<std::string> g_cache_jobs, g_prefix_jobs, g_found_finished;
bool g_halted = false;

// The finished record in `job_dir` (under a name of this process's own
// first: processes of one host write the same one).
void write_finished(const std::string &job_dir) {
  char when[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  const std::string text = std::string(kFinishedMagic) + "time " + when + "\nprocesses " +
                           std::to_string(core::g_rt.world_size) + "\n";
  const std::string path = finished_path(job_dir), tmp = path + "." + std::to_string(core::g_rt.world_rank);
  Result written = write_file(tmp + ".tmp", {{const_cast<char *>(text.data()), text.size()}});
  if (written.ok() && ::rename((tmp + ".tmp").c_str(), path.c_str()) != 0)
    written = Result::io(path, "cannot rename to it", errno);
  if (!written.ok()) {
    remove_file(tmp + ".tmp");
    core::log(core::Level::warning, "GDS_finalize", "the job's finished record is not written: %s",
              written.what().c_str());
  }
}

class Persist final : public core::Module {
 public:
  [[nodiscard]] core::Layer layer() const override { return ArrayState::kLayer; }
  [[nodiscard]] const char *name() const override { return "persist"; }
  [[nodiscard]] std::span<const char *const> info_keys() const override { return kInfoKeys; }
  [[nodiscard]] std::span<const core::Step *const> steps() const override { return kSteps; }

  void configure() override {
    read_settings();
    if (core::g_rt.world_rank == 0)
      for (const std::string &note : g_settings.notes) core::log(core::Level::notice, "GDS_init", "%s", note.c_str());
    restarts_unsaid();
    created_ = 0;
    versions::set_levels({&cache_level(), &prefix_level()});
    register_member_naming();
  }
  // A run that was not halted finished: its job directories say so, for
  // gds-run --clear and gds-index clear (a rerun under the job id would
  // restart at its end).
  void finalize() override {
    versions::set_levels({});
    if (!g_halted) {
      for (const std::string &dir : g_cache_jobs) write_finished(dir);
      if (core::g_rt.world_rank == 0)
        for (const std::string &dir : g_prefix_jobs) write_finished(dir);
    }
    g_cache_jobs.clear();
    g_prefix_jobs.clear();
    g_found_finished.clear();
    g_halted = false;
    forget_fallback_warnings();
  }

  void show_info() const override {
    const Settings &s = g_settings;
    core::log(core::Level::info, "GDS_init",
              "GDS_COPY_TYPE=%s GDS_CACHE_BASE=%s GDS_SET_SIZE=%llu GDS_SET_FAILURES=%llu GDS_CACHE_SIZE=%llu GDS_CACHE_EVERY=%llu "
              "GDS_JOB_ID=%s GDS_RESTART=%s GDS_PREFIX=%s GDS_FLUSH=%llu GDS_PREFIX_SIZE=%llu "
              "GDS_FLUSH_INFLIGHT=%llu GDS_CACHE_SYNC=%d%s%s",
              copy_name(s.copy), s.base.c_str(), ull(s.set_size), ull(s.set_failures), ull(s.cache_size), ull(s.every), s.job.c_str(),
              s.restart < 0 ? "auto" : s.restart ? "1" : "0", s.prefix.empty() ? "(none)" : s.prefix.c_str(),
              ull(s.flush), ull(s.prefix_size), ull(s.inflight), s.sync ? 1 : 0, s.error.ok() ? "" : "; refused: ",
              s.error.what().c_str());
  }

  GDS_status_t prepare(const char *func, const core::ArraySpec &spec, MPI_Info info, core::Signature &sig,
                       std::unique_ptr<core::ArrayState> *out) override {
    auto s = std::make_unique<ArrayState>();
    const Settings &g = g_settings;
    GDS_CHECK(g.error.ok(), GDS_STATUS_INVALID, "persistence configuration: %s", g.error.what().c_str());
    s->copy = g.copy;
    s->copy_given = g.copy_given;
    if (auto v = core::info_value(info, GDS_COPY_TYPE_KEY)) {
      const std::optional<Copy> c = parse_copy(*v);
      GDS_CHECK(c.has_value(), GDS_STATUS_INVALID_INFO, "info: %s=%s is not NONE, SINGLE (or LOCAL), PARTNER, XOR or RS",
                GDS_COPY_TYPE_KEY, v->c_str());
      s->copy = *c;
      s->copy_given = true;
    }
    std::optional<std::uint64_t> set_failures, set_size, cache_size, every, restart, flush, prefix_size, inflight, sync;
    GDS_TRY(core::info_unsigned(func, info, GDS_SET_SIZE_KEY, 1u << 30, &set_size));
    GDS_TRY(core::info_unsigned(func, info, GDS_SET_FAILURES_KEY, 254, &set_failures));
    GDS_TRY(core::info_unsigned(func, info, GDS_CACHE_SIZE_KEY, 1u << 30, &cache_size));
    GDS_TRY(core::info_unsigned(func, info, GDS_CACHE_EVERY_KEY, 1u << 30, &every));
    GDS_TRY(core::info_unsigned(func, info, GDS_RESTART_KEY, 1, &restart));
    GDS_TRY(core::info_unsigned(func, info, GDS_FLUSH_KEY, 1u << 30, &flush));
    GDS_TRY(core::info_unsigned(func, info, GDS_PREFIX_SIZE_KEY, 1u << 30, &prefix_size));
    GDS_TRY(core::info_unsigned(func, info, GDS_FLUSH_INFLIGHT_KEY, 1024, &inflight));
    GDS_TRY(core::info_unsigned(func, info, GDS_CACHE_SYNC_KEY, 1, &sync));
    GDS_CHECK(!prefix_size || *prefix_size >= 1, GDS_STATUS_INVALID_INFO, "info: %s=0; the prefix keeps 1 or more",
              GDS_PREFIX_SIZE_KEY);
    GDS_CHECK(!inflight || *inflight >= 1, GDS_STATUS_INVALID_INFO, "info: %s=0; it must be 1 or more",
              GDS_FLUSH_INFLIGHT_KEY);
    GDS_CHECK(!set_size || *set_size >= 2, GDS_STATUS_INVALID_INFO, "info: %s=%llu; an XOR or RS set has 2 or more members",
              GDS_SET_SIZE_KEY, ull(*set_size));
    GDS_CHECK(!set_failures || *set_failures >= 1, GDS_STATUS_INVALID_INFO,
              "info: %s=0; an RS set survives 1 or more lost nodes", GDS_SET_FAILURES_KEY);
    GDS_CHECK(!cache_size || *cache_size >= 1, GDS_STATUS_INVALID_INFO, "info: %s=0; the cache keeps 1 or more",
              GDS_CACHE_SIZE_KEY);
    GDS_CHECK(!every || *every >= 1, GDS_STATUS_INVALID_INFO, "info: %s=0; it must be 1 or more", GDS_CACHE_EVERY_KEY);
    s->set_size = set_size.value_or(g.set_size);
    s->set_size_given = set_size.has_value() || g.set_size_given;
    s->set_failures = set_failures.value_or(g.set_failures);
    s->set_failures_given = set_failures.has_value() || g.set_failures_given;
    s->cache_size = cache_size.value_or(g.cache_size);
    s->every = every.value_or(g.every);
    s->restart = restart ? *restart == 1 : g.restart >= 0 ? g.restart == 1 : g.job_given;
    const std::string base = core::info_value(info, GDS_CACHE_BASE_KEY).value_or(g.base);
    s->base_per_node = base.find("{node}") != std::string::npos;
    s->base = expand_base(base);
    GDS_CHECK(!s->base.empty() && s->base[0] == '/', GDS_STATUS_INVALID_INFO,
              "the cache directory \"%s\" is not an absolute path", s->base.c_str());
    s->prefix = core::info_value(info, GDS_PREFIX_KEY).value_or(g.prefix);
    GDS_CHECK(s->prefix.empty() || s->prefix[0] == '/', GDS_STATUS_INVALID_INFO,
              "the prefix directory \"%s\" is not an absolute path", s->prefix.c_str());
    s->flush = flush.value_or(g.flush);
    s->prefix_size = prefix_size.value_or(g.prefix_size);
    s->inflight = inflight.value_or(g.inflight);
    s->sync = sync ? *sync == 1 : g.sync;
    s->name = core::info_value(info, GDS_NAME_KEY).value_or("");  // unnamed: named at attach
    GDS_CHECK(s->name.empty() || core::valid_name(s->name), GDS_STATUS_INVALID_INFO,
              "info: %s=\"%s\" must have 1-64 letters, digits, '-', '_' or '.' (not first)", GDS_NAME_KEY,
              s->name.c_str());
    // What persisted files must match to be this array's.
    core::Signature shape;
    shape.add(spec.flavor).add(static_cast<int>(spec.order)).add(spec.type->extent).add(spec.count->size());
    for (const core::Index c : *spec.count) shape.add(c);
    s->signature = shape.value();
    sig.add(static_cast<int>(s->copy)).add(s->set_size).add(s->set_failures).add(s->cache_size).add(s->every).add(s->restart);
    sig.add(s->flush).add(s->prefix_size).add(s->inflight).add(static_cast<int>(s->sync)).add(s->prefix.data(), s->prefix.size());
    sig.add(s->name.data(), s->name.size());
    *out = std::move(s);
    return GDS_STATUS_OK;
  }

  // Unnamed arrays are named by the order of their creation, counted here
  // (attach runs on every process alike, after the processes agreed).
  GDS_status_t attach(const char *func, core::Array &a) override {
    ArrayState &s = state(a);
    const std::uint64_t order = created_++;
    if (s.name.empty()) {
      s.name = "array" + std::to_string(order);
      s.default_name = true;
    }
    if (s.persistent()) GDS_TRY(open_cache(func, a));
    if (s.flushing()) GDS_TRY(open_prefix(func, a));
    return s.restart ? restart(func, a) : GDS_STATUS_OK;
  }

  GDS_status_t detach(const char *func, core::Array &a) override {
    say_restarts();  // before the array's note goes with it
    ArrayState &s = state(a);
    // The cached versions and flushes in flight end first (their failures were raised).
    if (s.persistent() && cache_forget(func, a) != GDS_STATUS_OK)
      core::log(core::Level::warning, func, "array %s: a cached version failed before the array was freed",
                s.name.c_str());
    if (s.flusher && flush_wait(func, a) != GDS_STATUS_OK)
      core::log(core::Level::warning, func, "array %s: a flush to the prefix failed before the array was freed",
                s.name.c_str());
    prune_wait(a);
    if (s.cacher && s.cacher->scheme) s.cacher->scheme->release();
    if (s.cacher) {
      s.cacher->spares->clear();
      for (auto &[dir, spares] : s.cacher->group_spares) spares->clear();
    }
    return GDS_STATUS_OK;
  }

 private:
  std::uint64_t created_ = 0;  // arrays attached so far: unnamed arrays' names
};

Persist g_module;

}  // namespace

core::Module &module() { return g_module; }

bool job_opened(const std::string &job_dir, bool prefix) {
  if ((prefix ? g_prefix_jobs : g_cache_jobs).insert(job_dir).second) {
    const std::string path = finished_path(job_dir);
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) g_found_finished.insert(job_dir);
    remove_file(path);
  }
  return g_found_finished.count(job_dir) != 0;
}

void job_halted() { g_halted = true; }

}  // namespace gds::persist
