#!/usr/bin/env bash
# Runs every benchmark on 2 processes and prints their tables, with the MPI
# the build tree was configured with (MPICH or Open MPI: its own raw MPI rows).
#   bench/run.sh <build tree> [Google Benchmark options for gds_bench_rma...]
set -euo pipefail
build=$1
shift
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
read -r -a launcher <<< "$(cache_value MPIEXEC_EXECUTABLE) $(cache_value GDS_MPIEXEC_PREFLAGS)"
# One core per process: without binding the medians of short operations
# drift by tens of percent between runs on a 2-core machine. Hydra and
# Open MPI's mpiexec spell it differently.
if "${launcher[0]}" --version 2>&1 | grep -qE "Open MPI|OpenRTE"; then
  launcher+=(--bind-to core)
else
  launcher+=(-bind-to core)
fi
"${launcher[@]}" -n 2 "$build/bench/gds_bench_rma" "$@"
for b in versions version_cost sparse errors persist prefix cd; do
  [ -x "$build/bench/gds_bench_$b" ] || { echo "bench/run.sh: gds_bench_$b not built (see CMake's output)"; continue; }
  echo
  "${launcher[@]}" -n 2 "$build/bench/gds_bench_$b"
done
echo
"$build/bench/gds_bench_gf256"  # one core: the RS copy type's arithmetic
echo
# The application plain beside resilient (issue 44): the modes interleaved.
python3 "$(dirname "$0")/cg27.py" --program "$build/bench/gds_bench_cg27" --mpiexec "${launcher[*]}" --rounds 3
