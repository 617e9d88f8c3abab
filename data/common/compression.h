// How the chunked datasets of a trace are compressed: the choice callers make (TraceWriterOptions,
// batch recipes, `trace --compression`), apart from the HDF5 filters that implement it
// (data/h5/filters.h), so that choosing needs no HDF5 header.
#pragma once

namespace gatescope::data {

/// How chunked datasets are compressed. Every choice adds HDF5's shuffle filter first.
/// Deflate (gzip) is built into every HDF5, so stock h5py opens such traces; zstd and lz4 need the
/// filter plugins (hdf5plugin in Python) outside gatescope.
enum class Compression { None, Deflate, Zstd, Lz4 };

/// "none", "deflate", "zstd" or "lz4": the name a trace's compression attribute stores.
const char* toString(Compression compression);

}  // namespace gatescope::data
