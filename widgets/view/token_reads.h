// TokenReads: what the cursor's token reads (its exact attention row over the keys before it)
// or who reads it (its exact column over the queries after it), for the Reads dock: a weight per
// token to paint over the text, the strongest tokens with their weights and, for gated heads,
// each score's content part (scale q.k) and forgetting part (the gate/decay penalty). Computed
// on a worker from the head's stored factors (core::queryRow, core::keyColumn); display-free.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/maps/trace_head.h"
#include "data/common/result.h"

namespace gatescope::widgets {

enum class ReadsMode {
    Row,     ///< what the token at `position` reads: A[position, j] for keys j <= position
    Column,  ///< who reads it: A[i, position] for queries i >= position
};

const char* readsModeName(ReadsMode mode);  ///< "row" or "column"

/// One listed token: its position, its weight and (NaN without a split) the logit's parts.
struct ReadsEntry {
    int64_t position = 0;
    float weight = 0;
    double content = 0;
    double forget = 0;
};

struct TokenReads {
    ReadsMode mode = ReadsMode::Row;
    int layer = 0, head = 0;
    int64_t position = 0;
    /// Weights of positions [first, first + weights.size()): keys 0..position for a row,
    /// queries position..N-1 for a column.
    int64_t first = 0;
    std::vector<float> weights;
    float maxWeight = 0;          ///< the largest weight (0 when none)
    bool split = false;           ///< content and forget are set
    std::vector<ReadsEntry> top;  ///< strongest first

    /// The weight of token `pos`, or a negative value where `pos` is not in the row/column.
    float weightAt(int64_t pos) const;
};

/// The reads of `position` in `head` (layer and head numbers taken from it), with its `topK`
/// strongest tokens. O(N x head dim); a column polls `cancelled` between blocks. Errors: those
/// of core::queryRow / core::keyColumn.
Result<TokenReads> computeTokenReads(const core::TraceHead& head, ReadsMode mode, int64_t position,
                                     int topK, const std::atomic<bool>& cancelled);

/// How strongly to paint a token of weight `weight` when the strongest is `maxWeight`: 0 (not
/// painted) to 1, the square root of the ratio so that weak but visible reads still show (the
/// gamma of 0.5 the map starts with). 0 for negative weights (not in the row/column) or an
/// empty row.
float readsHeat(float weight, float maxWeight);

/// The background for heat `h` as 0xAARRGGBB: the text panel's dark background (h = 0) to a
/// saturated orange (h = 1), linear per channel.
uint32_t readsColor(float heat);

}  // namespace gatescope::widgets
