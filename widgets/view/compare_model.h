// Compare mode's numbers, display-free (blocking: call on a worker, e.g. through a JobScope):
// the summary of two traces from core::compareTraces (alignment, per-token loss delta A - B and
// its position bins, per-head gate differences), the per-position retention difference of one
// head, and the exact per-row attention divergences of the rows on screen. Nothing N x N is
// held: rows are computed one at a time from the heads' O(N) factors.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/compare_result.h"
#include "data/trace/trace_reader.h"
#include "widgets/view/compare_tiles.h"

namespace gatescope::widgets {

/// What compare mode shows of core::compareTraces: its alignment and loss delta as core gives
/// them, the traces' lengths, and the delta as floats for the loss strip.
struct CompareSummary {
    core::TokenAlignment alignment;
    int64_t nA = 0, nB = 0;  ///< tokens of A and B
    /// Absent when a trace has no per-token loss.
    std::optional<core::LossDelta> loss;
    /// loss->delta as float (NaN where not aligned); empty without a loss.
    std::vector<float> lossStrip;

    bool identical() const { return alignment.identical; }
    int64_t aligned() const { return static_cast<int64_t>(alignment.pairs.size()); }
};

/// core::compareTraces(a, b) without the O(N^2) attention part, as a CompareSummary. Errors:
/// the readers' (tokens, per-token results), naming the trace.
Result<CompareSummary> summarizeComparison(const data::TraceReader& a, const data::TraceReader& b,
                                           int binsPerOctave = 2);

/// Per position, the retention of (layer, head) in A minus B (exp of the log gates; the mean
/// over channels for per-channel gates). Errors: Missing when either layer has no gates or the
/// shapes differ, the readers' errors.
Result<std::vector<float>> retentionDifference(const data::TraceReader& a,
                                               const data::TraceReader& b, int layer, int head);

/// The position map of aligned (A, B) pairs (increasing in both, as core::alignTokens gives):
/// for a position of A (`fromA`) or of B, the other side of the last pair at or before it; -1
/// before the first pair. The map owns its copy of the pairs.
std::function<int64_t(int64_t)> alignedPosition(std::vector<std::pair<int64_t, int64_t>> pairs,
                                                bool fromA);

/// At most `maxRows` rows spread evenly over [begin, end) (every row when there are fewer).
std::vector<int64_t> sampleRows(int64_t begin, int64_t end, int maxRows);

/// KL(A||B) and JS of the attention rows `rows` of (layer, head), exact from both traces'
/// factors (O(row * head_dim) per row). Both traces must hold the same tokens. Errors: Missing
/// (factors), the recompute's; Cancelled when `cancel` is set.
Result<std::vector<RowDivergence>> rowDivergences(const data::TraceReader& a,
                                                  const data::TraceReader& b, int layer, int head,
                                                  const std::vector<int64_t>& rows,
                                                  const std::atomic<bool>& cancel);

}  // namespace gatescope::widgets
