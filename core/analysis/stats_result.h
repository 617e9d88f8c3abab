// What core::statsReport finds, as values: the loss curves pooled over the traces (documents of
// one model) and, per trace, the gate and attention statistics of its layers. toJson() is the
// `gatescope stats --json` document (and a batch's analyses/<checkpoint>/stats.json); callers in
// the CLI read the fields. Plain value types: copyable, thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/attention_stats.h"
#include "core/analysis/checkpoint_series.h"
#include "core/analysis/gate_events.h"
#include "core/analysis/gate_stats.h"
#include "core/analysis/loss_curves.h"

namespace gatescope::core {

/// Per-position loss over the documents, in nats. Position i is the loss of predicting token
/// i + 1 (context length i + 1); positions without a target in any document are NaN.
struct LossCurveReport {
    int64_t documents = 0;  ///< traces pooled
    /// Count-weighted mean over every position with a target; NaN when there is none.
    double meanLoss = 0;
    std::vector<double> meanByPosition;     ///< mean over the documents reaching the position
    std::vector<int64_t> countByPosition;   ///< documents with a target at the position
    std::vector<double> smoothed;           ///< centred moving average over smoothingWindow
    int smoothingWindow = 0;                ///< positions (StatsOptions::smoothingWindow)
    std::vector<double> runningPerplexity;  ///< [i]: P(i + 1), see core::runningPerplexity
    std::vector<LossBin> linearBins;        ///< meanLoss NaN for a bin without targets
    std::vector<LossBin> exponentialBins;   ///< of the context length; same convention
    int binsPerOctave = 0;                  ///< StatsOptions::binsPerOctave
    BestContext bestContext;                ///< the minimum of exponentialBins
};

/// The attention statistics of one layer's requested heads.
struct LayerAttentionStats {
    int layer = 0;
    std::vector<HeadAttentionStats> heads;
};

/// One trace's statistics, layers in the trace's order (those StatsOptions::layers asked for).
struct TraceStats {
    std::string path;
    std::string modelType;
    int64_t nTokens = 0;
    std::vector<LayerGateStats> gates;           ///< gated layers; empty without gate statistics
    std::vector<LayerAttentionStats> attention;  ///< empty unless attention was asked for
    /// This trace's own mean loss per linear bin (StatsReport::binWidth positions; NaN where no
    /// position of the bin has a target): what the horizon profiles line up with.
    std::vector<double> lossByBin;
    std::optional<GateEventReport> gateEvents;  ///< when StatsOptions::gateEvents asked for them
};

struct StatsReport {
    std::optional<LossCurveReport> loss;  ///< absent when StatsOptions::loss is off
    std::vector<TraceStats> traces;       ///< in the order given
    int64_t binWidth = 0;  ///< positions per bin of lossByBin and the horizon profiles
    double massShare = 0;  ///< of the attention horizons
    double retention = 0;  ///< of the gate horizons (GateStatsOptions::horizonThreshold)
    std::optional<SeriesReport> series;  ///< when the traces were asked for as a series

    /// {"loss" (when present): {documents, mean_loss, by_position: {mean, count, smoothed,
    /// smoothing_window, running_perplexity}, linear_bins, exponential_bins: [{begin, end,
    /// center, mean_loss, count}], bins_per_octave, best_context: {loss, context_length}},
    /// "traces": [{path, model_type, n_tokens, "gates" (when any): [{layer, timescale_min,
    /// timescale_median, timescale_max, always_on, dynamic, static, channels: [{head, channel,
    /// mean_retention, p05, p25, median, p75, p95, timescale, horizon_median,
    /// horizon_reached_fraction, kind}]}], "attention" (when any): [{layer, heads: [{head,
    /// mass_by_distance, mean_entropy, sink_mass, mean_argmax_distance, mean_distance,
    /// negligible_block_fraction}]}], "effective_context" (when any head has a horizon):
    /// {bin_width, mass_share, retention, loss_by_bin, heads: [{layer, head,
    /// attention_horizon_median, attention_horizon_by_bin, gate_horizon_median,
    /// gate_horizon_by_bin}] (null where a head has no such horizon)}, "gate_events" (when asked
    /// for): GateEventReport::toJson}], "series" (when asked for): SeriesReport::toJson}. NaN
    /// values dump as null.
    nlohmann::json toJson() const;
};

}  // namespace gatescope::core
