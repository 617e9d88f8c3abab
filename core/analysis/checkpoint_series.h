// Checkpoint series: traces of one text from successive checkpoints of one training run, reduced
// to what changes with training: loss (overall and by context length), gate timescale and memory
// horizon, and with attention statistics the sink mass, attention horizon and the fraction of key
// blocks the gates make negligible (FoX's prunable fraction). One point per trace, ordered by step.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/loss_curves.h"
#include "data/common/result.h"
#include "data/trace/trace_reader.h"

namespace gatescope::core {

struct TraceStats;

/// One layer of one checkpoint. NaN where the layer has no such quantity.
struct SeriesLayer {
    int layer = 0;
    double timescaleMedian = NAN;         ///< over the layer's gate channels, tokens
    double gateHorizonMedian = NAN;       ///< median over heads of each head's median horizon
    double alwaysOnFraction = NAN;        ///< of the layer's gate channels
    double sinkMass = NAN;                ///< mean over heads (attention statistics)
    double attentionHorizonMedian = NAN;  ///< median over heads of each head's median horizon
    double prunableFraction = NAN;        ///< mean negligible block fraction over heads with decay
};

struct SeriesPoint {
    std::string path;
    int64_t step = 0;
    std::string
        stepSource;  ///< "option" (--steps), "name" (digits of the checkpoint folder), "order"
    double meanLoss = NAN;
    std::vector<LossBin> lossBins;  ///< exponential bins of this trace's own loss
    SeriesLayer overall;            ///< the same quantities over every layer (layer -1)
    std::vector<SeriesLayer> layers;
};

struct SeriesReport {
    std::vector<SeriesPoint> points;  ///< ascending step (the given order among equal steps)
    /// {points: [{path, step, step_source, mean_loss, loss_bins: [{begin, end, center,
    /// mean_loss, count}], overall: {...}, layers: [{layer, timescale_median,
    /// gate_horizon_median, always_on_fraction, sink_mass, attention_horizon_median,
    /// prunable_fraction}]}]}; NaN dumps as null.
    nlohmann::json toJson() const;
};

/// The series of `traces` (the order of `stats` for each in `perTrace`). `steps`: one per trace,
/// or empty to take each from the last number in its checkpoint folder's name, and failing that
/// from the order given. Errors: traces of other tokens than the first's, a step count other
/// than the trace count (Usage, naming the trace); the readers' errors.
Result<SeriesReport> checkpointSeries(
    const std::vector<std::shared_ptr<const data::TraceReader>>& traces,
    const std::vector<TraceStats>& perTrace, const std::vector<int64_t>& steps, int binsPerOctave);

}  // namespace gatescope::core
