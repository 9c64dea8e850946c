#!/usr/bin/env bash
# Builds the examples against an installed GDS and runs the main one (resilient_dgemm) on 2 processes.
#   examples/run-installed.sh <install prefix> <build directory>
# GDS_MPIEXEC: the launcher, with its options (default: the one GDS was built with, from gds.pc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=$(cd "$1" && pwd)
build=$2
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build"
read -r -a mpiexec <<< "${GDS_MPIEXEC:-$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=mpiexec gds)}"
"${mpiexec[@]}" -n "${GDS_EXAMPLE_RANKS:-2}" "$build/resilient_dgemm"
