// The Containment Domains document's use case 3.3 (delete_from_cd), whose
// calls pass braced lists as the address list: C++ only (cd.h offers the
// overloads), built against the installed package. The CD calls are the
// document's; compute_stuff fails the first time it is called for each value.
#include <gds/cd.h>
#include <gds.h>

#include <cstdio>

static int calls_x = 0, calls_y = 0;
static int compute_stuff(int x, int) { return ++calls_x == 1 && x == 1; }  // fails once
static int compute_stuff(int y) { return ++calls_y == 1 && y == 1; }       // fails once
static cd_handle root;
static int failures = 0;

int calculator(cd_handle cd) {
  int comp_error;
  int y = 0;
  add_to_cd_via_copy(cd, {&y, sizeof(y), READ_WRITE, GLOBAL}, 1); // cd contains: x=0 and y=0
TOP:
  y += 1;
  comp_error = compute_stuff(y);
  if (comp_error) {
    restore_cd(cd);    // Restore app memory to: x=0 and y=0
    goto TOP;
  } else {
    delete_from_cd(cd, {&y, sizeof(y), READ_WRITE, GLOBAL}, 1); // cd contains: x=0
  }

  return y;
}

int main(int argc, char **argv) {
  GDS_thread_support_t provided;
  if (GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided) != GDS_STATUS_OK) return 1;
  {
    char *storage_info = NULL;
    int cd_error, comp_error;
    int x = 0, answer;
    root = create_cd(NULL, storage_info, COMM_LOGGING_DISABLED, "root", &cd_error);
    add_to_cd_via_copy(root, {&x, sizeof(x), READ_WRITE, GLOBAL}, 1); // root contains: x=0
  TOP:
    answer = calculator(root);
    x += 1;
    comp_error = compute_stuff(x, answer);
    if (comp_error) {
      restore_cd(root);    // Restores x = 0;
      goto TOP;
    }
    if (x != 1 || answer != 1 || cd_error != 0) ++failures;
    // y was deleted from the CD: deleting it again is refused.
    int y = 0;
    if (delete_from_cd(root, {&y, sizeof(y), READ_WRITE, GLOBAL}, 1) != FAILURE ||
        GDS_cd_last_status() != GDS_STATUS_NOT_PRESERVED)
      ++failures;
    commit_cd(root);        // This commit will discard the CD 'root'.
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  GDS_finalize();
  if (failures == 0 && rank == 0) std::printf("cd braced example ok\n");
  return failures == 0 ? 0 : 1;
}
