// Stored chunks checked before HDF5 1.10 reads them. HDF5 copies a whole chunk (the chunk shape
// times the element size) out of what its filter pipeline returns, whatever that size is: a
// forged chunk that skips its filters (its filter mask) or decodes short made it read past the
// buffer (fuzz/trace_reader_fuzz). gatescope's own decoders (lz4, zstd) refuse a wrong size
// themselves (filters.h, ExpectedChunkBytes); HDF5's built-in deflate cannot be replaced, so its
// chunks are inflated here once per process and their size compared before HDF5 reads them.
#pragma once

#include <cstdint>

#include "data/h5/library.h"
#include "data/h5/space.h"

namespace gatescope::data::h5 {

/// For the block [start, start + count) of dataset `id`: Ok(0) when the dataset is not chunked
/// with filters. Otherwise every stored chunk the block touches must have gone through all its
/// filters, and deflate chunks must inflate to exactly a chunk's bytes; returns those bytes (for
/// ExpectedChunkBytes). The pipeline may hold shuffle and one of deflate, lz4 and zstd (what
/// gatescope writes); others are refused. Errors: Format, naming `where`. The caller holds the
/// library lock.
Result<uint64_t> verifyChunks(hid_t id, const Dims& start, const Dims& count,
                              const Location& where);

}  // namespace gatescope::data::h5
