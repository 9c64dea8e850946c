#!/usr/bin/env bash
# A first build by a user who has only what the library needs (MPI, HDF5,
# Boost, a C++ compiler): GoogleTest, Google Benchmark, Python and pybind11
# hidden from CMake, no Fortran compiler (FC=/nonexistent). The configure must
# succeed with the tests, the benchmarks and the Fortran module off, each
# saying so in one line; the library (unoptimised, to keep this short) is
# built, installed into a scratch prefix and checked as check-install.sh checks
# a full one (headers, library, CMake package, gds.pc with its license,
# LICENSE, nothing of the Fortran module; a C program built with pkg-config and
# run on 2 processes, the examples built with find_package(GDS) and the main
# one run). Then each optional part asked for (=ON) with its tool missing must
# stop the configure, naming the package.
#   check-minimal-build.sh <source> <scratch dir> [cmake options: generator, the MPI and HDF5...]
# GDS_MPIEXEC: the launcher, with its options (default mpiexec.mpich).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source=$1
scratch=$2
shift 2
read -r -a mpiexec <<< "${GDS_MPIEXEC:-mpiexec.mpich}"
rm -rf "$scratch"
mkdir -p "$scratch"
build="$scratch/build"
prefix="$scratch/prefix"
hidden=(-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
        -DCMAKE_DISABLE_FIND_PACKAGE_Python3=ON -DCMAKE_DISABLE_FIND_PACKAGE_pybind11=ON)
export FC=/nonexistent

# expect_line <log> <text>: the log has the text (a fixed string; CMake wraps its error
# messages, so lines are joined and spaces squeezed first), or the test fails showing the log.
expect_line() {
  local flat
  flat=$(tr '\n' ' ' < "$1" | tr -s ' ')
  if ! grep -qF -- "$2" <<< "$flat"; then
    cat "$1"
    echo "check-minimal-build: '$2' not in $1" >&2
    exit 1
  fi
}

cmake -S "$source" -B "$build" -DCMAKE_BUILD_TYPE=None "${hidden[@]}" "$@" > "$scratch/configure.log" 2>&1 ||
  { cat "$scratch/configure.log"; echo "check-minimal-build: the configure failed" >&2; exit 1; }
expect_line "$scratch/configure.log" "GDS: the tests are not built: not found: GoogleTest (Debian: googletest libgtest-dev); Python 3 (Debian: python3,"
expect_line "$scratch/configure.log" "GDS: the benchmarks are not built: not found: Google Benchmark (Debian: libbenchmark-dev)"
expect_line "$scratch/configure.log" "GDS: the Fortran module and the Fortran examples and tests are not built: not found: a Fortran compiler (Debian: gfortran, or name one in FC)."
cmake --build "$build" -j "${GDS_JOBS:-2}" > "$scratch/build.log" 2>&1 ||
  { tail -50 "$scratch/build.log"; echo "check-minimal-build: the build failed" >&2; exit 1; }
cmake --install "$build" --prefix "$prefix" > "$scratch/install.log"

test -f "$prefix/include/gds/gds.h"
test -f "$prefix/include/gds/gds.hpp"
test -f "$prefix/include/gds/gds_config.h"
test -f "$prefix/lib/cmake/GDS/GDSConfig.cmake"
ls "$prefix"/lib/libgds.so* > /dev/null
grep -qx 'License: BSD-3-Clause' "$prefix/lib/pkgconfig/gds.pc"
grep -q 'BSD 3-Clause License' "$prefix/share/doc/GDS/LICENSE"
if ls "$prefix"/lib/pkgconfig/gdsf90.pc "$prefix"/lib/libgdsf90.so* "$prefix"/include/gds/*.mod > /dev/null 2>&1; then
  echo "check-minimal-build: parts of the Fortran module were installed" >&2
  exit 1
fi

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
read -r -a pc <<< "$(pkg-config --cflags --libs gds)"
cc -std=c11 "$here/consumer.c" "${pc[@]}" -o "$scratch/consumer_c"
"${mpiexec[@]}" -n 2 "$scratch/consumer_c"
# The examples (C and C++ only: no Fortran compiler) against the CMake package.
"$here/../../examples/run-installed.sh" "$prefix" "$scratch/examples" > "$scratch/examples.log" 2>&1 ||
  { cat "$scratch/examples.log"; echo "check-minimal-build: the examples failed" >&2; exit 1; }

# Each optional part asked for with its tool missing: the configure stops and names the package.
expect_failure() {  # <log name> <expected text> <cmake options...>
  local log="$scratch/$1.log" text=$2
  shift 2
  if cmake -S "$source" -B "$build" "$@" > "$log" 2>&1; then
    cat "$log"
    echo "check-minimal-build: the configure with $* succeeded" >&2
    exit 1
  fi
  expect_line "$log" "$text"
}
expect_failure tests-on "GDS_BUILD_TESTS=ON, but the tests need what was not found: GoogleTest (Debian: googletest libgtest-dev); Python 3" \
  -DGDS_BUILD_TESTS=ON
expect_failure bench-on "GDS_BUILD_BENCH=ON, but the benchmarks need what was not found: Google Benchmark (Debian: libbenchmark-dev)" \
  -DGDS_BUILD_TESTS=AUTO -DGDS_BUILD_BENCH=ON
expect_failure fortran-on "GDS_BUILD_FORTRAN=ON, but the Fortran module and the Fortran examples and tests need what was not found: a Fortran compiler (Debian: gfortran, or name one in FC)." \
  -DGDS_BUILD_BENCH=AUTO -DGDS_BUILD_FORTRAN=ON
echo "check-minimal-build: ok"
