#include "widgets/view/token_reads.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/maps/key_column.h"
#include "core/maps/query_row.h"

namespace gatescope::widgets {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Fills `out.top` from the strongest positions and their weights, with the split's parts at
/// index position - first when there is one.
void listTop(TokenReads& out, const std::vector<int64_t>& positions,
             const std::vector<float>& weights, const std::vector<double>& content,
             const std::vector<double>& forget) {
    out.split = !content.empty();
    for (size_t r = 0; r < positions.size(); ++r) {
        const size_t at = static_cast<size_t>(positions[r] - out.first);
        out.top.push_back({positions[r], weights[r], out.split ? content[at] : kNaN,
                           out.split ? forget[at] : kNaN});
    }
}

}  // namespace

const char* readsModeName(ReadsMode mode) {
    return mode == ReadsMode::Row ? "row" : "column";
}

float TokenReads::weightAt(int64_t pos) const {
    if (pos < first || pos >= first + static_cast<int64_t>(weights.size())) return -1;
    return weights[static_cast<size_t>(pos - first)];
}

Result<TokenReads> computeTokenReads(const core::TraceHead& head, ReadsMode mode, int64_t position,
                                     int topK, const std::atomic<bool>& cancelled) {
    TokenReads out;
    out.mode = mode;
    out.layer = head.layer;
    out.head = head.head;
    out.position = position;
    if (mode == ReadsMode::Row) {
        auto row = core::queryRow(head, position, topK);
        if (!row) return row.error();
        out.first = 0;
        out.weights = std::move(row->attention);
        listTop(out, row->topKeys, row->topWeights, row->content, row->forget);
    } else {
        auto col = core::keyColumn(head, position, topK, &cancelled);
        if (!col) return col.error();
        out.first = position;
        out.weights = std::move(col->attention);
        listTop(out, col->topQueries, col->topWeights, col->content, col->forget);
    }
    for (float w : out.weights)
        if (std::isfinite(w)) out.maxWeight = std::max(out.maxWeight, w);
    return out;
}

float readsHeat(float weight, float maxWeight) {
    if (!(weight > 0) || !(maxWeight > 0)) return 0;
    return std::sqrt(std::min(1.f, weight / maxWeight));
}

uint32_t readsColor(float heat) {
    const float h = std::clamp(heat, 0.f, 1.f);
    const auto mix = [h](int lo, int hi) {
        return static_cast<uint32_t>(std::lround(lo + (hi - lo) * h));
    };
    // From the text panel's background (40, 40, 48) to orange (250, 140, 20).
    return 0xFF000000u | (mix(40, 250) << 16) | (mix(40, 140) << 8) | mix(48, 20);
}

}  // namespace gatescope::widgets
