// A PMPI counter of the MPI calls a process makes while counting is on: the
// test program that links support/mpi_count.cpp defines the MPI entry
// points below, counts, and calls the PMPI ones (MPI's profiling
// interface), so the calls libgds makes into MPI are counted too. Only the
// thread that turned counting on is counted.
//
// Counted: every collective, blocking or not, with the bytes it brings this
// process (an allreduce of n elements: n; an allgather: n x the processes);
// the communicator and window calls (collective too); the messages and
// bytes this process sends; the one-sided operations and their bytes.
#pragma once

#include <cstdint>
#include <string>

namespace gds::test {

struct MpiCounts {
  std::uint64_t collectives = 0;       // collective calls, blocking or nonblocking
  std::uint64_t collective_bytes = 0;  // bytes they bring this process, summed
  std::uint64_t growing = 0;           // those whose data grows with the processes (all-to-all, all-gather, gather, scatter)
  std::uint64_t objects = 0;           // communicators and windows made, freed or fenced (collective)
  std::uint64_t messages = 0;          // point-to-point sends
  std::uint64_t message_bytes = 0;
  std::uint64_t rma = 0;               // one-sided operations
  std::uint64_t rma_bytes = 0;

  [[nodiscard]] std::string describe() const;
};

// Counting on (from zero) and off (returning what was counted).
void count_mpi_start();
MpiCounts count_mpi_stop();

}  // namespace gds::test
