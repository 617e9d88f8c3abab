// How the chunked datasets of a trace are compressed: the choice callers make (TraceWriterOptions,
// batch recipes, `trace --compression`), apart from the HDF5 filters that implement it
// (data/h5/filters.h), so that choosing needs no HDF5 header.
#pragma once

#include <string_view>

#include "data/common/result.h"

namespace gatescope::data {

/// How chunked datasets are compressed. Every choice adds HDF5's shuffle filter first.
/// Deflate (gzip, the default) is built into every HDF5, so stock h5py, silx and HDF5's tools
/// open such traces. lz4 needs a filter plugin: Debian's hdf5-filter-plugin package has one
/// (HDF5_PLUGIN_PATH), as does hdf5plugin (pip). zstd needs one that no Debian 12 package
/// provides: there h5py, silx and h5dump cannot read zstd traces (h5dump prints an empty DATA
/// and exits 0); only hdf5plugin (pip) or a self-built plugin reads them.
enum class Compression { None, Deflate, Zstd, Lz4 };

/// "none", "deflate", "zstd" or "lz4": the name a trace's compression attribute stores.
const char* toString(Compression compression);

/// The names parseCompression accepts, for help texts: "deflate, lz4, zstd or none".
const char* compressionNames();

/// The Compression `name` (toString's names) stands for. Error (Usage) for any other word,
/// naming it and the valid names.
Result<Compression> parseCompression(std::string_view name);

}  // namespace gatescope::data
