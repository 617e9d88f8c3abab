// NumPy .npy files of integer token ids, parsed without Python and without unpickling anything.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "data/common/result.h"

namespace gatescope::core {

/// Parses the bytes of a .npy file (format versions 1, 2 and 3): a little-endian (or 1-byte)
/// signed or unsigned integer array of shape (N,) or (1, N), C or Fortran order (equal for these
/// shapes). Refuses object arrays ('|O', which np.save pickles), structured dtypes, big-endian
/// data, floats, other shapes, and a data size that disagrees with the shape. Errors name `file`.
/// Pure function; thread-safe.
Result<std::vector<int64_t>> parseNpyIds(std::string_view bytes, const std::filesystem::path& file);

}  // namespace gatescope::core
