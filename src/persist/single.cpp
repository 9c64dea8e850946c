// SINGLE (SCR's LOCAL): each process's files alone, in its failure group's
// directory. Nothing is rebuilt: a lost file is lost.
#include "core/log.hpp"
#include "persist/scheme.hpp"

namespace gds::persist {

namespace {

class Single final : public Scheme {
 public:
  explicit Single(const Places &p) : p_(p) {}
  GDS_status_t prepare(const char *, std::uint64_t, std::uint64_t) override { return GDS_STATUS_OK; }
  GDS_status_t encode(const char *, std::uint64_t, const FileView &) override { return GDS_STATUS_OK; }
  GDS_status_t start(const char *, std::uint64_t, const std::byte *, Exchange *) override { return GDS_STATUS_OK; }
  GDS_status_t rebuild(const char *func, std::uint64_t n, const std::vector<char> &lost, std::span<const std::byte>,
                       const std::string &) override {
    if (!lost[static_cast<std::size_t>(p_.rank)]) return GDS_STATUS_OK;
    return core::fail(GDS_STATUS_UNRECOVERABLE, func,
                      "version %llu of process %d is lost and the copy type SINGLE keeps no redundancy",
                      static_cast<unsigned long long>(n), p_.rank);
  }
  void remove(std::uint64_t) override {}
  [[nodiscard]] int tolerance() const override { return 0; }

 private:
  Places p_;
};

}  // namespace

std::unique_ptr<Scheme> make_single(const Places &p) { return std::make_unique<Single>(p); }

}  // namespace gds::persist
