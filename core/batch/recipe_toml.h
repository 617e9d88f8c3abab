// Private to core/batch: TOML recipes, read into the same JSON value a JSON recipe parses to, so
// one validator serves both. toml++ (libtomlplusplus-dev) where the build found it.
#pragma once

#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

#include "data/common/result.h"

namespace gatescope::core {

/// Parses TOML text (read from `file`, named in errors) into JSON (tables -> objects, arrays ->
/// arrays, strings, integers, floats, booleans as such). The text is first bounded by
/// checkTomlNesting (toml_prescan.h), the JSON by data::parseBoundedJson. Errors: Format naming
/// the line (and column) of a syntax error or of a key nested too deeply, Unsupported when this
/// build has no TOML parser. Never throws; thread-safe.
Result<nlohmann::json> parseTomlAsJson(std::string_view text, const std::filesystem::path& file);

}  // namespace gatescope::core
