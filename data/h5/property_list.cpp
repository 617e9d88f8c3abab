#include "data/h5/property_list.h"

#include <algorithm>

namespace gatescope::data::h5 {

Result<PropertyList> PropertyList::create(hid_t cls, const Location& where) {
    auto lock = lockLibrary();
    auto id = checkId(H5Pcreate(cls), ErrorKind::Internal, where, "cannot create property list");
    if (!id) return id.error();
    return PropertyList(Handle(*id, where));
}

Result<PropertyList> PropertyList::fileAccess(size_t chunkCacheBytes, const Location& where) {
    auto lock = lockLibrary();
    auto list = create(H5P_FILE_ACCESS, where);
    if (!list) return list;
    auto rc = check(H5Pset_fclose_degree(list->id(), H5F_CLOSE_STRONG), ErrorKind::Internal, where,
                    "cannot set close degree");
    if (!rc) return rc.error();
    // 521 slots is HDF5's default; a prime well above the chunks one read touches.
    rc = check(H5Pset_cache(list->id(), 0, chunkCacheBytes ? 521 : 0, chunkCacheBytes, 0.75),
               ErrorKind::Internal, where, "cannot set chunk cache");
    if (!rc) return rc.error();
    return list;
}

Result<PropertyList> PropertyList::chunkedDataset(const Dims& chunk, Compression compression,
                                                  int level, const Type& elementType,
                                                  const Location& where) {
    auto lock = lockLibrary();
    auto list = create(H5P_DATASET_CREATE, where);
    if (!list) return list;
    hid_t id = list->id();
    auto rc = check(H5Pset_chunk(id, static_cast<int>(chunk.size()), chunk.data()),
                    ErrorKind::Internal, where, "cannot set chunk shape");
    if (!rc) return rc.error();
    if (compression != Compression::None) {
        rc = check(H5Pset_shuffle(id), ErrorKind::Internal, where, "cannot add shuffle filter");
        if (!rc) return rc.error();
    }
    switch (compression) {
        case Compression::None:
            break;
        case Compression::Deflate:
            rc = check(H5Pset_deflate(id, static_cast<unsigned>(std::clamp(level, 0, 9))),
                       ErrorKind::Internal, where, "cannot add deflate filter");
            break;
        case Compression::Zstd: {
            unsigned values[1] = {static_cast<unsigned>(std::clamp(level, 1, 22))};
            rc = check(H5Pset_filter(id, kZstdFilterId, H5Z_FLAG_MANDATORY, 1, values),
                       ErrorKind::Internal, where, "cannot add zstd filter");
            break;
        }
        case Compression::Lz4: {
            unsigned values[1] = {0};  // 0: the plugin's default block size (one block per chunk)
            rc = check(H5Pset_filter(id, kLz4FilterId, H5Z_FLAG_MANDATORY, 1, values),
                       ErrorKind::Internal, where, "cannot add lz4 filter");
            break;
        }
    }
    if (!rc) return rc.error();
    // Explicit fill value 0 and incremental allocation: unwritten chunks cost no disk space.
    const unsigned char zeros[16] = {0};
    rc = check(H5Pset_fill_value(id, elementType.id(), zeros), ErrorKind::Internal, where,
               "cannot set fill value");
    if (!rc) return rc.error();
    rc = check(H5Pset_alloc_time(id, H5D_ALLOC_TIME_INCR), ErrorKind::Internal, where,
               "cannot set allocation time");
    if (!rc) return rc.error();
    return list;
}

}  // namespace gatescope::data::h5
