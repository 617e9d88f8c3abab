// Whole-file reads for tokenizer, input, config and training files (internal to core/).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "data/common/input_file.h"
#include "data/common/result.h"

namespace gatescope::core {

/// The file's bytes (data::readRegularFile: regular files only, at most `maxBytes`). Error (Io)
/// naming the file when it cannot be opened or read or is not a regular file; Format when larger
/// than `maxBytes`.
Result<std::string> readWholeFile(const std::filesystem::path& path,
                                  uint64_t maxBytes = data::input_limits::kInputFile);

/// Parses a JSON file (data::parseBoundedJson; at most data::input_limits::kTokenizerFile bytes).
/// Errors: Io (missing, unreadable, not a regular file), Format (too large, too deeply nested,
/// not valid JSON).
Result<nlohmann::json> readJsonFile(const std::filesystem::path& path);

}  // namespace gatescope::core
