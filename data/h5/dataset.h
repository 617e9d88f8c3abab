// HDF5 datasets: create, open, read and write whole or by block.
#pragma once

#include <string_view>
#include <vector>

#include "data/h5/handle.h"
#include "data/h5/property_list.h"
#include "data/h5/space.h"

namespace gatescope::data::h5 {

/// An open dataset. Move-only. Every method takes the library lock itself; a Dataset may be used
/// from several threads as long as it is not moved or closed meanwhile.
class Dataset : public Object {
public:
    Dataset() = default;  ///< empty; valid() is false
    /// Creates direct child `name` of `parent` with file type `type`, extent `dims` and creation
    /// properties `dcpl` (default: contiguous, uncompressed).
    static Result<Dataset> create(const Object& parent, std::string_view name, const Type& type,
                                  const Dims& dims, const PropertyList& dcpl = {});
    /// Creates a scalar (0-d) dataset.
    static Result<Dataset> createScalar(const Object& parent, std::string_view name,
                                        const Type& type);
    /// Opens the dataset at relative path `name`. Missing when absent, Shape when not a dataset,
    /// Unsupported when a path component is not a hard link or the data is not stored inside the
    /// file (requireLocalStorage()).
    static Result<Dataset> open(const Object& parent, std::string_view name);

    /// Refuses data that HDF5 would read from elsewhere: external storage (H5Pset_external: raw
    /// bytes of any file, e.g. /etc/passwd, read as values) and virtual datasets (sources in other
    /// files). Unsupported naming the external file; Format when the layout is unknown.
    Status requireLocalStorage() const;

    Result<Dims> dims() const;
    Result<Type> type() const;
    /// Chunk extent, or empty when the layout is not chunked.
    Result<Dims> chunkDims() const;

    /// Writes the whole dataset from `data` laid out as `memType`. Io on failure (disk full...).
    Status write(const Type& memType, const void* data);
    /// Writes the block [start, start + count) from `data` (dense, row-major).
    Status writeBlock(const Type& memType, const void* data, const Dims& start, const Dims& count);
    /// Stores one encoded chunk at `offset` (a multiple of the chunk dims) with H5Dwrite_chunk,
    /// bypassing the filter pipeline: `data` must be the bytes the pipeline would store
    /// (chunk_codec.h) with every filter applied. Io on failure.
    Status writeRawChunk(const Dims& offset, const void* data, size_t bytes);
    /// As above, for bytes the caller gives up: a file created by File::create takes them over
    /// and writes them on its I/O thread (background_write_driver.h), so a failure to store them
    /// may be returned by a later write or by File::flush instead.
    Status writeRawChunk(const Dims& offset, std::vector<unsigned char> bytes);
    /// Reads the whole dataset into `data`, converting to `memType`. Format on failure.
    Status read(const Type& memType, void* data) const;
    /// Reads the block [start, start + count) into dense row-major `data`.
    Status readBlock(const Type& memType, void* data, const Dims& start, const Dims& count) const;

    /// Bytes the dataset occupies in the file (compressed chunks actually allocated).
    Result<uint64_t> storageSize() const;
    /// Number of chunks allocated in the file.
    Result<uint64_t> allocatedChunks() const;

private:
    using Object::Object;
    Result<Space> space() const;
};

}  // namespace gatescope::data::h5
