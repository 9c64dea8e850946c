/* The test suite's oversubscription shim, preloaded into every test
 * (GDS_SANITIZER_ENV, cmake/GdsMpiTest.cmake): a progress poll of UCX that
 * found nothing to do yields the processor.
 *
 * MPICH 4.0.2's ch4 device busy-polls and ignores MPIR_CVAR_POLLS_BEFORE_YIELD
 * (only ch3 reads it). With 3-4 processes on 2 cores, a process waiting in a
 * collective then holds its core for a whole scheduler slice while the
 * process it waits for cannot run: one MPI_Allreduce takes about 5 ms. With
 * this shim it takes 0.04-0.14 ms (docs/testing.md, "Oversubscribed runs").
 * It changes when a waiting process runs, never what MPI does: the calls
 * and their results are MPICH's own. Programs without UCX never call it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>

typedef unsigned (*gds_progress_fn)(void *);

unsigned ucp_worker_progress(void *worker) {
  static gds_progress_fn real;
  if (!real)
    real = (gds_progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
  unsigned events = real(worker);
  if (events == 0)
    sched_yield();
  return events;
}
