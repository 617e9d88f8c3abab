// Effective context: for every (layer, head) of a trace, the attention horizon (the distance that
// holds a chosen share of each query's attention mass, attention_stats.h) and the gate's memory
// horizon (gate_horizon.h), as position profiles on the loss curves' linear bins, beside the
// trace's own loss on the same bins. Joined from a TraceStats; shared by the JSON and CSV writers
// and the figure.
#pragma once

#include <optional>
#include <vector>

#include "core/analysis/stats_result.h"

namespace gatescope::core {

struct HeadContext {
    int layer = 0, head = 0;
    const PositionProfile* attention = nullptr;  ///< absent without attention statistics
    const PositionProfile* gate = nullptr;       ///< absent for heads without gates
};

/// Every (layer, head) with an attention or a gate horizon, layers in the trace's order, heads
/// ascending. The pointers point into `trace`, which must outlive the result.
std::vector<HeadContext> effectiveContext(const TraceStats& trace);

}  // namespace gatescope::core
