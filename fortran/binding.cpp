// C entry points of the Fortran module (fortran/gds.f90), part of libgds.
//
// They differ from the C API only where Fortran does: MPI handles arrive as
// Fortran INTEGERs (converted with MPI_*_f2c / MPI_*_c2f), and
// GDS_ORDER_DEFAULT means column-major. Not declared in any installed header:
// programs use the Fortran module.
#include "core/array.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "gds.h"

using gds::core::Mapping;
using gds::core::Order;

namespace {

// GDS_ENTER for an entry point named after the Fortran procedure.
GDS_status_t enter(const char *name) {
  if (gds::core::g_rt.initialized && !gds::core::g_rt.config.sanity_check) return GDS_STATUS_OK;
  return gds::core::entry_refused(name);
}

}  // namespace

extern "C" {

GDS_API GDS_status_t gdsf90_init(int requested, int *provided, MPI_Fint *world, GDS_gds_t *root) try {
  GDS_thread_support_t level = GDS_THREAD_SINGLE;
  const GDS_status_t s = GDS_init(nullptr, nullptr, static_cast<GDS_thread_support_t>(requested), &level);
  if (s != GDS_STATUS_OK) return s;
  *provided = level;
  *world = MPI_Comm_c2f(GDS_COMM_WORLD);
  *root = GDS_ROOT;
  return GDS_STATUS_OK;
} GDS_API_CATCH

// GDS_cd_create with a Fortran communicator (module containment_domains).
GDS_API GDS_status_t gdsf90_cd_create(GDS_cd_t parent, MPI_Fint comm, const char *name, const char *storage_info,
                                      int logging, GDS_cd_t *cd) try {
  return GDS_cd_create(parent, MPI_Comm_f2c(comm), name, storage_info, static_cast<GDS_cd_logging_t>(logging), cd);
} GDS_API_CATCH

GDS_API GDS_status_t gdsf90_comm_rank(MPI_Fint comm, int *rank) try { return GDS_comm_rank(MPI_Comm_f2c(comm), rank); } GDS_API_CATCH

GDS_API GDS_status_t gdsf90_comm_size(MPI_Fint comm, int *size) try { return GDS_comm_size(MPI_Comm_f2c(comm), size); } GDS_API_CATCH

GDS_API GDS_status_t gdsf90_alloc(GDS_size_t ndims, const GDS_size_t *count, const GDS_size_t *min_chunks,
                                  MPI_Fint element_type, int priority, MPI_Fint users, MPI_Fint info,
                                  GDS_gds_t *gds) try {
  GDS_TRY(enter("GDS_ALLOC"));
  return gds::core::alloc_array("GDS_ALLOC", ndims, count, min_chunks, MPI_Type_f2c(element_type),
                                static_cast<GDS_priority_t>(priority), MPI_Comm_f2c(users), MPI_Info_f2c(info),
                                Order::col_major, gds);
} GDS_API_CATCH

GDS_API GDS_status_t gdsf90_create(GDS_size_t ndims, const GDS_size_t *count, MPI_Fint element_type,
                                   GDS_global_to_local_func_t global_to_local,
                                   GDS_local_to_global_func_t local_to_global, void *local_buffer,
                                   GDS_size_t local_buffer_count, int priority, MPI_Fint users, MPI_Fint info,
                                   GDS_gds_t *gds) try {
  GDS_TRY(enter("GDS_CREATE"));
  Mapping m;
  m.g2l = global_to_local;
  m.l2g = local_to_global;
  return gds::core::create_array("GDS_CREATE", ndims, count, MPI_Type_f2c(element_type), m, local_buffer,
                                 local_buffer_count, static_cast<GDS_priority_t>(priority), MPI_Comm_f2c(users),
                                 MPI_Info_f2c(info), Order::col_major, gds);
} GDS_API_CATCH

// GDS_TYPE is an MPI handle: Fortran gets its Fortran form.
GDS_API GDS_status_t gdsf90_get_attr(GDS_gds_t gds, int key, void *value, int *flag) try {
  if (key != GDS_TYPE) return GDS_get_attr(gds, static_cast<GDS_attr_t>(key), value, flag);
  GDS_datatype_t type = MPI_DATATYPE_NULL;
  const GDS_status_t s = GDS_get_attr(gds, GDS_TYPE, &type, flag);
  if (s == GDS_STATUS_OK) *static_cast<MPI_Fint *>(value) = MPI_Type_c2f(type);
  return s;
} GDS_API_CATCH

GDS_API GDS_status_t gdsf90_get_comm(GDS_gds_t gds, MPI_Fint *comm) try {
  MPI_Comm c = MPI_COMM_NULL;
  const GDS_status_t s = GDS_get_comm(gds, &c);
  if (s == GDS_STATUS_OK) *comm = MPI_Comm_c2f(c);
  return s;
} GDS_API_CATCH

GDS_API GDS_status_t gdsf90_acc(const void *origin, const GDS_size_t *ld, const GDS_size_t *lo, const GDS_size_t *hi,
                                MPI_Fint op, GDS_gds_t gds) try {
  return GDS_acc(origin, ld, lo, hi, MPI_Op_f2c(op), gds);
} GDS_API_CATCH

GDS_API GDS_status_t gdsf90_get_acc(const void *origin, const GDS_size_t *origin_ld, void *result,
                                    const GDS_size_t *result_ld, const GDS_size_t *lo, const GDS_size_t *hi,
                                    MPI_Fint op, GDS_gds_t gds) try {
  return GDS_get_acc(origin, origin_ld, result, result_ld, lo, hi, MPI_Op_f2c(op), gds);
} GDS_API_CATCH

// Copies GDS_status_string into a Fortran CHARACTER buffer, blank-padded.
GDS_API void gdsf90_status_string(int status, char *text, int length) {
  const char *s = GDS_status_string(static_cast<GDS_status_t>(status));
  int i = 0;
  for (; i < length && s[i] != '\0'; ++i) text[i] = s[i];
  for (; i < length; ++i) text[i] = ' ';
}

}  // extern "C"
