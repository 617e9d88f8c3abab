#include "data/common/bounded_json.h"

#include <fmt/format.h>

namespace gatescope::data {

std::size_t jsonNestingDepth(std::string_view text, std::size_t limit) {
    std::size_t depth = 0, deepest = 0;
    bool inString = false, escaped = false;
    for (const char c : text) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > deepest) deepest = depth;
            if (deepest > limit) return limit + 1;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

Result<nlohmann::json> parseBoundedJson(std::string_view text, const std::string& source,
                                        const std::string& object, const JsonLimits& limits) {
    if (text.size() > limits.maxBytes) {
        return Error{ErrorKind::Format,
                     fmt::format("JSON of {} bytes is larger than the {} bytes read", text.size(),
                                 limits.maxBytes),
                     source, object};
    }
    if (jsonNestingDepth(text, limits.maxDepth) > limits.maxDepth) {
        return Error{ErrorKind::Format,
                     fmt::format("JSON nested deeper than {} levels", limits.maxDepth), source,
                     object};
    }
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        return Error{ErrorKind::Format, fmt::format("invalid JSON: {}", e.what()), source, object};
    }
}

}  // namespace gatescope::data
