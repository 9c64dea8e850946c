#!/usr/bin/env bash
# Runs every benchmark on 2 processes and prints their tables.
#   bench/run.sh <build tree> [benchmark options...]
set -euo pipefail
build=$1
shift
mpiexec.mpich -n 2 "$build/bench/gds_bench_rma" "$@"
