// Statistics of a layer's gates (log retention g <= 0 per head, token and channel; scalar gates
// have one channel): the distribution of retention exp(g), the timescale -1 / mean(g), the
// effective memory horizon, and the Wall post's split of channels into always-on and dynamic ones.
#pragma once

#include <string>
#include <vector>

#include "core/analysis/position_profile.h"
#include "data/trace/trace_types.h"

namespace gatescope::core {

struct GateStatsOptions {
    /// Memory horizon: tokens until the cumulative retention from a position falls below this.
    double horizonThreshold = 0.5;
    /// Always-on: retention stays at or above this for 95% of tokens (the 5th percentile).
    double alwaysOnRetention = 0.99;
    /// Dynamic: the 5th-95th percentile spread of retention is at least this.
    double dynamicSpread = 0.2;
    int64_t binWidth = 256;  ///< positions per bin of the per-head horizon profiles
};

/// One channel (or the scalar gate) of one head.
struct ChannelGateStats {
    int head = 0, channel = 0;
    double meanRetention = 0;
    double p05 = 0, p25 = 0, median = 0, p75 = 0, p95 = 0;  ///< quantiles of exp(g)
    double timescale = 0;  ///< -1 / mean(g) in tokens (inf for an always-open gate)
    /// Median over start positions of the tokens until the cumulative retention drops below the
    /// threshold, over the starts where it does; NaN when it never does within the sequence.
    double horizonMedian = 0;
    double horizonReachedFraction = 0;  ///< fraction of start positions where it does
    std::string kind;                   ///< "always_on", "dynamic" or "static"
};

struct LayerGateStats {
    int layer = 0;
    std::vector<ChannelGateStats> channels;  ///< head-major, then channel
    double timescaleMin = 0, timescaleMedian = 0, timescaleMax = 0;
    int alwaysOn = 0, dynamic = 0, staticChannels = 0;
    /// Per head: the gate's memory horizon seen from each query (gate_horizon.h) at
    /// horizonThreshold, longest over the head's channels.
    std::vector<PositionProfile> headHorizons;
};

/// `gates` is [H, N, C] as TraceReader::gates returns it. Memory O(N) besides the input.
LayerGateStats gateStats(int layer, const data::Array& gates, const GateStatsOptions& options = {});

}  // namespace gatescope::core
