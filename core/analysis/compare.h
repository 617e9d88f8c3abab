// Comparing two traces of the same input (FoX vs the Transformer baseline, two checkpoints of one
// run): per-token loss differences by position bin, and per layer and head the divergence of the
// attention rows (KL both ways, Jensen-Shannon, total variation) and the difference of the gates,
// computed exactly from both traces' factors in row blocks (never N x N in memory).
#pragma once

#include <atomic>
#include <vector>

#include <nlohmann/json.hpp>

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

/// How positions of A map onto B: identical token ids (every position), or, when the
/// tokenizations differ but both traces keep their source text, positions whose tokens end at the
/// same byte of the same text.
struct TokenAlignment {
    bool identical = false;
    std::vector<std::pair<int64_t, int64_t>> pairs;  ///< (position in A, position in B)
    std::string note;                                ///< how it was aligned, or why it could not be
};

TokenAlignment alignTokens(const data::TokenTable& a, const data::TokenTable& b);

/// The comparison as JSON: "alignment", "loss" (delta A - B per aligned position, binned, with
/// each bin's share of the total gap), "layers" [{layer, heads: [{head, kl_ab, kl_ba, js,
/// total_variation, gate_abs_diff, retention_diff}]}]. Attention divergences need identical
/// tokens; otherwise they are omitted and the alignment note says why. Errors name the trace.
Result<nlohmann::json> compareTraces(const data::TraceReader& a, const data::TraceReader& b,
                                     const CompareOptions& options = {});

}  // namespace gatescope::core
