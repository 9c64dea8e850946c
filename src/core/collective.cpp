#include "core/collective.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <new>
#include <stdexcept>

#include "core/groups.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"

namespace gds::core {

namespace {
std::atomic<CollectiveGuard> g_guard{nullptr};

GDS_status_t guarded(const char *func, MPI_Comm comm, GDS_status_t local) {
  const CollectiveGuard guard = g_guard.load(std::memory_order_acquire);
  if (local != GDS_STATUS_OK || guard == nullptr) return local;
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size > 1 ? guard(func) : local;
}
}  // namespace

void set_collective_guard(CollectiveGuard guard) { g_guard.store(guard, std::memory_order_release); }

namespace {

// Whether this host runs more of the job's processes than it has processors
// (as GDS_init found them: before that, one process).
bool oversubscribed() {
  static const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus <= 0 || failure_groups().host_processes > cpus;
}

// Polls `test` (true once done, or on an error it leaves in *rc) until it is.
template <class Test>
int poll(Test test) {
  int rc = MPI_SUCCESS;
  for (int polls = 0; !test(&rc);) idle(&polls);
  return rc;
}

}  // namespace

void idle(int *polls) {
  constexpr int kSpins = 64;
  if (++*polls > kSpins && oversubscribed()) sched_yield();
}

int wait(MPI_Request *request) {
  return poll([&](int *rc) {
    int done = 0;
    *rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    return *rc != MPI_SUCCESS || done != 0;
  });
}

int wait_all(std::vector<MPI_Request> *requests) {
  const int rc = poll([&](int *r) {
    int done = 0;
    *r = MPI_Testall(static_cast<int>(requests->size()), requests->data(), &done, MPI_STATUSES_IGNORE);
    return *r != MPI_SUCCESS || done != 0;
  });
  requests->clear();
  return rc;
}

int allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = MPI_Iallreduce(in, out, count, type, op, comm, &r);
  return rc != MPI_SUCCESS ? rc : wait(&r);
}

int allgather(const void *in, int count, MPI_Datatype type, void *out, int out_count, MPI_Datatype out_type,
              MPI_Comm comm) {
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = MPI_Iallgather(in, count, type, out, out_count, out_type, comm, &r);
  return rc != MPI_SUCCESS ? rc : wait(&r);
}

int allgatherv(const void *in, int count, MPI_Datatype type, void *out, const int *counts, const int *displs,
               MPI_Datatype out_type, MPI_Comm comm) {
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = MPI_Iallgatherv(in, count, type, out, counts, displs, out_type, comm, &r);
  return rc != MPI_SUCCESS ? rc : wait(&r);
}

int bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = MPI_Ibcast(buffer, count, type, root, comm, &r);
  return rc != MPI_SUCCESS ? rc : wait(&r);
}

int gather(const void *in, int count, MPI_Datatype type, void *out, int out_count, MPI_Datatype out_type, int root,
           MPI_Comm comm) {
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = MPI_Igather(in, count, type, out, out_count, out_type, root, comm, &r);
  return rc != MPI_SUCCESS ? rc : wait(&r);
}

int gatherv(const void *in, int count, MPI_Datatype type, void *out, const int *counts, const int *displs,
            MPI_Datatype out_type, int root, MPI_Comm comm) {
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = MPI_Igatherv(in, count, type, out, counts, displs, out_type, root, comm, &r);
  return rc != MPI_SUCCESS ? rc : wait(&r);
}

GDS_status_t remote_failure(const char *func) {
  return fail(GDS_STATUS_REMOTE_ERROR, func, "another process failed this collective call");
}

GDS_status_t arguments_differ(const char *func, const char *what) {
  return fail(GDS_STATUS_COLLECTIVE_MISMATCH, func, "processes passed different %s to this collective call", what);
}

GDS_status_t agree(const char *func, MPI_Comm comm, GDS_status_t local, std::span<std::uint64_t> values,
                   std::uint64_t signature, const char *what) {
  local = guarded(func, comm, local);
  // max(~s) = ~min(s): one MPI_MAX reduction yields both bounds of the signatures.
  constexpr std::size_t kHead = 3, kInline = 16;
  const std::size_t n = kHead + values.size();
  std::uint64_t inline_buffer[2 * kInline];
  std::vector<std::uint64_t> heap;
  std::uint64_t *mine = inline_buffer, *all = inline_buffer + kInline;
  if (n > kInline) {
    heap.resize(2 * n);  // may throw: the callers are inside an entry point's guard
    mine = heap.data();
    all = heap.data() + n;
  }
  mine[0] = local != GDS_STATUS_OK ? 1u : 0u;
  mine[1] = signature;
  mine[2] = ~signature;
  std::copy(values.begin(), values.end(), mine + kHead);
  const int rc = allreduce(mine, all, static_cast<int>(n), MPI_UINT64_T, MPI_MAX, comm);
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Allreduce", rc);
  std::copy(all + kHead, all + n, values.begin());
  if (local != GDS_STATUS_OK) return local;
  if (all[0] != 0) return remote_failure(func);
  if (all[1] != ~all[2]) return arguments_differ(func, what);
  return GDS_STATUS_OK;
}

GDS_status_t agree(const char *func, MPI_Comm comm, GDS_status_t local, std::uint64_t signature) {
  return agree(func, comm, local, std::span<std::uint64_t>{}, signature);
}

GDS_status_t sparse_exchange(const char *func, MPI_Comm comm, int tag,
                             const std::vector<std::pair<int, std::vector<std::uint32_t>>> &out,
                             const std::function<void(int, std::span<const std::uint32_t>)> &on_message) {
  std::vector<MPI_Request> sends(out.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto &[to, words] = out[i];
    const int rc = MPI_Issend(words.data(), static_cast<int>(words.size()), MPI_UINT32_T, to, tag, comm, &sends[i]);
    if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Issend", rc);
  }
  MPI_Request barrier = MPI_REQUEST_NULL;
  std::vector<std::uint32_t> in;
  int idle = 0;
  for (bool entered = false;;) {
    int arrived = 0;
    MPI_Status st;
    int rc = MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &arrived, &st);
    if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Iprobe", rc);
    if (arrived != 0) {
      int count = 0;
      MPI_Get_count(&st, MPI_UINT32_T, &count);
      in.resize(static_cast<std::size_t>(std::max(count, 0)));
      rc = MPI_Recv(in.data(), count, MPI_UINT32_T, st.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Recv", rc);
      on_message(st.MPI_SOURCE, in);
      continue;
    }
    int done = 0;
    core::idle(&idle);  // oversubscribed, the process this one waits for may need the core
    if (!entered) {
      rc = MPI_Testall(static_cast<int>(sends.size()), sends.data(), &done, MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Testall", rc);
      if (done != 0) {
        rc = MPI_Ibarrier(comm, &barrier);
        if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Ibarrier", rc);
        entered = true;
      }
      continue;
    }
    rc = MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Test", rc);
    if (done != 0) return GDS_STATUS_OK;
  }
}

GDS_status_t agree_and_poll(const char *func, MPI_Comm comm, GDS_status_t local, bool *pending, bool *flag) {
  local = guarded(func, comm, local);
  const unsigned mine =
      (local != GDS_STATUS_OK ? 1u : 0u) | (*pending ? 2u : 0u) | (flag != nullptr && *flag ? 4u : 0u);
  unsigned all = 0;
  const int rc = allreduce(&mine, &all, 1, MPI_UNSIGNED, MPI_BOR, comm);
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Allreduce", rc);
  *pending = (all & 2u) != 0;
  if (flag != nullptr) *flag = (all & 4u) != 0;
  if (local != GDS_STATUS_OK) return local;
  if ((all & 1u) != 0) return remote_failure(func);
  return GDS_STATUS_OK;
}

GDS_status_t allgather_bytes(const char *func, MPI_Comm comm, GDS_status_t local, const std::vector<std::byte> &mine,
                             std::vector<std::byte> *all, std::vector<std::uint64_t> *sizes) {
  int nprocs = 0;
  MPI_Comm_size(comm, &nprocs);
  const auto p = static_cast<std::size_t>(nprocs);
  try {
    sizes->assign(p, 0);
  } catch (const std::bad_alloc &) {
    if (local == GDS_STATUS_OK) local = fail_critical(GDS_STATUS_NOMEM, func, "no memory for %zu sizes", p);
  }
  // Without memory for the sizes a process cannot take part: it says so first.
  GDS_TRY(agree(func, comm, local));
  const std::uint64_t size = mine.size();
  int rc = allgather(&size, 1, MPI_UINT64_T, sizes->data(), 1, MPI_UINT64_T, comm);
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Allgather", rc);
  std::uint64_t total = 0;
  bool fits_int = true;
  for (std::uint64_t s : *sizes) {
    if (__builtin_add_overflow(total, s, &total)) total = UINT64_MAX;
    fits_int = fits_int && s <= INT_MAX;
  }
  fits_int = fits_int && total <= INT_MAX;
  try {
    if (total > all->max_size() || !allocatable(total)) throw std::length_error("total");
    all->resize(total);
  } catch (const std::exception &) {
    local = fail_critical(GDS_STATUS_NOMEM, func, "no memory to gather %llu bytes from %d processes",
                          ull(total), nprocs);
  }
  GDS_TRY(agree(func, comm, local));
  if (fits_int) {
    std::vector<int> counts(p), displs(p);
    int at = 0;
    for (std::size_t r = 0; r < p; ++r) {
      counts[r] = static_cast<int>((*sizes)[r]);
      displs[r] = at;
      at += counts[r];
    }
    rc = allgatherv(mine.data(), static_cast<int>(size), MPI_BYTE, all->data(), counts.data(), displs.data(),
                    MPI_BYTE, comm);
    return rc == MPI_SUCCESS ? GDS_STATUS_OK : mpi_fail(func, "MPI_Allgatherv", rc);
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::uint64_t at = 0;
  for (std::size_t r = 0; r < p; ++r) {
    std::byte *dest = all->data() + at;
    if (static_cast<int>(r) == rank && size > 0) std::copy(mine.begin(), mine.end(), dest);
    for (std::uint64_t done = 0; done < (*sizes)[r]; done += kMaxPiece) {
      const auto n = static_cast<int>(std::min(kMaxPiece, (*sizes)[r] - done));
      rc = bcast(dest + done, n, MPI_BYTE, static_cast<int>(r), comm);
      if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Bcast", rc);
    }
    at += (*sizes)[r];
  }
  return GDS_STATUS_OK;
}

}  // namespace gds::core
