// Writing a .safetensors file: for sample models, converters and tests. The counterpart of
// SafetensorsFile; never writes anything executable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "core/checkpoint/dtype.h"
#include "data/common/result.h"

namespace gatescope::core {

/// One tensor to write: raw little-endian element bytes, row-major. Not owned: `bytes` must stay
/// valid during writeSafetensors().
struct TensorToWrite {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    std::span<const std::byte> bytes;
};

/// Writes `tensors` (names unique, bytes.size() == numel x dtype size, else a Usage error) and
/// `metadata` to `path`, through a temporary file renamed into place. The header is padded with
/// spaces to a multiple of 8 bytes and tensors are laid out largest element first, so each
/// tensor's data is aligned to its element size in the file. Errors: Usage (bad tensor), Io
/// (create, write, rename; named with the file). Thread-safe for distinct paths.
Status writeSafetensors(const std::filesystem::path& path,
                        const std::vector<TensorToWrite>& tensors,
                        const std::map<std::string, std::string>& metadata = {});

}  // namespace gatescope::core
