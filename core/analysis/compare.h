// Comparing two traces of the same input (FoX vs the Transformer baseline, two checkpoints of one
// run): per-token loss differences by position bin, and per layer and head the divergence of the
// attention rows (KL both ways, Jensen-Shannon, total variation) and the difference of the gates,
// computed exactly from both traces' factors in row blocks (never N x N in memory).
#pragma once

#include <atomic>
#include <vector>

#include "core/analysis/compare_result.h"
#include "data/common/result.h"
#include "data/trace/trace_reader.h"

namespace gatescope::core {

struct CompareOptions {
    std::vector<int> layers;  ///< empty: layers recorded in both
    std::vector<int> heads;   ///< empty: all
    bool attention = true;    ///< O(N^2) per head (bounded memory)
    int64_t binWidth = 256;   ///< linear position bins of the loss delta
    int binsPerOctave = 4;    ///< exponential bins of the loss delta
    int threads = 0;
    const std::atomic<bool>* cancel = nullptr;
};

/// Pairs the positions of two token tables (see TokenAlignment). Pure; thread-safe.
TokenAlignment alignTokens(const data::TokenTable& a, const data::TokenTable& b);

/// The comparison of A against B (compare_result.h): the alignment, the loss delta A - B per
/// aligned position and its bins, and per layer recorded in both the requested heads' gate
/// differences and (with options.attention) attention divergences. Attention divergences need
/// identical tokens; otherwise they are absent and the alignment note says why. Blocking; runs
/// options.threads workers over heads; both readers must stay open for the call. Errors (naming
/// the trace): options out of range (Usage), the readers' (tokens, gates, factors), Cancelled.
Result<TraceComparison> compareTraces(const data::TraceReader& a, const data::TraceReader& b,
                                      const CompareOptions& options = {});

}  // namespace gatescope::core
