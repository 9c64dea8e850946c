/*
 * The Containment Domains document's use cases 3.1 (one CD) and 3.2.1 /
 * 3.2.2 (STATIC 1 and 2), built against the installed package. Their CD
 * calls are the document's, unchanged (STATIC 2 spells commit_cd "commit":
 * built with -DCD_COMMIT_ALIAS). The document's pseudo-code around them is
 * made C: declarations, a main that calls GDS_init, and application
 * functions that fail the first time. Each use case checks the values the
 * document's tables give. Prints "cd examples ok" on success.
 */
#include <gds/cd.h>
#include <gds.h>
#include <stdio.h>
#include <stdlib.h>

static int failures = 0;
#define EXPECT(cond)                                              \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                 \
    }                                                             \
  } while (0)

/* ---- 3.1: one CD, a transient CPU failure ---- */
static int data[16];
static int compute_calls = 0;
static int compute_done_flag_steps = 0;
static int *compute_done_ptr;
static int compute(void) {
  ++compute_calls;
  for (int k = 0; k < 16; ++k) data[k] += k;
  if (compute_calls == 2) return 1; /* a transient error: the step is redone */
  if (++compute_done_flag_steps == 3) *compute_done_ptr = 1;
  return 0;
}
static void use_case_3_1(void) {
  int done = 0, compute_done = 0, error, compute_error;
  char *storage_info = NULL;
  cd_handle cd;
  compute_done_ptr = &compute_done;
  struct cd_addrspec addrlist[2] = {{&data, sizeof(data), READ_WRITE, GLOBAL},
                                    {&compute_done, sizeof(compute_done), READ_WRITE, GLOBAL}};

  cd = create_cd(NULL, storage_info, COMM_LOGGING_DISABLED, "root", &error);

  while (!done) {
    add_to_cd_via_copy(cd, addrlist, 2);
    compute_error = compute();    // Sets compute_done when finished.
    if (compute_error) {
      restore_cd(cd);
    } else {
      if (compute_done) {
        done = 1;
      } else if (advance_cd_point_in_time(cd) == FAILURE) {
        restore_cd(cd);
      }
    }
  }
  commit_cd(cd);
  EXPECT(error == 0);
  for (int k = 0; k < 16; ++k) EXPECT(data[k] == 3 * k); /* three good steps, the failed one undone */
}

/* ---- 3.2.1 STATIC 1 ---- */
static int x = 0;
static int stuff_calls = 0;
static int compute_stuff(void) { return ++stuff_calls == 1; } /* fails once */
static int do_some_other_stuff_that_may_error(void) { return 0; }
static int b(cd_handle parent);
static int x_after_restore_a = -1;

static int a(cd_handle parent) {
  int error, compute_error, function_error;
  cd_handle cd_a;
  struct cd_addrspec addrlist[1] = { {&x, sizeof(x), READ_WRITE, GLOBAL} };
  cd_a = create_cd(parent, NULL, MPI_LOGGING_INHERIT, NULL, &error);
  add_to_cd_via_copy(cd_a, addrlist, 1); // cd_a contains: x=0
TOP:
  x += 1;                    // x=1;
  compute_error = compute_stuff();

  if (compute_error) {
    restore_cd(cd_a);      // Restore app memory to: x=0
    x_after_restore_a = x;
    goto TOP;
  }

  //Call another function.
  function_error = b(cd_a);

  if (function_error) {
    restore_cd(cd_a);      // Restore app memory to: x=0
    goto TOP;
  } else {
    commit_cd(cd_a);       // Commit to parent(root): x=0 (child wins)
  }

  return 0;
}

static int b(cd_handle parent) {
  int error, compute_error, function_error;
  cd_handle cd_b;
  struct cd_addrspec addrlist[1] = { {&x, sizeof(x), READ_WRITE, GLOBAL} };
  cd_b = create_cd(parent, NULL, MPI_LOGGING_INHERIT, NULL, &error);
  add_to_cd_via_copy(cd_b, addrlist, 1); // cd_b contains: x=1
TOP:
  x += 1;                    // x=2;
  compute_error = compute_stuff();

  if (compute_error) {
    restore_cd(cd_b);      // Restore app memory to: x=1;
    goto TOP;
  } else {
    commit_cd(cd_b);       // Commit to parent(cd_a): x=0 (parent wins)
  }

  function_error = do_some_other_stuff_that_may_error();
  return function_error;
}

static void use_case_static_1(void) {
  char *storage_info = NULL;
  int error;
  cd_handle root;
  root = create_cd(NULL, storage_info, COMM_LOGGING_ENABLED, "root", &error);
  a(root);
  EXPECT(x_after_restore_a == 0);
  EXPECT(x == 2);
  /* the root holds x=0 (child wins on commit of cd_a): restoring it shows it */
  EXPECT(restore_cd(root) == 0);
  EXPECT(x == 0);
  EXPECT(commit_cd(root) == 0);
  EXPECT(error == 0);
}

/* ---- 3.2.2 STATIC 2 (commit spelled "commit") ---- */
static int y = 0, z = 0;
static int cray_is_profitable(void) { return 1; }
static int b2(cd_handle parent);
static int a2(cd_handle parent) {
  int error, compute_error, function_error;
  cd_handle cd_a;
  struct cd_addrspec addrlist[1] = { {&x, sizeof(x), READ_WRITE, GLOBAL} };
  cd_a = create_cd(parent, NULL, MPI_LOGGING_INHERIT, NULL, &error);

  add_to_cd_via_copy(cd_a, addrlist, 1); // cd_a contains: x=0
TOP:
  x += 1; // x=1;
  compute_error = compute_stuff();

  if (compute_error) {
    restore_cd(cd_a);
    goto TOP;
  }

  function_error = b2(cd_a);

  if (function_error) {
    restore_cd(cd_a); // Restore app memory to: x=0, y=0
    goto TOP;
  } else {
    commit(cd_a); // Commit to parent(root): x=0 (child wins), y=0 (child wins)
  }

  return 0;
}
static int b2(cd_handle parent) {
  int error, compute_error, function_error;
  cd_handle cd_b;
  struct cd_addrspec addrlist[2] = {{&x, sizeof(x), READ_WRITE, GLOBAL},
  {&y, sizeof(y), READ_WRITE, GLOBAL}};
  cd_b = create_cd(parent, NULL, MPI_LOGGING_INHERIT, NULL, &error);
  add_to_cd_via_copy(cd_b, addrlist, 2); // cd_b contains: x=1 and y=0
  if (cray_is_profitable()) {
    // Note: this is a single variable and not an array.
    struct cd_addrspec addrlist1 = {&z, sizeof(z), READ_WRITE, GLOBAL};

    add_to_cd_via_copy(cd_b, &addrlist1, 1); // cd_b contains: x=1, y=0, z=0
  }
TOP:
  x += 1; // x=2;
  y += 1; // y=1;
  if (cray_is_profitable()) {
    z += 1; // z=1;
  }

  compute_error = compute_stuff();
  if (compute_error) {
    restore_cd(cd_b); // Restore app memory to: x=1, y=0, and z=0 (Conditionally) ;
    goto TOP;
  } else {
    commit(cd_b);
  }

  function_error = do_some_other_stuff_that_may_error();
  return function_error;
}
static void use_case_static_2(void) {
  char *storage_info = NULL;
  int error;
  cd_handle root;
  x = y = z = 0;
  stuff_calls = 1; /* a2's first compute succeeds; b2's first fails once below */
  root = create_cd(NULL, storage_info, COMM_LOGGING_ENABLED, "root2", &error);
  stuff_calls = 1;
  a2(root);
  EXPECT(x == 2 && y == 1 && z == 1);
  /* Upon return from a(), the root contains x=0, y=0, z=0: restoring it shows them */
  EXPECT(restore_cd(root) == 0);
  EXPECT(x == 0 && y == 0 && z == 0);
  commit(root); // This commit will discard the CD 'root'.
}

int main(int argc, char **argv) {
  GDS_thread_support_t provided;
  if (GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided) != GDS_STATUS_OK) return 1;
  use_case_3_1();
  use_case_static_1();
  use_case_static_2();
  /* The document's errors: advance and commit with an uncommitted child. */
  int error;
  cd_handle parent = create_cd(NULL, NULL, COMM_LOGGING_ENABLED, "motivation", &error);
  cd_handle child = create_cd(parent, NULL, MPI_LOGGING_INHERIT, NULL, &error);
  EXPECT(advance_cd_point_in_time(parent) == FAILURE && GDS_cd_last_status() == GDS_STATUS_CD_STATE);
  EXPECT(commit_cd(parent) == FAILURE && GDS_cd_last_status() == GDS_STATUS_CD_STATE);
  EXPECT(commit_cd(child) == 0 && commit_cd(parent) == 0);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  GDS_finalize();
  if (failures == 0 && rank == 0) printf("cd examples ok\n");
  return failures == 0 ? 0 : 1;
}
