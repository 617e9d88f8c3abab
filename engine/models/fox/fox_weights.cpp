#include "engine/models/fox/fox_weights.h"

#include <fmt/format.h>

namespace gatescope::core::fox {

namespace {

FoxLayerWeights loadLayer(const FoxConfig& c, WeightStore& s, int i) {
    const std::string p = fmt::format("model.layers.{}.", i);
    const int64_t d = c.hiddenSize, h = c.heads, hd = c.headDim, kv = int64_t{c.kvHeads} * hd;
    FoxLayerWeights w;
    w.attnNorm = s.take(p + "attn_norm.weight", {d});
    w.mlpNorm = s.take(p + "mlp_norm.weight", {d});
    w.q.weight = s.take(p + "attn.q_proj.weight", {d, d});
    if (c.useKShift) {
        w.k.weight = s.take(p + "attn.k_proj.linear.weight", {kv, d});
        w.kShift.weight = s.take(p + "attn.k_proj.shift_proj.weight", {h, d});
    } else {
        w.k.weight = s.take(p + "attn.k_proj.weight", {kv, d});
    }
    if (c.useVShift) {
        w.v.weight = s.take(p + "attn.v_proj.linear.weight", {kv, d});
        w.vShift.weight = s.take(p + "attn.v_proj.shift_proj.weight", {h, d});
    } else {
        w.v.weight = s.take(p + "attn.v_proj.weight", {kv, d});
    }
    w.o.weight = s.take(p + "attn.o_proj.weight", {d, d});
    switch (c.forgetGate) {
        case ForgetGate::Full:
            w.forgetGate.weight = s.take(p + "attn.fgate_proj.weight", {h, d});
            w.forgetGate.bias = s.take(p + "attn.fgate_proj.bias", {h});
            break;
        case ForgetGate::BiasOnly:
        case ForgetGate::Fixed:
            w.forgetBias = s.take(p + "attn.fgate_bias", {h});
            break;
        case ForgetGate::None:
            break;
    }
    if (c.useOutputGate) w.outputGate.weight = s.take(p + "attn.ogate_proj.weight", {d, d});
    if (c.useOutputNorm) w.outputNorm = s.take(p + "attn.output_norm.weight", {d});
    if (c.qkNorm) {
        const int64_t width = c.qkNormShared ? hd : d;
        w.qNorm = s.take(p + "attn.q_norm.weight", {width});
        w.kNorm = s.take(p + "attn.k_norm.weight", {width});
    }
    w.gateUp.weight = s.take(p + "mlp.gate_proj.weight", {2 * int64_t{c.intermediateSize}, d});
    w.down.weight = s.take(p + "mlp.down_proj.weight", {d, c.intermediateSize});
    s.ignore(p + "attn.rotary.inv_freq");  // a buffer some exports carry; recomputed
    return w;
}

}  // namespace

FoxWeights loadFoxWeights(const FoxConfig& c, WeightStore& s) {
    FoxWeights w;
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

}  // namespace gatescope::core::fox
