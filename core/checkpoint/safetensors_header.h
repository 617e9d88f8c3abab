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
/// Dimensions of one tensor (the reference reader has no limit; no real tensor has more than 8).
inline constexpr std::size_t kMaxSafetensorsRank = 64;
/// Nesting of the header JSON: the format needs 3 levels (root, entry, shape); __metadata__ 2.
inline constexpr std::size_t kMaxSafetensorsHeaderDepth = 8;

struct ParsedHeader {
    std::map<std::string, std::string> metadata;
    std::map<std::string, TensorInfo> tensors;
};

/// Parses `header` (the JSON text) and checks every tensor against `data` (the bytes after the
/// header): dtype known, shape and data_offsets well-formed, range inside `data`, size equal to
/// numel x dtype size (numel overflow-checked in 64 bits), at most kMaxSafetensorsRank
/// dimensions, no two ranges overlapping; the JSON nested at most kMaxSafetensorsHeaderDepth
/// deep. TensorInfo::bytes point into `data`. Errors name `file` and the tensor at fault. Gaps
/// between tensors are tolerated (the reference writer never leaves any, but they cannot make a
/// read wrong).
Result<ParsedHeader> parseSafetensorsHeader(std::string_view header,
                                            std::span<const std::byte> data,
                                            const std::filesystem::path& file);

/// Splits a whole safetensors file held in memory (`bytes`, e.g. a mapping) into the 8-byte
/// little-endian header length, the header and the data, and parses the header against the data
/// (parseSafetensorsHeader). Errors (Format, naming `file`): fewer than 8 bytes, a header length
/// beyond the file or above kMaxSafetensorsHeaderBytes, and every parseSafetensorsHeader error.
/// Pure function of its inputs; thread-safe.
Result<ParsedHeader> parseSafetensorsBytes(std::span<const std::byte> bytes,
                                           const std::filesystem::path& file);

/// "[2, 3]" for error messages.
std::string formatShape(std::span<const int64_t> shape);

}  // namespace gatescope::core
