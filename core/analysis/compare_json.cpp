// TraceComparison::toJson: the `gatescope compare --json` document. Its keys and value types are
// what the CLI wrote before the comparison became a struct (docs and scripts read them).
#include "core/analysis/compare_result.h"

namespace gatescope::core {

namespace {

nlohmann::json optionalNumber(const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json binsJson(const std::vector<LossGapBin>& bins) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& bin : bins)
        out.push_back({{"begin", bin.begin},
                       {"end", bin.end},
                       {"center", bin.center},
                       {"mean_delta", optionalNumber(bin.meanDelta)},
                       {"count", bin.count},
                       {"share_of_gap", optionalNumber(bin.shareOfGap)}});
    return out;
}

nlohmann::json lossJson(const LossDelta& loss) {
    return {{"delta", loss.delta},
            {"mean_delta", loss.meanDelta},
            {"total_delta", loss.totalDelta},
            {"positions", loss.positions},
            {"a_better_fraction", loss.aBetterFraction},
            {"linear_bins", binsJson(loss.linearBins)},
            {"exponential_bins", binsJson(loss.exponentialBins)}};
}

nlohmann::json headJson(const HeadComparison& head) {
    nlohmann::json out = {{"head", head.head}};
    if (head.gates)
        out.update({{"gate_abs_diff", head.gates->absDiff},
                    {"retention_diff", head.gates->retentionDiff}});
    if (head.attention)
        out.update({{"kl_ab", head.attention->klAB},
                    {"kl_ba", head.attention->klBA},
                    {"js", head.attention->js},
                    {"total_variation", head.attention->totalVariation}});
    return out;
}

}  // namespace

nlohmann::json TraceComparison::toJson() const {
    nlohmann::json out = {{"a", a},
                          {"b", b},
                          {"alignment",
                           {{"identical", alignment.identical},
                            {"note", alignment.note},
                            {"aligned_positions", alignment.pairs.size()}}}};
    if (loss) out["loss"] = lossJson(*loss);
    out["layers"] = nlohmann::json::array();
    for (const auto& layer : layers) {
        nlohmann::json heads = nlohmann::json::array();
        for (const auto& head : layer.heads)
            heads.push_back(headJson(head));
        out["layers"].push_back({{"layer", layer.layer}, {"heads", std::move(heads)}});
    }
    return out;
}

}  // namespace gatescope::core
