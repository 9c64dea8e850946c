// The cd module as the library sees it (src/lib/modules.cpp lists it).
#pragma once

#include "core/module.hpp"

namespace gds::cd {

core::Module &module();

}  // namespace gds::cd
