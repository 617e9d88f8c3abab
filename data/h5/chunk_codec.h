// Chunk encoding outside HDF5: the bytes that a dataset's filter pipeline (as
// PropertyList::chunkedDataset builds it: shuffle, then the compressor) stores for one chunk, so
// that chunks can be compressed on worker threads and handed to HDF5 whole (ChunkWriter). Exactly
// HDF5's bytes, except deflate at level 1 in a build with ISA-L (GATESCOPE_HAVE_ISAL): there
// ISA-L's igzip writes the zlib stream, another encoding of the same data that every deflate
// reader inflates, about 10x faster than zlib.
#pragma once

#include <cstddef>
#include <vector>

#include "data/h5/filters.h"

namespace gatescope::data::h5 {

/// The pipeline of a dataset made by PropertyList::chunkedDataset(chunk, compression, level, type).
struct ChunkEncoding {
    Compression compression = Compression::None;
    int level = 0;           ///< as chunkedDataset's `level`
    size_t elementSize = 4;  ///< bytes of one element of the file type (shuffle's unit)
};

/// Whether this build deflates level-1 chunks through ISA-L (else zlib).
bool deflatesThroughIsal();

/// Encodes `bytes` bytes of elements (a whole chunk, edge chunks padded) as `encoding` says: the
/// chunk as stored, every filter applied (HDF5 1.10 keeps a deflate stream even when it grows).
/// Thread-safe: calls no HDF5 function. Internal if a compressor fails.
Result<std::vector<unsigned char>> encodeChunk(const void* data, size_t bytes,
                                               const ChunkEncoding& encoding);

}  // namespace gatescope::data::h5
