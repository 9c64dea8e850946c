// The versions module's part of the library's and of every array's life: its
// settings, and each array's version store and change tracking.
#include <bit>
#include <cstdlib>

#include "core/groups.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"
#include "core/mpi_args.hpp"
#include "core/runtime.hpp"
#include "core/util.hpp"
#include "gds_version.h"
#include "rma/state.hpp"
#include "versions/read.hpp"
#include "versions/state.hpp"

namespace gds::versions {

Settings g_settings;

namespace {

constexpr const char *kInfoKeys[] = {GDS_VERSION_BLOCK_SIZE_KEY, GDS_MAX_VERSIONS_KEY, GDS_MAX_VERSION_BYTES_KEY};

using gds::core::ull;

// A variable holding a number in [lo, hi]; unset or empty: *out untouched,
// a bad value warned about and ignored.
void env_seconds(const char *name, double lo, double hi, double *out) {
  const char *text = std::getenv(name);
  if (text == nullptr || *text == '\0') return;
  char *end = nullptr;
  const double v = std::strtod(text, &end);
  if (end != text && *end == '\0' && v >= lo && v <= hi) {
    *out = v;
    return;
  }
  core::log(core::Level::warning, "GDS_init", "%s=\"%s\" is not a number from %g to %g; using %g", name, text, lo, hi,
            *out);
}

// GDS_version_inc's, in protocol order.
constexpr const core::Step *kSteps[] = {&kSettle, &kExchange, &kReserve, &kFreeze, &kPersist, &kCommit};

class Versions final : public core::Module {
 public:
  [[nodiscard]] core::Layer layer() const override { return ArrayState::kLayer; }
  [[nodiscard]] const char *name() const override { return "versions"; }
  [[nodiscard]] std::span<const char *const> info_keys() const override { return kInfoKeys; }
  [[nodiscard]] std::span<const core::Step *const> steps() const override { return kSteps; }

  void configure() override {
    g_settings = Settings{};
    std::uint64_t block = g_settings.block_size;
    core::env_unsigned("GDS_VERSION_BLOCK_SIZE", UINT64_MAX, &block);
    if (valid_block_size(block))
      g_settings.block_size = block;
    else
      core::log(core::Level::warning, "GDS_init",
                "GDS_VERSION_BLOCK_SIZE=%llu is not a power of two from 64 to 67108864; using %llu", ull(block),
                ull(g_settings.block_size));
    core::env_unsigned("GDS_MAX_VERSIONS", UINT64_MAX, &g_settings.max_versions);
    core::env_unsigned("GDS_MAX_VERSION_BYTES", kAutoBudget - 1, &g_settings.max_bytes);
    std::uint64_t prefault = 0;  // off: a helper faulting in memory takes a core from the program (docs/versions.md)
    core::env_unsigned("GDS_VERSION_PREFAULT", 1, &prefault);
    g_settings.prefault = prefault != 0;
    if (const char *w = std::getenv("GDS_WRITE_TRACKING"); w != nullptr && *w != '\0' &&
        !parse_write_tracking(w, &g_settings.write_tracking))
      core::log(core::Level::warning, "GDS_init", "GDS_WRITE_TRACKING=\"%s\" is none of auto, kernel, compare; using auto", w);
    g_settings.overhead = 0.05;
    g_settings.mtbf = 0;
    // SCR's criteria (SCR_Need_checkpoint's): set, they replace the default
    // overhead, which then applies only if SCR_CHECKPOINT_OVERHEAD (a percentage) says so.
    const bool scr = std::getenv("SCR_CHECKPOINT_INTERVAL") != nullptr ||
                     std::getenv("SCR_CHECKPOINT_SECONDS") != nullptr || std::getenv("SCR_CHECKPOINT_OVERHEAD") != nullptr;
    if (scr && std::getenv("GDS_VERSION_OVERHEAD") == nullptr) {
      double percent = 0;
      env_seconds("SCR_CHECKPOINT_OVERHEAD", 0, 99.9999, &percent);
      g_settings.overhead = percent / 100;
    }
    env_seconds("GDS_VERSION_OVERHEAD", 1e-6, 0.999999, &g_settings.overhead);
    env_seconds("GDS_MTBF", 1e-6, 1e12, &g_settings.mtbf);
    core::env_unsigned("SCR_CHECKPOINT_INTERVAL", UINT64_MAX, &g_settings.every_calls);
    env_seconds("SCR_CHECKPOINT_SECONDS", 0, 1e12, &g_settings.every_seconds);
    rma::set_version_reader(read);
  }

  void show_info() const override {
    char budget[96];
    if (g_settings.max_bytes == kAutoBudget)
      std::snprintf(budget, sizeof budget, "default (%llu x the part, >= %llu MiB; 1/%llu of the host for all)",
                    ull(kAutoFactor), ull(kAutoFloor >> 20), ull(kAutoHostDivisor));
    else
      std::snprintf(budget, sizeof budget, "%llu", ull(g_settings.max_bytes));
    core::log(core::Level::info, "GDS_init",
              "GDS_VERSION_BLOCK_SIZE=%llu GDS_MAX_VERSIONS=%llu GDS_MAX_VERSION_BYTES=%s GDS_VERSION_PREFAULT=%d "
              "GDS_WRITE_TRACKING=%s",
              ull(g_settings.block_size), ull(g_settings.max_versions), budget, g_settings.prefault ? 1 : 0,
              write_tracking_name(g_settings.write_tracking));
  }

  void finalize() override {
    clear_groups();
    rma::set_version_reader(nullptr);
  }

  GDS_status_t prepare(const char *func, const core::ArraySpec &, MPI_Info info, core::Signature &sig,
                       std::unique_ptr<core::ArrayState> *out) override {
    auto s = std::make_unique<ArrayState>();
    std::optional<std::uint64_t> block, max_versions, max_bytes;
    GDS_TRY(core::info_unsigned(func, info, GDS_VERSION_BLOCK_SIZE_KEY, UINT64_MAX, &block));
    GDS_TRY(core::info_unsigned(func, info, GDS_MAX_VERSIONS_KEY, UINT64_MAX, &max_versions));
    GDS_TRY(core::info_unsigned(func, info, GDS_MAX_VERSION_BYTES_KEY, kAutoBudget - 1, &max_bytes));
    const std::uint64_t b = block.value_or(g_settings.block_size);
    GDS_CHECK(valid_block_size(b), GDS_STATUS_INVALID_INFO, "info: %s=%llu is not a power of two from 64 to 67108864",
              GDS_VERSION_BLOCK_SIZE_KEY, ull(b));
    s->block_shift = static_cast<unsigned>(std::countr_zero(b));
    s->retention.max_versions = max_versions.value_or(g_settings.max_versions);
    s->retention.max_bytes = max_bytes.value_or(g_settings.max_bytes);
    sig.add(s->block_shift).add(s->retention.max_versions).add(s->retention.max_bytes);
    *out = std::move(s);
    return GDS_STATUS_OK;
  }

  // The store, and the write log of the array's window in this module's
  // block size (GDS_create arrays are compared block by block instead: the
  // application writes their memory directly).
  GDS_status_t attach(const char *func, core::Array &a) override {
    ArrayState &s = state(a);
    const std::uint64_t bytes = a.local_count * a.type->extent;
    const std::uint64_t blocks = (bytes >> s.block_shift) + ((bytes & ((std::uint64_t{1} << s.block_shift) - 1)) != 0);
    GDS_CHECK(blocks < (std::uint64_t{1} << 32), GDS_STATUS_INVALID_COUNT,
              "this process's part (%llu bytes) has 2^32 or more version blocks of %llu bytes; set a larger %s",
              ull(bytes), ull(std::uint64_t{1} << s.block_shift), GDS_VERSION_BLOCK_SIZE_KEY);
    if (s.retention.max_bytes == kAutoBudget) {  // the default budget: see state.hpp
      s.retention.max_bytes = std::max(kAutoFactor * bytes, kAutoFloor);
      const std::uint64_t host = core::host_memory();
      const auto sharing = static_cast<std::uint64_t>(std::max(1, core::failure_groups().host_processes));
      s.retention.process_bytes =
          host > 0 ? std::max<std::uint64_t>(host / kAutoHostDivisor / sharing, 1) : 0;
    }
    s.store = std::make_unique<Store>(a.communicator(), s.block_shift, bytes, s.retention, g_settings.prefault);
    open_tracking(a, g_settings.write_tracking);
    // GDS_create arrays log the ranges of GDS's own writes too, on every
    // process alike (whether or not its own tracker opened): another
    // process's put may land where the kernel does not see it (an RDMA NIC),
    // or before tracking resumes after a version, and the exchange tells
    // the target.
    rma::track_writes(a, s.block_shift, true);
    return GDS_STATUS_OK;
  }

  GDS_status_t prepare_free(const char *func, core::Array &a) const override {
    GDS_CHECK(state(a).group == nullptr, GDS_STATUS_INVALID,
              "the array is in a version group; free the group (GDS_group_free) first");
    return GDS_STATUS_OK;
  }

  GDS_status_t detach(const char *func, core::Array &a) override {
    ArrayState &s = state(a);
    leave_group(a);
    s.tracking = Tracking{};  // the program's memory untracked again
    return s.store ? s.store->release(func) : GDS_STATUS_OK;
  }
};

Versions g_module;

}  // namespace

core::Module &module() { return g_module; }

}  // namespace gds::versions
