// A dataset's object header checked before H5Dopen decodes it. HDF5 1.10 opens a dataset by
// decoding its layout, filter pipeline, fill value and external file list messages trusting the
// sizes inside them, and reads contiguous and compact data trusting the stored size: fuzzed traces
// with a few changed bytes made it read past buffers (strdup of an external file name that was not
// one; memcpy from a sieve buffer smaller than the dataspace). Here the header is read raw
// (object_header.h) and each of those messages must hold what it declares; contiguous and compact
// storage must hold exactly the dataspace's elements of the datatype's size, inside the file.
#pragma once

#include <cstdint>

#include "data/h5/library.h"

namespace gatescope::data::h5 {

/// Checks the object header at `address` of `file` (a dataset's). Ok when `file` is not read
/// through the checking driver (files gatescope writes itself). Errors, naming `where`: Format for
/// a message that does not hold what it declares or storage that does not fit the dataspace or the
/// file; Unsupported for external storage or a virtual dataset (values from other files). The
/// caller holds the library lock.
Status checkDatasetHeader(hid_t file, uint64_t address, const Location& where);

}  // namespace gatescope::data::h5
