#include "core/models/gsa/gsa_weights.h"

#include <fmt/format.h>

namespace gatescope::core::gsa {

namespace {

/// The current name, or the paper-era one when only that is present.
std::string pick(const WeightStore& s, const std::string& current, const std::string& legacy) {
    return !s.has(current) && s.has(legacy) ? legacy : current;
}

ShortConv loadConv(WeightStore& s, const std::string& name, int64_t channels, int64_t size) {
    ShortConv conv;
    conv.weight = s.take(name + ".weight", {channels, 1, size}).reshape({channels, size});
    conv.bias = s.takeOptional(name + ".bias", {channels});
    return conv;
}

GsaLayerWeights loadLayer(const GsaConfig& c, WeightStore& s, int i) {
    const std::string p = fmt::format("model.layers.{}.", i);
    const int64_t d = c.hiddenSize, kDim = int64_t{c.kvHeads} * c.headKDim;
    const int64_t vDim = int64_t{c.kvHeads} * c.headVDim;
    GsaLayerWeights w;
    w.attnNorm = s.take(pick(s, p + "attn_norm.weight", p + "attn.norm.weight"), {d});
    w.mlpNorm = s.take(pick(s, p + "mlp_norm.weight", p + "mlp.norm.weight"), {d});
    w.q.weight = s.take(p + "attn.q_proj.weight", {c.keyDim, d});
    w.k.weight = s.take(p + "attn.k_proj.weight", {kDim, d});
    w.v.weight = s.take(p + "attn.v_proj.weight", {vDim, d});
    w.f.weight = s.take(p + "attn.f_proj.weight", {int64_t{c.kvHeads} * c.slots, d});
    w.o.weight = s.take(p + "attn.o_proj.weight", {d, c.valueDim});
    if (c.useShortConv) {
        w.qConv = loadConv(s, p + "attn.q_conv1d", c.keyDim, c.convSize);
        w.kConv = loadConv(s, p + "attn.k_conv1d", kDim, c.convSize);
        w.vConv = loadConv(s, p + "attn.v_conv1d", vDim, c.convSize);
    }
    if (c.featureMap == FeatureMap::T2R) {
        w.featureMap.weight = s.take(p + "attn.feature_map.layer.weight", {c.headKDim, c.headKDim});
        w.featureMap.bias = s.takeOptional(p + "attn.feature_map.layer.bias", {c.headKDim});
    }
    // The official g_norm is RMSNorm(hidden_size); the config parser ensures value_dim matches.
    if (c.elementwiseAffine) w.gNorm = s.take(p + "attn.g_norm.weight", {c.valueDim});
    const int64_t inter = c.intermediateSize;
    if (s.has(p + "mlp.up_proj.weight")) {
        w.gate.weight = s.take(p + "mlp.gate_proj.weight", {inter, d});
        w.up.weight = s.take(p + "mlp.up_proj.weight", {inter, d});
    } else {
        // Paper-era fused projection: `gate, y = x.chunk(2, -1)`, gate rows first.
        auto fused = s.take(p + "mlp.gate_proj.weight", {2 * inter, d});
        w.gate.weight = fused.narrow(0, 0, inter).contiguous();
        w.up.weight = fused.narrow(0, inter, inter).contiguous();
    }
    w.down.weight = s.take(p + "mlp.down_proj.weight", {d, inter});
    return w;
}

}  // namespace

GsaWeights loadGsaWeights(const GsaConfig& c, WeightStore& s) {
    GsaWeights w;
    w.embeddings = s.take("model.embeddings.weight", {c.vocabSize, c.hiddenSize});
    for (int i = 0; i < c.layers; ++i)
        w.layers.push_back(loadLayer(c, s, i));
    w.finalNorm = s.take("model.norm.weight", {c.hiddenSize});
    if (c.tieWordEmbeddings) {
        w.lmHead.weight = w.embeddings;
        if (s.has("lm_head.weight")) s.take("lm_head.weight", {c.vocabSize, c.hiddenSize});
    } else {
        w.lmHead.weight = s.take("lm_head.weight", {c.vocabSize, c.hiddenSize});
    }
    s.expectAllConsumed();
    return w;
}

}  // namespace gatescope::core::gsa
