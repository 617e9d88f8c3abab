// Parsing of the small list syntaxes of the CLI and of batch recipes: "0,2,5-7" and "100:2000".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/common/result.h"

namespace gatescope::core {

/// The largest layer or head index a list may name (no model has more layers or heads); the
/// model's own range is checked once it is loaded.
inline constexpr int64_t kMaxListIndex = 65535;

/// "0,2,5-7" -> {0, 2, 5, 6, 7}. Empty string -> {}. Usage error on anything else, on an index
/// above kMaxListIndex and on more than kMaxListIndex + 1 indices (checked before expanding).
Result<std::vector<int>> parseIndexList(const std::string& text, const std::string& option);

/// The --layers and --heads lists of trace, stats and compare (empty: all).
struct LayerHeadLists {
    std::vector<int> layers, heads;
};
Result<LayerHeadLists> parseLayersAndHeads(const std::string& layers, const std::string& heads);

struct TokenRange {
    int64_t begin = 0;
    std::optional<int64_t> end;
};
/// "A:B", "A:", ":B" (B exclusive). Usage error on anything else, on B <= A, and on a number that
/// does not fit in 64 bits (never wraps).
Result<TokenRange> parseRange(const std::string& text, const std::string& option);

}  // namespace gatescope::core
