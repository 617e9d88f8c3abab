// Whole-file reads for tokenizer, input, config and training files (internal to core/).
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "data/common/result.h"

namespace gatescope::core {

/// The file's bytes. Error (Io) naming the file when it cannot be opened or read.
Result<std::string> readWholeFile(const std::filesystem::path& path);

/// Parses a JSON file. Errors: Io (missing, unreadable), Format ("not valid JSON near byte N").
Result<nlohmann::json> readJsonFile(const std::filesystem::path& path);

}  // namespace gatescope::core
