// NeedleGrid: `gatescope niah`'s grid.json as the viewer shows it (lengths x depths of cells with
// the matched answer prefix, the needle's token range and the cell's trace), the cell colour
// (fraction of the answer produced, on heatmap.svg's red-yellow-green ramp) and where to look
// in a cell's trace (rows from the answer start, columns around the needle). Display-free.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "data/common/result.h"

namespace gatescope::widgets {

struct NeedleGridCell {
    int64_t length = 0;
    int depth = 0;
    bool exactMatch = false;
    int matchedPrefix = 0;
    int answerTokens = 0;
    double answerLoss = 0;
    int64_t needleBegin = 0, needleEnd = 0;  ///< token range [begin, end) of the needle
    std::filesystem::path trace;             ///< absolute (resolved against the grid's folder)

    /// matched_prefix / answer_tokens in [0, 1] (0 when the answer is empty).
    double fraction() const;
    /// First token of the answer: the prompt is length - answer_tokens tokens long.
    int64_t answerStart() const { return length - answerTokens; }
};

struct NeedleGrid {
    std::filesystem::path file;  ///< the grid.json
    std::string model;
    std::vector<int64_t> lengths;  ///< columns
    std::vector<int> depths;       ///< rows
    std::vector<NeedleGridCell> cells;

    /// The cell of column `lengthIndex` and row `depthIndex`, or null when the grid lacks it.
    const NeedleGridCell* cell(size_t lengthIndex, size_t depthIndex) const;
};

/// Parses grid.json text; trace paths are resolved against `file`'s folder. Errors: Format (not
/// JSON, a field of the wrong type), Missing (no cells/lengths/depths).
Result<NeedleGrid> parseNeedleGrid(const std::string& json, const std::filesystem::path& file);
/// Reads and parses `file` (Io when it cannot be read).
Result<NeedleGrid> loadNeedleGrid(const std::filesystem::path& file);

/// RGBA (packRgba layout) of a fraction in [0, 1]: red at 0, yellow at 0.5, green at 1.
uint32_t needleColor(double fraction);

/// Where to look in a cell's trace of `n` tokens: query rows from the answer start to the end,
/// key columns around the needle with `marginTokens` each side, all clamped to [0, n).
struct NeedleFocus {
    int64_t cursor = 0;  ///< the needle's first token
    int64_t rowBegin = 0, rowEnd = 0;
    int64_t colBegin = 0, colEnd = 0;
};
NeedleFocus needleFocus(const NeedleGridCell& cell, int64_t n, int64_t marginTokens = 16);

}  // namespace gatescope::widgets
