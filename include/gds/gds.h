/**
 * \file gds.h
 * \brief GDS: versioned, global-view distributed arrays over MPI-3 RMA.
 *
 * The GVR 1.0 C interface. Programs say `#include <gds.h>` (the include
 * directory of the installed package holds gds/; pkg-config and the CMake
 * target GDS::gds put both on the include path).
 */
#ifndef GDS_H
#define GDS_H

#include "gds_types.h"
#include "gds_runtime.h"
#include "gds_array.h"
#include "gds_access.h"
#include "gds_version.h"
#include "gds_persist.h"
#include "gds_error.h"
#include "gds_group.h"
#include "gds_cd.h"
#include "gds_costs.h"

#endif /* GDS_H */
