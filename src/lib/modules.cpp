// The modules libgds is made of, in dependency order: core calls them
// through core::Module without naming any (src/core/module.hpp).
#include "core/module.hpp"
#include "errors/module.hpp"
#include "persist/state.hpp"
#include "rma/state.hpp"
#include "versions/state.hpp"

namespace gds::core {

std::span<Module *const> modules() {
  static Module *const all[] = {&rma::module(), &versions::module(), &persist::module(), &errors::module()};
  return all;
}

}  // namespace gds::core
