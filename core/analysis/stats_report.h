// The `gatescope stats` report: loss curves over one or more traces (documents), and per trace the
// gate and attention statistics of every recorded layer, as values (stats_result.h), written as
// one JSON document (StatsReport::toJson) and as CSV tables. Shared by the CLI and batch runs.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <vector>

#include "core/analysis/attention_stats.h"
#include "core/analysis/gate_stats.h"
#include "core/analysis/stats_result.h"
#include "data/common/result.h"
#include "data/trace/trace_reader.h"

namespace gatescope::core {

struct StatsOptions {
    bool loss = true;
    bool gates = true;
    bool attention = false;   ///< O(N^2) work per head (bounded memory): opt in
    std::vector<int> layers;  ///< empty: every recorded layer
    int64_t linearBinWidth = 256;
    int binsPerOctave = 4;
    int smoothingWindow = 101;
    GateStatsOptions gate;
    bool gateEvents = false;  ///< list where gates forget hard (gate_events.h)
    GateEventOptions gateEventOptions;
    /// The traces are one text through successive checkpoints (checkpoint_series.h); steps: one
    /// per trace, or empty to read them from the checkpoint folders' names.
    bool series = false;
    std::vector<int64_t> steps;
    AttentionStatsOptions attentionOptions;
};

/// Computes the report. Traces are the documents of the loss curves (they should come from one
/// model). Blocking; attention statistics run attentionOptions.threads workers. Errors: options
/// out of range (Usage), the readers' errors naming the trace and dataset, Cancelled.
Result<StatsReport> statsReport(const std::vector<std::shared_ptr<const data::TraceReader>>& traces,
                                const StatsOptions& options);

/// Writes the report's tables as CSV files into `dir` (created): loss_by_position.csv,
/// loss_linear_bins.csv, loss_exp_bins.csv, gates.csv, attention.csv, effective_context.csv,
/// gate_events.csv, series.csv (those present). The set is
/// written as one (data::writeFilesAtomically): a failure leaves none of them and keeps what `dir`
/// held.
Status writeStatsCsv(const StatsReport& report, const std::filesystem::path& dir);

}  // namespace gatescope::core
