// cg.cpp and cg_resilient.cpp: conjugate gradients on HPCG's problem. cg.cpp is the plain form, pure MPI;
// cg_resilient.cpp is the same program plus the lines that make it resilient with GDS (`diff cg.cpp
// cg_resilient.cpp` shows all of them).
//
// The matrix is the 27-point stencil of a 3-D grid (26 on the diagonal, -1 for each of the up to
// 26 neighbours): symmetric positive definite, applied matrix-free. Every process owns an
// n x n x n slab of the grid; the slabs are stacked along z (weak scaling: n^3 rows per process),
// so the only communication is one halo plane with each z neighbour (MPI_Sendrecv) and the dot
// products (MPI_Allreduce). The right-hand side is b = A * 1, so the exact solution is all ones;
// CG starts from x = 0 and runs a fixed number of iterations. Everything is deterministic: the
// same process count gives the same answer to the bit.
//
// Vectors are std::vector<double> of n^3 rows with one halo plane below and one above (zero
// beyond the grid's ends), so the stencil reads neighbours across the slab boundary directly.
//
// The resilient form makes x, r and p GDS arrays over those vectors' rows (GDS_create) in one version
// group "cg", versioned every k iterations (--every k), labelled with the iteration ("<i>"). Every c
// iterations (--check c, default k) and before every version it checks that r is still b - A x, so no
// version holds state that was not checked; a mismatch is a silent error: it restores the newest version
// that passes the check (walking back through older ones) and goes on from the iteration that version's
// label names. A failed GDS_group_version_inc is handled the same way. Started again with the same
// GDS_JOB_ID after a crash, the arrays restart inside GDS_group_create, which names them cg.0, cg.1 and
// cg.2 (x, r and p get the persisted version's rows), the group's restart info says so, and it resumes
// from the label (a fresh array's label is empty: iteration 0). Lines marked [inject] are the tests'
// fault injection (the options below).
//
//   mpiexec -n 4 ./cg --n 32 --steps 50
//   mpiexec -n 4 ./cg_resilient --n 32 --steps 50 [--every 5] [--check 5] [--inject none|flip|latent|library|kill]
//                               [--at <iteration, default steps/2>] [--delay 5] [--rank <r, default the last>]
//
// flip: rank r flips the sign bit of one element of x at iteration `at` (its own buffer), found by the
// next check; latent: the same, but the checks are blind for `delay` iterations, so versions made
// meanwhile hold the error and recovery walks back past them; library: GDS_inject_fault makes rank r's
// next GDS_group_version_inc fail (GDS_FAULT_VERSION_PHASE); kill: rank r raises SIGKILL. A check costs
// one more halo exchange, product with A and dot product (--check 1: 80-100% more time). The resilient form
// stops on an uncaught gds::error when GDS cannot start or make its arrays, with exit status 4 when no
// retained version passes the check.
//
// Output (rank 0): ROWS, RESIDUAL (CG's own), RELATIVE_RESIDUAL, STEPS, TIME (seconds of the iterations),
// last ANSWER ||b - A x|| as %.17g; the resilient form adds RESTARTED from=<version> and
// RECOVERED <kind> step=<s> from=<version> with RECOVERY_TIME <seconds>.
//
// cg_cd.cpp is cg.cpp plus the lines that make it resilient with containment domains (gds::cd). A root CD over
// all processes spans the loop. It holds w, the weights of the check (via copy, READ_ONLY, once), and with
// --copy-every k > 1 (the default, 10) x, r, p (this process's rows), rho and `saved` (the iteration of its point)
// via copy, READ_WRITE: it advances every k iterations (an advance copies READ_WRITE entries and makes them
// READ_ONLY, so they are added READ_WRITE again before each). Each iteration is a CD over all processes (it
// exchanges halos and reduces) holding x, r, p and rho: via copy with k = 1, via the root (no copy) with k > 1.
// Each local kernel in it is a per-process child preserving what it reads and overwrites via the parent: the
// matvec with its check (p's received halo planes via copy; p's rows via the parent with k = 1 only: with k > 1
// the only copy is the root's, older than p), the x/r update (Ap via regeneration: the matvec again) and the p
// update (r, its input, not at all). The check is ABFT on the matvec: over this process's rows, sum (A p)_i =
// dot(w, p) (w = A^T 1 over its rows, on its rows and halo planes: zero but near the slab's and the grid's faces,
// so only its nonzeros are kept), the sum in the loop of dot(p, Ap). What is contained where:
// - a mismatch raises a local error; the matvec CD's handler restores the CD (the halo planes and w; with k = 1
//   p's rows too) and the matvec re-executes on this process alone, before the allreduce: nothing else is redone;
// - if the re-execution fails too, the handler escalates to the iteration's, which only marks the iteration (a
//   handler runs on one process; restoring a collective CD is collective). The mark rides on dot(p, Ap)'s allreduce
//   (2 elements) and then every process, with k = 1, restores the iteration (x, r, p, rho as copied at its start)
//   and redoes it; with k > 1 the iteration has nothing of its own to restore: every process commits it, restores
//   the root (x, r, p, rho, saved) and goes on from iteration `saved` (up to k - 1 iterations redone before the one
//   that failed; the halo planes are exchanged again, Ap computed again). If that iteration escalates again, the
//   error is not transient (CG run on past convergence: 0/0): the program stops with exit status 4;
// - the updates have no check: nothing is raised in them, so their CDs are never restored alone (with k > 1 their
//   entries refer to the root's older copies: a restore of them alone, or of the iteration, would be wrong).
// The check finds an error in A p as computed, not in p: p corrupted before the matvec is not found with any k;
// corrupted during it, k = 1 restores p's rows, k > 1 re-executes with p as it is (the check then passes).
//
//   mpiexec -n 4 ./cg_cd --n 32 --steps 50 [--copy-every <k, default 10>] [--inject none|flip]
//                        [--at <iteration, default steps/2>] [--rank <r, default the last>] [--times <t, default 1>]
//
// flip: rank r flips the sign of the first element of A p in its matvec at iteration `at`, in the first t
// executions (t = 2: the re-execution fails too and escalates). Output as cg's, plus RECOVERED flip step=<s>
// from=matvec|iteration|root resumed=<iteration> and RECOVERY_TIME <seconds> (from detection to the check passing
// again, the slowest process: with the root, at iteration `saved`, before the iterations redone).
#include <mpi.h>
#include <gds.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

// This process's slab: n^3 rows, planes of n*n rows, stacked along z over the processes.
struct Slab {
  int n, rank, nprocs;
  std::size_t plane() const { return std::size_t(n) * n; }
  std::size_t rows() const { return plane() * n; }
  std::size_t padded() const { return plane() * (n + 2); }  // with a halo plane below and above
};

// Fills v's halo planes with the neighbouring processes' boundary planes.
void exchange_halo(const Slab &s, std::vector<double> &v) {
  const int below = s.rank > 0 ? s.rank - 1 : MPI_PROC_NULL, above = s.rank + 1 < s.nprocs ? s.rank + 1 : MPI_PROC_NULL;
  const int count = int(s.plane());
  MPI_Sendrecv(&v[s.plane() * s.n], count, MPI_DOUBLE, above, 0, &v[0], count, MPI_DOUBLE, below, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&v[s.plane()], count, MPI_DOUBLE, below, 1, &v[s.plane() * (s.n + 1)], count, MPI_DOUBLE, above, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

// out = A v on this slab's rows (v's halo planes must be current).
void matvec(const Slab &s, const std::vector<double> &v, std::vector<double> &out) {
  const int n = s.n;
  for (int k = 1; k <= n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const std::size_t row = (std::size_t(k) * n + j) * n + i;
        double neighbours = 0.0;
        for (int dk = -1; dk <= 1; ++dk)
          for (int dj = -1; dj <= 1; ++dj) {
            if (j + dj < 0 || j + dj >= n) continue;
            const double *line = &v[(std::size_t(k + dk) * n + j + dj) * n];
            for (int di = -1; di <= 1; ++di)
              if (i + di >= 0 && i + di < n && (di != 0 || dj != 0 || dk != 0)) neighbours += line[i + di];
          }
        out[row] = 26.0 * v[row] - neighbours;
      }
}

// w = A^T 1 over this process's rows, on its rows and halo planes: sum (A v)_i over its rows = dot(w, v) there. It is
// zero but near the slab's and the grid's faces (26 minus the neighbours inside): kept as its nonzeros, in runs.
void column_sums(const Slab &s, std::vector<std::size_t> &runs, std::vector<double> &w) {
  const int n = s.n;
  std::vector<double> full(s.padded());
  for (int k = 0; k <= n + 1; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (int dk = -1; dk <= 1; ++dk)
          for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di)
              if (k + dk >= 1 && k + dk <= n && j + dj >= 0 && j + dj < n && i + di >= 0 && i + di < n)
                full[(std::size_t(k) * n + j) * n + i] += dk || dj || di ? -1.0 : 26.0;
  for (std::size_t i = 0; i < full.size(); ++i)
    if (full[i] != 0.0) {  // runs: [begin, end) pairs of indices into a padded vector
      if (runs.empty() || runs.back() != i) runs.push_back(i), runs.push_back(i);
      runs.back() = i + 1, w.push_back(full[i]);
    }
}

// ABFT on out = A v (this process's rows): is their sum not dot(w, v)? Sets v_out: the local part of dot(v, out).
bool abft_fails(const Slab &s, const std::vector<std::size_t> &runs, const std::vector<double> &w,
                const std::vector<double> &v, const std::vector<double> &out, double &v_out) {
  double sum = 0.0, wv = 0.0, scale = 0.0;
  v_out = 0.0;
  for (std::size_t i = s.plane(); i < s.plane() + s.rows(); ++i)  // the loop of dot(v, out), as cg's
    v_out += v[i] * out[i], sum += out[i], scale += std::abs(v[i]);
  for (std::size_t r = 0, j = 0; r < runs.size(); r += 2)  // w's nonzeros only
    for (std::size_t i = runs[r]; i < runs[r + 1]; ++i) wv += w[j++] * v[i];
  for (std::size_t i = 0, j = s.plane() * (s.n + 1); i < s.plane(); ++i, ++j)  // the halo planes
    scale += std::abs(v[i]) + std::abs(v[j]);
  return !(std::abs(sum - wv) <= (1e-14 * s.rows() + 1e-12) * scale);  // rounding: < (78 rows + 1404) eps scale
}

// The dot product of a and b over all processes.
double dot(const Slab &s, const std::vector<double> &a, const std::vector<double> &b) {
  double local = 0.0, global = 0.0;
  for (std::size_t i = s.plane(); i < s.plane() + s.rows(); ++i) local += a[i] * b[i];
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

// out = b - A x (x's halo planes are exchanged).
void true_residual(const Slab &s, std::vector<double> &x, const std::vector<double> &b, std::vector<double> &out) {
  exchange_halo(s, x);
  matvec(s, x, out);
  for (std::size_t i = s.plane(); i < s.plane() + s.rows(); ++i) out[i] = b[i] - out[i];
}

}  // namespace

int main(int argc, char **argv) {
  gds::runtime runtime(&argc, &argv);  // GDS_init (it starts MPI); GDS_finalize when main returns
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  std::map<std::string, std::string> options;  // --name value pairs; options this form does not use are ignored
  for (int a = 1; a + 1 < argc; a += 2) options[argv[a]] = argv[a + 1];
  auto option = [&](const char *name, int otherwise) { return options.count(name) ? std::atoi(options[name].c_str()) : otherwise; };
  const int n = option("--n", 32), steps = option("--steps", 50);
  const int at = option("--at", steps / 2), victim = option("--rank", nprocs - 1);  // [inject]
  const int times = option("--times", 1);  // [inject]
  const std::string inject = options.count("--inject") ? options["--inject"] : "none";  // [inject]
  const int every = option("--copy-every", 10);  // iterations per copy of x, r, p (1: in every iteration's CD)
  if (n < 2 || steps < 0 || every < 1) {
    if (rank == 0) std::fprintf(stderr, "usage: cg --n <edge per process, >= 2> --steps <iterations> [--copy-every <k >= 1>]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  const Slab s{n, rank, nprocs};
  const std::size_t lo = s.plane(), hi = lo + s.rows();  // this process's rows in a padded vector
  std::vector<double> x(s.padded()), r(s.padded()), p(s.padded()), Ap(s.padded()), b(s.padded()), ones(s.padded());
  for (std::size_t i = lo; i < hi; ++i) ones[i] = 1.0;
  exchange_halo(s, ones);
  matvec(s, ones, b);  // b = A * 1
  const double norm_b = std::sqrt(dot(s, b, b));

  for (std::size_t i = lo; i < hi; ++i) x[i] = 0.0, r[i] = b[i], p[i] = r[i];  // x = 0, r = b - A x, p = r
  double rho = dot(s, r, r);
  std::vector<std::size_t> runs;  // the weights of the check: where they are not zero, and their values
  std::vector<double> w;
  column_sums(s, runs, w);
  const std::size_t bytes = s.rows() * sizeof(double), plane = s.plane() * sizeof(double), wb = w.size() * sizeof(double);
  auto matvec_p = [&] { matvec(s, p, Ap); };  // regenerates Ap (a GDS_cd_regen_func_t's context, below)
  const auto regen = [](const GDS_cd_range_t *, int, void *f) { return (*static_cast<decltype(matvec_p) *>(f))(), 0; };
  const gds::predicate abft = std::move(gds::predicate().value(GDS_EATTR_DETECTED_BY, "abft"));
  double since = 0.0, recovery[4] = {0.0, -1.0, 0.0, -1.0};  // seconds, iteration, CD (1 matvec, 2 iteration,
  // 3 root), the iteration the root resumed from
  int struck = 0;  // [inject]
  const GDS_cd_via_t state_via = every > 1 ? GDS_CD_VIA_PARENT : GDS_CD_VIA_COPY;  // the iteration's x, r, p, rho
  int saved = 0, failed_at = -1;  // the iteration of the root's point (--copy-every > 1); the last escalated one

  const double start_time = MPI_Wtime();
  gds::cd root("cg", MPI_COMM_WORLD);  // the solve: w, constant, copied once; x, r, p every k iterations
  root.preserve_bytes(w.data(), wb, GDS_CD_READ_ONLY);
  auto keep = [&] {  // READ_WRITE (an advance copies those, then makes them READ_ONLY: so again before each)
    for (double *v : {&x[lo], &r[lo], &p[lo]}) root.preserve_bytes(v, bytes);
    root.preserve(rho), root.preserve(saved);
  };
  if (every > 1) keep();
  for (int it = 0; it < steps; ++it) {
    if (every > 1 && it % every == 0 && it != saved) saved = it, keep(), root.advance();  // the root's point: now
    gds::cd iteration(root, MPI_COMM_WORLD);  // collective: it exchanges halos and reduces
    for (double *v : {&x[lo], &r[lo], &p[lo]}) iteration.preserve_bytes(v, bytes, GDS_CD_READ_WRITE, state_via);
    iteration.preserve(rho, GDS_CD_READ_WRITE, state_via);
    iteration.preserve_bytes(w.data(), wb, GDS_CD_READ_ONLY, GDS_CD_VIA_PARENT);
    double pAp[2];  // dot(p, Ap), and how many processes' kernels escalated (then all redo it, or go to the root)
    bool to_root = false;  // --copy-every > 1: the iteration holds no x, r, p of its own; the root restores them
    iteration.on_error(abft, [&](gds::raised_error &e) { pAp[1] = 1.0, e.resume(); });  // local: it cannot restore
    iteration.run([&](gds::cd &) {
    exchange_halo(s, p);
    pAp[1] = 0.0;
    gds::cd mv(iteration);  // per process, so restored and re-executed alone
    mv.preserve_bytes(&p[0], plane, GDS_CD_READ_ONLY, GDS_CD_VIA_COPY, GDS_CD_CONSTRAINED);  // received
    mv.preserve_bytes(&p[hi], plane, GDS_CD_READ_ONLY, GDS_CD_VIA_COPY, GDS_CD_CONSTRAINED);
    if (every == 1) mv.preserve_bytes(&p[lo], bytes, GDS_CD_READ_ONLY, GDS_CD_VIA_PARENT);  // else only older ones
    mv.preserve_bytes(w.data(), wb, GDS_CD_READ_ONLY, GDS_CD_VIA_PARENT);
    mv.on_error(abft, [&, restores = 0](gds::raised_error &e) mutable {
      if (restores++) return gds::cd::escalate(e);  // its re-execution failed too
      mv.restore(), recovery[2] = 1.0, e.resume();
    });
    mv.run([&](gds::cd &) {
    matvec(s, p, Ap);
    if (inject == "flip" && it == at && rank == victim && struck < times) Ap[lo] = -Ap[lo], ++struck;  // [inject]
    if (abft_fails(s, runs, w, p, Ap, pAp[0])) {
      if (since == 0.0) since = MPI_Wtime(), recovery[1] = it;
      gds::raise_local(GDS_ROOT, std::move(gds::error_descriptor().set(GDS_EATTR_DETECTED_BY, "abft")));
      gds::invoke_local_error_handler(GDS_ROOT);
    } else if (since > 0.0) recovery[0] = MPI_Wtime() - since, since = 0.0;
    });
    mv.commit();
    MPI_Allreduce(MPI_IN_PLACE, pAp, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (pAp[1] > 0.0) {  // every process restores the iteration and redoes it (or the root's point)
      if (it == failed_at)  // failed again when redone: not a transient error
        std::fprintf(stderr, "cg_cd: iteration %d failed its check again when redone\n", it), MPI_Abort(MPI_COMM_WORLD, 4);
      if (since == 0.0) since = MPI_Wtime(), recovery[1] = it;
      failed_at = it;
      recovery[2] = every > 1 ? 3.0 : 2.0;
      return every > 1 ? void(to_root = true) : iteration.restore();
    }
    const double alpha = rho / pAp[0];
    gds::cd xr(iteration);
    for (double *v : {&x[lo], &r[lo]}) xr.preserve_bytes(v, bytes, GDS_CD_READ_WRITE, GDS_CD_VIA_PARENT);
    xr.preserve_bytes(&p[lo], bytes, GDS_CD_READ_ONLY, GDS_CD_VIA_PARENT);
    const GDS_cd_range_t Ap_rows{&Ap[lo], bytes, GDS_CD_READ_ONLY, GDS_CD_CONSTRAINED};  // regenerated: A p again
    if (GDS_cd_preserve(xr.native_handle(), GDS_CD_VIA_REGEN, &Ap_rows, 1, regen, &matvec_p) != GDS_STATUS_OK)
      MPI_Abort(MPI_COMM_WORLD, 3);
    xr.run([&](gds::cd &) {
    for (std::size_t i = lo; i < hi; ++i) x[i] += alpha * p[i], r[i] -= alpha * Ap[i];
    });
    xr.commit();
    const double rho_next = dot(s, r, r), beta = rho_next / rho;
    gds::cd pu(iteration);  // r, its input, is not preserved: the iteration's copy is older than it
    pu.preserve_bytes(&p[lo], bytes, GDS_CD_READ_WRITE, GDS_CD_VIA_PARENT);
    pu.run([&](gds::cd &) {
    for (std::size_t i = lo; i < hi; ++i) p[i] = r[i] + beta * p[i];
    });
    pu.commit();
    rho = rho_next;
    });
    iteration.commit();
    if (to_root) root.restore(), recovery[3] = saved, it = saved - 1;  // all: x, r, p, rho of iteration `saved`
  }
  root.commit();
  const double time = MPI_Wtime() - start_time;
  MPI_Allreduce(MPI_IN_PLACE, recovery, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && recovery[1] >= 0.0)
    std::printf("RECOVERED %s step=%d from=%s%s\nRECOVERY_TIME %.6f\n", inject.c_str(), int(recovery[1]),
                recovery[2] > 2.0 ? "root resumed=" : recovery[2] > 1.0 ? "iteration" : "matvec",
                recovery[2] > 2.0 ? std::to_string(int(recovery[3])).c_str() : "", recovery[0]);

  true_residual(s, x, b, Ap);
  const double answer = std::sqrt(dot(s, Ap, Ap));
  if (rank == 0)
    std::printf("ROWS %zu\nRESIDUAL %.17g\nRELATIVE_RESIDUAL %.3e\nSTEPS %d\nTIME %.6f\nANSWER %.17g\n", s.rows() * nprocs,
                std::sqrt(rho), answer / norm_b, steps, time, answer);
  return 0;
}
