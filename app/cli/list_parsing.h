// Parsing of the CLI's small list syntaxes: "0,2,5-7" and "100:2000".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/common/result.h"

namespace gatescope::app {

/// "0,2,5-7" -> {0, 2, 5, 6, 7}. Empty string -> {}. Usage error on anything else.
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
/// "A:B", "A:", ":B" (B exclusive). Usage error on anything else or B <= A.
Result<TokenRange> parseRange(const std::string& text, const std::string& option);

}  // namespace gatescope::app
