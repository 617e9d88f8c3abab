// Reading strings from files from outside. The stored string type is inspected and bounded
// before anything is read, with a memory type gatescope builds (never the file's own type):
// fixed-length values land in a buffer gatescope owns, variable-length values are handed back to
// HDF5's allocator with H5Dvlen_reclaim. Used by the attribute and string-dataset readers.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "data/h5/space.h"

namespace gatescope::data::h5 {

/// Bounds on what one string read may cost.
inline constexpr size_t kMaxAttributeStringBytes = size_t{1} << 20;  ///< one string attribute
inline constexpr size_t kMaxStringBytes = size_t{256} << 20;         ///< one string value
inline constexpr size_t kMaxStringArrayBytes = size_t{1} << 30;      ///< all values of one read

/// A stored string datatype, as inspected.
struct StringType {
    bool variable = false;  ///< variable-length (h5py's str, gatescope's own)
    size_t width = 0;       ///< bytes per value of a fixed-length string
    H5T_cset_t cset = H5T_CSET_ASCII;
    H5T_str_t pad = H5T_STR_NULLTERM;
};

/// Inspects the file datatype `type`. Errors: Shape when it is not a string; Format when its
/// character set or padding is not one HDF5 defines, or a fixed width is 0 or above `maxWidth`.
/// The caller holds the library lock.
Result<StringType> inspectStringType(const Type& type, size_t maxWidth, const Location& where);

/// Reads `count` (>= 1) strings stored as `stored`. `read(memType, buffer)` performs the
/// H5Aread/H5Dread of exactly `count` values into `buffer` with `memType` and returns its status.
/// Fixed-length values are cut at their first NUL (and, for space-padded strings, trailing
/// spaces). Errors (at `where`): Format when the read fails or a value is longer than
/// kMaxStringBytes, or all values together are over `maxTotal` bytes (checked before reading for
/// fixed-length values, after HDF5 allocated them for variable-length ones). The caller holds the
/// library lock.
Result<std::vector<std::string>> readStringValues(const StringType& stored, size_t count,
                                                  size_t maxTotal,
                                                  const std::function<herr_t(hid_t, void*)>& read,
                                                  const Location& where);

}  // namespace gatescope::data::h5
