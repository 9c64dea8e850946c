// Lists the phases and kill points of GDS's protocols (core/phase.hpp), as
// the modules name them, for the tests that kill or fail jobs at them:
//   <module> <name> <phase|point> <what holds once it is passed>
// one per line, in protocol order per module.
#include <cstdio>

#include "core/module.hpp"
#include "core/phase.hpp"

int main() {
  for (const gds::core::Module *m : gds::core::modules())
    for (const gds::core::Step *s : m->steps())
      std::printf("%s %s %s %s\n", m->name(), s->name(), s->agreed() ? "phase" : "point", s->after());
  return 0;
}
