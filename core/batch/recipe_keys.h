// The one unknown-key check of batch recipes: a key the recipe format does not have is an error
// naming it, at every level (top, trace., analyses., figures., ...), so a misspelt option never
// passes silently.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "data/common/result.h"

namespace gatescope::core {

/// Ok when `j` is an object whose keys are all in `known`; else a Format error naming `file` and
/// the first unknown key as `prefix` + key (prefix: "", "trace.", "figures.", ...), listing the
/// known ones. Not an object: an error naming the prefix without its dot.
Status rejectUnknownKeys(const nlohmann::json& j, std::initializer_list<std::string_view> known,
                         const std::string& prefix, const std::filesystem::path& file);

}  // namespace gatescope::core
