#include "engine/models/power/power_weights.h"

#include <fmt/format.h>

#include "engine/nn/model_error.h"

namespace gatescope::core::power {

namespace {

Linear takeLinear(WeightStore& s, const std::string& name, int64_t out, int64_t in, bool bias) {
    Linear l;
    l.weight = s.take(name + ".weight", {out, in});
    if (bias) l.bias = s.take(name + ".bias", {out});
    return l;
}

PowerLayerWeights loadLayer(const PowerConfig& c, WeightStore& s, int i) {
    const std::string p = fmt::format("transformer.h.{}.", i);
    const int64_t d = c.hiddenSize, hd = c.headDim;
    const int64_t qkv = (int64_t{c.qheadRatio} + 2) * c.kvHeads * hd;
    const int64_t gates = c.gateColumns ? c.kvHeads : 0;  // present but unused under sdpa
    PowerLayerWeights w;
    w.ln1Weight = s.take(p + "ln_1.weight", {d});
    w.ln2Weight = s.take(p + "ln_2.weight", {d});
    if (c.bias) {
        w.ln1Bias = s.take(p + "ln_1.bias", {d});
        w.ln2Bias = s.take(p + "ln_2.bias", {d});
    }
    w.qkvg = takeLinear(s, p + "attn.c_attn", qkv + gates, d, c.bias);
    w.attnOut = takeLinear(s, p + "attn.c_proj", d, int64_t{c.heads} * hd, c.bias);
    w.fc = takeLinear(s, p + "mlp.c_fc", c.mlpSize, d, c.bias);
    w.mlpOut = takeLinear(s, p + "mlp.c_proj", d, c.mlpSize, c.bias);
    return w;
}

}  // namespace

PowerWeights loadPowerWeights(const PowerConfig& c, WeightStore& s) {
    PowerWeights w;
    w.embeddings = s.take("transformer.wte.weight", {c.vocabSize, c.hiddenSize});
    for (int i = 0; i < c.layers; ++i)
        w.layers.push_back(loadLayer(c, s, i));
    w.lnFWeight = s.take("transformer.ln_f.weight", {c.hiddenSize});
    if (c.bias) w.lnFBias = s.take("transformer.ln_f.bias", {c.hiddenSize});
    w.lmHead.weight = w.embeddings;
    if (s.has("lm_head.weight")) {
        auto head = s.take("lm_head.weight", {c.vocabSize, c.hiddenSize});
        if (!torch::equal(head, w.embeddings)) {
            throwModelError(ErrorKind::Format,
                            "lm_head.weight differs from transformer.wte.weight, but "
                            "train/model.py ties them (is this checkpoint from that code?)",
                            s.checkpoint().dir().string(), "lm_head.weight");
        }
    }
    s.expectAllConsumed();
    return w;
}

}  // namespace gatescope::core::power
