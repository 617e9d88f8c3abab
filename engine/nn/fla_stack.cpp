#include "engine/nn/fla_stack.h"

#include <fmt/format.h>

#include "engine/nn/device.h"
#include "engine/nn/forward_support.h"
#include "engine/nn/tensor_convert.h"
#include "engine/nn/token_stats.h"

namespace gatescope::core {

namespace {

/// The current name, or the paper-era one when only that is present.
std::string pick(const WeightStore& s, const std::string& current, const std::string& legacy) {
    return !s.has(current) && s.has(legacy) ? legacy : current;
}

torch::Tensor block(const FlaBlockWeights& w, double eps, const torch::Tensor& x,
                    const torch::Tensor& mixed, const Precision& precision) {
    const auto act = precision.activation();
    auto residual = x + mixed;
    auto m = rmsNorm(residual, w.mlpNorm, eps, act);
    auto gate = w.gate(m, precision).to(torch::kFloat32);
    auto up = w.up(m, precision).to(torch::kFloat32);
    auto hidden = (torch::silu(gate) * up).to(act);
    return residual + w.down(hidden, precision).to(torch::kFloat32);
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
    const bool tied = stack.lmHead.weight.is_same(stack.embeddings);
    move(stack.embeddings);
    move(stack.finalNorm);
    if (tied) {
        stack.lmHead = Linear{};
        stack.lmHead.weight = stack.embeddings;
    } else {
        move(stack.lmHead);
    }
    for (auto& b : stack.blocks) {
        move(b.attnNorm);
        move(b.mlpNorm);
        move(b.gate);
        move(b.up);
        move(b.down);
    }
}

ForwardResult FlaStack::run(std::span<const int32_t> ids, std::span<const int32_t> targets,
                            const RunOptions& options, Probe* probe, const Mixer& mixer,
                            const std::string& attentionPath) const {
    const int layers = static_cast<int>(blocks.size());
    ForwardSession session(ids, targets, vocabSize, options, layers);
    const Precision precision{options.dtype == ComputeDType::BFloat16};
    auto x = embeddings.index_select(0, session.idTensor());
    for (int l = 0; l < layers; ++l) {
        session.beginLayer(l);
        const bool record = probe && probe->wantsLayer(l);
        LayerRecord rec;
        rec.layer = l;
        if (record && options.recordHidden) rec.hiddenIn = toFloatArray(x);
        auto normed = rmsNorm(x, blocks[l].attnNorm, normEps, precision.activation());
        auto mixed = mixer(l, normed, precision, options.threads, record ? &rec : nullptr);
        x = block(blocks[l], normEps, x, mixed, precision);
        if (record) probe->onLayer(std::move(rec));
    }
    ForwardResult result;
    auto hidden = rmsNorm(x, finalNorm, normEps, torch::kFloat32);
    if (options.recordHidden) result.finalHidden = toFloatArray(hidden);
    LogitsHead head{&lmHead, vocabSize, std::nullopt, false};
    session.progress(0.99, "logits");
    computeTokenStats(hidden, head, session.targets(), precision, options.returnLogits, result);
    result.attentionPath = attentionPath;
    return result;
}

}  // namespace gatescope::core
