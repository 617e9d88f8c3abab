// Chunk compression in HDF5 (the choices themselves: data/common/compression.h): the two
// filters HDF5 1.10 lacks (zstd, lz4), implemented here with the registered filter IDs and the
// cd_values conventions of the reference plugins (HDF5Plugin-Zstandard 32015, HDF5 LZ4 plugin
// 32004), so h5py + hdf5plugin reads them.
#pragma once

#include "data/common/compression.h"
#include "data/common/result.h"

namespace gatescope::data::h5 {

inline constexpr int kZstdFilterId = 32015;  ///< HDF Group registered ID; cd_values[0] = level
inline constexpr int kLz4FilterId = 32004;  ///< HDF Group registered ID; cd_values[0] = block bytes

/// Registers the zstd and lz4 filters with HDF5 (idempotent). lockLibrary() calls it once; it
/// must be called with the library lock held.
Status registerCompressionFilters();

/// Whether HDF5 can encode and decode with `filterId` now (built in or registered).
bool filterAvailable(int filterId);

}  // namespace gatescope::data::h5
