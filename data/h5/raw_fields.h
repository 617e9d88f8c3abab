// Fields of HDF5 object header messages read from their raw bytes (object_header.h), for the
// checks that run before HDF5 decodes a message: attribute_check.h and dataset_header_check.h.
// Header-only; every function bounds its reads by the message's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace gatescope::data::h5 {

/// The unsigned little-endian integer of `bytes` bytes (at most 8) at `p`.
inline uint64_t littleEndian(const uint8_t* p, size_t bytes) {
    uint64_t v = 0;
    for (size_t b = bytes; b-- > 0;)
        v = v << 8 | p[b];
    return v;
}

/// Elements of the dataspace message at [at, at + size) of `m` (versions 1 and 2), saturated at
/// `limit + 1`; nullopt when it cannot be read.
inline std::optional<uint64_t> dataspaceElements(const std::vector<uint8_t>& m, size_t at,
                                                 size_t size, size_t lengthBytes, uint64_t limit) {
    if (size < 4 || at + size > m.size()) return std::nullopt;
    const unsigned version = m[at], rank = m[at + 1];
    size_t dims = 0;
    if (version == 1) {
        if (rank == 0) return 1;  // scalar
        dims = at + 8;
    } else if (version == 2) {
        const unsigned kind = m[at + 3];
        if (kind == 0) return 1;  // scalar
        if (kind == 2) return 0;  // null
        if (kind != 1) return std::nullopt;
        dims = at + 4;
    } else {
        return std::nullopt;
    }
    if (dims + rank * lengthBytes > at + size) return std::nullopt;
    uint64_t count = 1;
    for (unsigned d = 0; d < rank; ++d) {
        const uint64_t extent = littleEndian(&m[dims + d * lengthBytes], lengthBytes);
        if (extent != 0 && count > limit / extent) return limit + 1;
        count *= extent;
    }
    return count;
}

/// Whether the datatype message of `size` bytes at `p` is of a class gatescope writes, whole:
/// integer, float, string, or a variable-length sequence or string of one of those. HDF5 1.10
/// decodes the member names of compound and enum types with strdup, trusting them to end inside
/// the message; such types are refused before HDF5 sees them. A variable-length string's base
/// type must be one byte: HDF5 converts a stored string into a buffer of its length times that
/// size (a forged base of 240 bytes asked for 64 GB).
inline bool isPlainDatatype(const uint8_t* p, size_t size) {
    if (size < 8) return false;
    switch (p[0] & 0x0F) {
        case 0:  // integer: bit offset and precision follow
            return size >= 12;
        case 1:  // float: bit offset, precision, exponent and mantissa fields, exponent bias
            return size >= 20;
        case 3:  // string
            return true;
        case 9:  // variable-length: its base type follows
            if (size < 16 || (p[8] & 0x0F) == 9) return false;
            if ((p[1] & 0x0F) == 1 && littleEndian(p + 12, 4) != 1) return false;  // a string
            return isPlainDatatype(p + 8, size - 8);
        default:
            return false;
    }
}

}  // namespace gatescope::data::h5
