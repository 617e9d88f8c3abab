// Property lists: how files are opened and how datasets are laid out and compressed.
#pragma once

#include "data/h5/filters.h"
#include "data/h5/space.h"

namespace gatescope::data::h5 {

/// Owns one property list. Move-only; build it, pass it to a create/open call, let it go.
class PropertyList {
public:
    /// The default list (H5P_DEFAULT); owns nothing.
    PropertyList() = default;
    /// A new list of class `cls` (H5P_FILE_ACCESS, H5P_DATASET_CREATE, ...).
    static Result<PropertyList> create(hid_t cls, const Location& where = {});

    /// File access for gatescope: strong close (closing the file closes every object in it) and
    /// HDF5's own chunk cache set to `chunkCacheBytes` per dataset (0 disables it).
    static Result<PropertyList> fileAccess(size_t chunkCacheBytes, const Location& where);

    /// Dataset creation: chunked by `chunk`, shuffled and compressed as `compression` says
    /// (`level` is deflate's 0-9 or zstd's 1-22; lz4 ignores it), an explicit fill value of 0 in
    /// `elementType`, chunks allocated only when written.
    static Result<PropertyList> chunkedDataset(const Dims& chunk, Compression compression,
                                               int level, const Type& elementType,
                                               const Location& where);

    hid_t id() const { return m_handle.valid() ? m_handle.id() : H5P_DEFAULT; }

private:
    explicit PropertyList(Handle handle) : m_handle(std::move(handle)) {}
    Handle m_handle;
};

}  // namespace gatescope::data::h5
