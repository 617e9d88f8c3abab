// Retention data of one layer for the retention panel: for scalar gates (FoX, GatedFWA, power)
// the retention exp(log f) of every head over positions; for per-channel gates (Wall, GSA) one
// head's channels x positions, from which timelines and the cumulative product are derived.
// Display-free; loading blocks (call on a worker), the result is immutable.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "data/trace/trace_reader.h"

namespace gatescope::widgets {

struct RetentionData {
    int layer = 0;
    int head = 0;      ///< the head of `logRetention`
    int heads = 0;     ///< H
    int channels = 1;  ///< C
    int64_t n = 0;
    /// [N, C] row-major: log retention of `head` (natural log).
    std::vector<float> logRetention;
    /// Scalar gates only (C == 1): exp(log retention) of every head, [H][N].
    std::vector<std::vector<float>> headRetention;

    bool perChannel() const { return channels > 1; }
    float logAt(int64_t position, int channel) const {
        return logRetention[static_cast<size_t>(position * channels + channel)];
    }
};

/// The Missing error for a layer without gates, in the reader's words rather than the file's:
/// "this model has no forget gates (...)" when no layer has any (a softmax Transformer), else
/// "layer N has no forget gates". No path or dataset name: nothing is wrong with the file.
Error noGatesError(const data::TraceSummary& summary, int layer);

/// Reads the gates of (layer, head) (all heads when gates are scalar). Errors: noGatesError
/// when the layer has no gates, the reader's errors.
Result<std::shared_ptr<const RetentionData>> loadRetention(const data::TraceReader& reader,
                                                           int layer, int head);

/// Channel `channel`'s retention over positions as written at `from`: out[i] =
/// prod_{t = from + 1}^{i} exp(log retention[t]) for i >= from (1 at i = from), NaN before.
/// This is how much of token `from`'s contribution survives at position i.
std::vector<float> cumulativeRetention(const RetentionData& data, int channel, int64_t from);

/// One channel's retention exp(log) over all positions.
std::vector<float> channelRetention(const RetentionData& data, int channel);

}  // namespace gatescope::widgets
