// The gate's memory horizon seen from each query: how far back the forget gates keep a key's
// weight above a retention threshold. For query i and key j <= i the decay is
// D(i, j) = exp(sum_{t = j+1..i} g_t) (g the stored log retention, FoX's exp(c_i - c_j)); the
// horizon at i is the largest distance i - j with D(i, j) >= retention. A head with per-channel
// gates (Wall, GSA) takes the longest horizon over its channels. It is capped by the prefix: i
// when the gate never drops that far within tokens 0..i.
#pragma once

#include <vector>

#include "core/analysis/position_profile.h"
#include "data/trace/trace_types.h"

namespace gatescope::core {

/// Horizons of every position of head `head` of `gates` ([H, N, C] log retention, as
/// TraceReader::gates returns it), in tokens. `retention` in (0, 1). O(N C) time, O(N) memory.
std::vector<double> gateHorizons(const data::Array& gates, int64_t head, double retention);

/// One profile per head of `gates`: gateHorizons reduced by profileOf.
std::vector<PositionProfile> gateHorizonProfiles(const data::Array& gates, double retention,
                                                 int64_t binWidth);

}  // namespace gatescope::core
