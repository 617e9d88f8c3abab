// SeriesReport::toJson: the "series" of `gatescope stats --series --json`.
#include "core/analysis/checkpoint_series.h"

namespace gatescope::core {

namespace {

nlohmann::json layerJson(const SeriesLayer& l) {
    return {{"layer", l.layer},
            {"timescale_median", l.timescaleMedian},
            {"gate_horizon_median", l.gateHorizonMedian},
            {"always_on_fraction", l.alwaysOnFraction},
            {"sink_mass", l.sinkMass},
            {"attention_horizon_median", l.attentionHorizonMedian},
            {"prunable_fraction", l.prunableFraction}};
}

}  // namespace

nlohmann::json SeriesReport::toJson() const {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : points) {
        nlohmann::json bins = nlohmann::json::array(), layers = nlohmann::json::array();
        for (const auto& b : p.lossBins)
            bins.push_back({{"begin", b.begin},
                            {"end", b.end},
                            {"center", b.center},
                            {"mean_loss", b.meanLoss},
                            {"count", b.count}});
        for (const auto& l : p.layers)
            layers.push_back(layerJson(l));
        out.push_back({{"path", p.path},
                       {"step", p.step},
                       {"step_source", p.stepSource},
                       {"mean_loss", p.meanLoss},
                       {"loss_bins", bins},
                       {"overall", layerJson(p.overall)},
                       {"layers", layers}});
    }
    return {{"points", out}};
}

}  // namespace gatescope::core
