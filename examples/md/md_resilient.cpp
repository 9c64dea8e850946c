/*
 * md.cpp / md_resilient.cpp: a Lennard-Jones molecular dynamics mini-application.
 * md.cpp is the plain form (pure MPI); md_resilient.cpp is the same program
 * plus the lines that make it resilient with GDS (see the end of this comment).
 *
 * Physics, in reduced units (sigma = epsilon = mass = 1): pair potential
 * 4 (r^-12 - r^-6), cut off at rc = 2.5 and shifted to 0 there; density 0.8;
 * start on an FCC lattice at temperature 1.0 with velocities from a seeded
 * counter-based generator (a function of the atom's global lattice index, so
 * they do not depend on the process count), total momentum removed; velocity
 * Verlet with dt = 0.005. Forces come from cell lists (cells of at least rc)
 * rebuilt every step; each process evaluates every pair of its own atoms in
 * full (no Newton's third law across processes, so no reverse communication).
 *
 * Decomposition: spatial, in slabs along x, as miniMD and LAMMPS do it (a
 * process owns the atoms whose x lies in its slab). Every step atoms that left
 * the slab migrate to the neighbouring process and the atoms within rc of the
 * slab's faces are copied to the neighbours as ghost (halo) atoms; y and z are
 * periodic within the process (ghost images of its own atoms). An atom
 * decomposition (atoms owned by index, positions all-gathered every step)
 * would give a fixed layout for free but costs O(N) memory and traffic per
 * process per step, which is not how MD codes scale, and would make the
 * versioned state look like one replicated array. The price of the slab
 * decomposition is that a process's atom count changes; so each process keeps
 * its atoms in a fixed-capacity store: x and v are 3*capacity doubles
 * (capacity = twice the mean atoms per process), the first 3*n of them used,
 * and n. (x, v, n) is the whole state: forces, ghosts and cells are recomputed
 * from it (the same bits every time, as the order of the atoms in the store
 * fixes every loop order).
 *
 * Weak scaling: --n cells per process edge; each process owns a slab of
 * n x n x n FCC unit cells (4 n^3 atoms), the box is (P n) x n x n cells.
 *
 * Determinism: every global sum is an all-gather of the processes' partial
 * sums, added in rank order, so every process gets the same bits and runs are
 * reproducible. The total energy is computed after every step (the thermo
 * log; its drift from the initial energy is the usual health check of an MD
 * run). ANSWER is the total energy and a checksum of the positions (the sum
 * of all coordinates) at the end, both %.17g.
 *
 *   mpiexec -n P ./md --n 6 --steps 100
 *   mpiexec -n P ./md_resilient --n 6 --steps 100 --every 10 [--inject flip --at 50 --rank 1]
 * (md accepts and ignores --every, --inject, --at, --delay, --rank.)
 *
 * The resilient form. x, v and n are GDS arrays made over the program's own
 * buffers (GDS_create: a P x 3*capacity array whose row r is process r's
 * store, and a P x 1 array of the counts), versioned together as the group
 * "md" every --every steps, labelled "step=<s>". Every step the energy
 * drift is checked against kTol; a drift beyond it is taken as corruption,
 * and every process rolls back together (the GVR manual's miniMD use case):
 * restore the newest version, recompute its forces and energy, and if that
 * energy fails the check too (a latent error already in the versions)
 * restore the next older one, and so on; then recompute from the step the
 * version's label names. The check of step s runs at step s + delay for
 * --inject latent (a check with latency), at once otherwise. A failure GDS
 * detects itself (--inject library: GDS_inject_fault makes a
 * GDS_group_version_inc fail on one process) makes the version call fail
 * everywhere (no handler needed: the call's status reports it); the program
 * rolls back the same way. Started again after a crash with the same
 * GDS_JOB_ID (etc. in the environment), the arrays restart inside
 * GDS_group_create (which names them md.0, md.1 and md.2):
 * the lattice built just before is overwritten with the persisted version
 * (its initial energy E0 is the killed run's, bit for bit), the group's
 * restart info says so, the forces are recomputed and the run continues from
 * the step of the version's label. Lines marked [inject] are the fault
 * injection of the tests (command-line options), not resilience. Only flips
 * of a value's high exponent bits are big enough for the energy check to
 * see; smaller ones pass.
 */
#include <mpi.h>
#include <gds/gds.hpp>

#include <algorithm>
#include <bit>  // [inject]
#include <cmath>
#include <csignal>  // [inject]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr double kRc = 2.5, kRho = 0.8, kT0 = 1.0, kDt = 0.005;
constexpr double kTol = 1e-2;  // relative energy drift beyond which a run is not to be trusted
constexpr std::uint64_t kSeed = 0x5eed2024ULL;

struct Options {
  int n = 6, steps = 100, every = 10, at = -1, delay = 5, rank = -1;
  std::string inject = "none";
};

Options parse(int argc, char **argv, int nprocs) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--n") o.n = std::atoi(v.c_str());
    else if (k == "--steps") o.steps = std::atoi(v.c_str());
    else if (k == "--every") o.every = std::atoi(v.c_str());
    else if (k == "--inject") o.inject = v;
    else if (k == "--at") o.at = std::atoi(v.c_str());
    else if (k == "--delay") o.delay = std::atoi(v.c_str());
    else if (k == "--rank") o.rank = std::atoi(v.c_str());
    else {
      std::fprintf(stderr, "md: unknown option %s\n", k.c_str());
      std::exit(2);
    }
  }
  if (o.n < 2 || o.steps < 0 || o.every < 0 || o.delay < 0) {
    std::fprintf(stderr, "md: need --n >= 2 (a slab at least rc wide), --steps, --every, --delay >= 0\n");
    std::exit(2);
  }
  if (o.at < 0) o.at = o.steps / 2;
  if (o.rank < 0 || o.rank >= nprocs) o.rank = nprocs - 1;
  if (o.inject == "none") o.at = -1;
  if (o.inject != "latent") o.delay = 0;  // the error is found at once
  return o;
}

// Sums k values over the processes in rank order: the same bits everywhere.
void sum_in_rank_order(const double *local, double *total, int k) {
  int nprocs;
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  std::vector<double> all(static_cast<std::size_t>(k) * nprocs);
  MPI_Allgather(local, k, MPI_DOUBLE, all.data(), k, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int j = 0; j < k; j++) total[j] = 0.0;
  for (int p = 0; p < nprocs; p++)
    for (int j = 0; j < k; j++) total[j] += all[static_cast<std::size_t>(p) * k + j];
}

// The box and this process's slab of it.
struct Domain {
  int rank, nprocs, left, right;
  double a;     // lattice constant
  double w;     // slab width along x
  double L[3];  // box lengths
  double lo[3], hi[3];  // this process's part of the box

  explicit Domain(int n) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    left = (rank + nprocs - 1) % nprocs;
    right = (rank + 1) % nprocs;
    a = std::cbrt(4.0 / kRho);
    w = n * a;
    L[0] = nprocs * w;
    L[1] = L[2] = w;
    lo[0] = rank * w;
    hi[0] = rank == nprocs - 1 ? L[0] : lo[0] + w;
    lo[1] = lo[2] = 0.0;
    hi[1] = hi[2] = w;
  }
  // The process owning x (after wrapping); garbage (NaN) stays where it is.
  int owner(double x) const {
    const double t = std::floor(x / w);
    if (t != t) return rank;
    return static_cast<int>(std::clamp(t, 0.0, nprocs - 1.0));
  }
};

double wrap(double c, double L) {
  const double r = c - L * std::floor(c / L);
  return r < L ? r : r - L;
}

std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The atoms of one process: a fixed-capacity store of its own atoms, and the
// ghosts, cells and forces recomputed from it every step.
struct Atoms {
  long cap;
  long n = 0;                   // atoms owned
  std::vector<double> x, v, f;  // 3 * cap: positions, velocities, forces of the owned atoms
  std::vector<double> g;        // ghost positions (3 per ghost)
  std::vector<int> head, next;  // cell lists over owned + ghost atoms
  double pe = 0.0;              // potential energy of the owned atoms

  explicit Atoms(long capacity) : cap(capacity), x(3 * cap), v(3 * cap), f(3 * cap) {}
  const double *pos(long i) const { return i < n ? &x[3 * i] : &g[3 * (i - n)]; }
};

// FCC lattice of this process's n x n x n cells, velocities at temperature kT0.
void init(Atoms &A, const Domain &d, int n) {
  static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  A.n = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        for (int b = 0; b < 4; b++) {
          const long ix = static_cast<long>(d.rank) * n + i;
          const std::uint64_t id = ((static_cast<std::uint64_t>(ix) * n + j) * n + k) * 4 + b;
          const double cell[3] = {double(ix), double(j), double(k)};
          for (int c = 0; c < 3; c++) {
            A.x[3 * A.n + c] = (cell[c] + basis[b][c] + 0.25) * d.a;
            const std::uint64_t r = splitmix64(kSeed ^ splitmix64(3 * id + c));
            A.v[3 * A.n + c] = static_cast<double>(r >> 11) * 0x1.0p-53 - 0.5;
          }
          A.n++;
        }
  double local[4] = {0, 0, 0, double(A.n)}, total[4];
  for (long i = 0; i < A.n; i++)
    for (int c = 0; c < 3; c++) local[c] += A.v[3 * i + c];
  sum_in_rank_order(local, total, 4);
  double ke = 0.0;
  for (long i = 0; i < A.n; i++)
    for (int c = 0; c < 3; c++) {
      A.v[3 * i + c] -= total[c] / total[3];
      ke += 0.5 * A.v[3 * i + c] * A.v[3 * i + c];
    }
  double ke_total;
  sum_in_rank_order(&ke, &ke_total, 1);
  const double scale = std::sqrt(kT0 / (2.0 * ke_total / (3.0 * total[3])));
  for (long i = 0; i < 3 * A.n; i++) A.v[i] *= scale;
}

// Exchanges `out` (k doubles per atom) with the neighbour `to`, receiving from
// `from`; returns what arrived.
std::vector<double> exchange(const std::vector<double> &out, int to, int from) {
  int nout = static_cast<int>(out.size()), nin;
  MPI_Sendrecv(&nout, 1, MPI_INT, to, 0, &nin, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::vector<double> in(nin);
  MPI_Sendrecv(out.data(), nout, MPI_DOUBLE, to, 1, in.data(), nin, MPI_DOUBLE, from, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  return in;
}

// Wraps positions into the box and moves atoms that left the slab to the
// neighbours. The store stays in order: the atoms kept, then those arriving
// from the right, then those from the left.
void migrate(Atoms &A, const Domain &d) {
  std::vector<double> to_left, to_right;
  long kept = 0;
  for (long i = 0; i < A.n; i++) {
    double *x = &A.x[3 * i], *v = &A.v[3 * i];
    for (int c = 0; c < 3; c++) x[c] = wrap(x[c], d.L[c]);
    const int p = d.owner(x[0]);
    if (p == d.rank) {
      std::memmove(&A.x[3 * kept], x, 3 * sizeof(double));
      std::memmove(&A.v[3 * kept], v, 3 * sizeof(double));
      kept++;
    } else {
      std::vector<double> &out = p == d.left ? to_left : to_right;
      out.insert(out.end(), x, x + 3);
      out.insert(out.end(), v, v + 3);
    }
  }
  A.n = kept;
  for (const std::vector<double> &in : {exchange(to_left, d.left, d.right), exchange(to_right, d.right, d.left)}) {
    const long arriving = static_cast<long>(in.size() / 6);
    if (A.n + arriving > A.cap) {
      std::fprintf(stderr, "md: rank %d: %ld atoms exceed the capacity %ld\n", d.rank, A.n + arriving, A.cap);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (long j = 0; j < arriving; j++, A.n++) {
      std::memcpy(&A.x[3 * A.n], &in[6 * j], 3 * sizeof(double));
      std::memcpy(&A.v[3 * A.n], &in[6 * j + 3], 3 * sizeof(double));
    }
  }
}

// Ghosts: copies of the atoms within rc of the slab, in three stages (x from
// the neighbours, then y and z from this process's atoms and ghosts so far,
// which brings edges and corners along), shifted by the period where they
// cross the box.
void ghosts(Atoms &A, const Domain &d) {
  A.g.clear();
  std::vector<double> to_left, to_right;
  for (long i = 0; i < A.n; i++) {
    const double *x = &A.x[3 * i];
    if (x[0] < d.lo[0] + kRc) {
      to_left.insert(to_left.end(), x, x + 3);
      if (d.rank == 0) to_left.end()[-3] += d.L[0];
    }
    if (x[0] >= d.hi[0] - kRc) {
      to_right.insert(to_right.end(), x, x + 3);
      if (d.rank == d.nprocs - 1) to_right.end()[-3] -= d.L[0];
    }
  }
  for (const std::vector<double> &in : {exchange(to_left, d.left, d.right), exchange(to_right, d.right, d.left)})
    A.g.insert(A.g.end(), in.begin(), in.end());
  for (int c = 1; c < 3; c++) {
    const long m = A.n + static_cast<long>(A.g.size() / 3);
    for (long i = 0; i < m; i++) {
      double p[3];
      std::memcpy(p, A.pos(i), sizeof p);
      if (p[c] < kRc) {
        p[c] += d.L[c];
        A.g.insert(A.g.end(), p, p + 3);
        p[c] -= d.L[c];
      }
      if (p[c] >= d.L[c] - kRc) {
        p[c] -= d.L[c];
        A.g.insert(A.g.end(), p, p + 3);
      }
    }
  }
}

// Lennard-Jones forces and potential energy of the owned atoms, over cells
// of at least rc covering the slab and its ghost layer.
void forces(Atoms &A, const Domain &d) {
  int nc[3];
  double base[3], inv[3];
  for (int c = 0; c < 3; c++) {
    const double extent = d.hi[c] - d.lo[c] + 2 * kRc;
    nc[c] = std::max(1, static_cast<int>(extent / kRc));
    base[c] = d.lo[c] - kRc;
    inv[c] = nc[c] / extent;
  }
  const auto cell_of = [&](const double *p, int c) {
    const double t = (p[c] - base[c]) * inv[c];
    return t >= 0 ? (t < nc[c] ? static_cast<int>(t) : nc[c] - 1) : 0;  // NaN goes to cell 0
  };
  const long total = A.n + static_cast<long>(A.g.size() / 3);
  A.head.assign(static_cast<std::size_t>(nc[0]) * nc[1] * nc[2], -1);
  A.next.resize(total);
  for (long i = total - 1; i >= 0; i--) {  // each cell lists its atoms in index order
    const double *p = A.pos(i);
    const int cell = (cell_of(p, 0) * nc[1] + cell_of(p, 1)) * nc[2] + cell_of(p, 2);
    A.next[i] = A.head[cell];
    A.head[cell] = static_cast<int>(i);
  }
  const double rc2 = kRc * kRc, src6 = 1.0 / (rc2 * rc2 * rc2), ecut = 4.0 * src6 * (src6 - 1.0);
  A.pe = 0.0;
  for (long i = 0; i < A.n; i++) {
    const double *xi = &A.x[3 * i];
    const int ci[3] = {cell_of(xi, 0), cell_of(xi, 1), cell_of(xi, 2)};
    double fi[3] = {0, 0, 0}, ei = 0.0;
    for (int a = std::max(ci[0] - 1, 0); a <= std::min(ci[0] + 1, nc[0] - 1); a++)
      for (int b = std::max(ci[1] - 1, 0); b <= std::min(ci[1] + 1, nc[1] - 1); b++)
        for (int c = std::max(ci[2] - 1, 0); c <= std::min(ci[2] + 1, nc[2] - 1); c++)
          for (int j = A.head[(a * nc[1] + b) * nc[2] + c]; j >= 0; j = A.next[j]) {
            if (j == i) continue;
            const double *xj = A.pos(j);
            const double dx = xi[0] - xj[0], dy = xi[1] - xj[1], dz = xi[2] - xj[2];
            const double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= rc2) continue;
            const double sr2 = 1.0 / r2, sr6 = sr2 * sr2 * sr2;
            const double fpair = 48.0 * sr6 * (sr6 - 0.5) * sr2;
            fi[0] += fpair * dx;
            fi[1] += fpair * dy;
            fi[2] += fpair * dz;
            ei += 4.0 * sr6 * (sr6 - 1.0) - ecut;
          }
    std::memcpy(&A.f[3 * i], fi, sizeof fi);
    A.pe += 0.5 * ei;
  }
}

// Forces of the current positions (ghosts, cells, pairs).
void compute(Atoms &A, const Domain &d) {
  ghosts(A, d);
  forces(A, d);
}

// One velocity Verlet step.
void step(Atoms &A, const Domain &d) {
  for (long i = 0; i < 3 * A.n; i++) {
    A.v[i] += 0.5 * kDt * A.f[i];
    A.x[i] += kDt * A.v[i];
  }
  migrate(A, d);
  compute(A, d);
  for (long i = 0; i < 3 * A.n; i++) A.v[i] += 0.5 * kDt * A.f[i];
}

// Whether the energy E is within the tolerance of the initial energy E0 (NaN is not).
bool conserved(double E, double E0) { return std::fabs(E - E0) <= kTol * std::fabs(E0); }

// Total energy (kinetic + potential) of all atoms; the same bits on every process.
double energy(const Atoms &A) {
  double local[2] = {0.0, A.pe}, total[2];
  for (long i = 0; i < 3 * A.n; i++) local[0] += 0.5 * A.v[i] * A.v[i];
  sum_in_rank_order(local, total, 2);
  return total[0] + total[1];
}

// The sum of every coordinate of every atom.
double checksum(const Atoms &A) {
  double local = 0.0, total;
  for (long i = 0; i < 3 * A.n; i++) local += A.x[i];
  sum_in_rank_order(&local, &total, 1);
  return total;
}

}  // namespace

int main(int argc, char **argv) {
  gds::runtime runtime(&argc, &argv);  // GDS_init now, GDS_finalize when main returns
  int nprocs;
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  Options o = parse(argc, argv, nprocs);
  const Domain d(o.n);
  Atoms A(2L * 4 * o.n * o.n * o.n);
  init(A, d, o.n);
  compute(A, d);
  double E0 = energy(A);
  int start = 0;
  const auto to_local = [](auto i) { return gds::location{int(i[0]), i[1]}; };  // row r is rank r's
  const auto to_global = [&d](auto offset, auto i) { i[0] = d.rank, i[1] = offset; };
  const GDS_size_t P = d.nprocs, m = 3 * A.cap;  // x and v: P x 3 capacity arrays; n: P x 1
  auto x = gds::array<double>::create({P, m}, std::span(A.x), to_local, to_global);
  auto v = gds::array<double>::create({P, m}, std::span(A.v), to_local, to_global);
  auto n = gds::array<long>::create({P, 1}, std::span(&A.n, 1), to_local, to_global);
  gds::group xvn("md", x, v, n);  // a restart (same GDS_JOB_ID) puts x, v and n back into A
  if (std::sscanf(x.version_label().c_str(), "step=%d", &start) == 1 && d.rank == 0)
    std::printf("RESTARTED from=%llu\n", (unsigned long long)xvn.restart_info().version);
  if (xvn.restart_info().restarted) compute(A, d);  // the forces of the state restored
  const auto save = [&](int s) {  // a version of x, v and n after step s; false if it failed
    const std::string tag = "step=" + std::to_string(s);  // its label
    return GDS_group_version_inc(xvn.native_handle(), 1, tag.data(), tag.size()) == GDS_STATUS_OK;
  };
  if (!xvn.restart_info().restarted && o.every && !save(0)) MPI_Abort(MPI_COMM_WORLD, 4);
  std::vector<double> Eh(o.steps + 1, E0);  // total energy after every step
  const int thermo = std::max(1, o.steps / 10);
  if (d.rank == 0)
    std::printf("md: %d processes, %ld atoms per process, box %.4f x %.4f x %.4f, %d steps\n", d.nprocs, A.n,
                d.L[0], d.L[1], d.L[2], o.steps);

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int s = start + 1; s <= o.steps; s++) {
    step(A, d);
    if (s == o.at && d.rank == o.rank && o.inject == "kill") std::raise(SIGKILL);  // [inject]
    if (s == o.at && d.rank == o.rank && o.inject == "library")  // [inject]
      GDS_inject_fault(GDS_FAULT_VERSION_PHASE, 4);  // [inject]
    for (long i = 0; s == o.at && d.rank == o.rank && i < 3 * A.n; i++)  // [inject]
      if ((o.inject == "flip" || o.inject == "latent") && std::fabs(A.v[i]) < 1.0) {  // [inject]
        const std::uint64_t bits = std::bit_cast<std::uint64_t>(A.v[i]) ^ (1ULL << 62);  // [inject]
        A.v[i] = std::bit_cast<double>(bits);  // [inject] bit 62 flipped: huge
        break;  // [inject]
      }  // [inject]
    Eh[s] = energy(A);
    if (!conserved(Eh[std::max(s - o.delay, 0)], E0) || (o.every && s % o.every == 0 && !save(s))) {
      const double r0 = MPI_Wtime();  // corrupt, or GDS failed: roll back, all processes together
      GDS_size_t ver = xvn.version_number();
      o.at = -1;  // [inject] the fault struck: not again
      do {  // to the newest version (that every member retains) whose energy passes the check
        while (ver == 0 || GDS_group_version_restore(xvn.native_handle(), --ver) != GDS_STATUS_OK)
          if (ver == 0) MPI_Abort(MPI_COMM_WORLD, 4);  // none left
        std::sscanf(x.version_label().c_str(), "step=%d", &s);
        compute(A, d);
        Eh[s] = energy(A);
      } while (!conserved(Eh[s], E0));
      if (d.rank == 0) std::printf("RECOVERED %s step=%d from=%llu\nRECOVERY_TIME %.6f\n",
                                   o.inject.c_str(), s, (unsigned long long)ver, MPI_Wtime() - r0);
    }
    if (d.rank == 0 && s % thermo == 0)
      std::printf("THERMO step=%d E=%.10f%s\n", s, Eh[s], conserved(Eh[s], E0) ? "" : " (energy not conserved)");
  }
  const double elapsed = MPI_Wtime() - t0;

  double drift = 0.0;
  for (int s = start; s <= o.steps; s++) drift = std::max(drift, std::fabs(Eh[s] - E0) / std::fabs(E0));
  const double answer = checksum(A);
  if (d.rank == 0) {
    std::printf("DRIFT %.3e\nTIME %.6f\nSTEPS %d\n", drift, elapsed, o.steps - start);
    std::printf("ANSWER %.17g %.17g\n", Eh[o.steps], answer);
  }
  return 0;
}
