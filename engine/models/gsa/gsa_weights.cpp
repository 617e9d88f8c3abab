#include "engine/models/gsa/gsa_weights.h"

#include <fmt/format.h>

namespace gatescope::core::gsa {

namespace {

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
    return w;
}

}  // namespace

GsaWeights loadGsaWeights(const GsaConfig& c, WeightStore& s) {
    GsaWeights w;
    loadFlaEnds(s, c.vocabSize, c.hiddenSize, c.tieWordEmbeddings, w.stack);
    w.stack.normEps = c.normEps;
    for (int i = 0; i < c.layers; ++i) {
        w.stack.blocks.push_back(loadFlaBlock(s, i, c.hiddenSize, c.intermediateSize));
        w.layers.push_back(loadLayer(c, s, i));
    }
    s.expectAllConsumed();
    return w;
}

}  // namespace gatescope::core::gsa
