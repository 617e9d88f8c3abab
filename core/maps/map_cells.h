// A map of one head over a token range at the resolution a picture needs: exact values recomputed
// from the stored factors (core/maps/trace_head.h) for ranges up to kExactLimit tokens, max-pooled
// pyramid tiles beyond, both through map_view.h (which the viewer's screen tiles take tile by
// tile). The figures (widgets/figures) and anything else that wants a whole range at once take
// their cells here. Thread-safe for distinct calls (the reader is).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/maps/map_view.h"
#include "data/common/result.h"
#include "data/trace/trace_reader.h"

namespace gatescope::core {

/// Ranges up to this many tokens are computed exactly; longer ones read pyramid tiles.
inline constexpr int64_t kExactLimit = 4096;

/// Queries [queryBegin, queryEnd) x keys [keyBegin, keyEnd) of a map: what a figure shows, the
/// viewer's screen as it is (a rectangle anywhere on the map) or a square on the diagonal.
struct TokenRegion {
    int64_t queryBegin = 0, queryEnd = 0;
    int64_t keyBegin = 0, keyEnd = 0;

    /// [begin, end) x [begin, end): a stretch of text against itself.
    static TokenRegion square(int64_t begin, int64_t end) { return {begin, end, begin, end}; }
    int64_t queries() const { return queryEnd - queryBegin; }
    int64_t keys() const { return keyEnd - keyBegin; }
    bool operator==(const TokenRegion&) const = default;
};

/// rows x cols values, row-major; cell (r, c) covers `step` queries from
/// region.queryBegin + r * step and `step` keys from region.keyBegin + c * step (the last row and
/// column may cover fewer). Cells no value reached (the masked future of an exact region) are
/// NaN; pyramid cells above the diagonal are 0, as the maps are there.
struct Cells {
    int64_t rows = 0, cols = 0;
    TokenRegion region;
    int64_t step = 1;
    std::vector<float> values;
    std::string source;  ///< "exact" or "pyramid level L (max)"

    float at(int64_t r, int64_t c) const { return values[static_cast<size_t>(r * cols + c)]; }
};

/// `view` of (layer, head) over `region`, max-pooled to at most `maxCells` along its longer
/// side (square cells). Regions whose sides are both at most kExactLimit are exact: each cell is
/// the maximum of its step x step block. Larger ones read the finest stored pyramid level whose
/// cells (2^L tokens) are at least a figure cell, else the coarsest; a figure cell then holds the
/// pyramid cells whose first token falls in it, so its edges are rounded up to multiples of 2^L
/// (and a step finer than the level's cells becomes 2^L). Errors: an empty region or one past
/// the trace's tokens (Usage), the head's factors cannot be read or hold no decay map a view needs
/// (exact), or the layer stores no pyramid of the view's map(s) at the same levels and the region
/// is larger than kExactLimit; all name the trace.
Result<Cells> loadMapCells(const data::TraceReader& reader, int layer, int head, MapView view,
                           const TokenRegion& region, int maxCells);

}  // namespace gatescope::core
