#include "engine/nn/fla_stack.h"

#include <fmt/format.h>

#include "engine/nn/device.h"

namespace gatescope::core {

namespace {

/// The current name, or the paper-era one when only that is present.
std::string pick(const WeightStore& s, const std::string& current, const std::string& legacy) {
    return !s.has(current) && s.has(legacy) ? legacy : current;
}

}  // namespace

FlaBlockWeights loadFlaBlock(WeightStore& s, int layer, int64_t d, int64_t inter) {
    const std::string p = fmt::format("model.layers.{}.", layer);
    FlaBlockWeights w;
    w.attnNorm = s.take(pick(s, p + "attn_norm.weight", p + "attn.norm.weight"), {d});
    w.mlpNorm = s.take(pick(s, p + "mlp_norm.weight", p + "mlp.norm.weight"), {d});
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

void loadFlaEnds(WeightStore& s, int64_t vocab, int64_t d, bool tie, FlaStack& stack) {
    stack.vocabSize = vocab;
    stack.embeddings = s.take("model.embeddings.weight", {vocab, d});
    stack.finalNorm = s.take("model.norm.weight", {d});
    if (tie) {
        stack.lmHead.weight = stack.embeddings;
        if (s.has("lm_head.weight")) s.take("lm_head.weight", {vocab, d});
    } else {
        stack.lmHead.weight = s.take("lm_head.weight", {vocab, d});
    }
}

void moveFlaStack(FlaStack& stack, const DeviceMover& move) {
    move.embeddingsAndHead(stack.embeddings, stack.lmHead);
    move(stack.finalNorm);
    for (auto& b : stack.blocks) {
        move(b.attnNorm);
        move(b.mlpNorm);
        move(b.gate);
        move(b.up);
        move(b.down);
    }
}

torch::Tensor FlaStack::mixerInput(int layer, const torch::Tensor& x,
                                   const Precision& precision) const {
    return rmsNorm(x, blocks[layer].attnNorm, normEps, precision.activation());
}

torch::Tensor FlaStack::blockOutput(int layer, const torch::Tensor& x, const torch::Tensor& mixed,
                                    const Precision& precision) const {
    const FlaBlockWeights& w = blocks[layer];
    const auto act = precision.activation();
    auto residual = x + mixed;
    auto m = rmsNorm(residual, w.mlpNorm, normEps, act);
    auto gate = w.gate(m, precision).to(torch::kFloat32);
    auto up = w.up(m, precision).to(torch::kFloat32);
    auto hidden = (torch::silu(gate) * up).to(act);
    return residual + w.down(hidden, precision).to(torch::kFloat32);
}

}  // namespace gatescope::core
