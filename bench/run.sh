#!/usr/bin/env bash
# Runs every benchmark on 2 processes and prints their tables.
#   bench/run.sh <build tree> [Google Benchmark options for gds_bench_rma...]
set -euo pipefail
build=$1
shift
# One core per process: without binding the medians of short operations
# drift by tens of percent between runs on a 2-core machine.
mpiexec.mpich -bind-to core -n 2 "$build/bench/gds_bench_rma" "$@"
echo
mpiexec.mpich -bind-to core -n 2 "$build/bench/gds_bench_versions"
echo
mpiexec.mpich -bind-to core -n 2 "$build/bench/gds_bench_errors"
echo
mpiexec.mpich -bind-to core -n 2 "$build/bench/gds_bench_persist"
echo
mpiexec.mpich -bind-to core -n 2 "$build/bench/gds_bench_prefix"
echo
mpiexec.mpich -bind-to core -n 2 "$build/bench/gds_bench_cd"
