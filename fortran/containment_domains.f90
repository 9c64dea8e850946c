! Containment Domains for Fortran: the CD document's Appendix A module
! (module Containment_Domains), over the C API of <gds/cd.h> and the GDS
! extensions of <gds/gds_cd.h>. Part of libgdsf90.
!
!   use containment_domains
!   mpif90.mpich -I<prefix>/include/gds prog.f90 -L<prefix>/lib -lgdsf90 -lgds
!
! Where this module differs from the document's Appendix A (whose text is
! cut off after add_file_to_cd), it follows the C API, which the calls reach:
! - cd_addrspec has the field addr_scope (GLOBAL or CONSTRAINED), as in C:
!   the C layout is void*, size_t, int, int, and an array of cd_addrspec
!   must have C's stride.
! - commit_cd returns integer(c_int) (0 or FAILURE), not a cd_handle.
! - create_cd's log_mpi_traffic is integer(c_int), passed by value.
! - The calls return 0 on success and FAILURE otherwise; gds_cd_last_status()
!   says why (a GDS_STATUS_* value of module GDS).
! - add_file_to_cd is completed; delete_file_from_cd, delete_from_cd and the
!   interposition layer's add_MPI_log_to_cd, get_MPI_log_from_cd and
!   delete_MPI_log_from_cd are added.
! - CURRENT_CD is the function current_cd() (a C_PTR holding (uintptr_t)-1).
!
! Handles (cd_handle) are type(c_ptr); c_null_ptr is "no parent" (a root).
! create_cd takes storage_info and name either as C strings (type(c_ptr),
! NUL-terminated, c_null_ptr for NULL: the document's form) or as Fortran
! CHARACTER strings, which are trimmed and NUL-terminated; a blank string
! stands for NULL (a child's name must be NULL, so pass "").
! A CD made by create_cd is per-process (MPI_COMM_SELF).
!
! The add calls also take section 2.5.5's storage_info after ascount (before
! regen), a C string or a Fortran string (blank: NULL, the CD's own storage):
!   if (add_to_cd_via_copy(cd, as, 1, "level=memory") == FAILURE) ...
! add_to_cd_via_copy, add_to_cd_via_parent, add_to_cd_via_regen and
! delete_from_cd take an array of cd_addrspec or a single one:
!   integer, target :: x(10)
!   type(cd_addrspec) :: as(1)
!   as(1) = cd_addrspec(c_loc(x), c_sizeof(x), READ_WRITE, GLOBAL)
!   if (add_to_cd_via_copy(cd, as, 1) == FAILURE) ...
! A regeneration function (add_to_cd_via_regen) is, with c_funloc(regen):
!   integer(c_int) function regen(addrlist, ascount) bind(C)
!     type(cd_addrspec) :: addrlist(*)
!     integer(c_int), value :: ascount
! and returns 0 on success. A file (add_file_to_cd) is a POSIX file
! descriptor, not a Fortran unit number.
!
! Preserved variables must have the TARGET attribute (C_LOC needs it); the
! addrlist dummies are TARGET too, so that the compiler knows their
! addresses escape and that restore_cd may write the variables later (without
! it, gfortran -O3 folds a test of a restored local variable to its
! pre-restore value). Test restored values in a statement after the
! restore_cd call, not in the same expression: Fortran may evaluate them first.
module containment_domains
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: cd_addrspec
  public :: READ_ONLY, READ_WRITE, GLOBAL, CONSTRAINED
  public :: COMM_LOGGING_DISABLED, COMM_LOGGING_ENABLED, COMM_LOGGING_INHERIT, MPI_LOGGING_INHERIT
  public :: FAILURE, GDS_CD_VIA_COPY, GDS_CD_VIA_PARENT, GDS_CD_VIA_REGEN
  public :: current_cd
  public :: create_cd, commit_cd, restore_cd, advance_cd_point_in_time
  public :: add_to_cd_via_copy, add_to_cd_via_parent, add_to_cd_via_regen, delete_from_cd
  public :: add_file_to_cd, delete_file_from_cd
  public :: add_MPI_log_to_cd, get_MPI_log_from_cd, delete_MPI_log_from_cd
  public :: gds_cd_last_status, gds_cd_restored, gds_cd_preserve_box, gds_cd_current, gds_cd_get_parent, &
    gds_cd_get_preserved_bytes, gds_cd_create, gds_cd_commit, gds_cd_restore, gds_cd_advance

  ! struct cd_addrspec (the layout of GDS_cd_range_t).
  type, bind(C) :: cd_addrspec
    type(c_ptr)       :: address
    integer(c_size_t) :: length      ! bytes (> 0)
    integer(c_int)    :: addr_tp     ! READ_ONLY, READ_WRITE
    integer(c_int)    :: addr_scope  ! GLOBAL, CONSTRAINED
  end type cd_addrspec

  ! For use with cd_addrspec field addr_tp (and gds_cd_preserve_box's access).
  integer(c_int), parameter :: READ_ONLY = 0
  integer(c_int), parameter :: READ_WRITE = 1

  ! For use with cd_addrspec field addr_scope.
  integer(c_int), parameter :: GLOBAL = 0
  integer(c_int), parameter :: CONSTRAINED = 1

  ! create_cd's log_mpi_traffic. MPI_LOGGING_INHERIT is the examples' spelling of COMM_LOGGING_INHERIT.
  integer(c_int), parameter :: COMM_LOGGING_DISABLED = 0
  integer(c_int), parameter :: COMM_LOGGING_ENABLED = 1
  integer(c_int), parameter :: COMM_LOGGING_INHERIT = 2
  integer(c_int), parameter :: MPI_LOGGING_INHERIT = COMM_LOGGING_INHERIT

  ! Returned by the document's calls when they fail (0 is success).
  integer(c_int), parameter :: FAILURE = 1

  ! GDS extension: how gds_cd_preserve_box's box is restored (GDS_cd_via_t).
  integer, parameter :: GDS_CD_VIA_COPY = 0, GDS_CD_VIA_PARENT = 1, GDS_CD_VIA_REGEN = 2

  ! The document's calls. The C entry points with string or addrspec-list
  ! arguments sit behind the generic names below.
  interface

    function c_create_cd(parent_cd, storage_info, log_mpi_traffic, name, error) bind(C, name="create_cd")
      import :: c_ptr, c_int
      type(c_ptr)           :: c_create_cd      ! returns cd_handle
      type(c_ptr), value    :: parent_cd        ! cd_handle
      type(c_ptr), value    :: storage_info     ! const char *
      integer(c_int), value :: log_mpi_traffic  ! enum comm_log
      type(c_ptr), value    :: name             ! const char *
      integer(c_int)        :: error            ! int * (out)
    end function c_create_cd

    function commit_cd(cd) bind(C, name="commit_cd")
      import :: c_ptr, c_int
      integer(c_int)     :: commit_cd
      type(c_ptr), value :: cd
    end function commit_cd

    function restore_cd(cd) bind(C, name="restore_cd")
      import :: c_ptr, c_int
      integer(c_int)     :: restore_cd
      type(c_ptr), value :: cd
    end function restore_cd

    function advance_cd_point_in_time(cd) bind(C, name="advance_cd_point_in_time")
      import :: c_ptr, c_int
      integer(c_int)     :: advance_cd_point_in_time
      type(c_ptr), value :: cd
    end function advance_cd_point_in_time

    function c_add_to_cd_via_copy(cd, addrlist, ascount) bind(C, name="add_to_cd_via_copy")
      import :: c_ptr, c_int, cd_addrspec
      integer(c_int)                :: c_add_to_cd_via_copy
      type(c_ptr), value            :: cd
      type(cd_addrspec), intent(in), target :: addrlist(*)
      integer(c_int), value         :: ascount
    end function c_add_to_cd_via_copy

    function c_add_to_cd_via_parent(cd, addrlist, ascount) bind(C, name="add_to_cd_via_parent")
      import :: c_ptr, c_int, cd_addrspec
      integer(c_int)                :: c_add_to_cd_via_parent
      type(c_ptr), value            :: cd
      type(cd_addrspec), intent(in), target :: addrlist(*)
      integer(c_int), value         :: ascount
    end function c_add_to_cd_via_parent

    function c_add_to_cd_via_regen(cd, addrlist, ascount, regen) bind(C, name="add_to_cd_via_regen")
      import :: c_ptr, c_int, c_funptr, cd_addrspec
      integer(c_int)                :: c_add_to_cd_via_regen
      type(c_ptr), value            :: cd
      type(cd_addrspec), intent(in), target :: addrlist(*)
      integer(c_int), value         :: ascount
      type(c_funptr), value         :: regen  ! int (*)(struct cd_addrspec[], int)
    end function c_add_to_cd_via_regen

    ! Section 2.5.5's forms, with the entry's storage_info (a C string; c_null_ptr: the CD's own).
    function c_add_to_cd_via_copy_sp(cd, addrlist, ascount, storage_info) &
        bind(C, name="add_to_cd_via_copy_with_storage")
      import :: c_ptr, c_int, cd_addrspec
      integer(c_int)                :: c_add_to_cd_via_copy_sp
      type(c_ptr), value            :: cd
      type(cd_addrspec), intent(in), target :: addrlist(*)
      integer(c_int), value         :: ascount
      type(c_ptr), value            :: storage_info  ! const char *
    end function c_add_to_cd_via_copy_sp

    function c_add_to_cd_via_parent_sp(cd, addrlist, ascount, storage_info) &
        bind(C, name="add_to_cd_via_parent_with_storage")
      import :: c_ptr, c_int, cd_addrspec
      integer(c_int)                :: c_add_to_cd_via_parent_sp
      type(c_ptr), value            :: cd
      type(cd_addrspec), intent(in), target :: addrlist(*)
      integer(c_int), value         :: ascount
      type(c_ptr), value            :: storage_info
    end function c_add_to_cd_via_parent_sp

    function c_add_to_cd_via_regen_sp(cd, addrlist, ascount, storage_info, regen) &
        bind(C, name="add_to_cd_via_regen_with_storage")
      import :: c_ptr, c_int, c_funptr, cd_addrspec
      integer(c_int)                :: c_add_to_cd_via_regen_sp
      type(c_ptr), value            :: cd
      type(cd_addrspec), intent(in), target :: addrlist(*)
      integer(c_int), value         :: ascount
      type(c_ptr), value            :: storage_info
      type(c_funptr), value         :: regen
    end function c_add_to_cd_via_regen_sp

    function c_delete_from_cd(cd, addrlist, ascount) bind(C, name="delete_from_cd")
      import :: c_ptr, c_int, cd_addrspec
      integer(c_int)                :: c_delete_from_cd
      type(c_ptr), value            :: cd
      type(cd_addrspec), intent(in), target :: addrlist(*)
      integer(c_int), value         :: ascount
    end function c_delete_from_cd

    function add_file_to_cd(cd, filedes) bind(C, name="add_file_to_cd")
      import :: c_ptr, c_int
      integer(c_int)        :: add_file_to_cd
      type(c_ptr), value    :: cd
      integer(c_int), value :: filedes  ! a POSIX file descriptor
    end function add_file_to_cd

    function delete_file_from_cd(cd, filedes) bind(C, name="delete_file_from_cd")
      import :: c_ptr, c_int
      integer(c_int)        :: delete_file_from_cd
      type(c_ptr), value    :: cd
      integer(c_int), value :: filedes
    end function delete_file_from_cd

    ! Interposition layer (section 2.10): logent is malloc'd; ownership passes on success.
    function add_MPI_log_to_cd(cd, logent, loglen) bind(C, name="add_MPI_log_to_cd")
      import :: c_ptr, c_int
      integer(c_int)        :: add_MPI_log_to_cd
      type(c_ptr), value    :: cd, logent
      integer(c_int), value :: loglen
    end function add_MPI_log_to_cd

    ! The next log entry (c_null_ptr when exhausted); error is 0 or FAILURE.
    function get_MPI_log_from_cd(cd, error) bind(C, name="get_MPI_log_from_cd")
      import :: c_ptr, c_int
      type(c_ptr)        :: get_MPI_log_from_cd
      type(c_ptr), value :: cd
      integer(c_int)     :: error
    end function get_MPI_log_from_cd

    function delete_MPI_log_from_cd(cd) bind(C, name="delete_MPI_log_from_cd")
      import :: c_ptr, c_int
      integer(c_int)     :: delete_MPI_log_from_cd
      type(c_ptr), value :: cd
    end function delete_MPI_log_from_cd

    ! GDS extension: the status (GDS_STATUS_*) of the calling thread's last call
    ! of the document's API (GDS_STATUS_OK if it succeeded).
    function gds_cd_last_status() bind(C, name="GDS_cd_last_status")
      import :: c_int
      integer(c_int) :: gds_cd_last_status
    end function gds_cd_last_status

    ! libgds entry points behind the gds_cd_* subroutines.
    function c_gds_cd_restored(cd, restored) bind(C, name="GDS_cd_restored")
      import :: c_ptr, c_int
      integer(c_int)     :: c_gds_cd_restored
      type(c_ptr), value :: cd
      integer(c_int)     :: restored
    end function c_gds_cd_restored

    function c_gds_cd_current(cd) bind(C, name="GDS_cd_current")
      import :: c_ptr, c_int
      integer(c_int) :: c_gds_cd_current
      type(c_ptr)    :: cd
    end function c_gds_cd_current

    function c_gds_cd_get_parent(cd, parent) bind(C, name="GDS_cd_get_parent")
      import :: c_ptr, c_int
      integer(c_int)     :: c_gds_cd_get_parent
      type(c_ptr), value :: cd
      type(c_ptr)        :: parent
    end function c_gds_cd_get_parent

    function c_gds_cd_get_preserved_bytes(cd, bytes) bind(C, name="GDS_cd_get_preserved_bytes")
      import :: c_ptr, c_int, c_int64_t
      integer(c_int)     :: c_gds_cd_get_preserved_bytes
      type(c_ptr), value :: cd
      integer(c_int64_t) :: bytes
    end function c_gds_cd_get_preserved_bytes

    function c_gds_cd_create(parent, comm, name, storage_info, logging, cd) bind(C, name="gdsf90_cd_create")
      import :: c_ptr, c_int
      integer(c_int)            :: c_gds_cd_create
      type(c_ptr), value        :: parent, name, storage_info
      integer(c_int), value     :: comm, logging
      type(c_ptr), intent(out)  :: cd
    end function c_gds_cd_create

    function c_gds_cd_commit(cd) bind(C, name="GDS_cd_commit")
      import :: c_ptr, c_int
      integer(c_int)             :: c_gds_cd_commit
      type(c_ptr), intent(inout) :: cd
    end function c_gds_cd_commit

    function c_gds_cd_restore(cd) bind(C, name="GDS_cd_restore")
      import :: c_ptr, c_int
      integer(c_int)     :: c_gds_cd_restore
      type(c_ptr), value :: cd
    end function c_gds_cd_restore

    function c_gds_cd_advance(cd) bind(C, name="GDS_cd_advance")
      import :: c_ptr, c_int
      integer(c_int)     :: c_gds_cd_advance
      type(c_ptr), value :: cd
    end function c_gds_cd_advance

    function c_gds_cd_preserve_box(cd, via, gds, lo, hi, access, regen, context) &
        bind(C, name="GDS_cd_preserve_box")
      import :: c_ptr, c_int, c_int64_t, c_funptr
      integer(c_int)                 :: c_gds_cd_preserve_box
      type(c_ptr), value             :: cd, gds, context
      integer(c_int), value          :: via, access
      integer(c_int64_t), intent(in) :: lo(*), hi(*)
      type(c_funptr), value          :: regen
    end function c_gds_cd_preserve_box

  end interface

  ! create_cd(parent_cd, storage_info, log_mpi_traffic, name, error) returns
  ! the new CD (type(c_ptr)); storage_info and name are each a C string
  ! (type(c_ptr)) or a Fortran CHARACTER string (blank: NULL).
  interface create_cd
    procedure :: c_create_cd, create_cd_ss, create_cd_sp, create_cd_ps
  end interface create_cd

  ! The add calls in both of the document's forms: (cd, addrlist, ascount)
  ! and (cd, addrlist, ascount, storage_info) (regen last), storage_info a C
  ! string or a Fortran string (blank: NULL, the CD's own storage).
  interface add_to_cd_via_copy
    procedure :: c_add_to_cd_via_copy, add_to_cd_via_copy_1
    procedure :: c_add_to_cd_via_copy_sp, add_to_cd_via_copy_ss, add_to_cd_via_copy_1s
  end interface add_to_cd_via_copy

  interface add_to_cd_via_parent
    procedure :: c_add_to_cd_via_parent, add_to_cd_via_parent_1
    procedure :: c_add_to_cd_via_parent_sp, add_to_cd_via_parent_ss, add_to_cd_via_parent_1s
  end interface add_to_cd_via_parent

  interface add_to_cd_via_regen
    procedure :: c_add_to_cd_via_regen, add_to_cd_via_regen_1
    procedure :: c_add_to_cd_via_regen_sp, add_to_cd_via_regen_ss, add_to_cd_via_regen_1s
  end interface add_to_cd_via_regen

  interface delete_from_cd
    procedure :: c_delete_from_cd, delete_from_cd_1
  end interface delete_from_cd

contains

  ! CURRENT_CD: the calling thread's current CD, accepted wherever a CD is ((cd_handle)(uintptr_t)-1).
  function current_cd()
    type(c_ptr) :: current_cd
    current_cd = transfer(-1_c_intptr_t, current_cd)
  end function current_cd

  ! create_cd with Fortran strings for storage_info and name.
  function create_cd_ss(parent_cd, storage_info, log_mpi_traffic, name, error)
    type(c_ptr) :: create_cd_ss
    type(c_ptr), intent(in) :: parent_cd
    character(*), intent(in) :: storage_info, name
    integer(c_int), intent(in) :: log_mpi_traffic
    integer(c_int), intent(out) :: error
    character(kind=c_char, len=len_trim(storage_info) + 1), target :: cinfo
    character(kind=c_char, len=len_trim(name) + 1), target :: cname
    cinfo = trim(storage_info) // c_null_char
    cname = trim(name) // c_null_char
    create_cd_ss = c_create_cd(parent_cd, c_string(cinfo), log_mpi_traffic, c_string(cname), error)
  end function create_cd_ss

  ! create_cd with a Fortran string for storage_info and a C string for name.
  function create_cd_sp(parent_cd, storage_info, log_mpi_traffic, name, error)
    type(c_ptr) :: create_cd_sp
    type(c_ptr), intent(in) :: parent_cd, name
    character(*), intent(in) :: storage_info
    integer(c_int), intent(in) :: log_mpi_traffic
    integer(c_int), intent(out) :: error
    character(kind=c_char, len=len_trim(storage_info) + 1), target :: cinfo
    cinfo = trim(storage_info) // c_null_char
    create_cd_sp = c_create_cd(parent_cd, c_string(cinfo), log_mpi_traffic, name, error)
  end function create_cd_sp

  ! create_cd with a C string for storage_info and a Fortran string for name.
  function create_cd_ps(parent_cd, storage_info, log_mpi_traffic, name, error)
    type(c_ptr) :: create_cd_ps
    type(c_ptr), intent(in) :: parent_cd, storage_info
    character(*), intent(in) :: name
    integer(c_int), intent(in) :: log_mpi_traffic
    integer(c_int), intent(out) :: error
    character(kind=c_char, len=len_trim(name) + 1), target :: cname
    cname = trim(name) // c_null_char
    create_cd_ps = c_create_cd(parent_cd, storage_info, log_mpi_traffic, c_string(cname), error)
  end function create_cd_ps

  ! A NUL-terminated buffer as a C string: NULL if it holds nothing but the NUL.
  function c_string(buffer)
    type(c_ptr) :: c_string
    character(kind=c_char, len=*), target, intent(in) :: buffer
    if (len(buffer) <= 1) then
      c_string = c_null_ptr
    else
      c_string = c_loc(buffer)
    end if
  end function c_string

  ! The single-range forms: add_to_cd_via_copy(cd, cd_addrspec(...), 1).
  ! A count above 1 with one range is refused (FAILURE, GDS_STATUS_INVALID)
  ! rather than read past it: C gets a negative count.
  pure function one_count(ascount)
    integer(c_int) :: one_count
    integer(c_int), intent(in) :: ascount
    one_count = ascount
    if (ascount > 1) one_count = -ascount
  end function one_count

  function add_to_cd_via_copy_1(cd, addrlist, ascount)
    integer(c_int) :: add_to_cd_via_copy_1
    type(c_ptr), intent(in) :: cd
    type(cd_addrspec), intent(in), target :: addrlist
    integer(c_int), intent(in) :: ascount
    type(cd_addrspec), target :: one(1)
    one(1) = addrlist
    add_to_cd_via_copy_1 = c_add_to_cd_via_copy(cd, one, one_count(ascount))
  end function add_to_cd_via_copy_1

  function add_to_cd_via_parent_1(cd, addrlist, ascount)
    integer(c_int) :: add_to_cd_via_parent_1
    type(c_ptr), intent(in) :: cd
    type(cd_addrspec), intent(in), target :: addrlist
    integer(c_int), intent(in) :: ascount
    type(cd_addrspec), target :: one(1)
    one(1) = addrlist
    add_to_cd_via_parent_1 = c_add_to_cd_via_parent(cd, one, one_count(ascount))
  end function add_to_cd_via_parent_1

  function add_to_cd_via_regen_1(cd, addrlist, ascount, regen)
    integer(c_int) :: add_to_cd_via_regen_1
    type(c_ptr), intent(in) :: cd
    type(cd_addrspec), intent(in), target :: addrlist
    integer(c_int), intent(in) :: ascount
    type(c_funptr), intent(in) :: regen
    type(cd_addrspec), target :: one(1)
    one(1) = addrlist
    add_to_cd_via_regen_1 = c_add_to_cd_via_regen(cd, one, one_count(ascount), regen)
  end function add_to_cd_via_regen_1

  ! The forms with a Fortran string for storage_info.
  function add_to_cd_via_copy_ss(cd, addrlist, ascount, storage_info)
    integer(c_int) :: add_to_cd_via_copy_ss
    type(c_ptr), intent(in) :: cd
    type(cd_addrspec), intent(in), target :: addrlist(*)
    integer(c_int), intent(in) :: ascount
    character(*), intent(in) :: storage_info
    character(kind=c_char, len=len_trim(storage_info) + 1), target :: cinfo
    cinfo = trim(storage_info) // c_null_char
    add_to_cd_via_copy_ss = c_add_to_cd_via_copy_sp(cd, addrlist, ascount, c_string(cinfo))
  end function add_to_cd_via_copy_ss

  function add_to_cd_via_copy_1s(cd, addrlist, ascount, storage_info)
    integer(c_int) :: add_to_cd_via_copy_1s
    type(c_ptr), intent(in) :: cd
    type(cd_addrspec), intent(in), target :: addrlist
    integer(c_int), intent(in) :: ascount
    character(*), intent(in) :: storage_info
    type(cd_addrspec), target :: one(1)
    one(1) = addrlist
    add_to_cd_via_copy_1s = add_to_cd_via_copy_ss(cd, one, one_count(ascount), storage_info)
  end function add_to_cd_via_copy_1s

  function add_to_cd_via_parent_ss(cd, addrlist, ascount, storage_info)
    integer(c_int) :: add_to_cd_via_parent_ss
    type(c_ptr), intent(in) :: cd
    type(cd_addrspec), intent(in), target :: addrlist(*)
    integer(c_int), intent(in) :: ascount
    character(*), intent(in) :: storage_info
    character(kind=c_char, len=len_trim(storage_info) + 1), target :: cinfo
    cinfo = trim(storage_info) // c_null_char
    add_to_cd_via_parent_ss = c_add_to_cd_via_parent_sp(cd, addrlist, ascount, c_string(cinfo))
  end function add_to_cd_via_parent_ss

  function add_to_cd_via_parent_1s(cd, addrlist, ascount, storage_info)
    integer(c_int) :: add_to_cd_via_parent_1s
    type(c_ptr), intent(in) :: cd
    type(cd_addrspec), intent(in), target :: addrlist
    integer(c_int), intent(in) :: ascount
    character(*), intent(in) :: storage_info
    type(cd_addrspec), target :: one(1)
    one(1) = addrlist
    add_to_cd_via_parent_1s = add_to_cd_via_parent_ss(cd, one, one_count(ascount), storage_info)
  end function add_to_cd_via_parent_1s

  function add_to_cd_via_regen_ss(cd, addrlist, ascount, storage_info, regen)
    integer(c_int) :: add_to_cd_via_regen_ss
    type(c_ptr), intent(in) :: cd
    type(cd_addrspec), intent(in), target :: addrlist(*)
    integer(c_int), intent(in) :: ascount
    character(*), intent(in) :: storage_info
    type(c_funptr), intent(in) :: regen
    character(kind=c_char, len=len_trim(storage_info) + 1), target :: cinfo
    cinfo = trim(storage_info) // c_null_char
    add_to_cd_via_regen_ss = c_add_to_cd_via_regen_sp(cd, addrlist, ascount, c_string(cinfo), regen)
  end function add_to_cd_via_regen_ss

  function add_to_cd_via_regen_1s(cd, addrlist, ascount, storage_info, regen)
    integer(c_int) :: add_to_cd_via_regen_1s
    type(c_ptr), intent(in) :: cd
    type(cd_addrspec), intent(in), target :: addrlist
    integer(c_int), intent(in) :: ascount
    character(*), intent(in) :: storage_info
    type(c_funptr), intent(in) :: regen
    type(cd_addrspec), target :: one(1)
    one(1) = addrlist
    add_to_cd_via_regen_1s = add_to_cd_via_regen_ss(cd, one, one_count(ascount), storage_info, regen)
  end function add_to_cd_via_regen_1s

  function delete_from_cd_1(cd, addrlist, ascount)
    integer(c_int) :: delete_from_cd_1
    type(c_ptr), intent(in) :: cd
    type(cd_addrspec), intent(in), target :: addrlist
    integer(c_int), intent(in) :: ascount
    type(cd_addrspec), target :: one(1)
    one(1) = addrlist
    delete_from_cd_1 = c_delete_from_cd(cd, one, one_count(ascount))
  end function delete_from_cd_1

  ! ---- GDS extensions (gds_cd.h), in module GDS's style: status last ----------------------

  ! Whether the CD was restored since the last call (restored = 1, else 0), and clears it.
  subroutine gds_cd_restored(cd, restored, status)
    type(c_ptr), intent(in) :: cd
    integer, intent(out) :: restored, status
    integer(c_int) :: r
    r = 0
    status = c_gds_cd_restored(cd, r)
    restored = r
  end subroutine gds_cd_restored

  ! The calling thread's current CD (c_null_ptr if none).
  subroutine gds_cd_current(cd, status)
    type(c_ptr), intent(out) :: cd
    integer, intent(out) :: status
    cd = c_null_ptr
    status = c_gds_cd_current(cd)
  end subroutine gds_cd_current

  ! A CD's parent (c_null_ptr for a root).
  subroutine gds_cd_get_parent(cd, parent, status)
    type(c_ptr), intent(in) :: cd
    type(c_ptr), intent(out) :: parent
    integer, intent(out) :: status
    parent = c_null_ptr
    status = c_gds_cd_get_parent(cd, parent)
  end subroutine gds_cd_get_parent

  ! Bytes of memory ranges and file positions the CD preserves via copy on this process.
  subroutine gds_cd_get_preserved_bytes(cd, bytes, status)
    type(c_ptr), intent(in) :: cd
    integer(8), intent(out) :: bytes
    integer, intent(out) :: status
    integer(c_int64_t) :: b
    b = 0
    status = c_gds_cd_get_preserved_bytes(cd, b)
    bytes = b
  end subroutine gds_cd_get_preserved_bytes

  ! Preserves the box lo_index..hi_index (inclusive) of a GDS array (a handle
  ! of module GDS) in a CD. Indices are as in GDS_PUT and GDS_GET of module
  ! GDS: INTEGER(8), 0-based, dimension 1 first (column-major arrays).
  ! via: GDS_CD_VIA_COPY, GDS_CD_VIA_PARENT or GDS_CD_VIA_REGEN; access:
  ! READ_ONLY or READ_WRITE (READ_ONLY via regen). A per-process CD (every
  ! CD of create_cd) preserves the part of the box this process owns.
  ! regen (via regen only), with c_funloc(regen):
  !   integer(c_int) function regen(gds, lo, hi, context) bind(C)
  !     type(c_ptr), value :: gds, context
  !     integer(c_int64_t), intent(in) :: lo(*), hi(*)
  ! writes the box's elements this process owns and returns GDS_STATUS_OK.
  subroutine gds_cd_preserve_box(cd, via, gds, lo_index, hi_index, access, status, regen, context)
    type(c_ptr), intent(in) :: cd, gds
    integer, intent(in) :: via, access
    integer(8), dimension(*), intent(in) :: lo_index, hi_index
    integer, intent(out) :: status
    type(c_funptr), intent(in), optional :: regen
    type(c_ptr), intent(in), optional :: context
    type(c_funptr) :: f
    type(c_ptr) :: x
    f = c_null_funptr
    x = c_null_ptr
    if (present(regen)) f = regen
    if (present(context)) x = context
    status = c_gds_cd_preserve_box(cd, int(via, c_int), gds, lo_index, hi_index, int(access, c_int), f, x)
  end subroutine gds_cd_preserve_box

  ! GDS_cd_create: a CD over a communicator (an MPI Fortran handle: a
  ! collective CD over several processes, MPI_COMM_SELF for a per-process
  ! one); parent c_null_ptr for a root; name blank for none (a child's).
  ! Collective over comm; status last, as in module GDS.
  subroutine gds_cd_create(parent, comm, name, logging, cd, status)
    type(c_ptr), intent(in) :: parent
    integer, intent(in) :: comm, logging
    character(*), intent(in) :: name
    type(c_ptr), intent(out) :: cd
    integer, intent(out) :: status
    character(kind=c_char, len=len_trim(name) + 1), target :: cname
    cname = trim(name) // c_null_char
    status = c_gds_cd_create(parent, int(comm, c_int), c_string(cname), c_null_ptr, int(logging, c_int), cd)
  end subroutine gds_cd_create

  ! GDS_cd_commit, GDS_cd_restore, GDS_cd_advance (collective for a collective CD).
  subroutine gds_cd_commit(cd, status)
    type(c_ptr), intent(inout) :: cd
    integer, intent(out) :: status
    status = c_gds_cd_commit(cd)
  end subroutine gds_cd_commit

  subroutine gds_cd_restore(cd, status)
    type(c_ptr), intent(in) :: cd
    integer, intent(out) :: status
    status = c_gds_cd_restore(cd)
  end subroutine gds_cd_restore

  subroutine gds_cd_advance(cd, status)
    type(c_ptr), intent(in) :: cd
    integer, intent(out) :: status
    status = c_gds_cd_advance(cd)
  end subroutine gds_cd_advance

end module containment_domains
