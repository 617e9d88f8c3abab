// The GatedFWA training twin of engine/models/gatedfwa: nanochat's GPTGated (the public GatedFWA
// code) with its memory gate and a sliding window, no token shift: parameter-free RMSNorms,
// half-split RoPE with bf16 tables, QK-norm after RoPE, additive log-gate decay inside a window
// of kWindow keys, relu^2 MLP, untied LM head. logits() returns the raw LM-head logits over
// vocab_size, the logits nanochat's training loss uses (the inference softcap 15 tanh(x / 15)
// is not part of training).
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "engine/models/gatedfwa/gatedfwa_config.h"
#include "engine/nn/layers.h"
#include "engine/train/train_blocks.h"
#include "engine/train/train_net.h"

namespace gatescope::core::train {

namespace {

constexpr int kWindow = 64;  ///< window_size: shorter than the training length
/// sequence_len (informational: nanochat sizes its rotary tables by it).
constexpr int kSequenceLen = 1024;

/// nanochat's norm(x) = F.rms_norm(x, (d,)): no weight, eps = float32 epsilon.
torch::Tensor nanochatNorm(const torch::Tensor& x) {
    return rmsNorm(x, torch::Tensor(), std::numeric_limits<float>::epsilon(), torch::kFloat32);
}

class GatedFwaTrainNet final : public TrainNet {
public:
    explicit GatedFwaTrainNet(const NetShape& shape) : TrainNet(shape.seed) {
        m_config = {{"model_type", "gated_fwa"},
                    {"model_config",
                     {{"sequence_len", kSequenceLen},
                      {"vocab_size", shape.vocabSize},
                      {"n_layer", shape.layers},
                      {"n_head", shape.heads},
                      {"n_kv_head", shape.heads},
                      {"n_embd", shape.hiddenSize},
                      {"window_size", kWindow},
                      {"use_forgetting_gate", true},
                      {"use_k_shift", false},
                      {"use_v_shift", false}}}};
        m_c = gatedfwa::parseGatedFwaConfig(m_config, "config.json");
        const int64_t d = m_c.hiddenSize, h = m_c.heads, hd = m_c.headDim;
        // nanochat's init: Linear N(0, (1/sqrt(fan_in) min(1, sqrt(fan_out/fan_in)))^2), the
        // embeddings N(0, 1), the output projections and the LM head zero, the gate weight
        // N(0, 0.02^2) and weight_lambda zero (beta = 1).
        auto linearStd = [](int64_t out, int64_t in) {
            return 1.0 / std::sqrt(double(in)) * std::min(1.0, std::sqrt(double(out) / double(in)));
        };
        m_params.normal("transformer.wte.weight", {m_c.paddedVocab, d}, 1.0);
        for (int l = 0; l < m_c.layers; ++l) {
            const std::string p = fmt::format("transformer.h.{}.", l);
            m_params.normal(p + "attn.c_q.weight", {h * hd, d}, linearStd(h * hd, d));
            m_params.normal(p + "attn.c_k.weight", {m_c.kvHeads * hd, d},
                            linearStd(m_c.kvHeads * hd, d));
            m_params.normal(p + "attn.c_v.weight", {m_c.kvHeads * hd, d},
                            linearStd(m_c.kvHeads * hd, d));
            m_params.constant(p + "attn.c_proj.weight", {d, h * hd}, 0.0);
            m_params.normal(p + "attn.fgate_proj.weight", {h, d}, kInitStd);
            // nanochat starts every head at bias 2.0 (lambda ~ 0.88); spread over heads (logit(0.7)
            // .. logit(0.998), around 2.0) so that heads start local to long-range and can
            // specialise.
            m_params.add(p + "attn.fgate_proj.bias", spreadGateBias(h));
            m_params.constant(p + "attn.weight_lambda", {d, h}, 0.0);
            m_params.normal(p + "mlp.c_fc.weight", {4 * d, d}, linearStd(4 * d, d));
            m_params.constant(p + "mlp.c_proj.weight", {d, 4 * d}, 0.0);
        }
        m_params.constant("lm_head.weight", {m_c.paddedVocab, d}, 0.0);
    }

    torch::Tensor reportedLogits(const torch::Tensor& logits) const override {
        return gatedfwa::kLogitSoftcap * torch::tanh(logits / gatedfwa::kLogitSoftcap);
    }

    torch::Tensor logits(const torch::Tensor& ids) override {
        const auto& P = m_params;
        const int64_t b = ids.size(0), n = ids.size(1), h = m_c.heads, hkv = m_c.kvHeads;
        const int64_t hd = m_c.headDim;
        // nanochat's rotary: bf16 tables, y1 = x1 cos + x2 sin (applyRotaryHalf with -sin).
        auto [cos, sin] = rotaryTables(n, hd, gatedfwa::kRopeBase);
        cos = roundTrip(cos, torch::kBFloat16).to(ids.device());
        sin = (-roundTrip(sin, torch::kBFloat16)).to(ids.device());
        const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
        auto x = nanochatNorm(
            P.get("transformer.wte.weight").index_select(0, ids.flatten()).view({b, n, -1}));
        for (int l = 0; l < m_c.layers; ++l) {
            const std::string p = fmt::format("transformer.h.{}.", l);
            auto a = nanochatNorm(x);
            auto q = nanochatNorm(
                applyRotaryHalf(linear(a, P, p + "attn.c_q").view({b, n, h, hd}), cos, sin));
            auto k = nanochatNorm(
                applyRotaryHalf(linear(a, P, p + "attn.c_k").view({b, n, hkv, hd}), cos, sin));
            auto v = linear(a, P, p + "attn.c_v").view({b, n, hkv, hd});
            // log lambda = logsigmoid(beta h) / (beta + eps), beta = 1 + elu(x W_beta): [B, N, H].
            auto logit = linear(a, P, p + "attn.fgate_proj");
            auto beta = torch::elu(torch::matmul(a, P.get(p + "attn.weight_lambda"))) + 1.0;
            auto logGate =
                torch::log_sigmoid(logit * beta) * (1.0 / (beta + gatedfwa::kGateEpsilon));
            auto bias = pairwiseDecay(torch::cumsum(logGate.permute({0, 2, 1}), -1));
            auto o = denseCausalAttention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                          bias, scale, m_c.window);
            x = x + linear(o.transpose(1, 2).reshape({b, n, h * hd}), P, p + "attn.c_proj");
            auto hidden = torch::relu(linear(nanochatNorm(x), P, p + "mlp.c_fc")).square();
            x = x + linear(hidden, P, p + "mlp.c_proj");
        }
        return linear(nanochatNorm(x), P, "lm_head").narrow(-1, 0, m_c.vocabSize);
    }

private:
    gatedfwa::GatedFwaConfig m_c;
};

}  // namespace

std::unique_ptr<TrainNet> makeGatedFwaTrainNet(const NetShape& shape) {
    return std::make_unique<GatedFwaTrainNet>(shape);
}

}  // namespace gatescope::core::train
