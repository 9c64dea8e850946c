# Build variant: AddressSanitizer + UndefinedBehaviorSanitizer for everything.
# Tests get LSAN_OPTIONS with the suppressions for MPICH's own exit-time
# leaks (cmake/lsan.supp) through gds_add_mpi_test. allocator_may_return_null:
# an allocation no memory can hold throws std::bad_alloc, as without ASan
# (GDS reports it as GDS_STATUS_NOMEM), instead of ending the process.
set(GDS_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
add_compile_options(${GDS_SANITIZER_FLAGS})
add_link_options(-fsanitize=address,undefined)
# HWLOC_COMPONENTS: MPICH's hwloc_topology_load loads hwloc's plugins.
# -pci: see cmake/lsan.supp (the PCI plugin leaks). -opencl,-gl: where an
# OpenCL loader is installed, the OpenCL plugin calls into libOpenCL, whose
# dynamic TLS GCC 12's LeakSanitizer records with bogus bounds (a DTLS block
# at 0x31c): its tracer then faults at exit ("Tracer caught signal 11")
# depending on the program's layout, as test_cxx did.
# verify_asan_link_order=0: the tests preload the oversubscription shim
# (cmake/GdsMpiTest.cmake), a library without the sanitizers, ahead of ASan's
# runtime; it defines no function ASan intercepts.
set(GDS_SANITIZER_ENV
    "HWLOC_COMPONENTS=-pci,-opencl,-gl"
    "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=0:allocator_may_return_null=1:verify_asan_link_order=0"
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/cmake/lsan.supp:print_suppressions=0"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
