#!/usr/bin/env bash
# Builds the examples against an installed GDS and runs the main one (resilient_dgemm) on 2 processes.
#   examples/run-installed.sh <install prefix> <build directory>
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=$(cd "$1" && pwd)
build=$2
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build"
mpiexec.mpich -n "${GDS_EXAMPLE_RANKS:-2}" "$build/resilient_dgemm"
