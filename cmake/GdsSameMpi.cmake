# gds_refuse_other_mpi(what libraries hint): stops the configuration when one
# of `libraries` (a dependency's shared libraries) needs an MPI library other
# than this build's (MPI_C_LIBRARIES): two MPIs in one program abort at the
# first call into the other one. `hint` says what to install instead.
#
# The MPI libraries are told by their ELF names: what the dependency needs
# (objdump -p: NEEDED libmpi.so.40, libmpich.so.12, ...) against the sonames
# of this build's MPI libraries (SONAME). Without objdump nothing is checked.
function(gds_mpi_sonames library out)
  set(names "")
  if(CMAKE_OBJDUMP AND EXISTS "${library}")
    execute_process(COMMAND ${CMAKE_OBJDUMP} -p "${library}" OUTPUT_VARIABLE dump ERROR_QUIET)
    string(REGEX MATCHALL "(NEEDED|SONAME) +lib(mpi|mpich|mpl|open-rte|open-pal)[^ \n]*\\.so[^ \n]*" lines "${dump}")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^(NEEDED|SONAME) +" "" name "${line}")
      list(APPEND names "${name}")
    endforeach()
  endif()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

function(gds_refuse_other_mpi what libraries hint)
  set(ours "")
  foreach(lib IN LISTS MPI_C_LIBRARIES)
    get_filename_component(real "${lib}" REALPATH)
    gds_mpi_sonames("${real}" names)
    list(APPEND ours ${names})
  endforeach()
  if(ours STREQUAL "")
    return()  # this MPI's names are unknown (static, or no objdump): nothing to compare
  endif()
  foreach(lib IN LISTS libraries)
    if(NOT lib MATCHES "\\.so")
      continue()
    endif()
    get_filename_component(real "${lib}" REALPATH)
    gds_mpi_sonames("${real}" needed)
    foreach(name IN LISTS needed)
      if(name MATCHES "^lib(mpi|mpich)\\.so" AND NOT name IN_LIST ours)
        list(JOIN ours ", " ours_text)
        message(FATAL_ERROR "GDS: ${what} is built for another MPI: ${lib} needs ${name}, and this build's MPI "
                            "is ${ours_text}. Install ${hint}.")
      endif()
    endforeach()
  endforeach()
endfunction()
