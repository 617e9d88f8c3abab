// Layer statistics for the Statistics dock, display-free: a result slot filled on a worker thread
// (gate statistics of a layer, or the exact attention statistics of its heads, both from core),
// with a cancel flag the GUI sets when the layer or trace changes or the panel closes, and the
// mapping from a table row to the head it describes.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/attention_stats.h"
#include "core/analysis/gate_stats.h"
#include "data/trace/trace_reader.h"

namespace gatescope::widgets {

/// One background computation's outcome. The worker writes under `mutex` and sets `done` last;
/// the GUI reads under `mutex` once `done` is set.
template <typename T>
struct StatsSlot {
    std::mutex mutex;
    std::atomic<bool> done{false};
    std::atomic<bool> cancel{false};
    std::optional<T> value;
    std::string error;
    int layer = 0;
};

using GateStatsSlot = StatsSlot<core::LayerGateStats>;
using AttentionStatsSlot = StatsSlot<std::vector<core::HeadAttentionStats>>;

/// Starts `core::gateStats` of `layer` on a detached worker (the worker keeps `reader` alive);
/// `finished` (may be empty) runs on the worker when done. Layers without gates report an error.
std::shared_ptr<GateStatsSlot> startGateStats(std::shared_ptr<const data::TraceReader> reader,
                                              int layer, std::function<void()> finished);
/// Starts `core::attentionStats` of every head of `layer` on a detached worker, cancellable
/// through the slot's `cancel` flag (then the error is "cancelled").
std::shared_ptr<AttentionStatsSlot> startAttentionStats(
    std::shared_ptr<const data::TraceReader> reader, int layer, std::function<void()> finished,
    int threads = 1);

/// The head a row of the gate table describes (rows are head-major channels); -1 out of range.
int headOfGateRow(const core::LayerGateStats& stats, size_t row);
/// The head a row of the attention table describes; -1 out of range.
int headOfAttentionRow(const std::vector<core::HeadAttentionStats>& stats, size_t row);

}  // namespace gatescope::widgets
