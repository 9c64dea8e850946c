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
#include <mpi.h>

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
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  std::map<std::string, std::string> options;  // --name value pairs; options this form does not use are ignored
  for (int a = 1; a + 1 < argc; a += 2) options[argv[a]] = argv[a + 1];
  auto option = [&](const char *name, int otherwise) { return options.count(name) ? std::atoi(options[name].c_str()) : otherwise; };
  const int n = option("--n", 32), steps = option("--steps", 50);
  if (n < 2 || steps < 0) {
    if (rank == 0) std::fprintf(stderr, "usage: cg --n <edge per process, >= 2> --steps <iterations>\n");
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

  const double start_time = MPI_Wtime();
  for (int it = 0; it < steps; ++it) {
    exchange_halo(s, p);
    matvec(s, p, Ap);
    const double alpha = rho / dot(s, p, Ap);
    for (std::size_t i = lo; i < hi; ++i) x[i] += alpha * p[i], r[i] -= alpha * Ap[i];
    const double rho_next = dot(s, r, r), beta = rho_next / rho;
    for (std::size_t i = lo; i < hi; ++i) p[i] = r[i] + beta * p[i];
    rho = rho_next;
  }
  const double time = MPI_Wtime() - start_time;

  true_residual(s, x, b, Ap);
  const double answer = std::sqrt(dot(s, Ap, Ap));
  if (rank == 0)
    std::printf("ROWS %zu\nRESIDUAL %.17g\nRELATIVE_RESIDUAL %.3e\nSTEPS %d\nTIME %.6f\nANSWER %.17g\n", s.rows() * nprocs,
                std::sqrt(rho), answer / norm_b, steps, time, answer);
  MPI_Finalize();
  return 0;
}
