// SINGLE (SCR's LOCAL): each process's files alone, in its failure group's
// directory. Nothing is rebuilt: a lost file is lost.
#include <string>

#include "persist/scheme.hpp"

namespace gds::persist {

namespace {

class Single final : public Scheme {
 public:
  explicit Single(const Places &p) : p_(p) {}
  Result prepare(std::uint64_t, std::uint64_t, std::span<const std::uint64_t>) override { return {}; }
  Result start(std::uint64_t, int, const FileView &, const Files &, Exchange *) override { return {}; }
  Result rebuild(std::uint64_t n, const std::vector<char> &lost, std::span<const std::byte>, const std::string &,
                 const Files &) override {
    if (!lost[static_cast<std::size_t>(p_.rank)]) return {};
    return Result::failure(GDS_STATUS_UNRECOVERABLE, "version " + std::to_string(n) + " of process " +
                                                         std::to_string(p_.rank) +
                                                         " is lost and the copy type SINGLE keeps no redundancy");
  }
  void remove(std::uint64_t, const Files &) override {}
  [[nodiscard]] int tolerance() const override { return 0; }

 private:
  Places p_;
};

}  // namespace

std::unique_ptr<Scheme> make_single(const Places &p) { return std::make_unique<Single>(p); }

}  // namespace gds::persist
