// Stored descriptors of variable-length strings, checked before HDF5 converts them. HDF5 1.10
// converts a variable-length value by allocating the length its stored descriptor claims (up to
// 4 GiB) before it reads the value from the global heap, and its H5HG_read indexes the
// collection's object table with the stored index unchecked. A descriptor is a 4-byte length, the
// heap collection's address (the file's offset size) and a 4-byte object index, little-endian.
// Used for contiguous string datasets (strings.cpp) and string attributes (attribute_check.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "data/h5/library.h"

namespace gatescope::data::h5 {

/// The file's sizes of offsets and of lengths in bytes (its superblock's), as stored. The caller
/// holds the library lock.
struct OffsetSizes {
    size_t offsets = 0, lengths = 0;
};
Result<OffsetSizes> fileOffsetSizes(hid_t file, const Location& where);

/// The file's offset size in bytes (its superblock's "size of offsets"): 0 when it is not one a
/// descriptor can hold (above 8). The caller holds the library lock.
Result<size_t> fileAddressBytes(hid_t file, const Location& where);

/// Bytes of one descriptor in a file whose offsets take `addressBytes`.
constexpr size_t descriptorBytes(size_t addressBytes) {
    return 4 + addressBytes + 4;
}

/// Checks the `count` descriptors at `bytes`: each length at most kMaxStringBytes and all at most
/// `maxTotal` together, and each naming an object of exactly its length in a sound global-heap
/// collection of `file`, read through the checking driver (checked_driver.h). Null descriptors
/// (address 0) pass. Errors: Format, naming `where`. The caller holds the library lock.
Status checkStringDescriptors(hid_t file, const uint8_t* bytes, size_t count, size_t addressBytes,
                              size_t maxTotal, const Location& where);

}  // namespace gatescope::data::h5
