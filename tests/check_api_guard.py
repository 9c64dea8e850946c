#!/usr/bin/env python3
"""Checks that every C entry point returning GDS_status_t (src/, fortran/) is
a function-try-block closed by GDS_API_CATCH, so no exception crosses the C
API. Exits 1 and names the entry points that are not."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
definition = re.compile(r"GDS_API GDS_status_t (\w+)\(")
bad, guarded = [], 0
for path in sorted(list((root / "src").rglob("*.cpp")) + list((root / "fortran").rglob("*.cpp"))):
    text = path.read_text()
    for m in definition.finditer(text):
        # The parameter list ends at the matching parenthesis.
        depth, k = 0, m.end() - 1
        while True:
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            if depth == 0:
                break
            k += 1
        after = text[k + 1:].lstrip()
        if after.startswith(";"):
            continue  # a declaration
        if not after.startswith("try {"):
            bad.append(f"{path}: {m.group(1)} is not a function-try-block")
            continue
        # The body ends where its braces balance; GDS_API_CATCH must follow.
        start = text.index("{", k)
        depth, p = 0, start
        while True:
            depth += {"{": 1, "}": -1}.get(text[p], 0)
            if depth == 0:
                break
            p += 1
        if not text[p + 1:].lstrip().startswith("GDS_API_CATCH"):
            bad.append(f"{path}: {m.group(1)} does not end with GDS_API_CATCH")
            continue
        guarded += 1
for b in bad:
    print(b)
print(f"{guarded} entry points guarded, {len(bad)} not")
sys.exit(1 if bad or guarded == 0 else 0)
