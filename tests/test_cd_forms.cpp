// test_cd_forms.c built as C++ (cd.h's overloads instead of its C macros),
// plus the braced-list forms only C++ has: add_to_cd_via_copy/parent(cd,
// {&x, sizeof(x), READ_WRITE, GLOBAL}, 1) with and without storage_info.
#include "test_cd_forms.c"

void cxx_forms(void) {
  int error = -1, x = 5, y = 6;
  cd_handle root = create_cd(NULL, NULL, COMM_LOGGING_DISABLED, "forms-braced", &error);
  EXPECT(error == 0);
  EXPECT(add_to_cd_via_copy(root, {&x, sizeof(x), READ_WRITE, GLOBAL}, 1) == 0);
  EXPECT(add_to_cd_via_copy(root, {&y, sizeof(y), READ_WRITE, GLOBAL}, 1, "level=memory") == 0);
  EXPECT_REFUSED(add_to_cd_via_copy(root, {&y, sizeof(y), READ_WRITE, GLOBAL}, 1, "level=cache"),
                 GDS_STATUS_INVALID_INFO, "add_to_cd_via_copy", "level=cache");
  EXPECT_REFUSED(add_to_cd_via_copy(root, {&y, sizeof(y), READ_WRITE, GLOBAL}, 2, ""), GDS_STATUS_NULL_ARGUMENT,
                 "add_to_cd_via_copy", "");  // one braced range cannot be counted as two
  cd_handle child = create_cd(root, NULL, MPI_LOGGING_INHERIT);
  EXPECT(child != GDS_CD_NULL);
  EXPECT(add_to_cd_via_parent(child, {&x, sizeof(x), READ_WRITE, GLOBAL}, 1) == 0);
  EXPECT(add_to_cd_via_parent(child, {&y, sizeof(y), READ_WRITE, GLOBAL}, 1, NULL) == 0);
  EXPECT_REFUSED(add_to_cd_via_parent(child, {&y, sizeof(y), READ_WRITE, GLOBAL}, 1, "level=prefix"),
                 GDS_STATUS_INVALID_INFO, "add_to_cd_via_parent", "a child CD");
  x = y = 0;
  EXPECT(restore_cd(child) == 0);
  EXPECT(x == 5 && y == 6);
  EXPECT(commit_cd(child) == 0);
  EXPECT(commit_cd(root) == 0);
}
