// Chunk compression in HDF5 (the choices themselves: data/common/compression.h): the two
// filters HDF5 1.10 lacks (zstd, lz4), implemented here with the registered filter IDs and the
// cd_values conventions of the reference plugins (HDF5Plugin-Zstandard 32015, HDF5 LZ4 plugin
// 32004), so h5py + hdf5plugin reads them.
#pragma once

#include <cstdint>

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

/// While one lives on a thread, the decoders of gatescope's lz4 and zstd filters refuse a chunk
/// that does not decode to exactly `bytes`: HDF5 1.10 copies a whole chunk out of whatever its
/// filters return, so a forged chunk that decodes short makes it read past the buffer. (HDF5's
/// built-in deflate cannot be replaced, H5Zregister refuses IDs below 256: Dataset checks those
/// chunks itself.) Dataset::read and readBlock set it around every read of a filtered chunked
/// dataset; 0 (none alive) leaves the size unchecked (the writer's own paths).
class ExpectedChunkBytes {
public:
    explicit ExpectedChunkBytes(uint64_t bytes);
    ~ExpectedChunkBytes();
    ExpectedChunkBytes(const ExpectedChunkBytes&) = delete;
    ExpectedChunkBytes& operator=(const ExpectedChunkBytes&) = delete;

    /// The innermost live value on this thread, 0 when none.
    static uint64_t current();

private:
    uint64_t m_previous;
};

}  // namespace gatescope::data::h5
