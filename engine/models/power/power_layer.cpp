#include "engine/models/power/power_layer.h"

#include <cmath>

#include "engine/models/power/power_attention_op.h"
#include "engine/models/power/power_rotary.h"
#include "engine/nn/attention.h"
#include "engine/nn/interventions.h"
#include "engine/nn/tensor_convert.h"
#include "kernels/cpu/power_attention.h"

namespace gatescope::core::power {

namespace {

/// [Hkv, N] -> [H, N] with query head h reading kv head h / ratio (repeat_interleave).
torch::Tensor toQueryHeads(const torch::Tensor& perKvHead, int ratio) {
    return ratio == 1 ? perKvHead : perKvHead.repeat_interleave(ratio, 0).contiguous();
}

nlohmann::json powerExtras(const PowerConfig& c) {
    nlohmann::json extras = {
        {"p", c.degree},
        {"eps", kernels::kPowerLogEps},
        {"row_sum_eps", kernels::kPowerRowSumEps},
        {"normalization", "sum"},
        {"gate", c.gating ? "logsigmoid(6.906768 + x), one per kv head" : "none"},
        {"qhead_ratio", c.qheadRatio},
        {"rotary", "interleaved pairs, angle pos * 2 pi / N^(2i/d), N = traced length"},
        {"state_layout", "spow (phi(a).phi(b) = (a.b)^p), keys unscaled"},
        {"chunk_size", c.chunkSize ? nlohmann::json(*c.chunkSize) : nlohmann::json(nullptr)},
        {"source", "power-attention train/model.py (3bd1a80), attention form"},
    };
    return extras;
}

}  // namespace

torch::Tensor modelLayerNorm(const torch::Tensor& x, const torch::Tensor& weight,
                             const torch::Tensor& bias) {
    const double eps = x.scalar_type() == torch::kFloat32 ? kLayerNormEpsFp32 : kLayerNormEpsLow;
    return layerNorm(x, weight, bias, eps, torch::kFloat32);
}

torch::Tensor runBlock(const BlockContext& ctx, const PowerLayerWeights& w, const torch::Tensor& x,
                       LayerRecord* rec) {
    const auto& c = ctx.config;
    const auto& precision = ctx.precision;
    const int64_t n = x.size(0), h = c.kvHeads, hq = c.heads, d = c.headDim;
    const auto residualType = x.scalar_type();

    auto a = modelLayerNorm(x, w.ln1Weight, w.ln1Bias);
    auto qkvg = w.qkvg(a, precision);
    auto q = qkvg.narrow(1, 0, hq * d).reshape({n, hq, d});
    auto k = qkvg.narrow(1, hq * d, h * d).reshape({n, h, d});
    auto v = qkvg.narrow(1, (hq + h) * d, h * d).reshape({n, h, d});
    torch::Tensor logGate;  // [Hkv, N] float32
    if (c.gating) {
        auto logits = qkvg.narrow(1, (hq + 2 * h) * d, h).to(torch::kFloat32);
        logGate = torch::log_sigmoid(logits + kGateBias).t().contiguous();
        // Only the power kernel reads the gate (sdpa ignores its columns).
        if (ctx.options && c.kernel == AttentionKernel::Power)
            logGate = intervenedLogGate(*ctx.options, ctx.layer, logGate);
    }
    q = applyRotaryInterleaved(q, ctx.sin, ctx.cos);
    k = applyRotaryInterleaved(k, ctx.sin, ctx.cos);

    auto qh = q.permute({1, 0, 2}).to(torch::kFloat32).contiguous();
    auto kh = k.permute({1, 0, 2}).to(torch::kFloat32).contiguous();
    auto vh = v.permute({1, 0, 2}).to(torch::kFloat32).contiguous();
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));

    torch::Tensor out, rowNormalizer, cumsum;
    if (c.kernel == AttentionKernel::Power) {
        // Accumulated in float64 and rounded once (the package's cumsum is float32; the
        // difference is far below the tolerance of either comparison).
        if (logGate.defined()) cumsum = logGate.to(torch::kFloat64).cumsum(1).to(torch::kFloat32);
        auto attention =
            powerAttention(qh, kh, vh, cumsum, scale, c.degree, precision.bf16, ctx.threads);
        out = attention.out;
        rowNormalizer = attention.logNormalizer;
    } else {
        auto attention = additiveDecayAttention(qh, kh, vh, torch::Tensor(), scale, 0,
                                                precision.bf16, ctx.threads);
        out = attention.out;
        rowNormalizer = attention.lse;
    }
    auto y = out.to(precision.activation()).permute({1, 0, 2}).reshape({n, hq * d});
    if (ctx.options) y = ablatedHeads(*ctx.options, ctx.layer, y, static_cast<int>(hq));
    auto residual = (x + w.attnOut(y, precision).to(residualType)).to(residualType);

    auto m = modelLayerNorm(residual, w.ln2Weight, w.ln2Bias);
    auto hidden = torch::gelu(w.fc(m, precision));
    auto result = (residual + w.mlpOut(hidden, precision).to(residualType)).to(residualType);

    if (rec) {
        auto& att = rec->attention;
        att.heads = static_cast<int>(hq);
        att.kvHeads = static_cast<int>(h);
        att.headDim = att.valueDim = static_cast<int>(d);
        att.channels = 1;
        att.scale = scale;
        att.window = 0;
        rec->factors["q"] = toFloatArray(qh);
        rec->factors["k"] = toFloatArray(kh);
        rec->factors["v"] = toFloatArray(vh);
        if (c.kernel == AttentionKernel::Power) {
            att.scoreKind = ScoreKind::Power;
            att.hasDecay = cumsum.defined();
            att.extras = powerExtras(c);
            rec->factors["log_normalizer"] = toFloatArray(rowNormalizer);
            if (cumsum.defined()) {
                rec->factors["log_decay_cumsum"] = toFloatArray(toQueryHeads(cumsum, c.qheadRatio));
                rec->logRetention = toFloatArray(toQueryHeads(logGate, c.qheadRatio).unsqueeze(-1));
            }
            auto norms = powerStateNorms(kh, vh, cumsum, c.degree, ctx.threads);
            rec->factors["state_norm"] = toFloatArray(toQueryHeads(norms.state, c.qheadRatio));
            rec->factors["normalizer_state_norm"] =
                toFloatArray(toQueryHeads(norms.normalizer, c.qheadRatio));
        } else {
            att.scoreKind = ScoreKind::AdditiveDecay;
            att.hasDecay = false;
            att.extras = {{"rotary",
                           "interleaved pairs, angle pos * 2 pi / N^(2i/d), N = traced "
                           "length"},
                          {"qhead_ratio", c.qheadRatio},
                          {"source", "power-attention train/model.py (3bd1a80), sdpa kernel"}};
            rec->factors["lse"] = toFloatArray(rowNormalizer);
        }
    }
    return result;
}

}  // namespace gatescope::core::power
