#include "engine/models/gatedfwa/gatedfwa_weights.h"

#include <fmt/format.h>

namespace gatescope::core::gatedfwa {

namespace {

// nanochat saves the compiled module's state_dict; its keys may carry this prefix.
constexpr const char* kCompiledPrefix = "_orig_mod.";

GatedFwaLayerWeights loadLayer(const GatedFwaConfig& c, WeightStore& s, const std::string& root,
                               int i) {
    const std::string p = fmt::format("{}transformer.h.{}.", root, i);
    const int64_t d = c.hiddenSize, h = c.heads, kv = int64_t{c.kvHeads} * c.headDim;
    GatedFwaLayerWeights w;
    w.q.weight = s.take(p + "attn.c_q.weight", {h * c.headDim, d});
    if (c.kShift) {
        w.k.weight = s.take(p + "attn.c_k.linear.weight", {kv, d});
        w.kShift.weight = s.take(p + "attn.c_k.shift_proj.weight", {c.kvHeads, d});
    } else {
        w.k.weight = s.take(p + "attn.c_k.weight", {kv, d});
    }
    if (c.vShift) {
        // ShiftLinear for values lives under "v_proj", the plain projection under "c_v".
        w.v.weight = s.take(p + "attn.v_proj.linear.weight", {kv, d});
        w.vShift.weight = s.take(p + "attn.v_proj.shift_proj.weight", {c.kvHeads, d});
    } else {
        w.v.weight = s.take(p + "attn.c_v.weight", {kv, d});
    }
    w.proj.weight = s.take(p + "attn.c_proj.weight", {d, d});
    if (c.forgetGate) {
        w.fgate.weight = s.take(p + "attn.fgate_proj.weight", {h, d});
        w.fgate.bias = s.take(p + "attn.fgate_proj.bias", {h});
        w.lambda.weight = s.take(p + "attn.weight_lambda", {d, h}).t().contiguous();
    }
    w.fc.weight = s.take(p + "mlp.c_fc.weight", {4 * d, d});
    w.mlpProj.weight = s.take(p + "mlp.c_proj.weight", {d, 4 * d});
    return w;
}

}  // namespace

GatedFwaWeights loadGatedFwaWeights(const GatedFwaConfig& c, WeightStore& s) {
    const std::string root =
        !s.has("lm_head.weight") && s.has(std::string(kCompiledPrefix) + "lm_head.weight")
            ? kCompiledPrefix
            : "";
    GatedFwaWeights w;
    w.embeddings = s.take(root + "transformer.wte.weight", {c.paddedVocab, c.hiddenSize});
    for (int i = 0; i < c.layers; ++i)
        w.layers.push_back(loadLayer(c, s, root, i));
    w.lmHead.weight = s.take(root + "lm_head.weight", {c.paddedVocab, c.hiddenSize});
    s.expectAllConsumed();
    return w;
}

}  // namespace gatescope::core::gatedfwa
