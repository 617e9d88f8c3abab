// Chunk compression: the choices a trace can use and the two filters HDF5 1.10 lacks (zstd, lz4),
// implemented here with the registered filter IDs and the cd_values conventions of the reference
// plugins (HDF5Plugin-Zstandard 32015, HDF5 LZ4 plugin 32004), so h5py + hdf5plugin reads them.
#pragma once

#include "data/common/result.h"

namespace gatescope::data {

/// How chunked datasets are compressed. Every choice adds HDF5's shuffle filter first.
/// Deflate (gzip) is built into every HDF5, so stock h5py opens such traces; zstd and lz4 need the
/// filter plugins (hdf5plugin in Python) outside gatescope.
enum class Compression { None, Deflate, Zstd, Lz4 };

const char* toString(Compression compression);

namespace h5 {

inline constexpr int kZstdFilterId = 32015;  ///< HDF Group registered ID; cd_values[0] = level
inline constexpr int kLz4FilterId = 32004;  ///< HDF Group registered ID; cd_values[0] = block bytes

/// Registers the zstd and lz4 filters with HDF5 (idempotent). lockLibrary() calls it once; it
/// must be called with the library lock held.
Status registerCompressionFilters();

/// Whether HDF5 can encode and decode with `filterId` now (built in or registered).
bool filterAvailable(int filterId);

}  // namespace h5
}  // namespace gatescope::data
