#include "core/analysis/trace_info.h"

namespace gatescope::core {

namespace {

nlohmann::json layerJson(const data::LayerInfo& layer) {
    nlohmann::json out = {{"index", layer.index},
                          {"score_kind", layer.header.scoreKind},
                          {"heads", layer.header.nHeads},
                          {"kv_heads", layer.header.nKvHeads},
                          {"head_dim", layer.header.headDim},
                          {"channels", layer.header.nChannels},
                          {"gates", layer.hasGates},
                          {"extras", layer.header.extras}};
    for (const auto& f : layer.factors)
        out["factors"][f.name] = f.shape;
    for (const auto& p : layer.pyramids) {
        nlohmann::json pools = nlohmann::json::array();
        for (auto pool : p.pools)
            pools.push_back(data::toString(pool));
        out["pyramids"][p.map] = {{"levels", p.levels}, {"pools", pools}};
    }
    return out;
}

}  // namespace

nlohmann::json traceSummaryJson(const data::TraceSummary& s) {
    nlohmann::json out = {
        {"path", s.path},        {"format_version", s.formatVersion}, {"model_type", s.modelType},
        {"n_tokens", s.nTokens}, {"compression", s.compression},      {"per_token", s.hasPerToken}};
    for (const auto& layer : s.layers)
        out["layers"].push_back(layerJson(layer));
    return out;
}

Result<nlohmann::json> traceInfoJson(const data::TraceReader& reader) {
    auto manifest = reader.manifest();
    if (!manifest) return manifest.error();
    nlohmann::json out = traceSummaryJson(reader.summary());
    out["manifest"] = std::move(*manifest);
    return out;
}

}  // namespace gatescope::core
