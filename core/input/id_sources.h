// Token ids from files: whitespace-separated text, .npy, safetensors (internal to core/input).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/input/input.h"

namespace gatescope::core {

/// Reads the raw ids of `spec.path` as `kind` (Ids, Npy or Safetensors). Range and vocabulary
/// checks are the caller's. Errors name the file.
Result<std::vector<int64_t>> readIdSource(const InputSpec& spec, InputKind kind);

/// Parses whitespace-separated decimal integers; an error names the line and column (1-based) of
/// the first word that is not an integer.
Result<std::vector<int64_t>> parseIdText(std::string_view text, const std::filesystem::path& file);

}  // namespace gatescope::core
