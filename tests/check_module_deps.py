#!/usr/bin/env python3
"""Checks that the modules of src/ include each other only downwards:
core <- rma <- versions <- persist <- errors <- cd <- lib (see src/CMakeLists.txt).

Prints every include that reaches up (or sideways into an unknown module) and
exits 1 if there is one."""
import pathlib
import re
import sys

ORDER = ["core", "rma", "versions", "persist", "errors", "cd", "lib"]
src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent / "src")
include = re.compile(r'^\s*#\s*include\s+"(\w+)/')
bad = []
checked = 0
for path in sorted(src.rglob("*.[ch]pp")):
    module = path.relative_to(src).parts[0]
    if module not in ORDER:
        bad.append(f"{path}: not in a known module ({', '.join(ORDER)})")
        continue
    for number, line in enumerate(path.read_text().splitlines(), 1):
        m = include.match(line)
        if not m:
            continue
        checked += 1
        target = m.group(1)
        if target not in ORDER:
            bad.append(f"{path}:{number}: includes {target}/, which is not a module")
        elif ORDER.index(target) > ORDER.index(module):
            bad.append(f"{path}:{number}: {module} includes {target}/ (a higher module)")
for b in bad:
    print(b)
print(f"{checked} module includes checked, {len(bad)} reaching up")
sys.exit(1 if bad else 0)
