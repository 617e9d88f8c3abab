// Parsing and validation of a safetensors JSON header (internal to core/checkpoint).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "core/checkpoint/safetensors_file.h"

namespace gatescope::core {

/// The reference implementation refuses headers above 100 MB; so do we.
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

struct ParsedHeader {
    std::map<std::string, std::string> metadata;
    std::map<std::string, TensorInfo> tensors;
};

/// Parses `header` (the JSON text) and checks every tensor against `data` (the bytes after the
/// header): dtype known, shape and data_offsets well-formed, range inside `data`, size equal to
/// numel x dtype size, no two ranges overlapping. TensorInfo::bytes point into `data`. Errors name
/// `file` and the tensor at fault. Gaps between tensors are tolerated (the reference writer never
/// leaves any, but they cannot make a read wrong).
Result<ParsedHeader> parseSafetensorsHeader(std::string_view header,
                                            std::span<const std::byte> data,
                                            const std::filesystem::path& file);

/// "[2, 3]" for error messages.
std::string formatShape(std::span<const int64_t> shape);

}  // namespace gatescope::core
