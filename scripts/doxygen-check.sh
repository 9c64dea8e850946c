#!/usr/bin/env bash
# Generates the API reference of the public headers with docs/Doxyfile and
# fails on any Doxygen warning.
#   scripts/doxygen-check.sh <source tree> <output directory>
# Exit 77 (ctest's skip) when doxygen is not installed.
set -euo pipefail
src=$(cd "$1" && pwd)
out=$2
if ! command -v doxygen > /dev/null; then
  echo "doxygen is not installed: API reference not checked" >&2
  exit 77
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
log="$out/doxygen-warnings.log"
# WARN_AS_ERROR already fails on a warning; the log is checked too, so that a
# Doxygen without FAIL_ON_WARNINGS cannot pass one silently.
cd "$src"
status=0
{ cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = $out"; echo "WARN_LOGFILE = $log"; } | doxygen - || status=$?
if [ -s "$log" ]; then
  cat "$log" >&2
  echo "doxygen: $(grep -c . "$log") warning(s)" >&2
  exit 1
fi
[ "$status" -eq 0 ] || exit "$status"
echo "API reference: $out/html/index.html (no warnings)"
