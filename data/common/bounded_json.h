// Parsing JSON read from outside (config.json, safetensors headers, shard indexes, batch recipes,
// tokenizer files, trace attributes) with limits checked before anything is built: nlohmann's
// copies and dumps recurse once per nesting level, so a document nested 1e5 deep overflows the
// stack wherever it is copied later. Every parse of outside JSON goes through here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "data/common/result.h"

namespace gatescope::data {

struct JsonLimits {
    std::size_t maxDepth = 128;                   ///< arrays and objects nested at most this deep
    std::size_t maxBytes = std::size_t{1} << 30;  ///< larger texts are refused unread
};

/// The deepest nesting of arrays/objects in `text` (brackets inside strings do not count), or
/// stops counting once `limit` is exceeded and returns limit + 1. Linear, no allocation.
std::size_t jsonNestingDepth(std::string_view text, std::size_t limit);

/// Parses `text`. Errors (Format, naming `source` and `object` when given): more than
/// limits.maxBytes bytes, nesting deeper than limits.maxDepth (with the depth allowed), invalid
/// JSON (with the parser's byte position). Never throws. Thread-safe.
Result<nlohmann::json> parseBoundedJson(std::string_view text, const std::string& source,
                                        const std::string& object = {},
                                        const JsonLimits& limits = {});

}  // namespace gatescope::data
