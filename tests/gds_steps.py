"""The phases and kill points of GDS's protocols, as tests/list_steps prints them
(the modules name them: core/phase.hpp), for the tests that kill jobs at them.

A test enumerates them from here and says what it expects of each one it knows;
a step it does not know is an error, so that a new phase cannot go untested."""
import subprocess
from collections import namedtuple

Step = namedtuple("Step", "module name kind after")


def load(list_steps):
    out = subprocess.run([list_steps], capture_output=True, text=True, check=True).stdout
    steps = []
    for line in out.splitlines():
        module, name, kind, after = line.split(" ", 3)
        steps.append(Step(module, name, kind, after))
    return steps


def version_and_cache(steps):
    """The steps a cached version passes: GDS_version_inc's and the cache's."""
    return [s for s in steps if s.module == "versions" or s.name.startswith("cache.")]


def check_known(steps, known, what):
    """Every step is one the test states an expectation for."""
    unknown = [s.name for s in steps if s.name not in known]
    if unknown:
        raise SystemExit(f"{what}: no expectation for the step(s) {', '.join(unknown)}: say what a kill there leaves")
