// The cd module's part of the library's and of every array's life: GDS_free
// refuses an array a live CD preserves a box of, GDS_finalize ends every CD;
// and the chain of CDs the error dispatcher consults first.
#include "cd/module.hpp"

#include <algorithm>
#include <cstring>

#include "cd/domain.hpp"
#include "core/collective.hpp"
#include "core/log.hpp"
#include "errors/enclosing.hpp"

namespace gds::cd {
namespace {

struct State final : core::ArrayState {
  static constexpr core::Layer kLayer = 4;
};

// The current CD's chain, innermost first, as it was when an error was
// dispatched (handlers do not nest, so one snapshot per thread suffices).
class Chain final : public errors::EnclosingScopes {
 public:
  [[nodiscard]] std::size_t depth() const override {
    std::lock_guard lock(g_mutex);
    ++nesting_;
    snapshot_.clear();
    for (Domain *d = current(); d != nullptr; d = d->parent) {
      std::shared_ptr<Domain> s;
      if (resolve("dispatch", core::to_handle<GDS_cd_t>(d->handle), &s) == GDS_STATUS_OK) snapshot_.push_back(s);
    }
    return snapshot_.size();
  }
  // The snapshot holds CDs alive (a committed one too) only while a dispatch uses it.
  void release() const override {
    std::lock_guard lock(g_mutex);
    if (nesting_ > 0 && --nesting_ == 0) snapshot_.clear();
  }
  [[nodiscard]] const errors::HandlerSet *handlers(std::size_t level) const override {
    std::lock_guard lock(g_mutex);
    if (level >= snapshot_.size() || !snapshot_[level]->live) return nullptr;
    return &snapshot_[level]->handlers;
  }
  [[nodiscard]] std::string name(std::size_t level) const override {
    return level < snapshot_.size() ? snapshot_[level]->describe() : "a containment domain";
  }

 private:
  static thread_local std::vector<std::shared_ptr<Domain>> snapshot_;
  static thread_local int nesting_;
};
thread_local std::vector<std::shared_ptr<Domain>> Chain::snapshot_;
thread_local int Chain::nesting_ = 0;

Chain g_chain;

// No GDS collective inside a per-process CD that logs its messages: its
// re-execution alone could not replay it (the document: what cannot be
// logged is refused). GDS_finalize frees what is left whatever is current.
GDS_status_t no_collective_in_logged_cd(const char *func) {
  if (std::strcmp(func, "GDS_finalize") == 0) return GDS_STATUS_OK;
  std::lock_guard lock(g_mutex);
  const Domain *c = current();
  if (c == nullptr || !c->per_process() || !c->logging) return GDS_STATUS_OK;
  return core::fail(GDS_STATUS_CD_STATE, func,
                    "%s is a per-process CD that logs its messages: a collective call inside it could not be "
                    "replayed when it re-executes alone (make the call outside it, or in a CD over the call's "
                    "processes)",
                    c->describe().c_str());
}

class Cd final : public core::Module {
 public:
  [[nodiscard]] core::Layer layer() const override { return State::kLayer; }
  [[nodiscard]] const char *name() const override { return "cd"; }
  void configure() override {
    errors::set_enclosing_scopes(&g_chain);
    core::set_collective_guard(&no_collective_in_logged_cd);
  }
  void finalize() override {
    std::lock_guard lock(g_mutex);
    std::vector<std::shared_ptr<Domain>> all = all_domains();
    // Children first: a CD is ended after those that refer to it.
    std::sort(all.begin(), all.end(), [](const auto &x, const auto &y) { return x->depth > y->depth; });
    if (!all.empty())
      core::log(core::Level::warning, "GDS_finalize", "%zu containment domain(s) were never committed; ended",
                all.size());
    for (auto &d : all) end(*d);
    free_inner_comms();
    errors::set_enclosing_scopes(nullptr);
    core::set_collective_guard(nullptr);
  }
  GDS_status_t prepare(const char *, const core::ArraySpec &, MPI_Info, core::Signature &,
                       std::unique_ptr<core::ArrayState> *state) override {
    *state = std::make_unique<State>();
    return GDS_STATUS_OK;
  }
  GDS_status_t attach(const char *, core::Array &) override { return GDS_STATUS_OK; }
  GDS_status_t prepare_free(const char *func, core::Array &a) const override {
    std::lock_guard lock(g_mutex);
    GDS_CHECK(!preserves(a), GDS_STATUS_INVALID,
              "array #%llu has a box preserved in a live containment domain: commit the CD first",
              static_cast<unsigned long long>(a.id));
    return GDS_STATUS_OK;
  }
  GDS_status_t detach(const char *, core::Array &) override { return GDS_STATUS_OK; }
};

Cd g_module;

}  // namespace

core::Module &module() { return g_module; }

}  // namespace gds::cd
