/* gds_bench_floor: what a version costs at the least, on this machine, now (bench/apps.py runs it between
 * the mini-applications' runs, at their process count, with the bytes their versions moved).
 *
 *   gds_bench_floor --bytes B [--file-bytes F --dir D --scheme partner|xor] [--gap-us G] [--repeat N]
 *
 * Every process does the same at the same time (a barrier before each repetition):
 *   memcpy  a warm memcpy of B bytes: into memory touched before but not in the caches, as a version's
 *           memory is in steady state (retention reuses the dropped versions' slots): the destination
 *           cycles through a ring as large as the versions the default budget keeps (5 x B, at least
 *           8 MiB). Before each copy, the program's work: 64 MiB of other data read and written (the
 *           caches swept: neither the ring's slot nor anything else of the copy's is left in them),
 *           then the source read (the program's state, just computed); with --gap-us, busy until G
 *           microseconds have passed since the last copy (an application computing between its
 *           versions: on this VM a copy of a small state costs several times more after 4 ms away
 *           than back to back: caches, TLB, the hypervisor; so does everything a version does).
 *           memcpy_back: the same copies back to back, without the work (the caches' figure: on a CPU
 *           whose last-level cache holds the ring, no version can copy that fast); memcpy_hot: into
 *           one buffer (in the caches when B is small), for reference;
 *   agreement  right after each gapped copy, an MPI_Allreduce (MPI_MAX) of 32 64-bit values, what one
 *           version's agreement sends (every process's status, the signature, the ballot): the part of
 *           a version no protocol that makes it everywhere or nowhere can leave out;
 *   cache   with --file-bytes: write F bytes to a new file in D, fsync it and D; exchange the redundancy
 *           with MPI_Sendrecv and write what arrived to another file in D, fsync it and D. PARTNER sends
 *           the F bytes to the next process (rank ^ 1; in a ring for odd counts) and keeps the previous
 *           one's; XOR, one set of all the processes, sends chunks of F / (np - 1) bytes round the ring
 *           np - 1 times, folding each into a parity chunk (two processes: one exchange of F bytes).
 *           The files are removed after each repetition, untimed.
 * Rank 0 prints, per measure, the slowest process's median over the N repetitions (default 21):
 *   FLOOR memcpy <seconds>
 *   FLOOR agreement <seconds>
 *   FLOOR memcpy_back <seconds>
 *   FLOOR memcpy_hot <seconds>
 *   FLOOR cache <seconds>
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  size_t bytes, file_bytes, gap_us;
  const char *dir;
  int xor_scheme, repeat;
} Options;

static int rank, np;

static int usage(const char *why) {
  if (rank == 0)
    fprintf(stderr, "gds_bench_floor: %s\nusage: gds_bench_floor --bytes B [--file-bytes F --dir D "
                    "--scheme partner|xor] [--gap-us G] [--repeat N]\n", why);
  return 0;
}

static int number(const char *s, size_t *out) {
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (*s == '\0' || *s == '-' || *end != '\0') return 0;
  *out = (size_t)v;
  return 1;
}

static int parse(int argc, char **argv, Options *o) {
  *o = (Options){.repeat = 21};
  int have_bytes = 0;
  for (int i = 1; i < argc; i += 2) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    size_t n = 0;
    int ok = 1;
    if (v == NULL) return usage("an option without its value");
    if (strcmp(k, "--bytes") == 0) ok = have_bytes = number(v, &o->bytes);
    else if (strcmp(k, "--file-bytes") == 0) ok = number(v, &o->file_bytes);
    else if (strcmp(k, "--dir") == 0) o->dir = v;
    else if (strcmp(k, "--gap-us") == 0) ok = number(v, &o->gap_us) && o->gap_us <= 10000000;
    else if (strcmp(k, "--scheme") == 0) {
      o->xor_scheme = strcmp(v, "xor") == 0;
      ok = o->xor_scheme || strcmp(v, "partner") == 0;
    } else if (strcmp(k, "--repeat") == 0) {
      ok = number(v, &n) && n >= 1 && n <= 100000;
      o->repeat = (int)n;
    } else ok = 0;
    if (!ok) return usage("an unknown option or a bad value");
  }
  if (!have_bytes) return usage("--bytes is required");
  if (o->file_bytes > 0 && o->dir == NULL) return usage("--file-bytes needs --dir");
  return 1;
}

static void fail(const char *what, const char *path) {
  fprintf(stderr, "gds_bench_floor: process %d: %s %s failed\n", rank, what, path);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Touched memory: every page written once. */
static unsigned char *touched(size_t n, int fill) {
  unsigned char *p = malloc(n > 0 ? n : 1);
  if (p == NULL) fail("malloc of", "a buffer");
  memset(p, fill, n);
  return p;
}

static void sync_dir(const char *dir) {
  int fd = open(dir, O_RDONLY);
  if (fd < 0 || fsync(fd) != 0 || close(fd) != 0) fail("fsync of", dir);
}

static void write_file(const char *path, const unsigned char *p, size_t n, const char *dir) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) fail("open of", path);
  for (size_t done = 0; done < n;) {
    ssize_t w = write(fd, p + done, n - done);
    if (w <= 0) fail("write of", path);
    done += (size_t)w;
  }
  if (fsync(fd) != 0 || close(fd) != 0) fail("fsync of", path);
  sync_dir(dir);
}

/* MPI_Sendrecv of n bytes, in pieces an int counts. */
static void sendrecv(const unsigned char *out, int to, unsigned char *in, int from, size_t n) {
  const size_t most = (size_t)1 << 30;
  size_t at = 0;
  do {
    const size_t piece = n - at < most ? n - at : most;
    MPI_Sendrecv(out + at, (int)piece, MPI_BYTE, to, 0, in + at, (int)piece, MPI_BYTE, from, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    at += piece;
  } while (at < n);
}

/* The redundancy this process keeps (its size in *kept; `a` and `b` are buffers of F bytes): PARTNER's copy
 * of the previous process's bytes, or XOR's parity of a chunk of every other process's (reduce-scatter
 * round the ring: at each step fold a chunk of ours into the parity passing through, and pass it on). */
static const unsigned char *exchange(const Options *o, const unsigned char *data, unsigned char *a,
                                     unsigned char *b, size_t *kept) {
  const size_t f = o->file_bytes;
  if (!o->xor_scheme || np <= 2) {
    const int even = np % 2 == 0;
    sendrecv(data, even ? rank ^ 1 : (rank + 1) % np, a, even ? rank ^ 1 : (rank - 1 + np) % np, f);
    *kept = f;
    return a;
  }
  const size_t chunk = (f + (size_t)np - 2) / (size_t)(np - 1);
  unsigned char *parity = a, *arrived = b;
  memset(parity, 0, chunk);
  for (int step = 0; step < np - 1; ++step) {
    const size_t at = (size_t)((rank + step) % (np - 1)) * chunk;  /* our chunk for this step's parity */
    for (size_t i = 0; at + i < f && i < chunk; ++i) parity[i] ^= data[at + i];
    sendrecv(parity, (rank + 1) % np, arrived, (rank - 1 + np) % np, chunk);
    unsigned char *t = parity;
    parity = arrived;
    arrived = t;
  }
  *kept = chunk;
  return parity;
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The slowest process's median, on rank 0. */
static double slowest_median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, by_value);
  double mine = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2, most = 0;
  MPI_Reduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return most;
}

/* Called through a volatile pointer, so that the compiler cannot drop copies nobody reads. */
static void *(*volatile copy_bytes)(void *, const void *, size_t) = memcpy;

/* Busy until `until` (MPI_Wtime). */
static void busy_until(double until) {
  while (MPI_Wtime() < until) {
  }
}

enum { kSweepBytes = 64 << 20 };
static volatile unsigned long long g_sink;

/* The program's work between two versions, as the floor sees it: every cache line of `sweep`
 * (kSweepBytes) read and written, so that the caches hold none of the copy's memory, then the
 * source read (the state the program just computed). */
static void program_work(unsigned char *sweep, const unsigned char *src, size_t n) {
  unsigned long long sum = 0;
  for (size_t i = 0; i < kSweepBytes; i += 64) sum += sweep[i]++;
  for (size_t i = 0; i < n; i += 64) sum += src[i];
  g_sink += sum;
}

/* The memcpy's slowest median; with `agreement`, the agreement's after each copy into *agreement. `sweep`:
 * the program's work before each copy (NULL: back to back), then busy until `gap_us` since the last. */
static double time_memcpy(const Options *o, double *t, int hot, unsigned char *sweep, size_t gap_us,
                          double *agreement) {
  const size_t ring = hot ? o->bytes : (5 * o->bytes > (8u << 20) ? 5 * o->bytes : (size_t)8 << 20);
  unsigned char *src = touched(o->bytes, 1), *dst = touched(ring, 0);
  double *a = agreement != NULL ? malloc(sizeof *a * (size_t)o->repeat) : NULL;
  if (agreement != NULL && a == NULL) fail("malloc of", "the timings");
  unsigned long long ballot[32] = {0}, agreed[32];
  size_t at = 0;
  copy_bytes(dst, src, o->bytes);
  double last = MPI_Wtime();
  for (int i = 0; i < o->repeat; ++i) {
    at = at + 2 * o->bytes > ring ? 0 : at + o->bytes;
    if (sweep != NULL) program_work(sweep, src, o->bytes);
    busy_until(last + (double)gap_us * 1e-6);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    copy_bytes(dst + at, src, o->bytes);
    last = MPI_Wtime();
    t[i] = last - t0;
    if (a != NULL) {
      ballot[0] = (unsigned long long)i;
      const double t1 = MPI_Wtime();
      MPI_Allreduce(ballot, agreed, 32, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
      a[i] = MPI_Wtime() - t1;
    }
  }
  free(src);
  free(dst);
  if (a != NULL) {
    *agreement = slowest_median(a, o->repeat);
    free(a);
  }
  return slowest_median(t, o->repeat);
}

static double time_cache(const Options *o, double *t) {
  const size_t n = o->file_bytes;
  unsigned char *data = touched(n, 2), *a = touched(n, 0), *b = touched(n, 0);
  char own[4096], theirs[4096];
  snprintf(own, sizeof own, "%s/gds-floor-%ld-%d.own", o->dir, (long)getpid(), rank);
  snprintf(theirs, sizeof theirs, "%s/gds-floor-%ld-%d.copy", o->dir, (long)getpid(), rank);
  for (int i = 0; i < o->repeat; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    write_file(own, data, n, o->dir);
    size_t kept;
    const unsigned char *copy = exchange(o, data, a, b, &kept);
    write_file(theirs, copy, kept, o->dir);
    t[i] = MPI_Wtime() - t0;
    if (unlink(own) != 0) fail("unlink of", own);
    if (unlink(theirs) != 0) fail("unlink of", theirs);
  }
  free(data);
  free(a);
  free(b);
  return slowest_median(t, o->repeat);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  Options o;
  if (!parse(argc, argv, &o)) {
    MPI_Finalize();
    return 2;
  }
  double *t = malloc(sizeof *t * (size_t)o.repeat);
  if (t == NULL) fail("malloc of", "the timings");
  double agreement = 0;
  unsigned char *sweep = touched(kSweepBytes, 3);
  const double copy = time_memcpy(&o, t, 0, sweep, o.gap_us, &agreement);
  free(sweep);
  if (rank == 0) printf("FLOOR memcpy %.9f\nFLOOR agreement %.9f\n", copy, agreement);
  const double back = time_memcpy(&o, t, 0, NULL, 0, NULL);
  if (rank == 0) printf("FLOOR memcpy_back %.9f\n", back);
  const double hot = time_memcpy(&o, t, 1, NULL, 0, NULL);
  if (rank == 0) printf("FLOOR memcpy_hot %.9f\n", hot);
  if (o.file_bytes > 0) {
    const double cache = time_cache(&o, t);
    if (rank == 0) printf("FLOOR cache %.9f\n", cache);
  }
  free(t);
  MPI_Finalize();
  return 0;
}
