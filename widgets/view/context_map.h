// The Effective Context dock's data, display-free: from a `stats` report of one trace, one row
// per (layer, head) and one column per position bin of the head's horizon in tokens, the gate's
// memory horizon and (when attention statistics ran) the attention horizon, beside the trace's
// own loss per bin (core/analysis/effective_context.h). Colours use log2(1 + horizon) on one
// scale for both, as the context figure does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/analysis/stats_result.h"

namespace gatescope::widgets {

enum class HorizonKind { Gate, Attention };

struct ContextMap {
    std::vector<std::pair<int, int>> heads;  ///< (layer, head) of each row
    int64_t bins = 0, binWidth = 0, nTokens = 0;
    bool hasGate = false, hasAttention = false;
    std::vector<double> gate, attention;  ///< rows x bins, tokens; NaN where none
    std::vector<double> loss;             ///< per bin, nats; NaN where no target

    double horizon(HorizonKind kind, size_t row, size_t bin) const {
        const auto& v = kind == HorizonKind::Gate ? gate : attention;
        return v[row * static_cast<size_t>(bins) + bin];
    }
    /// The colour scale's upper end: log2(1 + nTokens).
    double scaleTop() const;
};

/// The map of report.traces[0] (empty rows when it has no trace or no head has a horizon).
ContextMap contextMap(const core::StatsReport& report);

}  // namespace gatescope::widgets
