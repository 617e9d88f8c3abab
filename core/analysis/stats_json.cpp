// StatsReport::toJson: the `gatescope stats --json` document. Its keys and value types are what
// the CLI wrote before the report became a struct (docs and scripts read them).
#include "core/analysis/effective_context.h"
#include "core/analysis/stats_result.h"

namespace gatescope::core {

namespace {

nlohmann::json binsJson(const std::vector<LossBin>& bins) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& b : bins)
        out.push_back({{"begin", b.begin},
                       {"end", b.end},
                       {"center", b.center},
                       {"mean_loss", b.meanLoss},
                       {"count", b.count}});
    return out;
}

nlohmann::json lossJson(const LossCurveReport& loss) {
    return {
        {"documents", loss.documents},
        {"mean_loss", loss.meanLoss},
        {"by_position",
         {{"mean", loss.meanByPosition},
          {"count", loss.countByPosition},
          {"smoothed", loss.smoothed},
          {"smoothing_window", loss.smoothingWindow},
          {"running_perplexity", loss.runningPerplexity}}},
        {"linear_bins", binsJson(loss.linearBins)},
        {"exponential_bins", binsJson(loss.exponentialBins)},
        {"bins_per_octave", loss.binsPerOctave},
        {"best_context",
         {{"loss", loss.bestContext.loss}, {"context_length", loss.bestContext.contextLength}}}};
}

nlohmann::json gateJson(const LayerGateStats& s) {
    nlohmann::json channels = nlohmann::json::array();
    for (const auto& c : s.channels)
        channels.push_back({{"head", c.head},
                            {"channel", c.channel},
                            {"mean_retention", c.meanRetention},
                            {"p05", c.p05},
                            {"p25", c.p25},
                            {"median", c.median},
                            {"p75", c.p75},
                            {"p95", c.p95},
                            {"timescale", c.timescale},
                            {"horizon_median", c.horizonMedian},
                            {"horizon_reached_fraction", c.horizonReachedFraction},
                            {"kind", c.kind}});
    return {{"layer", s.layer},
            {"timescale_min", s.timescaleMin},
            {"timescale_median", s.timescaleMedian},
            {"timescale_max", s.timescaleMax},
            {"always_on", s.alwaysOn},
            {"dynamic", s.dynamic},
            {"static", s.staticChannels},
            {"channels", channels}};
}

nlohmann::json attentionJson(const LayerAttentionStats& layer) {
    nlohmann::json heads = nlohmann::json::array();
    for (const auto& h : layer.heads)
        heads.push_back({{"head", h.head},
                         {"mass_by_distance", h.massByDistance},
                         {"mean_entropy", h.meanEntropy},
                         {"sink_mass", h.sinkMass},
                         {"mean_argmax_distance", h.meanArgmaxDistance},
                         {"mean_distance", h.meanDistance},
                         {"negligible_block_fraction", h.negligibleBlockFraction}});
    return {{"layer", layer.layer}, {"heads", heads}};
}

nlohmann::json profileMedian(const PositionProfile* p) {
    return p ? nlohmann::json(p->median) : nlohmann::json();
}

nlohmann::json profileBins(const PositionProfile* p) {
    return p ? nlohmann::json(p->byBin) : nlohmann::json();
}

nlohmann::json contextJson(const StatsReport& report, const TraceStats& t,
                           const std::vector<HeadContext>& heads) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& h : heads)
        rows.push_back({{"layer", h.layer},
                        {"head", h.head},
                        {"attention_horizon_median", profileMedian(h.attention)},
                        {"attention_horizon_by_bin", profileBins(h.attention)},
                        {"gate_horizon_median", profileMedian(h.gate)},
                        {"gate_horizon_by_bin", profileBins(h.gate)}});
    return {{"bin_width", report.binWidth},
            {"mass_share", report.massShare},
            {"retention", report.retention},
            {"loss_by_bin", t.lossByBin},
            {"heads", rows}};
}

nlohmann::json traceJson(const StatsReport& report, const TraceStats& t) {
    nlohmann::json out = {{"path", t.path}, {"model_type", t.modelType}, {"n_tokens", t.nTokens}};
    // "gates" and "attention" appear only when they hold a layer, as they always have.
    for (const auto& g : t.gates)
        out["gates"].push_back(gateJson(g));
    for (const auto& a : t.attention)
        out["attention"].push_back(attentionJson(a));
    if (auto heads = effectiveContext(t); !heads.empty())
        out["effective_context"] = contextJson(report, t, heads);
    if (t.gateEvents) out["gate_events"] = t.gateEvents->toJson();
    return out;
}

}  // namespace

nlohmann::json StatsReport::toJson() const {
    nlohmann::json out = {{"traces", nlohmann::json::array()}};
    if (loss) out["loss"] = lossJson(*loss);
    if (series) out["series"] = series->toJson();
    for (const auto& t : traces)
        out["traces"].push_back(traceJson(*this, t));
    return out;
}

}  // namespace gatescope::core
