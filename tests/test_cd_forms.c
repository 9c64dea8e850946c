/*
 * The CD document's calls in every form it spells them, built as C99
 * (-pedantic, warnings as errors) and, through test_cd_forms.cpp, as C++:
 *   create_cd(parent, storage_info, logging, name, &error)   2.4.1, 2.5.1
 *   create_cd(parent, storage_info, logging)                 2.11.1
 *   create_cd(parent, storage_info, name, logging)           2.4 piece by piece
 *   add_to_cd_via_copy/parent(cd, addrlist, ascount)         2.4, use cases, Appendix A
 *   add_to_cd_via_copy/parent(cd, addrlist, ascount, storage_info)      2.5.5
 *   add_to_cd_via_regen(cd, addrlist, ascount, regen)                   Appendix A
 *   add_to_cd_via_regen(cd, addrlist, ascount, storage_info, regen)     2.5.5.3
 * An entry's storage_info is NULL, "", the CD's own storage or level=memory;
 * a persisted root (level=cache) keeps a level=memory range out of its
 * persisted point, which a restart within this process's lifetime shows.
 * Every storage_info that cannot apply gets FAILURE, GDS_STATUS_INVALID_INFO
 * and a message naming the call, and changes nothing. ctest gives the cache
 * (GDS_JOB_ID, GDS_CACHE_BASE, GDS_COPY_TYPE). Prints "cd forms ok".
 */
#include <gds.h>
#include <gds/cd.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int failures = 0;
static int rank = 0;

#define EXPECT(cond)                                                                        \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      fprintf(stderr, "rank %d: %s:%d: expected %s (last message: %s)\n", rank, __FILE__, \
              __LINE__, #cond, GDS_last_error_message());                                  \
      ++failures;                                                                           \
    }                                                                                       \
  } while (0)

/* A call that must fail with status and a message naming func and containing text. */
#define EXPECT_REFUSED(call, status, func, text)                                    \
  do {                                                                              \
    EXPECT((call) == FAILURE);                                                      \
    EXPECT(GDS_cd_last_status() == (status));                                      \
    EXPECT(strncmp(GDS_last_error_message(), func ": ", strlen(func ": ")) == 0); \
    EXPECT(strstr(GDS_last_error_message(), text) != NULL);                         \
  } while (0)

static unsigned long long preserved(cd_handle cd) {
  GDS_size_t n = 0;
  EXPECT(GDS_cd_get_preserved_bytes(cd, &n) == GDS_STATUS_OK);
  return (unsigned long long)n;
}

static int regen_calls = 0;
static int regen_fill(struct cd_addrspec addrlist[], int ascount) {
  int k;
  ++regen_calls;
  for (k = 0; k < ascount; ++k) *(int *)addrlist[k].address = 77;
  return 0;
}

static void create_cd_forms(void) {
  int error = -1;
  cd_handle p = GDS_CD_NULL;
  cd_handle root = create_cd(NULL, NULL, COMM_LOGGING_DISABLED, "forms-five", &error);
  cd_handle child, unnamed, named, again;
  EXPECT(error == 0 && root != GDS_CD_NULL);

  child = create_cd(root, NULL, MPI_LOGGING_INHERIT); /* 2.11.1 */
  EXPECT(child != GDS_CD_NULL);
  EXPECT(GDS_cd_get_parent(child, &p) == GDS_STATUS_OK && p == root);
  EXPECT(commit_cd(child) == 0);

  unnamed = create_cd(NULL, NULL, COMM_LOGGING_ENABLED); /* a root without a name */
  EXPECT(unnamed != GDS_CD_NULL);
  EXPECT(GDS_cd_get_parent(unnamed, &p) == GDS_STATUS_OK && p == GDS_CD_NULL);
  EXPECT(commit_cd(unnamed) == 0);

  named = create_cd(NULL, "", "forms-four", COMM_LOGGING_DISABLED); /* 2.4: the name before the logging */
  EXPECT(named != GDS_CD_NULL);
  error = -1;
  again = create_cd(NULL, NULL, COMM_LOGGING_DISABLED, "forms-four", &error); /* the name was taken */
  EXPECT(again == GDS_CD_NULL && error == FAILURE && GDS_cd_last_status() == GDS_STATUS_INVALID);
  EXPECT(commit_cd(named) == 0);

  /* The short forms fail as the long one does: NULL and GDS_cd_last_status(). */
  EXPECT(create_cd(NULL, NULL, COMM_LOGGING_INHERIT) == GDS_CD_NULL);
  EXPECT(GDS_cd_last_status() == GDS_STATUS_INVALID);
  EXPECT(create_cd(NULL, "level=tape", "forms-bad", COMM_LOGGING_DISABLED) == GDS_CD_NULL);
  EXPECT(GDS_cd_last_status() == GDS_STATUS_INVALID_INFO);
  EXPECT(commit_cd(root) == 0);
}

/* add_to_cd_via_copy in both forms on a per-process root that keeps its entries in memory. */
static void copy_forms(void) {
  int error = -1, a = 1, b = 2, c = 3, d = 4, e = 5;
  struct cd_addrspec as[1] = {{&a, sizeof(a), READ_WRITE, GLOBAL}};
  struct cd_addrspec bs[1] = {{&b, sizeof(b), READ_WRITE, GLOBAL}};
  struct cd_addrspec cs[1] = {{&c, sizeof(c), READ_WRITE, GLOBAL}};
  struct cd_addrspec ds[1] = {{&d, sizeof(d), READ_WRITE, GLOBAL}};
  struct cd_addrspec es[1] = {{&e, sizeof(e), READ_WRITE, GLOBAL}};
  cd_handle cd = create_cd(NULL, NULL, COMM_LOGGING_DISABLED, "forms-copy", &error);
  cd_handle child;
  unsigned long long before;
  EXPECT(error == 0);
  EXPECT(add_to_cd_via_copy(cd, as, 1) == 0);
  EXPECT(add_to_cd_via_copy(cd, bs, 1, NULL) == 0);
  EXPECT(add_to_cd_via_copy(cd, cs, 1, "") == 0);
  EXPECT(add_to_cd_via_copy(cd, ds, 1, "level=memory;") == 0); /* a memory root's own */
  EXPECT(preserved(cd) == 4 * sizeof(int));

  /* What cannot apply is refused, names the call, and preserves nothing. */
  before = preserved(cd);
  EXPECT_REFUSED(add_to_cd_via_copy(cd, es, 1, "level=cache"), GDS_STATUS_INVALID_INFO, "add_to_cd_via_copy",
                 "level=cache");
  EXPECT(strstr(GDS_last_error_message(), "created without level=cache") != NULL);
  EXPECT_REFUSED(add_to_cd_via_copy(cd, es, 1, "level=prefix;prefix=/tmp"), GDS_STATUS_INVALID_INFO,
                 "add_to_cd_via_copy", "level=prefix");
  EXPECT_REFUSED(add_to_cd_via_copy(cd, es, 1, "cache"), GDS_STATUS_INVALID_INFO, "add_to_cd_via_copy",
                 "is not key=value");
  EXPECT_REFUSED(add_to_cd_via_copy(cd, es, 1, "level=tape"), GDS_STATUS_INVALID_INFO, "add_to_cd_via_copy",
                 "level 'tape' is unknown");
  EXPECT_REFUSED(add_to_cd_via_copy(cd, es, 1, "colour=red"), GDS_STATUS_INVALID_INFO, "add_to_cd_via_copy",
                 "key 'colour' is unknown");
  EXPECT_REFUSED(add_to_cd_via_copy(cd, es, 1, "copy_type=XOR"), GDS_STATUS_INVALID_INFO, "add_to_cd_via_copy",
                 "without level=cache");
  EXPECT(preserved(cd) == before);
  /* The 3-argument form's own failures still name it. */
  EXPECT_REFUSED(add_to_cd_via_copy(cd, NULL, 1), GDS_STATUS_NULL_ARGUMENT, "add_to_cd_via_copy", "");

  a = b = c = d = e = -1;
  EXPECT(restore_cd(cd) == 0);
  EXPECT(a == 1 && b == 2 && c == 3 && d == 4);
  EXPECT(e == -1); /* never preserved */

  /* A child keeps its entries in memory: level=memory is its own, a persisted level is refused. */
  child = create_cd(cd, NULL, MPI_LOGGING_INHERIT);
  EXPECT(child != GDS_CD_NULL);
  EXPECT(add_to_cd_via_copy(child, es, 1, "level=memory") == 0);
  EXPECT_REFUSED(add_to_cd_via_copy(child, as, 1, "level=cache"), GDS_STATUS_INVALID_INFO, "add_to_cd_via_copy",
                 "a child CD");
  EXPECT(commit_cd(child) == 0);
  EXPECT(commit_cd(cd) == 0);
}

/* add_to_cd_via_parent and add_to_cd_via_regen in both forms. */
static void parent_and_regen_forms(void) {
  int error = -1, a = 10, b = 20, r = 0, s = 0, t = 0, u = 0;
  struct cd_addrspec both[2] = {{&a, sizeof(a), READ_WRITE, GLOBAL}, {&b, sizeof(b), READ_WRITE, GLOBAL}};
  struct cd_addrspec as[1] = {{&a, sizeof(a), READ_WRITE, GLOBAL}};
  struct cd_addrspec bs[1] = {{&b, sizeof(b), READ_ONLY, GLOBAL}};
  struct cd_addrspec rs[1] = {{&r, sizeof(r), READ_ONLY, GLOBAL}};
  struct cd_addrspec ss[1] = {{&s, sizeof(s), READ_ONLY, GLOBAL}};
  struct cd_addrspec ts[1] = {{&t, sizeof(t), READ_ONLY, GLOBAL}};
  struct cd_addrspec us[1] = {{&u, sizeof(u), READ_ONLY, GLOBAL}};
  cd_handle root = create_cd(NULL, NULL, COMM_LOGGING_DISABLED, "forms-parent", &error);
  cd_handle child;
  EXPECT(error == 0);
  EXPECT(add_to_cd_via_copy(root, both, 2) == 0);
  a = 11;
  b = 21;
  child = create_cd(root, NULL, MPI_LOGGING_INHERIT, NULL, &error);
  EXPECT(error == 0);
  EXPECT(add_to_cd_via_parent(child, as, 1) == 0);
  EXPECT(add_to_cd_via_parent(child, bs, 1, "level=memory") == 0);
  EXPECT(add_to_cd_via_parent(child, as, 1, NULL) == 0);
  EXPECT(add_to_cd_via_parent(child, bs, 1, "") == 0);
  EXPECT_REFUSED(add_to_cd_via_parent(child, as, 1, "level=cache"), GDS_STATUS_INVALID_INFO,
                 "add_to_cd_via_parent", "a child CD");
  EXPECT_REFUSED(add_to_cd_via_parent(child, as, 1, "level"), GDS_STATUS_INVALID_INFO, "add_to_cd_via_parent",
                 "is not key=value");

  EXPECT(add_to_cd_via_regen(child, rs, 1, regen_fill) == 0);
  EXPECT(add_to_cd_via_regen(child, ss, 1, NULL, regen_fill) == 0);
  EXPECT(add_to_cd_via_regen(child, ts, 1, "level=memory", regen_fill) == 0);
  EXPECT_REFUSED(add_to_cd_via_regen(child, us, 1, "level=prefix", regen_fill), GDS_STATUS_INVALID_INFO,
                 "add_to_cd_via_regen", "level=prefix");
  EXPECT_REFUSED(add_to_cd_via_regen(child, us, 1, "speed=fast", regen_fill), GDS_STATUS_INVALID_INFO,
                 "add_to_cd_via_regen", "key 'speed' is unknown");

  a = b = r = s = t = u = 0;
  regen_calls = 0;
  EXPECT(restore_cd(child) == 0);
  EXPECT(a == 10 && b == 20);           /* the parent's values, via parent */
  EXPECT(r == 77 && s == 77 && t == 77); /* regenerated */
  EXPECT(u == 0);                        /* its refused entry was never added */
  EXPECT(regen_calls == 3);
  EXPECT(commit_cd(child) == 0);
  EXPECT(commit_cd(root) == 0);
}

/*
 * A persisted root (GDS_cd_create over every process, level=cache; the
 * document's calls work on it): a range added with level=memory stays out
 * of its persisted point, the others (3 arguments, NULL, its own level) are
 * in it. Committed and created again by name, as a restarted job does, the
 * add calls bring back only the persisted ones.
 */
static void persisted_root(void) {
  char name[64];
  unsigned long tag = (unsigned long)time(NULL) * 1000003UL + (unsigned long)(MPI_Wtime() * 1e6);
  int a = 1, b = 2, c = 3, d = 4, restored = -1;
  struct cd_addrspec as[1] = {{&a, sizeof(a), READ_WRITE, GLOBAL}};
  struct cd_addrspec bs[1] = {{&b, sizeof(b), READ_WRITE, GLOBAL}};
  struct cd_addrspec cs[1] = {{&c, sizeof(c), READ_WRITE, GLOBAL}};
  struct cd_addrspec ds[1] = {{&d, sizeof(d), READ_WRITE, GLOBAL}};
  cd_handle root = GDS_CD_NULL;
  MPI_Bcast(&tag, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  snprintf(name, sizeof name, "forms-%lu", tag); /* the cache outlives a run: a fresh name */

  EXPECT(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, name, "level=cache", GDS_CD_LOGGING_DISABLED, &root) ==
         GDS_STATUS_OK);
  EXPECT(add_to_cd_via_copy(root, as, 1) == 0);                 /* the CD's own: persisted */
  EXPECT(add_to_cd_via_copy(root, bs, 1, "level=memory") == 0); /* this process's memory only */
  EXPECT(add_to_cd_via_copy(root, cs, 1, "level=cache") == 0);  /* the CD's own, said */
  EXPECT(add_to_cd_via_copy(root, ds, 1, NULL) == 0);           /* the CD's own */
  EXPECT_REFUSED(add_to_cd_via_copy(root, ds, 1, "level=prefix;prefix=/tmp"), GDS_STATUS_INVALID_INFO,
                 "add_to_cd_via_copy", "neither the storage of");
  EXPECT_REFUSED(add_to_cd_via_copy(root, ds, 1, "level=cache;copy_type=XOR"), GDS_STATUS_INVALID_INFO,
                 "add_to_cd_via_copy", "('level=cache')");
  /* A range stays at the level it was first added at. */
  EXPECT_REFUSED(add_to_cd_via_copy(root, as, 1, "level=memory"), GDS_STATUS_INVALID_INFO, "add_to_cd_via_copy",
                 "cannot move to level=memory");
  EXPECT_REFUSED(add_to_cd_via_copy(root, bs, 1, ""), GDS_STATUS_INVALID_INFO, "add_to_cd_via_copy",
                 "at level=memory: delete_from_cd it first");
  EXPECT(preserved(root) == 4 * sizeof(int));
  /* Re-added READ_WRITE at its level (promoted), and advanced: the point persisted. */
  a = 100 + rank;
  b = 200 + rank;
  c = 300 + rank;
  d = 400 + rank;
  EXPECT(add_to_cd_via_copy(root, as, 1, "") == 0);
  EXPECT(add_to_cd_via_copy(root, bs, 1, "level=memory") == 0);
  EXPECT(add_to_cd_via_copy(root, cs, 1) == 0);
  EXPECT(add_to_cd_via_copy(root, ds, 1, NULL) == 0);
  EXPECT(advance_cd_point_in_time(root) == 0);
  a = b = c = d = -1;
  EXPECT(commit_cd(root) == 0);

  root = GDS_CD_NULL;
  EXPECT(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, name, "level=cache", GDS_CD_LOGGING_DISABLED, &root) ==
         GDS_STATUS_OK);
  EXPECT(GDS_cd_restored(root, &restored) == GDS_STATUS_OK && restored == 1);
  EXPECT(add_to_cd_via_copy(root, as, 1) == 0);
  EXPECT(add_to_cd_via_copy(root, bs, 1, "level=memory") == 0);
  EXPECT(add_to_cd_via_copy(root, cs, 1, "level=cache") == 0);
  EXPECT(add_to_cd_via_copy(root, ds, 1, NULL) == 0);
  EXPECT(a == 100 + rank && c == 300 + rank && d == 400 + rank); /* from the persisted point */
  EXPECT(b == -1);                                               /* kept in memory only: not persisted */
  EXPECT(commit_cd(root) == 0);
}

#ifdef __cplusplus
void cxx_forms(void); /* test_cd_forms.cpp: the braced-list overloads */
#endif

int main(int argc, char **argv) {
  GDS_thread_support_t provided;
  int total = 0;
  if (GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided) != GDS_STATUS_OK) return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  create_cd_forms();
  copy_forms();
  parent_and_regen_forms();
  persisted_root();
#ifdef __cplusplus
  cxx_forms();
#endif
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  GDS_finalize();
  if (total == 0 && rank == 0) printf("cd forms ok\n");
  return total == 0 ? 0 : 1;
}
