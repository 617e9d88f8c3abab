// The `figures` of a batch recipe, parsed and checked when the recipe is read: a bad kind, range,
// map, format or index is an error before any run is traced, never after the whole batch ran.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/cpu/tile_source.h"

#include "data/common/result.h"

namespace gatescope::core {

/// One figure rendered for every finished run (by the app, in builds with Qt).
struct BatchFigure {
    std::string kind;  ///< map, grid, retention or loss
    int layer = 0;     ///< checked against each run's model when it is drawn
    int head = 0;
    kernels::MapKind map = kernels::MapKind::Attention;  ///< Attention or Decay
    int64_t begin = 0;           ///< token range; clamped to each run's length
    std::optional<int64_t> end;  ///< exclusive; none: to the end of the run
    std::string format = "svg";  ///< svg, png or pdf
    int dpi = 150;
    nlohmann::json source;  ///< the recipe's object, for messages
};

/// The figure kinds a batch renders (`compare` needs two traces and is the CLI's alone).
inline constexpr const char* kBatchFigureKinds[] = {"map", "grid", "retention", "loss"};

/// Parses the recipe's `figures` list. Errors are Format errors naming `file` and the key
/// (`figures.range`, ...) with what was expected.
Result<std::vector<BatchFigure>> parseRecipeFigures(const nlohmann::json& figures,
                                                    const std::filesystem::path& file);

}  // namespace gatescope::core
