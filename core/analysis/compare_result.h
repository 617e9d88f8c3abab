// What core::compareTraces finds, as values: how the positions of two traces were aligned, the
// per-token loss difference A - B and its position bins, and per layer and head the difference
// of the gates and the divergence of the attention rows. toJson() is the `gatescope compare
// --json` document (and the demo's compare.json); callers in the CLI and the viewer read the
// fields. Plain value types: copyable, thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace gatescope::core {

/// How positions of A map onto B: identical token ids (every position), or, when the
/// tokenizations differ but both traces keep their source text, positions whose tokens end at the
/// same byte of the same text.
struct TokenAlignment {
    bool identical = false;
    std::vector<std::pair<int64_t, int64_t>> pairs;  ///< (position in A, position in B)
    std::string note;                                ///< how it was aligned, or why it could not be
};

/// Positions [begin, end) of A pooled: the loss difference A - B over the aligned ones.
struct LossGapBin {
    int64_t begin = 0, end = 0;
    double center = 0;  ///< label: arithmetic (linear bins) or geometric (exponential) centre
    /// Mean of A - B in nats per aligned position; absent when the bin holds none (JSON null).
    std::optional<double> meanDelta;
    int64_t count = 0;  ///< aligned positions in the bin
    /// The bin's sum of A - B over the total of all bins; absent when the total is 0 (JSON null).
    std::optional<double> shareOfGap;
};

/// The per-token loss of A minus that of B over the aligned positions, in nats.
struct LossDelta {
    /// Per position of A: loss A - loss B of the same text (B's tokens summed when the
    /// tokenizations differ), recorded at the last position of A's segment; NaN elsewhere (not
    /// aligned, or a loss without target).
    std::vector<double> delta;
    double meanDelta = 0;        ///< mean over the `positions` deltas; NaN when there are none
    double totalDelta = 0;       ///< their sum (0 when there are none)
    int64_t positions = 0;       ///< positions of A that carry a delta
    double aBetterFraction = 0;  ///< share of those where A's loss is lower; NaN when none
    std::vector<LossGapBin> linearBins;       ///< CompareOptions::binWidth positions each
    std::vector<LossGapBin> exponentialBins;  ///< CompareOptions::binsPerOctave per octave
};

/// Mean over tokens and channels of one head's gates, A against B (both layers gated, same shape).
struct GateDifference {
    double absDiff = 0;        ///< mean |g_A - g_B| of the log retentions (nats)
    double retentionDiff = 0;  ///< mean exp(g_A) - exp(g_B) (retention, unitless)
};

/// One head's attention rows of A against B, each a mean over the N rows (nats where logs).
struct AttentionDivergence {
    double klAB = 0;            ///< KL(A || B), B's probabilities floored at 1e-12
    double klBA = 0;            ///< KL(B || A), A's probabilities floored at 1e-12
    double js = 0;              ///< Jensen-Shannon divergence
    double totalVariation = 0;  ///< half the L1 distance
};

struct HeadComparison {
    int head = 0;
    std::optional<GateDifference> gates;  ///< absent unless both layers have gates of one shape
    /// Absent when attention was not asked for or the token ids differ.
    std::optional<AttentionDivergence> attention;
};

struct LayerComparison {
    int layer = 0;
    std::vector<HeadComparison> heads;  ///< in the order CompareOptions::heads gave (or 0..H-1)
};

struct TraceComparison {
    std::string a, b;  ///< the traces' paths
    TokenAlignment alignment;
    std::optional<LossDelta> loss;        ///< absent when either trace lacks per-token results
    std::vector<LayerComparison> layers;  ///< layers recorded in both (and asked for), A's order

    /// {"a", "b", "alignment": {identical, note, aligned_positions}, "loss" (when present):
    /// {delta, mean_delta, total_delta, positions, a_better_fraction, linear_bins,
    /// exponential_bins: [{begin, end, center, mean_delta, count, share_of_gap}]}, "layers":
    /// [{layer, heads: [{head, gate_abs_diff, retention_diff, kl_ab, kl_ba, js,
    /// total_variation}]}]}: absent optionals are null inside bins and left out in heads; NaN
    /// numbers are written as null.
    nlohmann::json toJson() const;
};

}  // namespace gatescope::core
