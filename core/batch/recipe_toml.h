// Private to core/batch: TOML recipes, read into the same JSON value a JSON recipe parses to, so
// one validator serves both. toml++ (libtomlplusplus-dev) where the build found it.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "data/common/result.h"

namespace gatescope::core {

/// Parses a TOML file into JSON (tables -> objects, arrays -> arrays, strings, integers, floats,
/// booleans as such). Errors: Io (cannot open), Format naming the line and column of a syntax
/// error, Unsupported when this build has no TOML parser.
Result<nlohmann::json> readTomlAsJson(const std::filesystem::path& file);

}  // namespace gatescope::core
