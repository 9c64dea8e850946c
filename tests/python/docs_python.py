#!/usr/bin/env python3
"""docs/python.md as a new user follows it (issue 45): on a clean clone of the
source, its <!-- test: python-build --> block builds the module alone (the
apt-get line is checked, not run: every package it names must be installed),
within the 5 minutes of build time the docs promise; then its
<!-- test: python-run --> blocks run under mpiexec on 2 processes with the
PYTHONPATH the block exported, with a prefix (GDS_PREFIX) so that a version is
flushed to an HDF5 file, which must exist afterwards. Another Python than the
one the module was built for, if this machine has one, must be told in one
line which to use.

  docs_python.py --source TOP --mpiexec "MPIEXEC FLAGS" [--keep DIR]
"""
import argparse
import ast
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ap = argparse.ArgumentParser()
ap.add_argument("--source", required=True)
ap.add_argument("--mpiexec", required=True)
ap.add_argument("--build-seconds", type=float, default=300)
args = ap.parse_args()

MARKER = re.compile(r"^<!--\s*test:\s*(python-build|python-run)\s*-->\s*$")
doc = Path(args.source, "docs", "python.md").read_text().split("\n")
blocks = []
for i, line in enumerate(doc):
    m = MARKER.match(line)
    if m and i + 1 < len(doc) and doc[i + 1].startswith("```"):
        j = i + 2
        while not doc[j].startswith("```"):
            j += 1
        blocks.append((m.group(1), i + 1, "\n".join(doc[i + 2:j])))
# Every other Python block of the page parses as Python (as docs_code.py compiles the C ones),
# unless it is marked <!-- test: skip (reason) --> (an excerpt).
syntax = []
for i, line in enumerate(doc):
    if line.startswith("```python"):
        j = i + 1
        while not doc[j].startswith("```"):
            j += 1
        marker = doc[i - 1] if i > 0 else ""
        if "test: skip (" in marker:
            continue
        try:
            ast.parse("\n".join(doc[i + 1:j]))
        except SyntaxError as e:
            syntax.append(f"docs/python.md:{i + 1}: a Python block that does not parse ({e.msg}, its line "
                          f"{e.lineno}); mark an excerpt <!-- test: skip (reason) -->")
builds = [b for b in blocks if b[0] == "python-build"]
runs = [b for b in blocks if b[0] == "python-run"]
if len(builds) != 1 or not runs:
    sys.exit(f"docs_python: docs/python.md needs one python-build block and a python-run block, has {blocks}")
failures = list(syntax)

with tempfile.TemporaryDirectory(prefix="gds-docs-python-") as tmp:
    clone = Path(tmp, "gds")
    if subprocess.run(["git", "clone", "-q", args.source, str(clone)]).returncode != 0:
        shutil.copytree(args.source, clone, ignore=shutil.ignore_patterns("build", ".git"))
    # The block's commands, as written; apt-get's packages are checked instead of installed.
    text = builds[0][2].replace("\\\n", " ")
    script = []
    for line in text.split("\n"):
        words = shlex.split(line, comments=True)
        if words[:2] == ["apt-get", "install"]:
            packages = [w for w in words[2:] if not w.startswith("-")]
            absent = [p for p in packages
                      if subprocess.run(["dpkg", "-s", p], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL).returncode != 0]
            if absent:
                failures.append(f"the apt-get line names packages not installed here: {absent}")
            continue
        script.append(line)
    script.append('echo "PYTHONPATH=$PYTHONPATH"')
    started = time.monotonic()
    p = subprocess.run(["bash", "-e", "-u", "-c", "\n".join(script)], cwd=clone, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=1800)
    took = time.monotonic() - started
    print(p.stdout[-4000:])
    print(f"docs_python: the build block took {took:.0f} s (the docs promise about 2 minutes; limit "
          f"{args.build_seconds:.0f} s)", flush=True)
    if p.returncode != 0:
        failures.append(f"the build block exited with {p.returncode}")
    elif took > args.build_seconds:
        failures.append(f"the build block took {took:.0f} s, more than {args.build_seconds:.0f} s")
    path = re.findall(r"^PYTHONPATH=(.*)$", p.stdout, re.M)
    configured = re.search(r"GDS: Python module gds for (\S+)", p.stdout)
    if p.returncode == 0 and path and configured:
        python = configured.group(1)
        env = dict(os.environ, PYTHONPATH=path[-1], GDS_JOB_ID="docs-python", GDS_PREFIX=str(Path(tmp, "prefix")),
                   GDS_FLUSH="1")
        for _, line, code in runs:
            prog = Path(tmp, f"block{line}.py")
            prog.write_text(code)
            r = subprocess.run([*shlex.split(args.mpiexec), "-n", "2", python, str(prog)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
            print(r.stdout[-3000:])
            if r.returncode != 0:
                failures.append(f"docs/python.md:{line}: the block exited with {r.returncode}")
        flushed = glob.glob(str(Path(tmp, "prefix", "**", "*.h5")), recursive=True)
        print(f"docs_python: flushed to the prefix: {[os.path.relpath(f, tmp) for f in flushed]}")
        if not flushed:
            failures.append("no version was flushed to the prefix (GDS_PREFIX, GDS_FLUSH=1)")
        # Another interpreter (a pyenv's, here) is told which one to use.
        others = [x for x in glob.glob("/root/.pyenv/versions/3.*/bin/python3") + glob.glob("/usr/local/bin/python3*")
                  if os.path.realpath(x) != os.path.realpath(python) and os.access(x, os.X_OK)]
        for other in others[:1]:
            r = subprocess.run([other, "-c", "import gds"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=60)
            last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
            print(f"docs_python: {other}: {last}")
            same = subprocess.run([other, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                  stdout=subprocess.PIPE, text=True).stdout.strip()
            mine = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                  stdout=subprocess.PIPE, text=True).stdout.strip()
            if same != mine and not (r.returncode != 0 and last.startswith("ImportError: gds: this module was built for")
                                     and python in last):
                failures.append(f"{other} (Python {same}) was not told in one line to use {python}: {last}")
    elif p.returncode == 0:
        failures.append("the build block did not print configure's interpreter line or export PYTHONPATH")

for f in failures:
    print(f"FAIL: {f}")
sys.exit(1 if failures else 0)
