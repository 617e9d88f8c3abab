// Layer statistics for the Statistics dock, display-free: the gate statistics of a layer and the
// exact attention statistics of its heads (both from core), as blocking calls for a worker (the
// panel runs them through a JobScope, whose cancel flag they poll), and the mapping from a table
// row to the head it describes.
#pragma once

#include <atomic>
#include <vector>

#include "core/analysis/attention_stats.h"
#include "core/analysis/gate_stats.h"
#include "data/common/result.h"
#include "data/trace/trace_reader.h"

namespace gatescope::widgets {

/// `core::gateStats` of `layer`. Blocking (call on a worker); any thread. Errors: a layer
/// without gates (Missing), the trace's read errors, and Cancelled when `cancelled` is set
/// after the gates are read.
Result<core::LayerGateStats> computeGateStats(const data::TraceReader& reader, int layer,
                                              const std::atomic<bool>& cancelled);
/// `core::attentionStats` of every head of `layer` on `threads` threads, stopped early when
/// `cancelled` is set. Blocking (call on a worker); any thread. Errors: core's.
Result<std::vector<core::HeadAttentionStats>> computeAttentionStats(
    const data::TraceReader& reader, int layer, int threads, const std::atomic<bool>& cancelled);

/// The head a row of the gate table describes (rows are head-major channels); -1 out of range.
int headOfGateRow(const core::LayerGateStats& stats, size_t row);
/// The head a row of the attention table describes; -1 out of range.
int headOfAttentionRow(const std::vector<core::HeadAttentionStats>& stats, size_t row);

}  // namespace gatescope::widgets
