#include "engine/models/gatedfwa/gatedfwa_block.h"

#include <cmath>
#include <limits>

#include "engine/models/gatedfwa/gatedfwa_gate.h"
#include "engine/nn/attention.h"
#include "engine/nn/interventions.h"

namespace gatescope::core::gatedfwa {

namespace {

/// ShiftLinear: out_t = a_t W x_t + (1 - a_t) W x_{t-1}, a_t = sigmoid(shift_proj(x_t)) per kv
/// head. The shared tokenShift weights the *previous* token by its alpha, so it gets 1 - a_t.
torch::Tensor shifted(const torch::Tensor& projected, const Linear& shiftProj,
                      const torch::Tensor& x, int64_t heads, const Precision& precision) {
    const int64_t n = projected.size(0), width = projected.size(1);
    // token_shift.py: a one-token input without a shift state keeps the plain projection (it
    // is not mixed with a zero predecessor).
    if (n == 1) return projected;
    auto current = torch::sigmoid(shiftProj(x, precision).to(torch::kFloat32));
    return tokenShift(projected.view({n, heads, width / heads}), 1.0 - current).reshape({n, width});
}

nlohmann::json layerExtras(const GatedFwaConfig& c) {
    return {
        {"window", c.window},
        {"scale", 1.0 / std::sqrt(static_cast<double>(c.headDim))},
        {"logit_softcap", kLogitSoftcap},
        {"per_token_loss", "raw (un-softcapped) logits over vocab_size: the training/eval loss"},
        {"gate", c.forgetGate ? "log_lambda = logsigmoid(beta * h) / (beta + 1e-3), "
                                "beta = 1 + elu(x @ weight_lambda), h = fgate_proj(x); "
                                "memory gate exp(-alpha) = exp(log_lambda)"
                              : "none (plain sliding-window attention)"},
        {"gate_epsilon", kGateEpsilon},
        {"rope_base", kRopeBase},
        {"k_shift", c.kShift},
        {"v_shift", c.vShift},
        {"shift_convention",
         "out_t = a_t W x_t + (1 - a_t) W x_{t-1}, a_t = sigmoid(shift_proj(x_t))"},
    };
}

}  // namespace

torch::Tensor parameterFreeNorm(const torch::Tensor& x, torch::ScalarType outDtype) {
    return rmsNorm(x, torch::Tensor(), std::numeric_limits<float>::epsilon(), outDtype);
}

torch::Tensor gatedFwaBlock(const GatedFwaLayerWeights& w, const torch::Tensor& x,
                            const BlockContext& ctx, LayerRecord* rec, const Probe* probe) {
    const auto& c = ctx.config;
    const auto& precision = ctx.precision;
    const int64_t n = x.size(0), h = c.heads, kvh = c.kvHeads, hd = c.headDim;
    const auto act = precision.activation();

    auto a = parameterFreeNorm(x, act);
    auto q = w.q(a, precision);
    auto k = w.k(a, precision);
    auto v = w.v(a, precision);
    if (c.kShift) k = shifted(k, w.kShift, a, kvh, precision);
    if (c.vShift) v = shifted(v, w.vShift, a, kvh, precision);
    // nanochat order: token shift, then rotary, then the parameter-free QK RMSNorm.
    q = parameterFreeNorm(applyRotaryHalf(q.view({n, h, hd}), ctx.cos, ctx.sin), q.scalar_type());
    k = parameterFreeNorm(applyRotaryHalf(k.view({n, kvh, hd}), ctx.cos, ctx.sin), k.scalar_type());

    MemoryGate gate;
    torch::Tensor cumsum;  // U = cumsum(log lambda) [H, N] fp32; undefined without the gate
    if (c.forgetGate) {
        gate = memoryGate(w, a, precision);
        if (ctx.options) gate.logGate = intervenedLogGate(*ctx.options, ctx.layer, gate.logGate);
        cumsum = torch::cumsum(gate.logGate, 1).contiguous();
    }

    auto qh = q.permute({1, 0, 2}).to(torch::kFloat32).contiguous();
    auto kh = k.permute({1, 0, 2}).to(torch::kFloat32).contiguous();
    auto vh = v.view({n, kvh, hd}).permute({1, 0, 2}).to(torch::kFloat32).contiguous();
    const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
    auto attention =
        additiveDecayAttention(qh, kh, vh, cumsum, scale, c.window, precision.bf16, ctx.threads);
    auto y = attention.out.to(act).permute({1, 0, 2}).reshape({n, h * hd});
    if (ctx.options) y = ablatedHeads(*ctx.options, ctx.layer, y, static_cast<int>(h));
    auto residual = x + w.proj(y, precision).to(torch::kFloat32);

    auto m = parameterFreeNorm(residual, act);
    auto hidden = torch::relu(w.fc(m, precision).to(torch::kFloat32)).square().to(act);
    auto out = residual + w.mlpProj(hidden, precision).to(torch::kFloat32);

    if (rec) {
        auto& header = rec->attention;
        header.scoreKind = ScoreKind::AdditiveDecay;
        header.heads = static_cast<int>(h);
        header.kvHeads = static_cast<int>(kvh);
        header.headDim = header.valueDim = static_cast<int>(hd);
        header.scale = scale;
        header.window = c.window;
        header.hasDecay = c.forgetGate;
        header.extras = layerExtras(c);
        attachDeviceFactors(*rec, qh, kh, attention.lse, cumsum);
        auto factors = attentionFactors(q, k, vh, attention.lse);
        torch::Tensor logRetention;
        if (c.forgetGate) {
            factors.emplace_back("log_decay_cumsum", cumsum);
            factors.emplace_back("fgate_logit", gate.logit);
            factors.emplace_back("fgate_lambda", gate.lambda);
            logRetention = gate.logGate.unsqueeze(-1);
        }
        recordFactors(*rec, *probe, factors, logRetention);
    }
    return out;
}

}  // namespace gatescope::core::gatedfwa
