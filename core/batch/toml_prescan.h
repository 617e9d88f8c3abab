// Private to core/batch: a linear scan of TOML text that bounds its nesting before toml++ sees it.
// toml++ limits nested arrays and inline tables (TOML_MAX_NESTED_VALUES) but not dotted keys or
// table headers: `a.b.c... = 1` with 1e5 parts builds 1e5 nested tables and overflows the stack
// (in the parser, the formatter or the destructor). No recipe needs more than a few levels.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "data/common/result.h"

namespace gatescope::core {

struct TomlLimits {
    std::size_t maxKeyParts = 32;  ///< parts of one dotted key or table header
    std::size_t maxDepth = 64;     ///< tables, inline tables and arrays nested, all together
};

/// Scans `text` (strings, multi-line strings and comments are skipped as TOML defines them)
/// and returns a Format error naming `file` and the line when a dotted key or table header has
/// more than limits.maxKeyParts parts, or when a value sits deeper than limits.maxDepth levels
/// (header parts + key parts + enclosing arrays and inline tables). Syntax errors are left to
/// the parser: text that is not TOML passes unless it breaks a limit. O(size), no allocation
/// beyond a stack of the open brackets (at most maxDepth). Thread-safe.
Status checkTomlNesting(std::string_view text, const std::string& file,
                        const TomlLimits& limits = {});

}  // namespace gatescope::core
