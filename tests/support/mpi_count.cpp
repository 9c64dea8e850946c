// The PMPI counter of support/mpi_count.hpp: MPI's entry points defined
// here, counting, then calling their PMPI names. A program linking this file
// (with its symbols exported, so that libgds's calls resolve to them) counts
// every call made on its counting thread, its own and the library's.
#include "support/mpi_count.hpp"

#include <mpi.h>

#include <execinfo.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace gds::test {

namespace {

thread_local bool t_counting = false;
thread_local MpiCounts t_counts;

std::uint64_t type_bytes(MPI_Datatype type, std::uint64_t count) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return count * static_cast<std::uint64_t>(size);
}

std::uint64_t processes(MPI_Comm comm) {
  int n = 1;
  PMPI_Comm_size(comm, &n);
  return static_cast<std::uint64_t>(n);
}

std::uint64_t sum(const int *counts, MPI_Comm comm) {
  std::uint64_t total = 0;
  if (counts != nullptr)
    for (std::uint64_t k = 0, n = processes(comm); k < n; ++k) total += static_cast<std::uint64_t>(counts[k]);
  return total;
}

// GDS_COUNT_TRACE=1: a backtrace of each collective counted (to find where one comes from).
void trace(const char *what) {
  static const bool on = std::getenv("GDS_COUNT_TRACE") != nullptr;
  if (!on) return;
  void *frames[16];
  const int n = backtrace(frames, 16);
  std::fprintf(stderr, "GDS_COUNT_TRACE %s\n", what);
  backtrace_symbols_fd(frames, n, 2);
}

void collective(std::uint64_t bytes, bool growing = false) {
  if (!t_counting) return;
  trace(growing ? "growing collective" : "collective");
  ++t_counts.collectives;
  t_counts.collective_bytes += bytes;
  if (growing) ++t_counts.growing;
}

void object() {
  if (t_counting) ++t_counts.objects;
}

void message(MPI_Datatype type, int count) {
  if (!t_counting) return;
  ++t_counts.messages;
  t_counts.message_bytes += type_bytes(type, static_cast<std::uint64_t>(count));
}

void one_sided(MPI_Datatype type, int count) {
  if (!t_counting) return;
  ++t_counts.rma;
  t_counts.rma_bytes += type_bytes(type, static_cast<std::uint64_t>(count));
}

}  // namespace

std::string MpiCounts::describe() const {
  std::ostringstream o;
  o << collectives << " collectives (" << collective_bytes << " bytes, " << growing << " growing with the processes), "
    << objects << " communicator/window calls, " << messages << " messages (" << message_bytes << " bytes), " << rma
    << " one-sided operations (" << rma_bytes << " bytes)";
  return o.str();
}

void count_mpi_start() {
  t_counts = MpiCounts{};
  t_counting = true;
}

MpiCounts count_mpi_stop() {
  t_counting = false;
  return t_counts;
}

}  // namespace gds::test

using gds::test::collective;
using gds::test::message;
using gds::test::object;
using gds::test::one_sided;
using gds::test::processes;
using gds::test::sum;
using gds::test::type_bytes;

extern "C" {

// ---- collectives -------------------------------------------------------------------------

int MPI_Barrier(MPI_Comm comm) {
  collective(0);
  return PMPI_Barrier(comm);
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
  collective(0);
  return PMPI_Ibarrier(comm, request);
}
int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  collective(type_bytes(type, static_cast<std::uint64_t>(count)));
  return PMPI_Bcast(buffer, count, type, root, comm);
}
int MPI_Ibcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request) {
  collective(type_bytes(type, static_cast<std::uint64_t>(count)));
  return PMPI_Ibcast(buffer, count, type, root, comm, request);
}
int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  collective(type_bytes(type, static_cast<std::uint64_t>(count)));
  return PMPI_Allreduce(in, out, count, type, op, comm);
}
int MPI_Iallreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request) {
  collective(type_bytes(type, static_cast<std::uint64_t>(count)));
  return PMPI_Iallreduce(in, out, count, type, op, comm, request);
}
int MPI_Reduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  collective(type_bytes(type, static_cast<std::uint64_t>(count)));
  return PMPI_Reduce(in, out, count, type, op, root, comm);
}
int MPI_Allgather(const void *in, int in_count, MPI_Datatype in_type, void *out, int out_count, MPI_Datatype out_type,
                  MPI_Comm comm) {
  collective(type_bytes(out_type, static_cast<std::uint64_t>(out_count) * processes(comm)), true);
  return PMPI_Allgather(in, in_count, in_type, out, out_count, out_type, comm);
}
int MPI_Iallgather(const void *in, int in_count, MPI_Datatype in_type, void *out, int out_count,
                   MPI_Datatype out_type, MPI_Comm comm, MPI_Request *request) {
  collective(type_bytes(out_type, static_cast<std::uint64_t>(out_count) * processes(comm)), true);
  return PMPI_Iallgather(in, in_count, in_type, out, out_count, out_type, comm, request);
}
int MPI_Allgatherv(const void *in, int in_count, MPI_Datatype in_type, void *out, const int *counts,
                   const int *displs, MPI_Datatype out_type, MPI_Comm comm) {
  collective(type_bytes(out_type, sum(counts, comm)), true);
  return PMPI_Allgatherv(in, in_count, in_type, out, counts, displs, out_type, comm);
}
int MPI_Iallgatherv(const void *in, int in_count, MPI_Datatype in_type, void *out, const int *counts,
                    const int *displs, MPI_Datatype out_type, MPI_Comm comm, MPI_Request *request) {
  collective(type_bytes(out_type, sum(counts, comm)), true);
  return PMPI_Iallgatherv(in, in_count, in_type, out, counts, displs, out_type, comm, request);
}
int MPI_Gather(const void *in, int in_count, MPI_Datatype in_type, void *out, int out_count, MPI_Datatype out_type,
               int root, MPI_Comm comm) {
  collective(type_bytes(in_type, static_cast<std::uint64_t>(in_count)), true);
  return PMPI_Gather(in, in_count, in_type, out, out_count, out_type, root, comm);
}
int MPI_Igather(const void *in, int in_count, MPI_Datatype in_type, void *out, int out_count, MPI_Datatype out_type,
                int root, MPI_Comm comm, MPI_Request *request) {
  collective(type_bytes(in_type, static_cast<std::uint64_t>(in_count)), true);
  return PMPI_Igather(in, in_count, in_type, out, out_count, out_type, root, comm, request);
}
int MPI_Gatherv(const void *in, int in_count, MPI_Datatype in_type, void *out, const int *counts, const int *displs,
                MPI_Datatype out_type, int root, MPI_Comm comm) {
  collective(type_bytes(in_type, static_cast<std::uint64_t>(in_count)), true);
  return PMPI_Gatherv(in, in_count, in_type, out, counts, displs, out_type, root, comm);
}
int MPI_Igatherv(const void *in, int in_count, MPI_Datatype in_type, void *out, const int *counts, const int *displs,
                 MPI_Datatype out_type, int root, MPI_Comm comm, MPI_Request *request) {
  collective(type_bytes(in_type, static_cast<std::uint64_t>(in_count)), true);
  return PMPI_Igatherv(in, in_count, in_type, out, counts, displs, out_type, root, comm, request);
}
int MPI_Alltoall(const void *in, int in_count, MPI_Datatype in_type, void *out, int out_count, MPI_Datatype out_type,
                 MPI_Comm comm) {
  collective(type_bytes(out_type, static_cast<std::uint64_t>(out_count) * processes(comm)), true);
  return PMPI_Alltoall(in, in_count, in_type, out, out_count, out_type, comm);
}
int MPI_Alltoallv(const void *in, const int *in_counts, const int *in_displs, MPI_Datatype in_type, void *out,
                  const int *out_counts, const int *out_displs, MPI_Datatype out_type, MPI_Comm comm) {
  collective(type_bytes(out_type, sum(out_counts, comm)), true);
  return PMPI_Alltoallv(in, in_counts, in_displs, in_type, out, out_counts, out_displs, out_type, comm);
}
int MPI_Scatter(const void *in, int in_count, MPI_Datatype in_type, void *out, int out_count, MPI_Datatype out_type,
                int root, MPI_Comm comm) {
  collective(type_bytes(out_type, static_cast<std::uint64_t>(out_count)), true);
  return PMPI_Scatter(in, in_count, in_type, out, out_count, out_type, root, comm);
}

// ---- communicators and windows (collective) ------------------------------------------------

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out) {
  object();
  return PMPI_Comm_dup(comm, out);
}
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out) {
  object();
  return PMPI_Comm_split(comm, color, key, out);
}
int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out) {
  object();
  return PMPI_Comm_split_type(comm, type, key, info, out);
}
int MPI_Comm_free(MPI_Comm *comm) {
  object();
  return PMPI_Comm_free(comm);
}
int MPI_Win_create(void *base, MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm, MPI_Win *win) {
  object();
  return PMPI_Win_create(base, size, unit, info, comm, win);
}
int MPI_Win_allocate_shared(MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win) {
  object();
  return PMPI_Win_allocate_shared(size, unit, info, comm, base, win);
}
int MPI_Win_free(MPI_Win *win) {
  object();
  return PMPI_Win_free(win);
}
int MPI_Win_fence(int assertion, MPI_Win win) {
  object();
  return PMPI_Win_fence(assertion, win);
}

// ---- point to point ------------------------------------------------------------------------

int MPI_Send(const void *buffer, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  message(type, count);
  return PMPI_Send(buffer, count, type, dest, tag, comm);
}
int MPI_Ssend(const void *buffer, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  message(type, count);
  return PMPI_Ssend(buffer, count, type, dest, tag, comm);
}
int MPI_Isend(const void *buffer, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) {
  message(type, count);
  return PMPI_Isend(buffer, count, type, dest, tag, comm, request);
}
int MPI_Issend(const void *buffer, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  message(type, count);
  return PMPI_Issend(buffer, count, type, dest, tag, comm, request);
}
int MPI_Sendrecv(const void *out, int out_count, MPI_Datatype out_type, int dest, int out_tag, void *in,
                 int in_count, MPI_Datatype in_type, int source, int in_tag, MPI_Comm comm, MPI_Status *status) {
  message(out_type, out_count);
  return PMPI_Sendrecv(out, out_count, out_type, dest, out_tag, in, in_count, in_type, source, in_tag, comm, status);
}

// ---- one-sided -----------------------------------------------------------------------------

int MPI_Put(const void *origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint disp,
            int target_count, MPI_Datatype target_type, MPI_Win win) {
  one_sided(origin_type, origin_count);
  return PMPI_Put(origin, origin_count, origin_type, target, disp, target_count, target_type, win);
}
int MPI_Get(void *origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint disp, int target_count,
            MPI_Datatype target_type, MPI_Win win) {
  one_sided(origin_type, origin_count);
  return PMPI_Get(origin, origin_count, origin_type, target, disp, target_count, target_type, win);
}
int MPI_Accumulate(const void *origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint disp,
                   int target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win) {
  one_sided(origin_type, origin_count);
  return PMPI_Accumulate(origin, origin_count, origin_type, target, disp, target_count, target_type, op, win);
}
int MPI_Get_accumulate(const void *origin, int origin_count, MPI_Datatype origin_type, void *result,
                       int result_count, MPI_Datatype result_type, int target, MPI_Aint disp, int target_count,
                       MPI_Datatype target_type, MPI_Op op, MPI_Win win) {
  one_sided(origin_type, origin_count);
  return PMPI_Get_accumulate(origin, origin_count, origin_type, result, result_count, result_type, target, disp,
                             target_count, target_type, op, win);
}
int MPI_Compare_and_swap(const void *origin, const void *compare, void *result, MPI_Datatype type, int target,
                         MPI_Aint disp, MPI_Win win) {
  one_sided(type, 1);
  return PMPI_Compare_and_swap(origin, compare, result, type, target, disp, win);
}

}  // extern "C"
