// Scopes that enclose the work of the calling thread, consulted before the
// array's and GDS_ROOT's handlers for the local errors delivered on that
// thread. Containment domains (src/cd, a module above this one) register
// them; the errors module does not know what they are.
#pragma once

#include <cstddef>
#include <string>

#include "errors/registry.hpp"

namespace gds::errors {

class EnclosingScopes {
 public:
  virtual ~EnclosingScopes() = default;
  // The handler sets that enclose the calling thread, innermost first:
  // level 0 is the current scope, depth() - 1 the outermost. depth() takes
  // the chain as it is when an error is dispatched; handlers(level) answers
  // for that chain, nullptr for a scope that ended since (a handler may end
  // inner scopes before it escalates).
  [[nodiscard]] virtual std::size_t depth() const = 0;
  // The dispatch that called depth() is over: the chain taken need not be kept.
  virtual void release() const = 0;
  [[nodiscard]] virtual const HandlerSet *handlers(std::size_t level) const = 0;
  // "containment domain 'solver' (depth 2)", for messages.
  [[nodiscard]] virtual std::string name(std::size_t level) const = 0;
};

// The enclosing scopes (nullptr: none). The registrant outlives its use.
void set_enclosing_scopes(const EnclosingScopes *scopes);

// From a handler of an enclosing scope: the error it is handling goes on to
// the next scope outwards when the handler returns.
GDS_status_t escalate(const char *func, GDS_error_t error_desc);

}  // namespace gds::errors
