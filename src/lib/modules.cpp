// The modules libgds is made of, in dependency order: core calls them
// through core::Module without naming any (src/core/module.hpp).
#include "cd/module.hpp"
#include "core/module.hpp"
#include "errors/module.hpp"
#include "errors/registry.hpp"
#include "persist/state.hpp"
#include "rma/state.hpp"
#include "versions/state.hpp"

namespace gds::core {

static_assert(rma::ArrayState::kLayer == 0 && versions::ArrayState::kLayer == 1 &&
                  persist::ArrayState::kLayer == 2 && errors::Scope::kLayer == 3 && kLayers == 5,
              "modules() lists the modules by layer");

std::span<Module *const> modules() {
  static Module *const all[] = {&rma::module(), &versions::module(), &persist::module(), &errors::module(), &cd::module()};
  return all;
}

}  // namespace gds::core
