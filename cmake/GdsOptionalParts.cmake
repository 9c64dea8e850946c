# The optional parts of the build. The library needs only MPI, HDF5, Boost and
# a C++ compiler; the Fortran module, the tests and the benchmarks need more,
# and each has an option that is AUTO, ON or OFF:
#   AUTO (the default)  built when what it needs is found; otherwise one STATUS
#                       line says what was missing and how to turn it on
#   ON                  what it needs must be found: the configure stops, naming
#                       the missing packages (and their Debian names)
#   OFF                 not built, nothing looked for
# The top-level CMakeLists.txt calls the probes in order: gds_probe_fortran
# before find_package(MPI) (MPI's Fortran part is looked for only with a Fortran
# compiler), gds_decide_fortran after it, then gds_probe_tests and
# gds_probe_bench. Each sets GDS_WITH_<PART> to ON or OFF.

include(CheckLanguage)

set(GDS_BUILD_FORTRAN AUTO CACHE STRING "Build the Fortran module (libgdsf90, USE GDS): AUTO, ON or OFF")
set(GDS_BUILD_TESTS AUTO CACHE STRING
    "Build the test suite (GoogleTest, Python 3; AUTO: only as the top-level project, with BUILD_TESTING): AUTO, ON or OFF")
set(GDS_BUILD_BENCH AUTO CACHE STRING "Build the benchmarks (Google Benchmark, Global Arrays): AUTO, ON or OFF")
foreach(gds_part FORTRAN TESTS BENCH)
  set_property(CACHE GDS_BUILD_${gds_part} PROPERTY STRINGS AUTO ON OFF)
endforeach()

# gds_part_mode(<part>): gds_<part>_mode = AUTO, ON or OFF (ON and OFF in any
# spelling CMake accepts), and an empty list of what is missing.
macro(gds_part_mode part)
  string(TOUPPER "${GDS_BUILD_${part}}" gds_value)
  if(gds_value STREQUAL "AUTO")
    set(gds_${part}_mode AUTO)
  elseif(GDS_BUILD_${part})
    set(gds_${part}_mode ON)
  else()
    set(gds_${part}_mode OFF)
  endif()
  set(gds_${part}_missing "")
endmacro()

# gds_part_decide(<part> <what>): GDS_WITH_<part> from the mode and
# gds_<part>_missing (each entry: a package and its Debian names, with no ';').
function(gds_part_decide part what)
  list(JOIN gds_${part}_missing "; " missing)
  if(gds_${part}_mode STREQUAL "OFF")
    set(with OFF)
  elseif(missing STREQUAL "")
    set(with ON)
  elseif(gds_${part}_mode STREQUAL "ON")
    message(FATAL_ERROR "GDS: GDS_BUILD_${part}=ON, but ${what} need what was not found: ${missing}. "
                        "Install what is missing and configure again, or configure with -DGDS_BUILD_${part}=OFF.")
  else()
    message(STATUS "GDS: ${what} are not built: not found: ${missing}. "
                   "Install what is missing and configure again to build them (-DGDS_BUILD_${part}=ON makes this an error).")
    set(with OFF)
  endif()
  set(GDS_WITH_${part} ${with} PARENT_SCOPE)
endfunction()

# A Fortran compiler, enabled if found (FC or CMAKE_Fortran_COMPILER chooses it).
macro(gds_probe_fortran)
  gds_part_mode(FORTRAN)
  if(NOT gds_FORTRAN_mode STREQUAL "OFF")
    check_language(Fortran)
    if(CMAKE_Fortran_COMPILER)
      enable_language(Fortran)
    else()
      list(APPEND gds_FORTRAN_missing "a Fortran compiler (Debian: gfortran, or name one in FC)")
    endif()
  endif()
endmacro()

# After find_package(MPI ... OPTIONAL_COMPONENTS Fortran): MPI's Fortran bindings.
macro(gds_decide_fortran)
  if(CMAKE_Fortran_COMPILER_LOADED AND NOT MPI_Fortran_FOUND)
    list(APPEND gds_FORTRAN_missing "the Fortran bindings of ${MPI_C_COMPILER} (Debian: libmpich-dev with gfortran)")
  endif()
  gds_part_decide(FORTRAN "the Fortran module and the Fortran examples and tests")
endmacro()

# The tests: GoogleTest and Python 3 (the drivers). AUTO builds them only in
# GDS's own build (PROJECT_IS_TOP_LEVEL) with BUILD_TESTING not OFF.
macro(gds_probe_tests)
  gds_part_mode(TESTS)
  if(gds_TESTS_mode STREQUAL "AUTO" AND NOT CMAKE_SOURCE_DIR STREQUAL PROJECT_SOURCE_DIR)
    message(STATUS "GDS: the tests are not built: GDS is not the top-level project (-DGDS_BUILD_TESTS=ON builds them)")
    set(gds_TESTS_mode OFF)
  elseif(gds_TESTS_mode STREQUAL "AUTO" AND DEFINED BUILD_TESTING AND NOT BUILD_TESTING)
    message(STATUS "GDS: the tests are not built: BUILD_TESTING is OFF (-DGDS_BUILD_TESTS=ON builds them)")
    set(gds_TESTS_mode OFF)
  endif()
  if(NOT gds_TESTS_mode STREQUAL "OFF")
    find_package(GTest QUIET)
    if(NOT GTest_FOUND)
      list(APPEND gds_TESTS_missing "GoogleTest (Debian: googletest libgtest-dev)")
    endif()
    # Debian's interpreter, which has python3-h5py (the prefix tests read flushed
    # files with it), rather than one a version manager puts first on the PATH.
    if(EXISTS /usr/bin/python3 AND NOT Python3_EXECUTABLE)
      set(Python3_EXECUTABLE /usr/bin/python3)
    endif()
    find_package(Python3 QUIET COMPONENTS Interpreter)
    if(NOT Python3_Interpreter_FOUND)
      list(APPEND gds_TESTS_missing "Python 3 (Debian: python3, and python3-h5py for the persistence tests)")
    endif()
  endif()
  gds_part_decide(TESTS "the tests")
endmacro()

# The benchmarks: Google Benchmark, and Global Arrays built for this MPI (the
# comparison in bench/bench_rma.cpp; Debian's libglobalarrays-dev and
# libarmci-mpi-dev: libga-mpich or libga-openmpi; elsewhere point
# CMAKE_PREFIX_PATH at a GA built for that MPI). Sets GA_INCLUDE_DIR and GA_LIBRARIES.
macro(gds_probe_bench)
  gds_part_mode(BENCH)
  if(NOT gds_BENCH_mode STREQUAL "OFF")
    find_package(benchmark QUIET)
    if(NOT benchmark_FOUND)
      list(APPEND gds_BENCH_missing "Google Benchmark (Debian: libbenchmark-dev)")
    endif()
    find_path(GA_INCLUDE_DIR ga.h)
    set(GA_LIBRARIES "")
    set(gds_ga_missing "")
    foreach(gds_lib ga-${GDS_MPI_FAMILY} armci-${GDS_MPI_FAMILY} scalapack-${GDS_MPI_FAMILY} lapack blas)
      string(MAKE_C_IDENTIFIER "${gds_lib}" gds_var)
      find_library(GA_LIB_${gds_var} ${gds_lib})
      if(GA_LIB_${gds_var})
        list(APPEND GA_LIBRARIES ${GA_LIB_${gds_var}})
      else()
        list(APPEND gds_ga_missing lib${gds_lib})
      endif()
    endforeach()
    # GA is Fortran underneath: its programs link the Fortran runtime.
    find_library(GA_LIB_gfortran gfortran HINTS ${CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES})
    if(GA_LIB_gfortran)
      list(APPEND GA_LIBRARIES ${GA_LIB_gfortran})
    else()
      list(APPEND gds_ga_missing libgfortran)
    endif()
    if(NOT GA_INCLUDE_DIR)
      list(PREPEND gds_ga_missing ga.h)
    endif()
    if(gds_ga_missing)
      list(JOIN gds_ga_missing ", " gds_ga_missing)
      string(CONCAT gds_ga_missing "Global Arrays for ${GDS_MPI_FAMILY}: ${gds_ga_missing} (Debian: "
             "libglobalarrays-dev libarmci-mpi-dev libscalapack-${GDS_MPI_FAMILY}-dev liblapack-dev libblas-dev gfortran)")
      list(APPEND gds_BENCH_missing "${gds_ga_missing}")
    endif()
  endif()
  gds_part_decide(BENCH "the benchmarks")
endmacro()
