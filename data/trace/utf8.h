// UTF-8 checks for strings stored as HDF5 UTF-8 (h5py decodes them strictly).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gatescope::data {

/// Byte offset of the first invalid UTF-8 sequence or NUL byte, or npos when `text` is clean.
size_t firstInvalidUtf8(std::string_view text);
/// `text` with every invalid sequence and NUL byte replaced by U+FFFD.
std::string sanitizeUtf8(std::string_view text);

}  // namespace gatescope::data
