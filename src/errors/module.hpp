// The errors module (src/lib/modules.cpp lists it).
#pragma once

#include "core/module.hpp"

namespace gds::errors {

core::Module &module();

}  // namespace gds::errors
