// How gatescope lets HDF5 resolve paths in files from outside: only inside the file. The access
// property lists below are passed to every lookup and open the RAII layer makes, and the link
// check refuses anything but hard links before a path is followed.
#pragma once

#include <hdf5.h>

#include <string_view>

#include "data/h5/library.h"

namespace gatescope::data::h5 {

/// Link access (H5P_LINK_ACCESS) for lookups: external links are refused by their traversal
/// callback, so HDF5 never opens another file through a link, and at most one soft link is
/// followed per path (HDF5's minimum). Created once, on first use, and never freed. The caller
/// holds the library lock. Returns a negative identifier when HDF5 could not create it, so every
/// call that uses it fails (closed, not open).
hid_t linkAccess();
/// The same policy for H5Gopen2 (H5P_GROUP_ACCESS) and H5Dopen2 (H5P_DATASET_ACCESS).
hid_t groupAccess();
hid_t datasetAccess();

/// Checks that the link `name` (a relative path under `parent` whose prefixes were checked
/// already) is a hard link to an object header whose chunks lie inside the file (read raw, see
/// object_header.h), before HDF5 loads that header. Errors: Unsupported naming the kind of link
/// (soft, external with its target file and object, user-defined), Format when HDF5 cannot read
/// the link or the header is not sound. The caller holds the library lock.
Status requireHardLink(hid_t parent, const std::string& name, const Location& where);

}  // namespace gatescope::data::h5
